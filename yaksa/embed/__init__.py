"""Dense embeddings: one contract, four backends chosen by name, and a content-hash cache."""

from yaksa.embed.base import REGISTRY, Embedder, EmbedderError, l2_normalize, make_embedder
from yaksa.embed.cache import EmbeddingCache, embed_with_cache

__all__ = [
    "REGISTRY",
    "Embedder",
    "EmbedderError",
    "EmbeddingCache",
    "embed_with_cache",
    "l2_normalize",
    "make_embedder",
]
