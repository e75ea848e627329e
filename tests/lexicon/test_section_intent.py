"""Section intent: Korean MFDS sections and English MedQuAD question types."""

from __future__ import annotations

import pytest

from yaksa.lexicon.section_intent import asks_side_effects, classify_intent


@pytest.mark.parametrize(("question", "intent"), [
    ("임신 중인데 타이레놀 먹어도 되나요", "precautions"),
    ("케토톱 붙이고 햇빛 봐도 되나요", "precautions"),
    ("탁센 하루에 최대 몇 알", "usage"),
    ("타이레놀 먹은지 2시간 됐는데 또 먹어도 되나요?", "usage"),   # when the next dose may come
    ("타이레놀 먹고 3시간 지났는데 다시 먹어도 돼요?", "usage"),
    ("아기 해열제 용량 알려주세요", "usage"),
    ("애드빌 부작용 뭐예요", "side_effects"),
    ("알레르기약 먹으면 졸린가요", "side_effects"),
    ("타이레놀이랑 감기약 같이 먹어도 되나", "interactions"),
    ("후시딘 연고 보관 어떻게 해요", "storage"),
    ("타치온정은 어디에 쓰는 약인가요?", "efficacy"),
    ("타이레놀 오래 먹으면 간에 안 좋아요?", "precautions"),   # harm to an organ is a caution
    ("이 약 위에 무리 가나요", "precautions"),
    ("아스피린 먹으면 속 쓰려요?", "side_effects"),           # what taking it does: was efficacy
    ("부루펜 먹고 나서 두드러기 났어요", "side_effects"),
    ("케토톱 붙이면 피부가 빨개져요?", "side_effects"),
    ("부루펜 술 먹고 먹어도 되나요", "precautions"),
    ("애가 열이 나는데 해열제 교차복용 해도 되나요?", "interactions"),   # got a cold syrup's uses
    ("아이 해열제 번갈아 먹여도 되나요", "interactions"),
    ("이부프로펜 먹고 코피가 나요", "side_effects"),   # got ibuprofen's uses
    ("감기약 먹으면 어지러워요?", "side_effects"),
    ("이부프로펜 먹고 속이 쓰려요", "side_effects"),   # got ibuprofen's uses
    ("타이레놀 먹고 졸려요", "side_effects"),
])
def test_korean_intents(question: str, intent: str) -> None:
    assert classify_intent(question).name == intent


def test_symptom_turns_can_i_take_into_efficacy() -> None:
    got = classify_intent("두통이 있는데 타이레놀 먹어도 되나요?", symptom=True)
    assert got.name == "efficacy" and "precautions" in got.secondary
    assert classify_intent("임신 중 두통약 먹어도 돼요?", symptom=True).name == "precautions"


def test_dizziness_alone_is_a_complaint_not_a_side_effect_question() -> None:
    """"어지러워요" got a folic-acid label's side-effect list."""
    assert classify_intent("어지러워요").name != "side_effects"


@pytest.mark.parametrize("question", ["밥 먹고 속이 쓰려요", "밥 먹으면 속이 쓰려요", "매운 거 먹고 배가 아파요",
                                      "커피 마시면 두근거려요"])
def test_what_food_did_is_no_side_effect_question(question: str) -> None:
    """A complaint after a meal asks what helps, not a drug's side effects."""
    assert classify_intent(question).name != "side_effects"


def test_default_and_none() -> None:
    assert classify_intent("타이레놀").name is None
    assert classify_intent("타이레놀", default="efficacy").sections == ("efficacy",)


@pytest.mark.parametrize(("question", "qtype"), [
    ("What are the symptoms of Gout ?", "symptoms"),
    ("What causes Asthma ?", "causes"),
    ("How to diagnose Diabetes ?", "exams and tests"),
    ("What are the treatments for Acne ?", "treatment"),
    ("Is Huntington disease inherited ?", "inheritance"),
    ("How many people are affected by cystic fibrosis ?", "frequency"),
    ("What is the outlook for Stroke ?", "outlook"),
    ("How to prevent Lyme disease ?", "prevention"),
    ("What is (are) Anemia ?", "information"),
])
def test_medquad_question_types(question: str, qtype: str) -> None:
    got = classify_intent(question)
    assert got.lang == "en" and got.sections == (qtype,)


