"""Fixtures for the corpus tests: the shared real data, a small Synthea run, tiny temp projects."""

from __future__ import annotations

import csv
import shutil
from collections.abc import Callable
from datetime import date
from pathlib import Path

import pytest
import yaml

SYNTHEA_SEED = 42
SYNTHEA_REFERENCE_DATE = date(2025, 1, 1)


@pytest.fixture(scope="session")
def synthea_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two Synthea patients (seed 42, pinned reference date), generated once per test session."""
    from yaksa.corpus import synthea

    out = tmp_path_factory.mktemp("synthea") / "run1"
    assert synthea.generate(out, 2, SYNTHEA_SEED, "Massachusetts", reference_date=SYNTHEA_REFERENCE_DATE) == 2
    return out


def head_lines(src: Path, dst: Path, n: int) -> Path:
    """Copy the first `n` lines of a JSONL file."""
    dst.parent.mkdir(parents=True, exist_ok=True)
    with src.open("rb") as fin:
        dst.write_bytes(b"".join(line for _, line in zip(range(n), fin, strict=False)))
    return dst


def head_csv(src: Path, dst: Path, n: int, header: bool = True, keep: Callable[[list[str]], bool] | None = None) -> Path:
    """Copy the header and the first `n` records of a CSV (plus any record `keep` accepts), with a BOM."""
    rows = list(csv.reader(src.open(encoding="utf-8-sig", newline="")))
    head, body = (rows[:1], rows[1:]) if header else ([], rows)
    chosen = [r for i, r in enumerate(body) if i < n or (keep is not None and keep(r))]
    dst.parent.mkdir(parents=True, exist_ok=True)
    with dst.open("w", encoding="utf-8-sig", newline="") as fh:
        csv.writer(fh).writerows(head + chosen)
    return dst


@pytest.fixture
def tiny_raw(tmp_path: Path, shared_data: Callable[[str], Path], synthea_dir: Path) -> Path:
    """A raw directory with small subsets of every real source (copies in tmp_path only)."""
    raw = tmp_path / "project" / "data" / "raw"
    drugs = head_csv(shared_data("mfds-easy-drug-500/drug500_data.csv"),
                     raw / "mfds-easy-drug-500" / "drug500_data.csv", 20)
    items = {r[2] for r in list(csv.reader(drugs.open(encoding="utf-8-sig", newline="")))[1:]}
    head_csv(shared_data("mfds-pill-idntfc-sample/pills_data.available_in_api.csv"),
             raw / "mfds-pill-idntfc-sample" / "pills.csv", 30, keep=lambda r: r[0] in items)
    head_lines(shared_data("medquad/passages.jsonl"), raw / "medquad" / "passages.jsonl", 40)
    head_lines(shared_data("pubmedqa/abstracts.jsonl"), raw / "pubmedqa" / "abstracts.jsonl", 20)
    head_csv(shared_data("mtsamples-first400/mtsamples_first400.csv"),
             raw / "mtsamples-first400" / "mtsamples_first400.csv", 15, header=False)
    shutil.copytree(synthea_dir, raw / "synthea")
    return raw


@pytest.fixture
def write_params() -> Callable[..., Path]:
    """`write_params(project_dir, sources=..., max_reject_rate=..., limit=...)` → params.yaml path."""

    def write(project: Path, sources: dict[str, str] | None = None, max_reject_rate: float = 0.10,
              limit: int = 0) -> Path:
        params = {
            "paths": {"raw": "data/raw", "processed": "data/processed", "indexes": "indexes",
                      "embedding_cache": "data/cache/embeddings"},
            "sources": sources if sources is not None else {
                "mfds_easy_drug": "mfds-easy-drug-500",
                "mfds_pill": "mfds-pill-idntfc-sample",
                "medquad": "medquad/passages.jsonl",
                "pubmedqa": "pubmedqa/abstracts.jsonl",
                "mtsamples": "mtsamples-first400/mtsamples_first400.csv",
                "synthea": "synthea",
            },
            "ingest": {"max_reject_rate": max_reject_rate, "limit_per_source": limit},
        }
        project.mkdir(parents=True, exist_ok=True)
        path = project / "params.yaml"
        path.write_text(yaml.safe_dump(params, allow_unicode=True), encoding="utf-8")
        return path

    return write
