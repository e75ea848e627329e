"""The informal-request ending (`register.py`): one input of the scope model, never a verdict alone."""

from __future__ import annotations

import pytest

from yaksa.scope.register import informal_request


@pytest.mark.parametrize("question", [
    "내일 일정 알려줘", "온수 기능이 켜져 있니", "폭염은 언제까지 계속되니", "가스 꺼졌는지 좀 봐봐",
    "다음 주 회의 언제야?", "저녁 같이 먹을래?", "이번 주말에 영화 볼까~", "거실 불 좀 꺼줄래?", "오늘 기분 어때 ㅋㅋ",
    # the -ㄹ까 question of any verb, 돼, and -지 after a tense: small talk ends so as often as requests do
    "머리 스타일 바꿀까", "언제쯤 편히 잠들수있을까?", "좋아하는 사람이랑 나이 차이 괜찮을까?", "먼저 연락해도 돼?",
    "자주 못보면 헤어지겠지?", "인형뽑기는 유행 지났지?",
])
def test_requests_to_an_assistant_or_a_friend_end_informally(question: str) -> None:
    assert informal_request(question)


@pytest.mark.parametrize("question", [
    "두통약 추천해 주세요", "타이레놀 하루 최대 몇 알 먹어도 되나요?", "급성 충수염의 진단에 가장 유용한 검사는?",
    "아이가 열이 나요. 해열제 먹여도 될까요?", "소변: 적혈구 0~1/고배율시야", "What is the dose of ibuprofen?", "",
    "감기약 먹어도 되나요?", "이 약을 언제 먹어야 할까요?", "다음 중 옳은 것은?", "가장 가능성이 높은 진단은 무엇인가?",
])
def test_polite_questions_exam_stems_and_english_do_not(question: str) -> None:
    assert not informal_request(question)
