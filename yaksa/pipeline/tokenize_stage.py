"""Tokenize stage: user dictionary from the drug documents, then Kiwi (or MeCab) tokens per document.

Tokens are cached by (tokenizer identity, content hash) in the previous run's output, so a rebuild
tokenizes only new or changed documents — the long English passages cost most of the time.

The stage is plan → batches → merge (`yaksa.pipeline.batches`): the driver writes the user
dictionary and plans the uncached texts; `tokenize_batch` runs anywhere (this process, a Dask
worker) from a `TokenizerSpec` that carries the dictionary itself; the driver checks each result's
tokenizer identity and writes the one tokens file.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from yaksa.atomicio import write_parquet
from yaksa.config import Settings
from yaksa.corpus.document import Document
from yaksa.corpus.ingest import read_documents
from yaksa.lexicon.scope_vocabulary import curated_medical_words
from yaksa.pipeline.batches import BatchLedger, BatchResultError, TextBatch, plan_batches
from yaksa.pipeline.process_pool import map_batches
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


@dataclass(frozen=True)
class TokenizerSpec:
    """Everything a worker needs to rebuild the driver's tokenizer; the user dictionary travels as bytes."""

    backend: str
    pos_filter: tuple[str, ...]
    userdict: bytes


@dataclass(frozen=True)
class TokenBatch:
    """One batch's tokens, with the identity of the tokenizer that made them."""

    label: str
    identity: str
    hashes: tuple[str, ...]
    tokens: tuple[list[str], ...]


@dataclass(frozen=True)
class TokenizePlan:
    spec: TokenizerSpec
    identity: str
    documents: list[Document]
    cached: dict[str, list[str]]
    batches: list[TextBatch]
    user_words: int
    started: float


@lru_cache(maxsize=4)
def tokenizer_from_spec(spec: TokenizerSpec) -> Tokenizer:
    """Built once per process: a worker analyses many batches with one Kiwi (its model load takes ~1 s)."""
    with tempfile.TemporaryDirectory(prefix="yaksa-userdict-") as tmp:
        path = Path(tmp) / "userdict.tsv"
        path.write_bytes(spec.userdict)
        return build_tokenizer(spec.backend, spec.pos_filter, path)


def plan_tokenize(settings: Settings) -> TokenizePlan:
    """Driver: write the user dictionary, read the token cache, batch what is not in it."""
    start = time.perf_counter()
    docs: list[Document] = read_documents(settings.paths.documents)
    words = build_user_words(docs)
    known = {w.word for w in words}
    words += [UserWord(w, "NNG", DEFAULT_SCORE) for w in curated_medical_words() if w not in known]
    write_userdict(settings.paths.userdict, words)
    spec = TokenizerSpec(
        settings.tokenizer.backend, tuple(settings.tokenizer.pos_filter), settings.paths.userdict.read_bytes()
    )
    identity = _identity_key(tokenizer_from_spec(spec))
    cached = _previous_tokens(settings.paths.tokens, identity)
    batches = plan_batches(
        "tokenize",
        [d.content_hash for d in docs],
        [d.index_text for d in docs],
        cached,
        settings.build.tokenize_docs_per_task,
    )
    return TokenizePlan(spec, identity, docs, cached, batches, len(words), start)


def tokenize_batch(spec: TokenizerSpec, batch: TextBatch) -> TokenBatch:
    """Worker: the tokens of one batch; reads and writes no file but a temporary user dictionary."""
    tokenizer = tokenizer_from_spec(spec)
    tokens = tokenizer.tokenize_many(batch.texts)
    return TokenBatch(batch.label, _identity_key(tokenizer), batch.hashes, tuple(tokens))


def merge_tokens(settings: Settings, plan: TokenizePlan, results: Iterable[TokenBatch]) -> TokenizeSummary:
    """Driver: check every batch against the plan, then write the tokens of all documents at once."""
    ledger = BatchLedger((plan.identity, b) for b in plan.batches)
    by_hash = dict(plan.cached)
    for result in results:
        ledger.settle(result.label, result.identity, result.hashes)
        if len(result.tokens) != len(result.hashes):
            raise BatchResultError(f"batch {result.label}: {len(result.tokens)} token lists for "
                                   f"{len(result.hashes)} documents")
        by_hash.update(zip(result.hashes, result.tokens))
    ledger.check_complete()
    docs = plan.documents
    table = pa.table(
        {
            "doc_id": [d.doc_id for d in docs],
            "content_hash": [d.content_hash for d in docs],
            "tokens": pa.array([by_hash[d.content_hash] for d in docs], type=pa.list_(pa.string())),
        }
    ).replace_schema_metadata({"tokenizer": plan.identity})
    write_parquet(settings.paths.tokens, table)
    tokenized = sum(len(b.hashes) for b in plan.batches)
    return TokenizeSummary(
        documents=len(docs),
        tokenized=tokenized,
        reused=len(docs) - sum(1 for d in docs if d.content_hash not in plan.cached),
        user_words=plan.user_words,
        seconds=time.perf_counter() - plan.started,
    )


def run_tokenize(settings: Settings, progress: bool = True) -> TokenizeSummary:
    """The stage without Prefect: the same plan, batches and merge a task runner maps (flows/build_index),
    the batches on every core with `build.runner: processes` (`yaksa.pipeline.process_pool`)."""
    plan = plan_tokenize(settings)
    work = [(plan.spec, b) for b in plan.batches]
    return merge_tokens(settings, plan, map_batches(settings.build, tokenize_batch, work, progress, "tokenize"))


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
