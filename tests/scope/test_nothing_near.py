"""The last scope rule (`yaksa.scope.nothing_near`): a narrow pass naming nothing medical whose nearest
documents share none of its words is refused by the stage, before the cache, memory or any search."""

from __future__ import annotations

from pathlib import Path

from yaksa.config import load_settings
from yaksa.retrieval.loader import LoadedBundle
from yaksa.retrieval.searcher import Searcher
from yaksa.scope.decision import ScopeDecision
from yaksa.scope.nothing_near import REASON, may_be_nothing_near, passed_narrowly, shares_a_word
from yaksa.scope.stage import ScopeStage

NARROW = {"medical_terms": [], "density": 0, "p_in_scope": 0.3, "threshold": 0.25}


def test_the_cheap_conditions_need_all_of_nothing_named_a_narrow_pass_and_no_medicine_word() -> None:
    assert may_be_nothing_near("앞머리 다시 길러볼까", NARROW)
    assert not may_be_nothing_near("앞머리 다시 길러볼까", {**NARROW, "medical_terms": ["탈모"]})
    assert not may_be_nothing_near("앞머리 다시 길러볼까", {**NARROW, "density": 0.2})
    assert not may_be_nothing_near("앞머리 다시 길러볼까", {**NARROW, "p_in_scope": 0.5})   # not narrow
    assert not may_be_nothing_near("가루약 물에 타도 돼?", NARROW)                          # a medicine word
    assert not may_be_nothing_near("붕해시험법의 시험액은?", NARROW)                       # a pharmacopoeia test
    assert not passed_narrowly({"p_in_scope": 0.2, "threshold": 0.25})   # blocked by the model (a red flag's)
    assert not passed_narrowly({})                                         # no learned model: unknown
    # narrow means "the model still finds it more likely out than in", whatever the threshold
    assert passed_narrowly({"p_in_scope": 0.45, "threshold": 0.32})
    assert not passed_narrowly({"p_in_scope": 0.55, "threshold": 0.32})


def test_sharing_a_word_reads_content_words_only() -> None:
    assert shares_a_word("손톱 정리 좀 할까", ["손톱 무좀에 바르는 액"])
    assert not shares_a_word("앞머리 다시 길러볼까", ["제산제는 식후에 복용합니다"])


def _stage(loaded: LoadedBundle, searcher: Searcher, tiny_project: Path, scope_cache: Path) -> ScopeStage:
    model_dir = load_settings(tiny_project / "params.yaml").paths.scope_model
    stage = ScopeStage(loaded, searcher.query_vector, cache_dir=scope_cache, learned_dir=model_dir)
    assert stage.learned is not None
    return stage


def test_the_stage_refuses_a_narrow_pass_that_no_near_document_shares_a_word_with(
        loaded: LoadedBundle, searcher: Searcher, tiny_project: Path, scope_cache: Path, monkeypatch) -> None:
    stage = _stage(loaded, searcher, tiny_project, scope_cache)
    monkeypatch.setattr(stage, "_decide_model", lambda q: ScopeDecision(True, "scope_model:whole", dict(NARROW), stage.model))
    refused = stage.decide("앞머리 다시 길러볼까")
    assert not refused.in_scope and refused.reason == REASON and refused.signals["nothing_near"] is True
    # a document's own title shares its words with its nearest documents (itself among them): kept
    drugs = loaded.bundle.collections["drugs"]
    title = drugs.documents([0])[0].title
    kept = stage.decide(title)
    assert kept.in_scope and kept.reason == "scope_model:whole"
    # a clear pass is never asked
    monkeypatch.setattr(stage, "_decide_model",
                        lambda q: ScopeDecision(True, "scope_model:whole", {**NARROW, "p_in_scope": 0.9}, stage.model))
    assert stage.decide("앞머리 다시 길러볼까").in_scope


def test_a_question_of_one_syllable_nouns_has_nothing_to_compare_and_is_never_refused() -> None:
    assert shares_a_word("벌에 쏘였는데 어떡해요", ["제산제는 식후에 복용합니다"])
    assert shares_a_word("코가 막혀", [])


def test_the_words_of_real_posts_and_english_keep_a_message_from_the_rule() -> None:
    from yaksa.scope.nothing_near import may_refuse, post_terms
    assert {"쓰리다", "명치", "미열"} <= post_terms()
    from yaksa.scope.nothing_near import post_words
    assert post_words(["요즘", "속", "쓰리다"]) == ["쓰리다"] and post_words(["앞머리", "다시", "기르다"]) == []
    assert not may_refuse("요즘 속이 자주 쓰려요", {**NARROW, "post_words": ["쓰리다"]})
    assert may_refuse("앞머리 다시 길러볼까", {**NARROW, "post_words": []})
    assert not may_refuse("What is (are) Cluttering ?", NARROW)
