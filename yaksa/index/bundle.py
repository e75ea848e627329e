"""The bundle writer: one immutable, checksummed directory per index build.

A bundle holds, per collection, the BM25 index, the FAISS index and the docstore, all row-aligned,
plus manifest.json. Everything is written under `indexes/.tmp-<version>-<pid>/`, the manifest goes
last, and one `os.rename` makes the version appear complete or not at all: a crash or an exception
midway leaves no `indexes/<version>` and no temp dir. Publishing (moving CURRENT) is a separate step,
so a freshly written bundle can be checked before anyone serves it.

Layout:
    indexes/<version>/manifest.json
    indexes/<version>/userdict.tsv                 (if a Kiwi user dictionary was used)
    indexes/<version>/<collection>/bm25/*.npy|json (bm25s files)
    indexes/<version>/<collection>/dense.faiss
    indexes/<version>/<collection>/dense.fp16.faiss (a large flat index's float16 search copy)
    indexes/<version>/<collection>/docs.duckdb
    indexes/<version>/<collection>/docs.arrow      (the docstore as Arrow IPC: what servers memory-map)
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from yaksa.atomicio import fsync_dir, fsync_tree
from yaksa.config import IndexParams
from yaksa.corpus.document import Document
from yaksa.index import reader
from yaksa.index.bm25 import METHODS, BM25Index
from yaksa.index.dense import KINDS, build_dense_index, save_dense_index, to_cpu
from yaksa.index.docstore import duplicate_doc_ids, write_docstore
from yaksa.index.errors import BundleError
from yaksa.index.layout import (
    BM25_DIR,
    DENSE_FILE,
    DENSE_FP16_FILE,
    DOCS_ARROW_FILE,
    DOCS_FILE,
    MANIFEST_NAME,
    TMP_PREFIX,
    USERDICT_NAME,
    validate_version_name,
)
from yaksa.index.manifest import (
    FORMAT_VERSION,
    Manifest,
    compute_checksums,
    git_revision,
    plain_json,
    sha256_file,
)

EMBEDDER_KEYS: tuple[str, ...] = ("id", "backend", "model", "dim")
_NAME_RE = re.compile(r"^[a-z][a-z0-9_]{0,63}$")
_PROJECT_ROOT = Path(__file__).resolve().parents[2]


@dataclass
class CollectionInput:
    """One collection's rows: documents[i], tokens[i] and vectors[i] describe the same document."""

    name: str
    documents: list[Document]
    tokens: list[list[str]]
    vectors: np.ndarray
    embedder: dict[str, Any]


def _validate(
    collections: Sequence[CollectionInput], tokenizer: dict, index_params: IndexParams,
    userdict_path: Path | None,
) -> None:
    if not collections:
        raise ValueError("a bundle needs at least one collection")
    if index_params.faiss not in KINDS:
        raise ValueError(f"index_params.faiss must be one of {KINDS}, got {index_params.faiss!r}")
    if index_params.bm25_method not in METHODS:
        raise ValueError(f"index_params.bm25_method must be one of {METHODS}, got {index_params.bm25_method!r}")
    if not isinstance(tokenizer, dict) or not {"name", "version"} <= tokenizer.keys():
        raise ValueError("tokenizer identity must be a dict with at least 'name' and 'version'")
    if userdict_path is not None and not Path(userdict_path).is_file():
        raise ValueError(f"user dictionary not found: {userdict_path}")
    seen: set[str] = set()
    for c in collections:
        if not isinstance(c, CollectionInput):
            raise TypeError(f"expected CollectionInput, got {type(c).__name__}")
        where = f"collection {c.name!r}"
        if not isinstance(c.name, str) or not _NAME_RE.match(c.name):
            raise ValueError(f"{where}: name must be lowercase letters, digits or '_' (a directory name)")
        if c.name in seen:
            raise ValueError(f"{where}: given twice")
        seen.add(c.name)
        n = len(c.documents)
        if n == 0:
            raise ValueError(f"{where}: no documents")
        wrong = [d for d in c.documents if not isinstance(d, Document) or d.collection != c.name]
        if wrong:
            got = wrong[0].collection if isinstance(wrong[0], Document) else type(wrong[0]).__name__
            raise ValueError(f"{where}: every item must be a Document of this collection, found {got!r}")
        if len(c.tokens) != n:
            raise ValueError(f"{where}: {n} documents but {len(c.tokens)} token lists")
        shape = np.shape(c.vectors)
        if len(shape) != 2 or shape[0] != n:
            raise ValueError(f"{where}: {n} documents but vectors of shape {shape}")
        if not isinstance(c.embedder, dict) or not set(EMBEDDER_KEYS) <= c.embedder.keys():
            raise ValueError(f"{where}: embedder identity must have keys {EMBEDDER_KEYS}")
        if c.embedder["dim"] != shape[1]:
            raise ValueError(f"{where}: vectors have dim {shape[1]}, embedder says {c.embedder['dim']}")
        dups = duplicate_doc_ids(c.documents)
        if dups:
            raise ValueError(f"{where}: duplicate doc_id(s): {', '.join(dups[:5])}")


