"""Dense embeddings: one contract, five backends chosen by name, and a content-hash cache."""

from yaksa.embed.base import REGISTRY, Embedder, EmbedderError, l2_normalize, make_embedder
from yaksa.embed.cache import EmbeddingCache

__all__ = [
    "REGISTRY",
    "Embedder",
    "EmbedderError",
    "EmbeddingCache",
    "l2_normalize",
    "make_embedder",
]
