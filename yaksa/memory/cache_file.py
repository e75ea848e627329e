"""The response cache's files: one `.npz` per index bundle version, beside the configured path.

Why one file per bundle: answers are only valid for the bundle they were built on, and during a
rollout (or a rollback) workers serve different bundles for a moment; with one shared file a worker
switching to bundle B emptied it under a worker still answering from A. Now `responses.npz`
configured means `responses.<version>.npz` files: a worker reads and writes only its bundle's file,
and an erasure (`ResponseCache.forget_user`) rewrites every file. The newest `KEEP_FILES` files
(by modification time) are kept; older ones are deleted when a new one is created.

A file is written to a temporary name and renamed over the old one, so a reader without the lock
sees the old or the new contents, never half. Mutations hold an exclusive `fcntl.flock` on
`<configured path>.lock` (one lock for all of a cache's files). Contents: `vectors` float32 (n, dim)
and `meta`, UTF-8 JSON with the format, salt, bundle version, LRU clock and entries.

The configured path itself held the whole cache before (formats 1 and 2); such a file is deleted
on open: it is derived data, and format 1 kept question texts. A per-bundle file of format 3 (no
content signature or store time per entry, `yaksa.memory.cache_guard`) is another format: `read`
refuses it, the cache treats it as empty and the next store replaces it.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import logging
import os
import re
import uuid
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from yaksa.atomicio import fsync_dir, fsync_file

log = logging.getLogger(__name__)

FORMAT_VERSION = 4   # 4: entries carry a content signature and when they were stored
KEEP_FILES = 3
_SAFE_TAG = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")


class CacheFileError(ValueError):
    """A cache file that cannot be used (damaged, another format, inconsistent)."""


@dataclass
class CacheContents:
    bundle_version: str
    salt: str
    clock: int
    entries: list[dict[str, Any]]   # `_Entry.to_json()` of each entry, row-aligned with `vectors`
    vectors: np.ndarray             # float32 (len(entries), dim); (0, 0) when empty


def bundle_file(base: Path, bundle_version: str) -> Path:
    """`<stem>.<version><suffix>` beside `base` (a hash stands in for a version unsafe as a name)."""
    tag = bundle_version if _SAFE_TAG.match(bundle_version) else hashlib.sha256(
        bundle_version.encode("utf-8")).hexdigest()[:16]
    return base.with_name(f"{base.stem}.{tag}{base.suffix or '.npz'}")


def bundle_files(base: Path) -> list[Path]:
    """Every per-bundle file of the cache at `base`, newest first."""
    found = [p for p in base.parent.glob(f"{base.stem}.*{base.suffix or '.npz'}") if p.is_file()]
    return sorted(found, key=lambda p: p.stat().st_mtime_ns, reverse=True)


def stamp(path: Path) -> tuple[int, ...] | None:
    """What changes whenever the file is replaced: a lookup reloads only when this differs."""
    try:
        st = path.stat()
    except FileNotFoundError:
        return None
    return (st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino)


@contextmanager
def locked(base: Path) -> Iterator[None]:
    """Exclusive across processes for every mutation of the cache at `base`."""
    base.parent.mkdir(parents=True, exist_ok=True)
    with open(base.with_name(base.name + ".lock"), "ab") as fh:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh.fileno(), fcntl.LOCK_UN)


def read(path: Path) -> CacheContents | None:
    """The file's contents; None when it does not exist; CacheFileError when it cannot be used."""
    try:
        with np.load(path, allow_pickle=False) as data:
            meta = json.loads(data["meta"].tobytes().decode("utf-8"))
            vectors = np.asarray(data["vectors"], dtype=np.float32)
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError, zipfile.BadZipFile) as exc:
        raise CacheFileError(str(exc)) from exc
    try:
        if meta.get("format") != FORMAT_VERSION:
            raise CacheFileError(f"format {meta.get('format')!r}, expected {FORMAT_VERSION}")
        entries = list(meta["entries"])
        if len(entries) != (vectors.shape[0] if entries else 0):
            raise CacheFileError(f"{len(entries)} entries but {vectors.shape[0]} vectors")
        return CacheContents(str(meta["bundle_version"]), str(meta["salt"]), int(meta["clock"]), entries,
                             vectors if entries else np.zeros((0, 0), dtype=np.float32))
    except (AttributeError, KeyError, TypeError, ValueError) as exc:
        raise CacheFileError(str(exc)) from exc


def write(path: Path, contents: CacheContents, durable: bool) -> None:
    """Replace `path` atomically. `durable` fsyncs (erasures: they must not come back after a power
    loss); a new answer is not worth an fsync (~8 ms here): losing one loses only a cache entry."""
    meta = {"format": FORMAT_VERSION, "salt": contents.salt, "bundle_version": contents.bundle_version,
            "clock": contents.clock, "entries": contents.entries}
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex[:12]}.tmp")
    try:
        with open(tmp, "wb") as fh:
            np.savez(fh, vectors=np.ascontiguousarray(contents.vectors, dtype=np.float32),
                     meta=np.frombuffer(json.dumps(meta, ensure_ascii=False).encode("utf-8"), dtype=np.uint8))
        if durable:
            fsync_file(tmp)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    if durable:
        fsync_dir(path.parent)


def prune(base: Path, keep: Path) -> None:
    """Delete all but the newest `KEEP_FILES` bundle files (never `keep`); call under `locked`."""
    for old in [p for p in bundle_files(base) if p != keep][KEEP_FILES - 1:]:
        old.unlink(missing_ok=True)
        log.info("response cache: removed %s (older than the newest %d bundles' caches)", old.name, KEEP_FILES)


def remove_single_file(base: Path) -> None:
    """Delete a whole-cache file of formats 1-2 at `base` (module doc), saying what it was."""
    if not base.is_file():
        return
    try:
        with np.load(base, allow_pickle=False) as data:
            found = f"format {json.loads(data['meta'].tobytes().decode('utf-8')).get('format')!r}"
    except (OSError, ValueError, KeyError, TypeError, AttributeError, zipfile.BadZipFile) as exc:
        found = f"unreadable: {exc}"
    base.unlink()
    log.warning("response cache %s (%s) replaced by one file per bundle; its answers are dropped", base, found)
