"""Signs of depression and anxiety (PHQ-9, GAD-7) as people write them, and when a message is a
mental-health concern: a named condition, or two different signs."""

from __future__ import annotations

import json

import pytest

from tests.conftest import shared_or_skip
from yaksa.lexicon.mind_signs import MIN_SIGNS, SIGNS, about_mental_health, beyond_the_body, mind_signs
from yaksa.lexicon.scope_vocabulary import names_mind_condition


def test_every_sign_names_its_screening_item() -> None:
    assert len({item for item, _, _ in SIGNS}) == len(SIGNS)
    assert all(source.startswith(("PHQ-9", "GAD-7", "PC-PTSD-5", "Mini-SPIN", "DSM-5", "ICD-11", "Y-BOCS"))
               for _, source, _ in SIGNS)


@pytest.mark.parametrize("message", [
    "요즘 감정 기복이 너무 심해요. 기분이 좋다가도 갑자기 우울해지고 짜증이 나요.",
    "취업 준비가 길어지면서 자신감이 완전히 없어졌어요. 가족들 보기가 미안하고 방에서 나가기 싫어요.",
    "헤어진 지 석 달이 지났는데 아직도 매일 울어요. 밥도 잘 못 먹고 일에 집중이 안 돼요.",
    "밤에 누우면 온갖 걱정이 떠올라서 새벽까지 잠을 못 자요.",
    "아무것도 하기 싫고 무기력해요",
    # trauma, grief, social fear, panic and avoidance (2026-11-30)
    "밤마다 악몽을 꾸고 교통사고 장면이 계속 떠올라요",
    "엄마가 돌아가신 뒤로 너무 힘들어서 일상생활이 안 돼요",
    "반려견이 죽은 뒤로 아무것도 손에 잡히지 않아요",
    "사람들 앞에 서면 너무 긴장돼서 말을 못하겠어요",
    "학교에서 따돌림을 당해서 학교 가기가 무서워요",
    "사람 많은 곳에 가면 숨이 차고 쓰러질 것 같아요",
    "퇴사하고 나서 하루 종일 누워만 있고 씻기도 싫어요",
    # a sign's other forms and OCD's washing and checking (2026-11-30, ours, not blind)
    "요즘 사람들 만나는 게 너무 무섭고 집 밖에 나가기가 싫어요. 제가 이상한 걸까요?",
    "자꾸 손을 씻게 되고 문이 잠겼는지 몇 번이나 확인해요",
    "밤마다 안 좋은 생각이 떠올라서 잠을 못 자요",
    "아무 이유 없이 눈물이 나고 의욕이 없어요",
    "남편이 바람을 피운 걸 알고 나서 잠도 못 자고 밥도 못 먹어요",
    "혼자 있으면 너무 외롭고 공허해요",
    "친한 친구가 자살한 뒤로 죄책감이 너무 커요. 제가 뭘 할 수 있었을까요?",
    "최근에 회사에서 해고를 당했어요. 앞으로 어떻게 살아야 할지 막막하고 아무것도 하고 싶지 않아요.",
    "잠들기 전에 하루 동안 있었던 일을 계속 곱씹어요. 그러다 보면 새벽까지 잠이 안 와요.",
    "갑자기 심장이 터질 것 같고 죽을 것 같은 느낌이 들어서 응급실에 갔어요",
])
def test_two_signs_are_a_concern(message: str) -> None:
    assert len(mind_signs(message)) >= MIN_SIGNS and about_mental_health(message)


@pytest.mark.parametrize("message", [
    "만나도 불안하면 어떡해?",                      # one sign: Chatbot_data's small talk
    "좋아하는 사람만 보면 눈물이 나는데 어떡해?",
    "운동화가 나을까? 구두가 나을까?",              # 화가 inside 운동화가
    "스타트업에 투자해볼까?",                       # 자해 inside 투자해
    "오늘 날씨 알려줘",
    "무서운 이야기 해줄까?",                        # one sign, in Chatbot_data
    "지하철에서 내리는 문이 어느 쪽이야?",          # a place alone is no sign
    "할머니가 돌아가신 뒤로 집이 조용해",           # a loss alone is no concern
    "문 잠겼는지 확인해 줘",                        # a home assistant's command: no repetition said
    "손 씻고 밥 먹어",
])
def test_one_sign_or_a_word_inside_another_is_not(message: str) -> None:
    assert not about_mental_health(message)


