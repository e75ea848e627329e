from __future__ import annotations

from pathlib import Path

from yaksa.pipeline.rawdata import PLACEHOLDER, SHARED_FOLDERS, link_shared_data


def test_links_present_folders_and_marks_missing_ones(tmp_path: Path) -> None:
    shared = tmp_path / "shared" / "data"
    (shared / "medquad").mkdir(parents=True)
    (shared / "medquad" / "passages.jsonl").write_text("{}\n", "utf-8")
    raw = tmp_path / "project" / "data" / "raw"
    linked, missing = link_shared_data(raw, shared)
    assert linked == ["medquad"]
    assert set(missing) == set(SHARED_FOLDERS) - {"medquad"}
    link = raw / "medquad"
    assert link.is_symlink() and not Path(link.readlink()).is_absolute()
    assert (link / "passages.jsonl").read_text("utf-8") == "{}\n"
    placeholder = raw / "pubmedqa"
    assert placeholder.is_dir() and [p.name for p in placeholder.iterdir()] == [PLACEHOLDER]


def test_placeholder_is_replaced_once_the_data_appears(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    raw = tmp_path / "raw"
    link_shared_data(raw, shared)
    (shared / "pubmedqa").mkdir(parents=True)
    linked, _ = link_shared_data(raw, shared)
    assert "pubmedqa" in linked and (raw / "pubmedqa").is_symlink()


def test_real_directory_is_left_alone(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    (shared / "medquad").mkdir(parents=True)
    raw = tmp_path / "raw"
    (raw / "medquad").mkdir(parents=True)
    (raw / "medquad" / "full_dump.jsonl").write_text("{}\n", "utf-8")
    link_shared_data(raw, shared)
    assert not (raw / "medquad").is_symlink()
    assert (raw / "medquad" / "full_dump.jsonl").exists()
