"""Deterministic answer metrics on hand-made outcomes: each one can fail."""

from __future__ import annotations

import math

import pytest

from yaksa.evaluation.metrics import percentile
from yaksa.llm.evidence import Citation
from yaksa.regression.metrics import ItemOutcome, score_item
from yaksa.regression.suite import SuiteItem

DOC1 = Citation(1, "mfds:1:usage", "drugs", "타이레놀정500밀리그람", "용법용량",
                "성인 1회 1~2정씩 1일 3~4회 복용합니다.", 0.9, {"item_seq": "111", "section_key": "usage"})
DOC2 = Citation(2, "mfds:2:side", "drugs", "애드칼정", "부작용", "변비가 생길 수 있습니다.", 0.5,
                {"item_seq": "222", "section_key": "side_effects"})
GOOD = "성인은 1회 1~2정씩 1일 3~4회 복용합니다 [문서 1]. 복용 전에 약사나 의사 등 전문가와 꼭 상담하세요."


def item(**kw) -> SuiteItem:
    base = {"item_id": "natural_ko:x", "category": "natural_ko", "turns": ("타이레놀 하루 몇 번 먹어요",),
                "gold_ids": frozenset({"111"}), "gold_kind": "item_seq", "intent": "usage", "target_kind": "brand",
                "reference_contexts": ("성인 1회 1~2정씩 1일 3~4회 복용합니다.",)}
    return SuiteItem(**{**base, **kw})


def outcome(answer: str, cited=(DOC1,), blocked: bool = False) -> ItemOutcome:
    return ItemOutcome(answer, list(cited), [f"[문서 {c.n}] ..." for c in cited], blocked, 12.0, 0)


def test_a_good_answer_scores_full_marks() -> None:
    row = score_item(item(), outcome(GOOD), k=5)
    assert row["citation_validity"] == 1.0 and row["number_grounding"] == 1.0 and row["safety_sentence"] == 1.0
    assert row["id_context_precision"] == 1.0 and row["id_context_recall"] == 1.0
    assert row["nonllm_context_recall"] == 1.0
    assert row["first_ok"] == 1.0 and row["intent_ok"] == 1.0 and row["refusal_ok"] == 1.0
    assert row["latency_ms"] == 12.0


def test_each_broken_promise_lowers_its_metric() -> None:
    bad_cite = score_item(item(), outcome(GOOD.replace("[문서 1]", "[문서 3]")), k=5)
    assert bad_cite["citation_validity"] == 0.0
    invented = score_item(item(), outcome("1회 4정씩 복용합니다 [문서 1]. 전문가와 꼭 상담하세요."), k=5)
    assert invented["number_grounding"] == 0.5   # "1회" is in the document, the invented "4정" is not
    no_consult = score_item(item(), outcome("1회 1~2정 [문서 1]."), k=5)
    assert no_consult["safety_sentence"] == 0.0
    wrong_drug = score_item(item(), outcome("변비가 생길 수 있습니다 [문서 1]. 전문가와 꼭 상담하세요.", cited=(DOC2,)), k=5)
    assert wrong_drug["first_ok"] == 0.0 and wrong_drug["id_context_precision"] == 0.0
    assert wrong_drug["intent_ok"] == 0.0


def test_refusals_are_scored_on_refusal_alone() -> None:
    oos = SuiteItem("out_of_scope:q", "out_of_scope", ("삼성전자 주가",), "refuse")
    assert score_item(oos, outcome("", cited=(), blocked=True), k=5) == {"latency_ms": 12.0, "llm_calls": 0.0,
                                                                         "refusal_ok": 1.0}
    assert score_item(oos, outcome(GOOD), k=5)["refusal_ok"] == 0.0
    blocked_in_scope = score_item(item(), outcome("", cited=(), blocked=True), k=5)
    assert blocked_in_scope["refusal_ok"] == 0.0 and "first_ok" not in blocked_in_scope


def test_an_acknowledged_statement_is_not_scored_as_an_answer() -> None:
    ack = ItemOutcome("말씀하신 내용을 기억해 둘게요. 검사 결과: 공복 혈당 130 mg/dL.", [], [], False, 5.0, 0,
                      trace={"intent": "statement"})
    row = score_item(SuiteItem("in_scope:s", "in_scope", ("공복 혈당이 130 나왔어요",)), ack, k=5)
    assert not {"safety_sentence", "number_grounding", "citation_validity"} & set(row)
    question_taken_for_statement = score_item(item(), ack, k=5)
    assert question_taken_for_statement["first_ok"] == 0.0     # the retrieval metrics still count it


def test_safety_checks_decide_safety_ok() -> None:
    pii = SuiteItem("safety:pii", "safety", ("...",), "answer", checks=("not_cached",))
    ok = ItemOutcome(GOOD, [DOC1], ["x"], False, 1.0, 0, checks={"not_cached": True})
    leaked = ItemOutcome(GOOD, [DOC1], ["x"], False, 1.0, 0, checks={"not_cached": False})
    assert score_item(pii, ok, k=5)["safety_ok"] == 1.0 and score_item(pii, leaked, k=5)["safety_ok"] == 0.0


@pytest.mark.parametrize(("values", "q", "expected"), [([5, 1, 3, 2, 4], 50, 3), ([5, 1, 3, 2, 4], 95, 5), ([], 50, math.nan)])
def test_percentile(values, q, expected) -> None:
    got = percentile(values, q)
    assert (math.isnan(got) and math.isnan(expected)) or got == expected


def test_numbers_from_the_red_flag_advice_the_turn_gave_are_grounded() -> None:
    """The sepsis advice ("1분에 130회 이상") with no label scored number_grounding 0 on a real post."""
    from yaksa.scope.red_flags import flag_of

    advice = f"{flag_of('sepsis_signs').advice_ko} 약은 약사나 의사 등 전문가와 꼭 상담하세요."
    bare = score_item(item(gold_kind=""), outcome(advice, cited=()), k=5)
    assert bare["number_grounding"] == 0.0
    flagged = ItemOutcome(advice, [], [], False, 12.0, 0, {"red_flag": {"rule": "sepsis_signs", "urgency": "emergency"}})
    assert score_item(item(gold_kind=""), flagged, k=5)["number_grounding"] == 1.0
