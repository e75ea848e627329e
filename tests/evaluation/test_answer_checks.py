"""Numbers an answer quotes from the red-flag table are grounded in it, not counted as invented doses."""

from __future__ import annotations

from yaksa.evaluation.answer_checks import answer_checks, quoted_advice
from yaksa.scope.red_flags import flag_of


def test_the_red_flag_advice_a_turn_quoted_grounds_its_numbers() -> None:
    """hidoc-C0000454924 ("열이 39도인데 … 심박수가 140") got the sepsis advice ("1분에 130회 이상") and no label:
    number_grounding scored it 0, as if the answer had invented a dose."""
    answer = flag_of("sepsis_signs").advice_ko
    assert answer_checks(answer, [], 0)["number_grounding"] == 0.0
    trace = {"red_flag": {"rule": "sepsis_signs", "urgency": "emergency"}}
    assert answer_checks(answer, [], 0, quoted_advice(trace))["number_grounding"] == 1.0
    # another rule's advice does not ground it
    other = quoted_advice({"red_flag": {"rule": "stroke_signs", "urgency": "emergency"}})
    assert answer_checks(answer, [], 0, other)["number_grounding"] < 1.0


def test_a_fever_care_reply_quotes_the_rules_its_trace_names() -> None:
    texts = quoted_advice({"fever_rules": ["fever_under_3_months", "child_fever_5_days"]})
    assert len(texts) == 4 and any("38도" in t for t in texts)
    assert quoted_advice({}) == [] and quoted_advice({"red_flag": {"rule": "no_such_rule"}}) == []


def test_a_feverish_childs_watch_signs_ground_their_numbers() -> None:
    """The watch signs after a feverish child's labels ("39도 이상", "5일 이상") are the table's text, named by the
    trace's `watch_signs`: regression scored number_grounding 0.9953 the day they came."""
    answer = flag_of("child_fever_5_days").advice_ko
    trace = {"watch_signs": ["fever_3_to_6_months", "child_fever_5_days"]}
    assert answer_checks(answer, [], 0, quoted_advice(trace))["number_grounding"] == 1.0
