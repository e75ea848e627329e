"""Tokenize stage: user dictionary from the drug documents, then Kiwi (or MeCab) tokens per document.

Tokens are cached by (tokenizer identity, content hash) in the previous run's output, so a rebuild
tokenizes only new or changed documents — the long English passages cost most of the time.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from yaksa.atomicio import write_parquet
from yaksa.config import Settings
from yaksa.corpus.document import Document
from yaksa.corpus.ingest import read_documents
from yaksa.scope.vocabulary import curated_medical_words
from yaksa.text.tokenizer import Tokenizer, build_tokenizer
from yaksa.text.userdict import DEFAULT_SCORE, UserWord, build_user_words, write_userdict


class StageInputError(RuntimeError):
    """A stage's input is missing or does not match what the previous stage wrote."""


@dataclass(frozen=True)
class TokenizeSummary:
    documents: int
    tokenized: int
    reused: int
    user_words: int
    seconds: float


def tokenizer_for(settings: Settings, userdict_path: Path | None) -> Tokenizer:
    return build_tokenizer(settings.tokenizer.backend, settings.tokenizer.pos_filter, userdict_path)


def _identity_key(tokenizer: Tokenizer) -> str:
    ident = tokenizer.identity()
    return "|".join(str(ident[k]) for k in sorted(ident))


def _previous_tokens(path: Path, identity_key: str) -> dict[str, list[str]]:
    if not path.exists():
        return {}
    try:
        table = pq.read_table(path)
    except (OSError, pa.ArrowException):  # a corrupt cache only costs time: re-tokenize everything
        return {}
    meta = table.schema.metadata or {}
    if meta.get(b"tokenizer", b"").decode() != identity_key:
        return {}
    hashes = table.column("content_hash").to_pylist()
    tokens = table.column("tokens").to_pylist()
    return dict(zip(hashes, tokens))


def run_tokenize(settings: Settings, progress: bool = True) -> TokenizeSummary:
    start = time.perf_counter()
    docs: list[Document] = read_documents(settings.paths.documents)
    words = build_user_words(docs)
    known = {w.word for w in words}
    words += [UserWord(w, "NNG", DEFAULT_SCORE) for w in curated_medical_words() if w not in known]
    write_userdict(settings.paths.userdict, words)
    tokenizer = tokenizer_for(settings, settings.paths.userdict)
    key = _identity_key(tokenizer)
    cached = _previous_tokens(settings.paths.tokens, key)
    todo = [i for i, d in enumerate(docs) if d.content_hash not in cached]
    fresh = tokenizer.tokenize_many([docs[i].index_text for i in todo], progress=progress)
    by_hash = dict(cached)
    for i, toks in zip(todo, fresh):
        by_hash[docs[i].content_hash] = toks
    table = pa.table(
        {
            "doc_id": [d.doc_id for d in docs],
            "content_hash": [d.content_hash for d in docs],
            "tokens": pa.array([by_hash[d.content_hash] for d in docs], type=pa.list_(pa.string())),
        }
    ).replace_schema_metadata({"tokenizer": key})
    write_parquet(settings.paths.tokens, table)
    return TokenizeSummary(
        documents=len(docs),
        tokenized=len(todo),
        reused=len(docs) - len(todo),
        user_words=len(words),
        seconds=time.perf_counter() - start,
    )


def read_tokens(path: Path, docs: list[Document]) -> list[list[str]]:
    """Tokens aligned with `docs`; refuses a tokens file from a different documents table."""
    if not path.exists():
        raise StageInputError(f"{path} not found: run the tokenize stage first")
    table = pq.read_table(path)
    ids = table.column("doc_id").to_pylist()
    hashes = table.column("content_hash").to_pylist()
    got = dict(zip(ids, zip(hashes, table.column("tokens").to_pylist())))
    out: list[list[str]] = []
    for d in docs:
        entry = got.get(d.doc_id)
        if entry is None or entry[0] != d.content_hash:
            raise StageInputError(f"{path}: stale tokens for {d.doc_id}; re-run the tokenize stage")
        out.append(entry[1])
    return out
