"""Open the published bundle together with the tokenizer and embedders that built it.

The runtime tokenizer is rebuilt from the bundle's own user dictionary and the embedders from the
manifest's identities; `open_bundle` then refuses the bundle if the installed libraries would tokenize
or embed differently from the build (a kiwipiepy upgrade, another embedding model).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import faiss

from yaksa.embed.base import Embedder, make_embedder
from yaksa.index.errors import BundleError
from yaksa.index.manifest import Manifest, plain_json
from yaksa.index.reader import Bundle, open_bundle, resolve_bundle
from yaksa.text.tokenizer import Tokenizer, build_tokenizer


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
        tokenizer = build_tokenizer(str(tok["name"]), list(tok["pos_filter"]), userdict if userdict.exists() else None)
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