def test_a_denied_sign_is_not_a_sign() -> None:
    assert mind_signs("불안하지는 않아요") == () and mind_signs("짜증은 없어요") == ()
    assert mind_signs("화가 나지 않아요") == ()
    assert mind_signs("불안해서 잠을 못 자요") == ("trouble sleeping, or sleeping too much", "nervous, anxious, on edge")
    # a denial belongs to its own clause: the 없어 of "의욕이 없어요" does not deny the tears before it
    assert "feeling down or hopeless" in mind_signs("눈물이 나고 의욕이 없어요")
    assert mind_signs("불안하지는 않고 잠만 못 자요") == ("trouble sleeping, or sleeping too much",)


def test_a_named_condition_is_a_concern_at_the_start_of_a_word() -> None:
    assert names_mind_condition("공황장애 같아요") and names_mind_condition("자해를 했어요")
    assert about_mental_health("게임 중독 치료가 필요할까요?")
    assert not names_mind_condition("스타트업에 투자해볼까?")
    assert names_mind_condition("분노 조절이 안 되는 것 같아요") and names_mind_condition("번아웃인 것 같아요")
    assert names_mind_condition("심리상담은 어디서 받을 수 있나요?") and names_mind_condition("정신건강복지센터 위치")
    assert not names_mind_condition("짝남한테 고민상담 해달라고 해볼까?")    # Chatbot_data's small talk


def test_what_a_harm_left_behind_and_a_habit_that_will_not_stop_are_concerns() -> None:
    """Messages of ours refused as off-topic (2026-12-01): a trauma's memories, a habit one cannot stop, nail biting,
    and longing a year after a death (two signs: the death and the longing)."""
    assert names_mind_condition("학교폭력 당했던 기억 때문에 아직도 힘들어요")
    assert not names_mind_condition("학교폭력 당했을 때 신고는 어떻게 해요?")     # a procedure, no after-effect said
    assert names_mind_condition("게임을 끊고 싶은데 하루 종일 게임만 하게 돼요")
    assert names_mind_condition("손톱을 계속 물어뜯는 버릇을 고치고 싶어요")
    assert about_mental_health("엄마가 돌아가신 지 1년이 지났는데 아직도 매일 생각나요")
    assert not about_mental_health("헤어진 지 1년인데 아직도 생각나")              # one sign: small talk


def test_signs_a_body_complaint_shows_too_are_not_beyond_the_body() -> None:
    """Found as a user (2026-12-01): brain fog and a tight chest beside wind and a fever opened the answer with where
    to get help for the mind."""
    bodily = "머리가 멍하고 가슴이 답답하며 배에가스가차고 열이나네요"
    assert len(mind_signs(bodily)) == MIN_SIGNS and not beyond_the_body(bodily)
    assert beyond_the_body("가슴이 두근거리고 불안해요")
    assert beyond_the_body("밤에 누우면 온갖 걱정이 떠올라서 새벽까지 잠을 못 자요")
    assert not beyond_the_body("불안해요")


def test_no_shared_non_medical_question_shows_two_signs() -> None:
    """The 3,000 shared non-medical questions: a concern only where a condition is named (폭식증)."""
    path = shared_or_skip("real-questions", "oos_ko.jsonl")
    questions = [json.loads(line)["question"] for line in path.read_text(encoding="utf-8").splitlines()]
    assert not [q for q in questions if len(mind_signs(q)) >= MIN_SIGNS]
    assert [q for q in questions if about_mental_health(q)] == ["폭식증 어떻게 고칠 수 있을까?"]
