"""Publish a bundle: verify it, run the caller's sanity check, then switch CURRENT atomically.

Servers read `indexes/CURRENT` to find the bundle to load, so CURRENT only ever moves to a bundle
that opened with full checksum verification and passed the check; any failure leaves it where it
was. Old versions are pruned afterwards, never the published one nor one a process still has open
(`yaksa.index.lease`: a serving worker that has not swapped yet keeps its directory). A lock file
serialises publishes and prunes so two nightly runs cannot interleave their CURRENT writes and
deletions.

Usage:
    def check(bundle: Bundle) -> None:   # the caller's sanity query; raise to refuse
        rows, _ = bundle.collections["drugs"].bm25_search(["타이레놀"], k=5)
        if rows.size == 0:
            raise AssertionError("타이레놀 finds nothing")

    path = write_bundle(root, collections, ...)
    publish(root, path.name, check=check, keep=3)
"""

from __future__ import annotations

import fcntl
import logging
import os
import shutil
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from yaksa.atomicio import atomic_write_text, fsync_dir
from yaksa.index.errors import BundleError
from yaksa.index.layout import (
    CURRENT_NAME,
    LOCK_NAME,
    TMP_PREFIX,
    current_version,
    list_versions,
    validate_version_name,
)
from yaksa.index.lease import LEASE_PREFIX, PruneClaim
from yaksa.index.reader import Bundle, open_bundle

__all__ = ["current_version", "list_versions", "prune_versions", "publish"]

log = logging.getLogger(__name__)
STALE_TMP_SECONDS = 3600


@contextmanager
def _locked(indexes_root: Path) -> Iterator[None]:
    """Exclusive flock on indexes/.publish.lock; released when the process dies, so never stale."""
    root = Path(indexes_root)
    root.mkdir(parents=True, exist_ok=True)
    with open(root / LOCK_NAME, "a") as fh:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh.fileno(), fcntl.LOCK_UN)


def publish(
    indexes_root: Path,
    version: str,
    check: Callable[[Bundle], None] | None = None,
    keep: int = 3,
) -> None:
    """Make `version` the served bundle if it verifies and `check(bundle)` does not raise."""
    if keep < 1:
        raise ValueError(f"keep must be >= 1, got {keep}")
    root = Path(indexes_root)
    try:
        validate_version_name(version)
    except ValueError as exc:
        raise BundleError(f"{root}: {exc}") from exc
    path = root / version
    with _locked(root):
        bundle = open_bundle(path, verify_checksums=True)
        try:
            if check is not None:
                try:
                    check(bundle)
                except Exception as exc:
                    raise BundleError(f"{path}: sanity check failed: {exc}") from exc
        finally:
            bundle.close()
        atomic_write_text(root / CURRENT_NAME, version + "\n")
        log.info("published %s", path)
        _prune(root, keep)


def prune_versions(indexes_root: Path, keep: int) -> list[str]:
    """Delete complete versions older than the newest `keep` (never CURRENT, never one a process
    holds open), stale temp dirs and lease files left by versions that are gone.

    Returns the names of the directories removed.
    """
    if keep < 1:
        raise ValueError(f"keep must be >= 1, got {keep}")
    with _locked(indexes_root):
        return _prune(Path(indexes_root), keep)


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _is_stale_tmp(path: Path, now: float) -> bool:
    """A temp dir older than an hour whose writer (pid in the name) is gone."""
    try:
        age = now - path.stat().st_mtime
    except FileNotFoundError:
        return False
    if age < STALE_TMP_SECONDS:
        return False
    pid_text = path.name.rsplit("-", 1)[-1]
    return not (pid_text.isdigit() and _pid_alive(int(pid_text)))


def _remove_dir(root: Path, path: Path) -> None:
    """Rename out of sight first, so a half-deleted bundle never looks complete to `list_versions`."""
    trash = root / f"{TMP_PREFIX}deleting-{path.name}-{os.getpid()}"
    os.rename(path, trash)
    fsync_dir(root)
    shutil.rmtree(trash, ignore_errors=True)


def _prune(root: Path, keep: int) -> list[str]:
    current = current_version(root)
    versions = list_versions(root)
    doomed = [v for v in versions[: max(len(versions) - keep, 0)] if v != current]
    removed: list[str] = []
    for name in doomed:
        claim = PruneClaim(root, name)
        if not claim.try_claim():
            log.info("kept %s: a process still has it open (pruned by a later publish)", name)
            continue
        try:
            _remove_dir(root, root / name)
        finally:
            claim.finish()
        removed.append(name)
    for path in sorted(root.glob(f"{LEASE_PREFIX}*")):
        orphan = PruneClaim(root, path.name[len(LEASE_PREFIX):])
        if not (root / path.name[len(LEASE_PREFIX):]).is_dir() and orphan.try_claim():
            orphan.finish()
    now = time.time()
    for path in sorted(root.glob(f"{TMP_PREFIX}*")):
        if path.is_dir() and _is_stale_tmp(path, now):
            shutil.rmtree(path, ignore_errors=True)
            removed.append(path.name)
    if removed:
        log.info("pruned %s: %s", root, ", ".join(removed))
    return removed