def test_side_effect_question_and_rank() -> None:
    assert asks_side_effects("타이레놀 부작용 뭐예요") and not asks_side_effects("타이레놀 용량")
    intent = classify_intent("부루펜 부작용")
    assert [intent.rank(s) for s in ("side_effects", "precautions", "usage")] == [0, 1, 2]
    with pytest.raises(ValueError):
        classify_intent("  ")


def test_feeling_unwell_is_not_a_caution() -> None:
    assert classify_intent("속이 안 좋아요").name != "precautions"


def test_lips_are_not_alcohol() -> None:
    """"입술에 물집이 생겼어요" got the 주의사항 of the cold-sore creams: 술 in 입술 read as alcohol."""
    assert classify_intent("입술에 물집이 생겼어요", symptom=True).name != "precautions"


@pytest.mark.parametrize(("question", "words"), [
    ("변비약 먹은지 3일째인데 효과가 없어요", "효과가 없"),
    ("타이레놀 먹었는데 두통이 안 나아요", "안 나아"),
    ("감기약 먹고 있는데 콧물이 그대로예요", "그대로예요"),
    ("연고 발랐는데 안 낫네요", "안 낫"),
    ("해열제 먹였는데 열이 안 떨어져요", "안 떨어"),
    ("아이가 감기약 먹었는데 기침이 계속돼요", "계속돼"),
    ("진통제 먹었는데 아직도 아프네요", "아직도 아프"),
    ("진통제 먹었는데 아직도 머리가 아프네요", "아직도 머리가 아프"),
    ("수액 맞고 약먹었는데 복통과 두통도 아직 여전합니다", "여전합"),
    # 15 of the shared posts said it so and were read as no failure (2026-12-02)
    ("3일째 약을 복용하고 있는데 호전이 없는것 같습니다", "호전이 없"),
    ("약을 계속해서 복용중인데도 호전되지 않습니다", "호전되지 않"),
])
def test_a_medicine_taken_and_no_better(question: str, words: str) -> None:
    """Found as a user (2026-12-01): such a message got the product's uses, which its writer knows; the cautions
    say when to stop and ask."""
    from yaksa.lexicon.section_intent import says_it_did_not_work

    assert says_it_did_not_work(question) == words
    if "떨어져요" not in question:
        assert classify_intent(question, symptom=True).name == "precautions"


@pytest.mark.parametrize("question", [
    "효과가 없는 약도 있나요?",          # no medicine taken
    "약 먹고 나서 좋아졌어요",
    "두통이 있는데 타이레놀 먹어도 되나요",
    "타이레놀 계속 먹어도 되나요",       # keeps taking it: no failure said
    "약 먹어보고 안 가라앉으면 다시 오라고 하셨어요",   # a failure only supposed
    "진통제 먹어도 효과가 없으면 어떻게 하나요?",
])
def test_no_failure_said(question: str) -> None:
    from yaksa.lexicon.section_intent import says_it_did_not_work

    assert says_it_did_not_work(question) is None


def test_a_dose_asked_after_a_failure_stays_a_dose_question() -> None:
    assert classify_intent("해열제 먹였는데 열이 안 떨어져요 또 먹여도 되나요?").name == "usage"


def test_label_lines_on_when_to_stop() -> None:
    from yaksa.lexicon.section_intent import NO_BETTER_IN_LABEL

    for line in ("5~6회 복용하여도 증상이 좋아지지 않을 경우 의사 또는 약사와 상의하십시오.",
                 "1개월 정도 복용하여도 증상의 개선이 없을 경우 복용을 즉각 중지하고 의사 또는 약사와 상의하십시오.",
                 "의사 또는 약사의 지시없이 통증에 10일 이상(성인) 복용하지 않습니다.",
                 # how long not to go on (2026-12-02: an ointment a week on and no better got its dose)
                 "이 약은 높은 투과흡수성을 가지므로 장기간 사용하지 마십시오.", "장기간 계속하여 복용하지 마십시오.",
                 "1주일 이상 계속 사용하지 마십시오.", "7일 이상 계속하여 사용하지 마십시오."):
        assert NO_BETTER_IN_LABEL.search(line)
    assert not NO_BETTER_IN_LABEL.search("이 약에 과민증 환자는 이 약을 복용하지 마십시오.")
