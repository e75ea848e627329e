"""Open the published bundle together with the tokenizer and embedders that built it.

The runtime tokenizer is rebuilt from the bundle's own user dictionary and the embedders from the
manifest's identities; `open_bundle` then refuses the bundle if the installed libraries would tokenize
or embed differently from the build (a kiwipiepy upgrade, another embedding model).

Tables derived from a bundle's documents (the drug catalog, the section table, the scope stage's
lexical reading of its exemplars) are memoised by the content of the files they read
(`collection_content_key`, from the manifest's checksums, `ContentMemo`): a swap to a bundle whose
collection is unchanged reuses them instead of recomputing them. `YAKSA_REUSE_CONTENT=0` turns that
off, so a benchmark can measure a swap to a bundle whose content differs (`benchmarks/swap.py`).
The analysers of the last two user dictionaries are kept too (`_TOKENIZERS`): a new Kiwi costs ~4 s,
and a rollback goes back to the dictionary served before.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from pathlib import Path
from typing import Generic, TypeVar

import faiss

from yaksa import environment
from yaksa.embed.base import Embedder, make_embedder
from yaksa.index.errors import BundleError
from yaksa.index.manifest import Manifest, plain_json
from yaksa.index.reader import Bundle, open_bundle, resolve_bundle
from yaksa.text.tokenizer import Tokenizer, build_tokenizer

CONTENT_REUSE_ENV = environment.REUSE_CONTENT   # "0": never reuse tables across bundles by content
CONTENT_MEMO_SIZE = 2                       # the bundle served and the one being swapped in
_T = TypeVar("_T")


@dataclass
class LoadedBundle:
    bundle: Bundle
    tokenizer: Tokenizer
    embedders: dict[str, Embedder]

    @property
    def version(self) -> str:
        return self.bundle.version

    def close(self) -> None:
        self.bundle.close()


def load_published(indexes_root: Path, version: str | None = None, verify_checksums: bool = True,
                   reuse: LoadedBundle | None = None) -> LoadedBundle:
    """Open a published bundle with its tokenizer and embedders.

    `reuse`: a bundle already loaded (the one being served, at a hot swap); its tokenizer and
    embedders are shared when the new manifest names the same identities. Why: building them is
    most of a load (Kiwi's model and the embedding models, seconds), while a new version built with
    the same models needs nothing new; `open_bundle` still checks every identity.
    """
    # Query time searches one vector at a time: FAISS's OpenMP threads only contend then (measured
    # on 2 cores under load: 32 ms per flat search with 2 threads, 3.5 ms with 1).
    faiss.omp_set_num_threads(1)
    path = resolve_bundle(indexes_root, version)
    manifest_path = path / "manifest.json"
    if not manifest_path.exists():
        raise BundleError(f"{path}: manifest.json missing")
    manifest = Manifest.from_json(manifest_path.read_text("utf-8"))
    userdict = path / "userdict.tsv"
    tok = manifest.tokenizer
    if reuse is not None and plain_json(reuse.tokenizer.identity(), "tokenizer identity") == tok:
        tokenizer = reuse.tokenizer
    else:
        tokenizer = _TOKENIZERS.get(json.dumps(tok, sort_keys=True), lambda: build_tokenizer(
            str(tok["name"]), list(tok["pos_filter"]), userdict if userdict.exists() else None))
    model_options = ((manifest.params.get("embed") or {}).get("models")) or {}
    embedders: dict[str, Embedder] = {}
    by_id: dict[str, Embedder] = {e.id: e for e in (reuse.embedders.values() if reuse is not None else ())}
    for name, info in manifest.collections.items():
        ident = info["embedder"]
        if ident["id"] not in by_id:
            by_id[ident["id"]] = make_embedder(str(ident["backend"]), model_options.get(ident["backend"]) or {})
        embedders[name] = by_id[ident["id"]]
    bundle = open_bundle(
        path,
        verify_checksums=verify_checksums,
        tokenizer=tokenizer.identity(),
        embedders={name: e.identity() for name, e in embedders.items()},
    )
    # Kiwi and the embedders initialise lazily (~1-2 s): pay that here, not on a user's first query.
    tokenizer.tokenize("두통에 먹는 약")
    for embedder in by_id.values():
        embedder.embed_query("warm-up")
    return LoadedBundle(bundle=bundle, tokenizer=tokenizer, embedders=embedders)


def content_reuse() -> bool:
    """Whether tables derived from a bundle's content may be reused across bundles (module doc)."""
    return environment.content_reuse()


def collection_content_key(loaded: LoadedBundle, name: str) -> str | None:
    """A digest of collection `name`'s files as the manifest checksums them: equal keys, equal
    documents, vectors and rows. None when content reuse is off or the bundle lacks the collection."""
    manifest = loaded.bundle.manifest
    if not content_reuse() or name not in manifest.collections:
        return None
    digest = hashlib.sha256(name.encode())
    for rel in sorted(manifest.collections[name]["files"]):
        digest.update(f"\x1e{rel}\x1f{manifest.files.get(rel, '')}".encode())
    return digest.hexdigest()


class ContentMemo(Generic[_T]):
    """The last `size` values built, by key; a None key builds without remembering, and a None value
    (a build that could not be done) is not remembered. Thread-safe; a value is built outside the
    lock (two first calls with one key may both build: same result)."""

    def __init__(self, size: int = CONTENT_MEMO_SIZE) -> None:
        if size < 1:
            raise ValueError(f"ContentMemo size must be >= 1, got {size}")
        self._size = size
        self._values: OrderedDict[Hashable, _T] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Hashable | None, build: Callable[[], _T]) -> _T:
        if key is not None:
            with self._lock:
                if key in self._values:
                    self._values.move_to_end(key)
                    return self._values[key]
        value = build()
        if key is not None and value is not None:
            with self._lock:
                self._values[key] = value
                self._values.move_to_end(key)
                while len(self._values) > self._size:
                    self._values.popitem(last=False)
        return value

    def clear(self) -> None:
        with self._lock:
            self._values.clear()


# The analysers of the last bundles, by identity (analyser, version, POS filter, user dictionary):
# building Kiwi with a user dictionary costs ~4 s of CPU (1.4 s model load, 2.7 s build), so a
# rollback to the bundle served before a new user dictionary reuses the analyser it kept.
_TOKENIZERS: ContentMemo[Tokenizer] = ContentMemo()
