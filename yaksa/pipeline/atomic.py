"""Atomic file writes shared by the pipeline stages: a reader never sees half a file."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq


def _replace_from_temp(path: Path, write: Any, suffix: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=suffix, dir=path.parent)
    os.close(fd)
    try:
        write(tmp)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_json(path: Path, data: Any) -> None:
    def write(tmp: str) -> None:
        Path(tmp).write_text(json.dumps(data, ensure_ascii=False, indent=2, sort_keys=True) + "\n", "utf-8")

    _replace_from_temp(path, write, ".json")


def write_parquet(path: Path, table: pa.Table) -> None:
    _replace_from_temp(path, lambda tmp: pq.write_table(table, tmp), ".parquet")


def write_npy(path: Path, array: np.ndarray) -> None:
    def write(tmp: str) -> None:
        with open(tmp, "wb") as fh:
            np.save(fh, array)

    _replace_from_temp(path, write, ".npy")
