"""The tokenizer contract shared by index building and query time.

BM25 scores are only meaningful when documents and queries go through the same analyser build, so
every tokenizer reports an `identity()` (library, version, POS filter, user-dictionary hash) that the
index manifest records and the retriever compares before answering.

Usage:
    >>> tok = build_tokenizer("kiwi", ["NNG", "NNP", "VV", "VA", "SL", "SN"], None)
    >>> tok.tokenize("두통이 있어요")
    ['두통', '있다']
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Protocol, runtime_checkable

BACKENDS: tuple[str, ...] = ("kiwi", "mecab")


@runtime_checkable
class Tokenizer(Protocol):
    name: str

    def identity(self) -> dict[str, object]:
        """{"name", "version", "pos_filter", "userdict_hash"}: what must match between index and query."""
        ...

    def tokenize(self, text: str) -> list[str]:
        """Index terms of one text (usable as bm25s' `splitter`)."""
        ...

    def tokenize_many(self, texts: Sequence[str], progress: bool = False) -> list[list[str]]:
        """Index terms of many texts, in input order, batched for speed."""
        ...


def build_tokenizer(backend: str, pos_filter: Sequence[str], userdict_path: Path | None) -> Tokenizer:
    """Construct the configured analyser (`tokenizer.backend` in params.yaml)."""
    if backend == "kiwi":
        from yaksa.text.kiwi import KiwiTokenizer

        return KiwiTokenizer(pos_filter, userdict_path)
    if backend == "mecab":
        from yaksa.text.mecab import MecabTokenizer

        return MecabTokenizer(pos_filter, userdict_path)
    raise ValueError(f"unknown tokenizer backend {backend!r}; expected one of {', '.join(BACKENDS)}")
