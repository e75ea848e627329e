"""Shared fixtures: a tiny but real yaksa project (subsets of ../shared/data + 1 Synthea patient).

Building it runs every stage for real; tests that change it work on a copy.
"""

from __future__ import annotations

import csv
import ctypes
import gc
import io
import json
import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import yaml

from tests.postgres_server import postgres_server, postgres_url  # noqa: F401 - fixtures (-k postgres)
from yaksa.host import configure_offline_env

configure_offline_env()

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared" / "data"
DRUG_ROWS = 25  # plus a few headache products from further down (see _mfds_subset)


def shared_or_skip(*parts: str) -> Path:
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"shared data not available: {path.relative_to(SHARED.parent.parent)}")
    return path


# The suite runs in one process for 35 minutes: a module's agent runtime (tokenizer, MedCAT pack,
# searcher) sits in reference cycles that only a full collection frees, so without one the process
# grew by ~0.5 GB per agent test module (8.8 GB after tests/agent) and CI's 24 GiB machine killed it.
GROWTH_BEFORE_COLLECT_MB = 300


def _rss_mb() -> int:
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            return next((int(line.split()[1]) // 1024 for line in fh if line.startswith("VmRSS:")), 0)
    except OSError:  # not Linux: nothing to measure, nothing to trim
        return 0


def _release_memory() -> None:
    gc.collect()
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)  # hand freed arenas back to the system
    except (OSError, AttributeError):
        pass


@pytest.fixture(scope="module", autouse=True)
def release_module_memory() -> Iterator[None]:
    """After each test module, a full collection when the process grew noticeably during it."""
    before = _rss_mb()
    yield
    if _rss_mb() - before > GROWTH_BEFORE_COLLECT_MB:
        _release_memory()


@pytest.fixture(scope="session")
def shared_data() -> Callable[[str], Path]:
    """`shared_data("medquad/passages.jsonl")` → the real file, or skip when it is not on this machine."""
    return lambda rel: shared_or_skip(*rel.split("/"))


def _head_lines(src: Path, dst: Path, n: int) -> None:
    dst.parent.mkdir(parents=True, exist_ok=True)
    with src.open(encoding="utf-8") as fh, dst.open("w", encoding="utf-8") as out:
        for i, line in enumerate(fh):
            if i >= n:
                break
            out.write(line)


def _head_csv(src: Path, dst: Path, n: int, header: bool = True) -> None:
    """Copy the first n records (CSV fields may span lines), keeping the BOM of the original."""
    dst.parent.mkdir(parents=True, exist_ok=True)
    raw = src.read_bytes()
    bom = raw.startswith(b"\xef\xbb\xbf")
    rows = list(csv.reader(io.StringIO(raw.decode("utf-8-sig"))))
    keep = rows[: n + (1 if header else 0)]
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows(keep)
    dst.write_bytes((b"\xef\xbb\xbf" if bom else b"") + buf.getvalue().encode("utf-8"))


def _mfds_subset(src: Path, dst: Path, n: int) -> None:
    """The first n products plus a few headache products (acetaminophen, ibuprofen) from further down.

    Why the extra rows: the first products of the dump include no headache medicine, and questions
    like "두통이 있는데 타이레놀 먹어도 되나요?" must have their answer in the tiny bundle now that a named
    drug is a constraint (an unrelated product no longer stands in for it).
    """
    dst.parent.mkdir(parents=True, exist_ok=True)
    raw = src.read_bytes()
    rows = list(csv.reader(io.StringIO(raw.decode("utf-8-sig"))))
    head, body = rows[0], rows[1:]
    extra: list[list[str]] = []
    for ingredient, wanted in (("아세트아미노펜", 3), ("이부프로펜", 2)):
        # single-ingredient products (the ingredient in the product name) first
        found = sorted((r for r in body[n:] if any(ingredient in f for f in r) and "두통" in r[3]),
                       key=lambda r: ingredient not in r[1])
        extra.extend(found[:wanted])
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows([head, *body[:n], *extra])
    dst.write_bytes((b"\xef\xbb\xbf" if raw.startswith(b"\xef\xbb\xbf") else b"") + buf.getvalue().encode("utf-8"))


MM_RECORDS = REPO / "data" / "raw" / "mm-cases" / "mm_cases.jsonl"
TINY_LEFT_OUT_MM = ("2024-001", "2024-002")


def _mm_records(dst: Path) -> None:
    """The repository's M&M records but the two pulmonary embolism ones.

    Why leave them out: the critique's fourth scenario is the PE patient whose internal hits are all
    unrelated cases (the design's Crohn / H. pylori lesson); with the PE records present it would be a
    plain hybrid run."""
    dst.parent.mkdir(parents=True, exist_ok=True)
    lines = [line for line in MM_RECORDS.read_text("utf-8").splitlines()
             if line.strip() and json.loads(line)["id"] not in TINY_LEFT_OUT_MM]
    dst.write_text("\n".join(lines) + "\n", "utf-8")


def _stride_lines(src: Path, dst: Path, n: int) -> None:
    """Every k-th line of `src` (n in all): the real-question files are grouped by source, so a stride
    keeps every source while the tiny build stays tiny."""
    lines = [line for line in src.read_text("utf-8").splitlines() if line.strip()]
    step = max(1, len(lines) // n)
    dst.parent.mkdir(parents=True, exist_ok=True)
    dst.write_text("\n".join(lines[::step][:n]) + "\n", "utf-8")


TINY_REAL_QUESTIONS = 240  # lines of each real-question file in the tiny project (the scope model's data)


def make_tiny_project(root: Path, drug_rows: int = DRUG_ROWS) -> Path:
    """Write params.yaml and subset raw data under `root`; returns the params path."""
    raw = root / "data" / "raw"
    _mfds_subset(shared_or_skip("mfds-easy-drug-500", "drug500_data.csv"), raw / "mfds-easy-drug-500" / "drug500_data.csv", drug_rows)
    pills = raw / "mfds-pill-idntfc-sample"
    pills.mkdir(parents=True)
    shutil.copy(shared_or_skip("mfds-pill-idntfc-sample", "pills_data.available_in_api.csv"), pills)
    _head_lines(shared_or_skip("medquad", "passages.jsonl"), raw / "medquad" / "passages.jsonl", 40)
    _head_lines(shared_or_skip("pubmedqa", "abstracts.jsonl"), raw / "pubmedqa" / "abstracts.jsonl", 20)
    _head_csv(shared_or_skip("mtsamples-first400", "mtsamples_first400.csv"),
              raw / "mtsamples-first400" / "mtsamples_first400.csv", 10, header=False)
    _mm_records(raw / "mm-cases" / "mm_cases.jsonl")
    for name in ("oos_ko.jsonl", "med_ko.jsonl", "posts_ko.jsonl"):
        _stride_lines(shared_or_skip("real-questions", name), raw / "real-questions" / name, TINY_REAL_QUESTIONS)
    _stride_lines(shared_or_skip("medmcqa-test", "test.jsonl"), raw / "medmcqa-test" / "test.jsonl", 60)
    params = yaml.safe_load((REPO / "params.yaml").read_text("utf-8"))
    params["scope"]["train_limit_per_source"] = 40   # the learned scope model on a few dozen texts per source
    params["synthea"]["patients"] = 1
    params["index"]["keep_versions"] = 2
    params["regression"]["per_category"] = 2   # the DVC `regress` stage replays a slice, not the whole suite
    path = root / "params.yaml"
    path.write_text(yaml.safe_dump(params, allow_unicode=True, sort_keys=False), "utf-8")
    return path


# `YAKSA_TEST_TINY_CACHE=/some/dir pytest ...` builds the tiny project once into that folder and later
# sessions copy it (minutes saved per run on a busy 2-core machine); stale when the build code changes:
# delete the folder then. scripts/test.sh sets it to a fresh temporary folder, so its three pytest runs
# (CI's included) build the project once.
TINY_CACHE_ENV = "YAKSA_TEST_TINY_CACHE"
TINY_CACHE_MARK = ".tiny-project-complete"


@pytest.fixture(scope="session")
def tiny_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fully built and published tiny project (read-only for tests: copy it to modify)."""
    from yaksa.config import load_settings
    from yaksa.pipeline.stages import STAGES, run_stage

    root = tmp_path_factory.mktemp("tiny-project")
    cache = os.environ.get(TINY_CACHE_ENV, "").strip()
    if cache and (Path(cache) / TINY_CACHE_MARK).is_file():
        shutil.rmtree(root)
        shutil.copytree(cache, root, symlinks=True)
        return root
    params = make_tiny_project(root)
    settings = load_settings(params)
    for stage in STAGES:
        run_stage(stage, settings, progress=False)
    if cache:  # keep a copy for the next session (a developer's shortcut; CI never sets it)
        tmp = Path(f"{cache}.tmp-{os.getpid()}")
        shutil.rmtree(tmp, ignore_errors=True)
        shutil.copytree(root, tmp, symlinks=True)
        (tmp / TINY_CACHE_MARK).write_text("built by tests/conftest.py\n", "utf-8")
        shutil.rmtree(cache, ignore_errors=True)
        tmp.rename(cache)
    return root


@pytest.fixture()
def tiny_copy(tiny_project: Path, tmp_path: Path) -> Path:
    """A private copy of the built tiny project that a test may change."""
    dst = tmp_path / "project"
    shutil.copytree(tiny_project, dst, symlinks=True)
    return dst