def _default_version(
    now: datetime, collections: Sequence[CollectionInput], fingerprint: dict[str, Any],
) -> str:
    """UTC timestamp (sortable) + 8 hex of a hash of everything that went in (unique per content)."""
    digest = hashlib.sha256(json.dumps(fingerprint, sort_keys=True, ensure_ascii=False).encode())
    for c in sorted(collections, key=lambda c: c.name):
        digest.update(f"\x1e{c.name}\x1f{json.dumps(c.embedder, sort_keys=True, default=str)}".encode())
        for d in c.documents:
            digest.update(f"\x1d{d.doc_id}\x1f{d.content_hash}".encode())
    return f"{now.strftime('%Y%m%dT%H%M%SZ')}-{digest.hexdigest()[:8]}"


def _write_collection(bundle_dir: Path, c: CollectionInput, p: IndexParams) -> dict[str, Any]:
    cdir = bundle_dir / c.name
    cdir.mkdir()
    try:
        bm25 = BM25Index.build(c.tokens, k1=p.bm25_k1, b=p.bm25_b, method=p.bm25_method)
        dense = build_dense_index(c.vectors, kind=p.faiss, hnsw_m=p.hnsw_m, ef_search=p.hnsw_ef_search)
    except (TypeError, ValueError) as exc:
        raise type(exc)(f"collection {c.name!r}: {exc}") from exc
    bm25.save(cdir / BM25_DIR)
    save_dense_index(dense, cdir / DENSE_FILE)
    cpu = to_cpu(dense)
    if reader.fp16_wanted(cpu):  # stored, so that serving maps it instead of building it at each open
        save_dense_index(reader.fp16_copy(cpu), cdir / DENSE_FP16_FILE)
    write_docstore(cdir / DOCS_FILE, c.documents, arrow_path=cdir / DOCS_ARROW_FILE)
    files = sorted(p_.relative_to(bundle_dir).as_posix() for p_ in cdir.rglob("*") if p_.is_file())
    return {"count": len(c.documents), "embedder": plain_json(c.embedder, f"collection {c.name!r} embedder"),
            "faiss": p.faiss, "files": files}


def write_bundle(
    indexes_root: Path,
    collections: Sequence[CollectionInput],
    *,
    tokenizer: dict[str, Any],
    params: dict[str, Any],
    index_params: IndexParams,
    userdict_path: Path | None = None,
    version: str | None = None,
    git_root: Path | None = None,
) -> Path:
    """Build every collection's indexes into a new `indexes/<version>/` and return its path.

    Never touches CURRENT: call `publish` after checking the bundle.
    """
    _validate(collections, tokenizer, index_params, userdict_path)
    tokenizer = plain_json(tokenizer, "tokenizer identity")
    params = plain_json(params, "params")
    now = datetime.now(UTC)
    if version is None:
        fingerprint = {"tokenizer": tokenizer, "params": params, "index": asdict(index_params),
                       "userdict": sha256_file(Path(userdict_path)) if userdict_path else None}
        version = _default_version(now, collections, fingerprint)
    validate_version_name(version)
    root = Path(indexes_root)
    root.mkdir(parents=True, exist_ok=True)
    final = root / version
    if final.exists():
        raise BundleError(f"{final}: bundle version already exists; refusing to overwrite it")
    tmp = root / f"{TMP_PREFIX}{version}-{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)  # a leftover from an earlier crash of a process with our pid
    try:
        tmp.mkdir()
        if userdict_path is not None:
            shutil.copyfile(userdict_path, tmp / USERDICT_NAME)
        entries = {c.name: _write_collection(tmp, c, index_params) for c in collections}
        manifest = Manifest(
            format_version=FORMAT_VERSION,
            version=version,
            created_at=now.isoformat(timespec="microseconds").replace("+00:00", "Z"),
            git_rev=git_revision(Path(git_root) if git_root else _PROJECT_ROOT),
            params=params,
            tokenizer=tokenizer,
            collections=entries,
            files=compute_checksums(tmp),
        )
        (tmp / MANIFEST_NAME).write_text(manifest.to_json(), encoding="utf-8")
        fsync_tree(tmp)
        if final.exists():  # another writer finished the same version meanwhile
            raise BundleError(f"{final}: bundle version already exists; refusing to overwrite it")
        os.rename(tmp, final)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    fsync_dir(root)
    return final
