"""Leases on open bundles, so pruning never deletes a version some process still serves.

Why: `yaksa serve --workers N` runs N processes that each swap to CURRENT within a poll, and a
publish prunes old versions right after moving CURRENT. A worker that is still on an older version
(slow to swap, or failing to load the new one and staying on its old bundle) keeps its open files
working after a delete, but everything it opens lazily, and the same worker restarted, would find
the directory gone. Every open bundle therefore holds a shared `flock` on `indexes/.lease-<version>`;
the pruner takes the same lock exclusively without blocking and keeps the version when it cannot.
Locks die with their process, so a crashed worker never pins a version.

A reader that cannot create the lease file (a read-only copy of a bundle) opens the bundle without
one: it can not be pruned by this host's publisher anyway.
"""

from __future__ import annotations

import fcntl
import logging
import os
from pathlib import Path
from typing import IO

log = logging.getLogger(__name__)
LEASE_PREFIX = ".lease-"


def lease_path(indexes_root: Path, version: str) -> Path:
    return Path(indexes_root) / f"{LEASE_PREFIX}{version}"


class BundleLease:
    """A shared lock on a version, held until `release` (the bundle's close)."""

    def __init__(self, handle: IO[str] | None) -> None:
        self._handle = handle

    @property
    def held(self) -> bool:
        return self._handle is not None

    def release(self) -> None:
        handle, self._handle = self._handle, None
        if handle is not None:
            handle.close()  # closing the descriptor drops the flock


def acquire_lease(bundle_dir: Path) -> BundleLease:
    """Hold `bundle_dir`'s version against pruning (shared: any number of readers at once)."""
    path = lease_path(bundle_dir.parent, bundle_dir.name)
    try:
        # not a `with`: the open handle is the lease, held until `release` closes it
        handle = open(path, "a")  # noqa: SIM115
    except OSError as exc:
        log.debug("no lease on %s (%s): it is opened unprotected", bundle_dir, exc)
        return BundleLease(None)
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_SH)
    except OSError as exc:
        handle.close()
        log.debug("no lease on %s (%s): it is opened unprotected", bundle_dir, exc)
        return BundleLease(None)
    return BundleLease(handle)


class PruneClaim:
    """The pruner's exclusive hold on a version's lease file while it deletes the version."""

    def __init__(self, indexes_root: Path, version: str) -> None:
        self.path = lease_path(indexes_root, version)
        self._handle: IO[str] | None = None

    def try_claim(self) -> bool:
        """True when no process holds the version open (the claim is then held until `finish`)."""
        # not a `with`: the open handle is the claim, held until `finish` closes it
        handle = open(self.path, "a")  # noqa: SIM115
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.close()
            return False
        self._handle = handle
        return True

    def finish(self) -> None:
        """Remove the lease file and release the claim (after the version's directory is gone)."""
        handle, self._handle = self._handle, None
        if handle is None:
            return
        try:
            os.unlink(self.path)
        except FileNotFoundError:
            pass
        handle.close()
