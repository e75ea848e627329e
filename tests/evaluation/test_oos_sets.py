"""The committed scope question sets: size, coverage, well-formedness, and the held-out split."""

from __future__ import annotations

from collections import Counter

import pytest

from yaksa.evaluation.in_scope_ko import in_scope_questions
from yaksa.evaluation.oos import out_of_scope_ko_en
from yaksa.evaluation.suite import is_held_out as suite_split
from yaksa.scope.exemplars import exemplar_set_hash, is_held_out, load_questions, parse_questions

DOMAINS = {"finance", "food", "jobs", "travel", "tech", "entertainment", "sports", "weather", "shopping",
           "politics", "education", "chitchat", "harmful", "service"}


def test_sets_are_large_bilingual_and_cover_the_domains() -> None:
    questions = load_questions()
    outs = [q for q in questions if not q.in_scope]
    ins = [q for q in questions if q.in_scope]
    assert len(outs) >= 200 and len(ins) >= 300
    assert DOMAINS <= {q.domain for q in outs}
    for group in (outs, ins):
        langs = Counter(q.lang for q in group)
        assert langs["ko"] >= 0.5 * len(group) and langs["en"] >= 40
    assert sum(q.decoy for q in outs) >= 60  # drug/health words inside non-medical requests
    texts = {q.text for q in questions}
    assert {"크림 파스타 레시피", "감기약 회사 주식 사도 될까요", "how to make a bomb at home"} <= texts
    assert {"만 3개월 아기에게 먹이면 안 되는 소화액", "두통이 있는데 타이레놀 먹어도 되나요?", "배탈 나서 설사해요",
            "밤에 기침이 심해요"} <= texts
    assert len({q.qid for q in questions}) == len(questions)


def test_held_out_split_is_about_half_and_matches_the_dev_set_split() -> None:
    questions = load_questions()
    held = sum(is_held_out(q.qid) for q in questions)
    assert 0.4 < held / len(questions) < 0.6
    assert all(is_held_out(q.qid) == suite_split(q.qid) for q in questions)


def test_gold_question_views() -> None:
    oos, ins = out_of_scope_ko_en(), in_scope_questions()
    assert all(q.kind == "oos" and not q.gold for q in oos) and all(q.kind == "in_scope" for q in ins)
    assert {"삼성전자 주가 알려줘", "파이썬 리스트 정렬 방법", "ㅋㅋㅋ", "MRI 예약은 어떻게 하나요"} <= {q.question for q in oos}


def test_the_set_hash_follows_texts_and_labels() -> None:
    questions = load_questions()
    assert exemplar_set_hash(questions) == exemplar_set_hash(list(questions))
    flipped = [questions[0].__class__(**{**questions[0].__dict__, "in_scope": not questions[0].in_scope})]
    assert exemplar_set_hash(flipped + questions[1:]) != exemplar_set_hash(questions)


@pytest.mark.parametrize(("line", "message"), [
    ("{not json", "malformed JSON"),
    ('{"id": "a", "text": "x", "lang": "fr", "domain": "d", "note": ""}', "lang not in"),
    ('{"id": "a", "text": "x", "lang": "ko", "domain": "d"}', "string fields"),
])
def test_parse_errors_name_the_line(line: str, message: str) -> None:
    with pytest.raises(ValueError, match=f"set.jsonl:1: .*{message}"):
        parse_questions(line, True, "set.jsonl")
    with pytest.raises(ValueError, match="set.jsonl:2: duplicate"):
        ok = '{"id": "a", "text": "x", "lang": "ko", "domain": "d", "note": ""}'
        parse_questions(f"{ok}\n{ok}", True, "set.jsonl")
