"""Atomic, durable file writes for every stage: readers see the old file or the new one, never half.

A temp file in the target's directory is written, fsynced and renamed over the target, then the
directory is fsynced (without that a power loss after the rename can leave the new name pointing at
empty data). Temp files are created with a plain `open`, not `mkstemp`, so the result honours the
umask: a server running as another user can read what the build wrote.
"""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq


def fsync_file(path: Path) -> None:
    """Flush one file's data to disk."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def fsync_dir(path: Path) -> None:
    """Flush a directory entry table, making renames and creations inside it durable."""
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def fsync_tree(root: Path) -> None:
    """fsync every file and directory under `root` (bottom-up), then `root` itself."""
    for dirpath, _dirnames, filenames in os.walk(root, topdown=False):
        for name in filenames:
            fsync_file(Path(dirpath) / name)
        fsync_dir(Path(dirpath))


def atomic_write(path: Path, write: Callable[[Path], None]) -> None:
    """Call `write(temp_path)`, then move the finished temp file over `path` durably."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex[:12]}.tmp")
    try:
        write(tmp)
        fsync_file(tmp)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    fsync_dir(path.parent)


def atomic_write_text(path: Path, text: str) -> None:
    atomic_write(path, lambda tmp: tmp.write_text(text, encoding="utf-8", newline="\n"))


def write_json(path: Path, data: Any) -> None:
    atomic_write_text(path, json.dumps(data, ensure_ascii=False, indent=2, sort_keys=True) + "\n")


def write_parquet(path: Path, table: pa.Table) -> None:
    atomic_write(path, lambda tmp: pq.write_table(table, tmp))


def write_npy(path: Path, array: np.ndarray) -> None:
    def write(tmp: Path) -> None:
        with open(tmp, "wb") as fh:
            np.save(fh, array)

    atomic_write(path, write)
