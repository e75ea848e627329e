"""Index stage: write a versioned bundle from the stage outputs, check it, publish it.

The bundle is written to a temporary directory and renamed into place; `CURRENT` moves only after the
new bundle has been reopened with full checksum verification and has passed the sanity query.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from yaksa.config import Settings
from yaksa.corpus.ingest import read_documents
from yaksa.index.bundle import CollectionInput, write_bundle
from yaksa.index.publish import publish
from yaksa.pipeline.build_report import update_report
from yaksa.pipeline.embed_stage import embedders_for, group_by_collection, read_embeddings
from yaksa.pipeline.sanity import check_bundle
from yaksa.pipeline.tokenize_stage import read_tokens, tokenizer_for

BUILD_PARAM_SECTIONS = ("sources", "synthea", "ingest", "tokenizer", "embed", "index")


@dataclass(frozen=True)
class IndexSummary:
    version: str
    counts: dict[str, int]
    published: bool
    seconds: float


def run_index(settings: Settings, publish_bundle: bool = True) -> IndexSummary:
    start = time.perf_counter()
    docs = read_documents(settings.paths.documents)
    tokens = read_tokens(settings.paths.tokens, docs)
    tokens_by_id = {d.doc_id: t for d, t in zip(docs, tokens)}
    tokenizer = tokenizer_for(settings, settings.paths.userdict)
    inputs: list[CollectionInput] = []
    for name, group in sorted(group_by_collection(docs).items()):
        vectors, embedder = read_embeddings(settings.paths.embeddings, name, group)
        inputs.append(
            CollectionInput(
                name=name,
                documents=group,
                tokens=[tokens_by_id[d.doc_id] for d in group],
                vectors=vectors,
                embedder=embedder,
            )
        )
    params = {k: settings.raw_params.get(k) for k in BUILD_PARAM_SECTIONS}
    bundle_dir = write_bundle(
        settings.paths.indexes,
        inputs,
        tokenizer=tokenizer.identity(),
        params=params,
        index_params=settings.index,
        userdict_path=settings.paths.userdict,
        git_root=settings.paths.root,
    )
    version = bundle_dir.name
    if publish_bundle:
        embedders = embedders_for(settings, [c.name for c in inputs])
        publish(
            settings.paths.indexes,
            version,
            check=lambda bundle: check_bundle(bundle, tokenizer, embedders),
            keep=settings.index.keep_versions,
        )
    counts = {c.name: len(c.documents) for c in inputs}
    summary = IndexSummary(version, counts, publish_bundle, time.perf_counter() - start)
    update_report(settings.paths.build_report, version=version, counts=counts, total=sum(counts.values()),
                  published=publish_bundle)
    return summary
