from __future__ import annotations

import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.index.conftest import drug_collection
from yaksa.index.errors import BundleError
from yaksa.index.publish import _locked, current_version, list_versions, prune_versions, publish
from yaksa.index.reader import Bundle, open_bundle, resolve_bundle


def test_publish_switches_current(build, indexes_root: Path) -> None:
    assert current_version(indexes_root) is None
    build(version="v1")
    build(version="v2")
    seen: list[str] = []

    def check(bundle: Bundle) -> None:
        rows, _ = bundle.collections["drugs"].bm25_search(["타이레놀정"], k=3)
        assert rows.size > 0, "sanity query found nothing"
        seen.append(bundle.version)

    publish(indexes_root, "v1", check=check)
    assert current_version(indexes_root) == "v1"
    assert (indexes_root / "CURRENT").read_text() == "v1\n"
    publish(indexes_root, "v2", check=check)
    assert current_version(indexes_root) == "v2" and seen == ["v1", "v2"]
    assert not [p for p in indexes_root.iterdir() if p.name.startswith(".CURRENT")]


def test_failing_check_leaves_current_untouched(build, indexes_root: Path) -> None:
    build(version="v1")
    build(version="v2")
    publish(indexes_root, "v1")

    def check(bundle: Bundle) -> None:
        rows, _ = bundle.collections["drugs"].bm25_search(["없는약"], k=3)
        assert rows.size > 0, "sanity query found nothing"

    with pytest.raises(BundleError, match="sanity check failed: sanity query found nothing"):
        publish(indexes_root, "v2", check=check)
    assert current_version(indexes_root) == "v1"
    assert list_versions(indexes_root) == ["v1", "v2"]  # no pruning after a refusal


def test_corrupt_or_missing_bundle_is_not_published(build, indexes_root: Path) -> None:
    build(version="v1")
    bad = build(version="v2")
    publish(indexes_root, "v1")
    (bad / "drugs" / "dense.faiss").write_bytes(b"garbage")
    with pytest.raises(BundleError, match="checksum mismatch for drugs/dense.faiss"):
        publish(indexes_root, "v2")
    with pytest.raises(BundleError, match="not found"):
        publish(indexes_root, "v3")
    with pytest.raises(BundleError, match="invalid bundle version"):
        publish(indexes_root, "../v1")
    assert current_version(indexes_root) == "v1"


def test_list_versions_only_complete_bundles_oldest_first(build, indexes_root: Path) -> None:
    for v in ("b", "a", "c"):  # creation order, not name order
        build(version=v)
    (indexes_root / ".tmp-d-123").mkdir()
    (indexes_root / "half").mkdir()  # no manifest.json: not a bundle
    assert list_versions(indexes_root) == ["b", "a", "c"]


def test_prune_keeps_last_n_and_never_current(build, indexes_root: Path) -> None:
    for v in ("v1", "v2", "v3", "v4", "v5"):
        build(version=v)
    publish(indexes_root, "v2", keep=5)
    assert prune_versions(indexes_root, keep=2) == ["v1", "v3"]
    assert list_versions(indexes_root) == ["v2", "v4", "v5"]
    assert current_version(indexes_root) == "v2"
    assert not [p for p in indexes_root.iterdir() if p.name.startswith(".tmp-")]
    with pytest.raises(ValueError, match="keep"):
        prune_versions(indexes_root, keep=0)


def test_publish_prunes_old_versions(build, indexes_root: Path) -> None:
    for v in ("v1", "v2", "v3", "v4"):
        build(version=v)
    publish(indexes_root, "v4", keep=2)
    assert list_versions(indexes_root) == ["v3", "v4"]


def test_prune_removes_only_stale_temp_dirs(build, indexes_root: Path) -> None:
    build(version="v1")
    old = time.time() - 2 * 3600
    stale = indexes_root / ".tmp-x-999999999"  # dead writer, two hours old
    fresh = indexes_root / ".tmp-y-999999999"  # dead writer, but recent
    alive = indexes_root / f".tmp-z-{os.getpid()}"  # old, but its writer is running
    for d in (stale, fresh, alive):
        (d / "drugs").mkdir(parents=True)
    os.utime(stale, (old, old))
    os.utime(alive, (old, old))
    assert prune_versions(indexes_root, keep=3) == [stale.name]
    assert fresh.is_dir() and alive.is_dir() and not stale.exists()


def test_lock_serialises_publishes(build, indexes_root: Path) -> None:
    build(version="v1")
    with ThreadPoolExecutor(max_workers=1) as pool:
        with _locked(indexes_root):
            future = pool.submit(publish, indexes_root, "v1")
            time.sleep(0.3)
            assert not future.done() and current_version(indexes_root) is None  # blocked on the lock
        future.result(timeout=10)  # re-raises anything publish raised
    assert current_version(indexes_root) == "v1"


def test_published_bundle_serves_after_publish(build, indexes_root: Path) -> None:
    drugs = drug_collection()
    build([drugs], version="v1")
    publish(indexes_root, "v1")
    with open_bundle(resolve_bundle(indexes_root)) as bundle:
        rows, _ = bundle.collections["drugs"].dense_search(drugs.vectors[3], k=1)
        assert bundle.collections["drugs"].documents(rows) == [drugs.documents[3]]


def test_prune_keeps_a_version_a_process_still_has_open(build, indexes_root: Path) -> None:
    """A worker that has not swapped yet keeps its bundle's directory (and a restart of it works)."""
    for v in ("v1", "v2", "v3"):
        build(version=v)
    publish(indexes_root, "v1", keep=5)
    holder = subprocess.Popen(  # another process serving v1, as a worker of `yaksa serve` would
        [sys.executable, "-c", ("import sys\nfrom yaksa.index.reader import open_bundle\n"
         f"b = open_bundle(__import__('pathlib').Path({str(indexes_root / 'v1')!r}))\n"
         "print('open', flush=True)\nsys.stdin.read()\nb.close()")],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "open"
        publish(indexes_root, "v3", keep=1)
        assert list_versions(indexes_root) == ["v1", "v3"]  # v2 pruned, v1 held open
        with open_bundle(indexes_root / "v1") as again:  # a second reader of a held version is fine
            assert again.version == "v1"
    finally:
        holder.communicate("", timeout=60)
    assert prune_versions(indexes_root, keep=1) == ["v1"]  # released: the next prune removes it
    assert sorted(p.name for p in indexes_root.iterdir() if p.name.startswith(".lease-")) == [".lease-v3"]


def test_a_closed_bundle_releases_its_lease(build, indexes_root: Path) -> None:
    for v in ("v1", "v2"):
        build(version=v)
    publish(indexes_root, "v2", keep=5)
    bundle = open_bundle(indexes_root / "v1")
    assert prune_versions(indexes_root, keep=1) == []
    bundle.close()
    assert prune_versions(indexes_root, keep=1) == ["v1"]
