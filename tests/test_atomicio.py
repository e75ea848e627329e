from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from yaksa.atomicio import atomic_write, atomic_write_text, write_json


def test_written_files_honour_the_umask(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        write_json(tmp_path / "a.json", {"k": "두통"})
    finally:
        os.umask(old)
    mode = stat.S_IMODE((tmp_path / "a.json").stat().st_mode)
    assert mode == 0o644  # readable by a server running as another user
    assert '"두통"' in (tmp_path / "a.json").read_text("utf-8")


def test_a_failed_write_keeps_the_old_file_and_leaves_no_temp(tmp_path: Path) -> None:
    target = tmp_path / "x.txt"
    atomic_write_text(target, "old")

    def half_then_crash(tmp: Path) -> None:
        tmp.write_text("half", encoding="utf-8")
        raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        atomic_write(target, half_then_crash)
    assert target.read_text("utf-8") == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["x.txt"]
