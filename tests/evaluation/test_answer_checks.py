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


def test_the_users_words_quoted_back_are_no_dose_of_the_answer() -> None:
    """A long post's care reply names its question ("…20일부터 … 23일 병원에 갔습니다.") and scored 0 on
    number_grounding: those dates are the writer's, said back in quotes, not a dose the answer gives."""
    from yaksa.evaluation.answer_checks import without_quoted_message

    message = "그렇게 며칠이 지나고 20일부터 가슴통증이 있어 23일 병원에 갔습니다. 무슨 과에 가야 하나요?"
    answer = ('글에서 물으신 "그렇게 며칠이 지나고 20일부터 가슴통증이 있어 23일 병원에 갔습니다."는 진단에 관한 질문이라 '
              "의약품 허가 정보로는 답할 수 없습니다. 약은 약사나 의사 등 전문가와 꼭 상담하세요.")
    assert "20일" not in without_quoted_message(answer, message)
    assert "number_grounding" not in answer_checks(answer, [], 0, message=message)
    assert answer_checks(answer, [], 0)["number_grounding"] == 0.0          # without the message, as before
    invented = '"하루 3번" 드시면 됩니다. 1회 2정을 드세요.'                     # not the user's words: still checked
    assert answer_checks(invented, [], 0, message="몇 번 먹어요?")["number_grounding"] == 0.0
