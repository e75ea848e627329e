"""Open a bundle for serving, refusing anything that would answer queries wrongly.

Refusals (all `BundleError`, naming the bundle path): no/unreadable manifest, unknown format,
a listed file missing, an unlisted file present, a checksum mismatch, index row counts that disagree
with the manifest, or a tokenizer/embedder identity that differs from the runtime's. A query
analysed by a different tokenizer build or embedded by a different model silently returns poor
results, so a mismatch is a hard error, not a warning.

Unlisted files are refused rather than ignored: a bundle is immutable once written, so an extra
file means something wrote into it afterwards, and some extras are not inert (DuckDB replays a
`docs.duckdb.wal` beside its file, silently changing the documents the checksums vouched for).

Query-time dense search: a flat index of at least `FP16_MIN_VECTORS` vectors is searched through a
float16 copy of its vectors (FAISS `IndexScalarQuantizer` QT_fp16, built in memory at open) for the
`FP16_CANDIDATE_FACTOR` × k best candidates, which are then re-scored exactly against the float32
vectors of the flat index (`IndexRefine`). Bundles written since issue 25 hold that copy
(`dense.fp16.faiss`), memory-mapped at open like the flat index; for older bundles it is built in
memory at open. Why: a flat scan is bound by memory bandwidth (16k ×
512 float32 = 33 MB per English query, ~1.4-2 ms on this machine); half the bytes make it ~0.6 ms,
and the re-scoring keeps the returned scores exact and the top k the exact top k unless a true
top-k vector scores outside the top 2k in float16 (rounding errors are ~1e-4 of a cosine; the
retrieval benchmark counts disagreements with the flat search). The price is the float16 copy,
2 bytes × dim per vector (per worker process only when built in memory).

Usage:
    bundle = open_bundle(resolve_bundle(indexes_root), tokenizer=tok.identity(),
                         embedders={"drugs": e5.identity()})
    rows, scores = bundle.collections["drugs"].bm25_search(["타이레놀", "부작용"], k=10)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Self

import faiss
import numpy as np

from yaksa.corpus.document import Document
from yaksa.index.bm25 import BM25Index
from yaksa.index.dense import load_dense_index, search_dense, search_dense_many
from yaksa.index.docstore import DocStore
from yaksa.index.errors import BundleError
from yaksa.index.layout import (
    BM25_DIR,
    DENSE_FILE,
    DENSE_FP16_FILE,
    DOCS_ARROW_FILE,
    DOCS_FILE,
    MANIFEST_NAME,
    current_version,
    validate_version_name,
)
from yaksa.index.lease import BundleLease, acquire_lease
from yaksa.index.manifest import FORMAT_VERSION, Manifest, bundle_files, plain_json, sha256_file

FP16_MIN_VECTORS = 8192      # below this a flat scan already takes ~0.3 ms: no copy is worth it
FP16_CANDIDATE_FACTOR = 2
EXACT_BATCH = 64             # queries from which one exact matrix product beats the fp16 pass (`dense_search_many`)


@dataclass(frozen=True)
class RefinedSearch:
    """A float16 candidate search re-scored by the flat index (module doc); keeps both parts alive
    (FAISS's IndexRefine does not own them)."""

    fp16: faiss.Index
    refine: faiss.Index

    @classmethod
    def over(cls, flat: faiss.IndexFlat, fp16: faiss.Index | None = None) -> RefinedSearch:
        """`fp16`: the bundle's float16 copy (memory-mapped); None builds it in memory."""
        base = fp16 if fp16 is not None else fp16_copy(flat)
        refine = faiss.IndexRefine(base, flat)
        refine.k_factor = FP16_CANDIDATE_FACTOR
        return cls(base, refine)


def fp16_wanted(dense: faiss.Index) -> bool:
    """Whether queries search `dense` through a float16 copy (module doc)."""
    return isinstance(dense, faiss.IndexFlat) and dense.ntotal >= FP16_MIN_VECTORS


def fp16_copy(flat: faiss.IndexFlat) -> faiss.Index:
    """The float16 copy of a flat index's vectors (what the bundle writer stores as `DENSE_FP16_FILE`)."""
    vectors = flat.reconstruct_n(0, flat.ntotal)
    fp16 = faiss.IndexScalarQuantizer(flat.d, faiss.ScalarQuantizer.QT_fp16, faiss.METRIC_INNER_PRODUCT)
    fp16.train(vectors)   # fp16 needs no training; FAISS asks for the call
    fp16.add(vectors)
    return fp16


def query_index(dense: faiss.Index, fp16: faiss.Index | None = None) -> faiss.Index | RefinedSearch:
    """What queries search: the refined float16 search for a large flat index (over the bundle's
    float16 copy `fp16` when it has one: nothing to build, pages shared), else the index."""
    if fp16 is not None:
        if not isinstance(dense, faiss.IndexFlat):
            raise ValueError(f"a float16 copy beside a {type(dense).__name__}, not a flat index")
        if not isinstance(fp16, faiss.IndexScalarQuantizer) or (fp16.ntotal, fp16.d) != (dense.ntotal, dense.d):
            raise ValueError(f"the float16 copy ({type(fp16).__name__}, {fp16.ntotal} x {fp16.d}) does not "
                             f"match the flat index ({dense.ntotal} x {dense.d})")
        return RefinedSearch.over(dense, fp16)
    if fp16_wanted(dense):
        return RefinedSearch.over(dense)
    return dense


@dataclass
class CollectionIndex:
    """One collection's three row-aligned views: BM25, FAISS and the documents themselves."""

    name: str
    count: int
    embedder: dict[str, Any]
    bm25: BM25Index
    dense: faiss.Index           # the bundle's index: vectors by row (`reconstruct`), exact scores
    docs: DocStore
    searched: faiss.Index | RefinedSearch | None = None   # what `dense_search` uses; `dense` if None

    def bm25_search(self, tokens: list[str], k: int) -> tuple[np.ndarray, np.ndarray]:
        return self.bm25.search(tokens, k)

    def dense_search(self, qvec: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        index = self.searched if self.searched is not None else self.dense
        return search_dense(index.refine if isinstance(index, RefinedSearch) else index, qvec, k)

    def dense_search_many(self, queries: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        """`dense_search` for many queries in one call (`search_dense_many`: padded slots are row -1). A batch of
        `EXACT_BATCH` or more goes to the exact flat index, one matrix product, where the fp16 candidate pass scans
        once per query (the scope build's 9,374 texts: 43 s through it, 7.6 s exact); its candidates are re-scored
        by that same flat index, so the scores agree (measured: within 5e-7 on 1,340 texts). Fewer, as a turn asks,
        go where `dense_search` goes."""
        index = self.searched if self.searched is not None and len(queries) < EXACT_BATCH else self.dense
        return search_dense_many(index.refine if isinstance(index, RefinedSearch) else index, queries, k)

    def documents(self, rows: list[int] | np.ndarray) -> list[Document]:
        return self.docs.get([int(r) for r in rows])

    def close(self) -> None:
        self.docs.close()


@dataclass
class Bundle:
    path: Path
    version: str
    manifest: Manifest
    collections: dict[str, CollectionIndex] = field(default_factory=dict)
    lease: BundleLease | None = None  # keeps the publisher's pruning off this version while open

    def close(self) -> None:
        for coll in self.collections.values():
            coll.close()
        if self.lease is not None:
            self.lease.release()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _read_manifest(path: Path) -> Manifest:
    mpath = path / MANIFEST_NAME
    try:
        text = mpath.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise BundleError(f"{path}: no {MANIFEST_NAME} (not a bundle, or an unfinished build)") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise BundleError(f"{path}: cannot read {MANIFEST_NAME}: {exc}") from exc
    try:
        data = Manifest.from_json(text)
    except (TypeError, ValueError) as exc:
        raise BundleError(f"{path}: bad {MANIFEST_NAME}: {exc}") from exc
    if data.format_version != FORMAT_VERSION:
        raise BundleError(
            f"{path}: unknown bundle format_version {data.format_version} (this reader knows {FORMAT_VERSION})"
        )
    return data


def _check_files(path: Path, manifest: Manifest, verify_checksums: bool) -> None:
    present = set(bundle_files(path))
    listed = set(manifest.files)
    for coll in manifest.collections.values():
        listed.update(coll["files"])
    missing = sorted(listed - present)
    if missing:
        raise BundleError(f"{path}: missing file(s) listed in the manifest: {', '.join(missing)}")
    unlisted = sorted(present - set(manifest.files))
    if unlisted:
        raise BundleError(f"{path}: file(s) not covered by the manifest checksums: {', '.join(unlisted)}")
    if verify_checksums:
        for rel, expected in sorted(manifest.files.items()):
            actual = sha256_file(path / rel)
            if actual != expected:
                raise BundleError(
                    f"{path}: checksum mismatch for {rel}: manifest {expected[:12]}…, file {actual[:12]}…"
                )


def _check_tokenizer(path: Path, bundle_tok: dict[str, Any], runtime: dict[str, Any]) -> None:
    runtime = plain_json(runtime, "runtime tokenizer identity")
    for key in sorted(set(bundle_tok) | set(runtime)):
        if bundle_tok.get(key) != runtime.get(key):
            if key == "name":
                detail = f"bundle {bundle_tok.get(key)}, runtime {runtime.get(key)}"
            else:
                detail = (f"bundle {bundle_tok.get('name')} {bundle_tok.get(key)}, "
                          f"runtime {runtime.get('name')} {runtime.get(key)}")
            raise BundleError(f"{path}: tokenizer {key} mismatch: {detail}")


def _check_embedder(path: Path, name: str, bundle_emb: dict[str, Any], runtime: Mapping[str, Any]) -> None:
    for key in ("id", "dim"):
        if bundle_emb.get(key) != runtime.get(key):
            raise BundleError(
                f"{path}: collection {name!r} embedder {key} mismatch: "
                f"bundle {bundle_emb.get(key)}, runtime {runtime.get(key)}"
            )


def _load_collection(path: Path, name: str, entry: dict[str, Any]) -> CollectionIndex:
    cdir = path / name
    docs: DocStore | None = None
    try:
        bm25 = BM25Index.load(cdir / BM25_DIR, mmap=True)
        dense = load_dense_index(cdir / DENSE_FILE, mmap=True)
        fp16 = (load_dense_index(cdir / DENSE_FP16_FILE, mmap=True)
                if f"{name}/{DENSE_FP16_FILE}" in entry["files"] else None)
        searched = query_index(dense, fp16)
        # the Arrow copy when the bundle lists it (memory-mapped, shared by workers); older bundles: DuckDB
        arrow = f"{name}/{DOCS_ARROW_FILE}" in entry["files"]
        docs = DocStore(cdir / DOCS_FILE, cdir / DOCS_ARROW_FILE if arrow else None)
        counts = {"manifest": entry["count"], "bm25": bm25.num_docs, "faiss": int(dense.ntotal),
                  "docstore": docs.count()}
        if len(set(counts.values())) != 1:
            raise BundleError(f"{path}: collection {name!r} row counts disagree: {counts}")
        dim = entry["embedder"].get("dim")
        if dense.d != dim:
            raise BundleError(f"{path}: collection {name!r} FAISS dim {dense.d} != embedder dim {dim}")
    except BundleError:
        if docs is not None:
            docs.close()
        raise
    except Exception as exc:  # any load failure is a refusal of this bundle
        if docs is not None:
            docs.close()
        raise BundleError(f"{path}: cannot load collection {name!r}: {exc}") from exc
    return CollectionIndex(name=name, count=entry["count"], embedder=entry["embedder"],
                           bm25=bm25, dense=dense, docs=docs, searched=searched)


def open_bundle(
    path: Path,
    *,
    verify_checksums: bool = True,
    tokenizer: dict[str, Any] | None = None,
    embedders: Mapping[str, dict[str, Any]] | None = None,
) -> Bundle:
    """Verify and open a bundle; pass the runtime tokenizer/embedder identities to enforce a match.

    Checksums cost one read of every file (about a second per GB); `verify_checksums=False` skips
    only that, never the presence, identity or row-count checks.
    """
    path = Path(path)
    lease = acquire_lease(path)  # before the first read: a prune that has not started yet now waits
    if not path.is_dir():
        lease.release()
        raise BundleError(f"{path}: bundle directory not found")
    try:
        manifest = _read_manifest(path)
        _check_files(path, manifest, verify_checksums)
        if tokenizer is not None:
            _check_tokenizer(path, manifest.tokenizer, tokenizer)
        for name, identity in (embedders or {}).items():
            if name in manifest.collections:
                _check_embedder(path, name, manifest.collections[name]["embedder"], identity)
    except BaseException:
        lease.release()
        raise
    bundle = Bundle(path=path, version=manifest.version, manifest=manifest, lease=lease)
    try:
        for name, entry in manifest.collections.items():
            bundle.collections[name] = _load_collection(path, name, entry)
    except BaseException:
        bundle.close()
        raise
    return bundle


def resolve_bundle(indexes_root: Path, version: str | None = None) -> Path:
    """Path of the given version, or of the published one (CURRENT) when version is None."""
    root = Path(indexes_root)
    if version is None:
        version = current_version(root)
        if version is None:
            raise BundleError(f"{root}: no CURRENT file: nothing has been published yet")
    else:
        try:
            validate_version_name(version)
        except ValueError as exc:
            raise BundleError(f"{root}: {exc}") from exc
    path = root / version
    if not path.is_dir():
        raise BundleError(f"{path}: bundle version {version!r} does not exist")
    return path

