"""`yaksa build scope`: fit the learned scope model on the published bundle's embedder and write it.

Why a build stage after the index: the model's inputs are the bundle's own query embedder and its
vocabulary and drug catalog (`features.LexicalReader`), so it is fitted against exactly what the
service will compute; and the real questions it learns from may not be redistributed, so they are
read here from `paths.raw` (linked from `../shared/data`) and never leave the build machine as text.

Writes `paths.scope_model/` (weights + card, each atomically) and returns the summary the build
report records. The card (`scope_model.json`) holds per-source leave-one-source-out and held-out
rates; `yaksa eval scope` prints them.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

from yaksa.atomicio import write_json
from yaksa.config import Settings
from yaksa.retrieval.loader import load_published
from yaksa.scope.features import LEXICAL_FEATURES, LexicalReader
from yaksa.scope.featurize import ModelInputs, embed_windows
from yaksa.scope.learned import OUT_OF_SOURCE_FILE, LearnedScopeModel, fit_learned_model
from yaksa.scope.training_data import load_training_texts
from yaksa.scope.windows import text_windows

log = logging.getLogger(__name__)
SEED = 20261126


def fit_scope(settings: Settings, progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Fit on `paths.raw`'s real questions and the committed sets; write the model; its summary."""
    say = progress or log.info
    started = time.perf_counter()
    params = settings.scope
    loaded = load_published(settings.paths.indexes)
    try:
        collections = [c for c in params.model_collections if c in loaded.embedders]
        if not collections:  # e.g. a build without ../shared: only the generated cases are indexed
            reason = (f"none of scope.model_collections {list(params.model_collections)} is in the bundle "
                      f"({', '.join(sorted(loaded.embedders)) or 'no collection'}): the exemplar model decides")
            say(f"scope model skipped: {reason}")
            return {"skipped": reason}
        inputs = ModelInputs.from_bundle(loaded, collections)
        texts = load_training_texts(settings.paths.raw, params.train_limit_per_source, SEED)
        sources = sorted({t.source for t in texts})
        say(f"scope model: {len(texts)} texts from {len(sources)} sources ({', '.join(sources)})")
        windows = [text_windows(t.text) for t in texts]
        flat = [w for ws in windows for w in ws]
        vectors = {c: embed_windows(e, flat, settings.paths.embedding_cache, say)
                   for c, e in zip(inputs.collections, inputs.embedders, strict=True)}
        reader = LexicalReader.from_bundle(loaded)
        features = inputs.features_many(windows, lambda c, w: vectors[c][w], [reader.read(t.text).row() for t in texts])
        names = ["embed_logit", *inputs.corpus_names, *LEXICAL_FEATURES]
        model = fit_learned_model(features, [t.in_scope for t in texts], [t.source for t in texts],
                                  [t.held_out for t in texts], embedders=[e.id for e in inputs.embedders],
                                  collections=list(inputs.collections), feature_names=names,
                                  regularization=params.model_regularization, progress=say)
        if not (settings.paths.raw / "real-questions" / "oos_ko.jsonl").is_file():
            model.card.notes.append("no real-questions folder: fitted on the committed questions and English sets only")
        model.save(settings.paths.scope_model)
        write_json(settings.paths.scope_model / OUT_OF_SOURCE_FILE,
                   {"threshold": model.threshold,
                    "p_in_scope": {t.qid: round(p, 6) for t, p in zip(texts, model.out_of_source, strict=True)
                                   if not t.held_out}})
        LearnedScopeModel.load(settings.paths.scope_model)  # the build fails unless what it wrote reads back
        summary = {"model": model.name, "texts": len(texts), "sources": len(sources),
                   "threshold": model.threshold, "seconds": round(time.perf_counter() - started, 1),
                   "windows": sum(len(ws) for ws in windows)}
    finally:
        loaded.close()
    say(f"scope model written to {settings.paths.scope_model}: {summary}")
    return summary
