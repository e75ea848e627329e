"""Question or statement, which drugs the user takes, and the asking part of a message.

The examples are written the way people type: with and without "?", 존댓말 and 반말, Korean and
English, noun-phrase queries and mixed messages.
"""

from __future__ import annotations

import pytest

from yaksa.extraction.slots import SlotItem
from yaksa.extraction.speech_act import clause_at, clauses, message_kind, question_part, takes_medication

QUESTIONS = [
    # the reported defects
    "판콜에스 하루에 몇 번 먹어요",
    # alternative questions (found by the nightly regression: stored as a medication taken)
    "트리메부틴 식전에 먹어요 식후에 먹어요",
    "이 약 아침에 먹어요 아니면 자기 전에 먹어요",
    "아세트아미노펜 하루 최대 용량",
    "무좀약 바르는 법",
    "배탈 나서 설사해요",
    "밤에 기침이 심해요",
    # a child's fever said as rising, staying or hot (were statements: "I'll remember that", no answer)
    "아기가 열이 올라요",
    "아기 열이 안 떨어져요",
    "아기가 몸이 뜨거워요",
    # a fever's temperature told (was a statement: "I'll remember that", 2026-12-01)
    "아이가 어제부터 열이 39도인데 해열제 먹여도 안 떨어져요 4살이에요",
    "4살 아이가 열이 39도예요",
    "머리가 지끈지끈 아파요",
    "두통이 있는데 아세트아미노펜 먹어도 되나요?",
    "임신 중인데 타이레놀 먹어도 되나요",
    # usage / dose / how-to without "?"
    "타이레놀 몇 알 먹어야 돼요",
    "이부프로펜 먹는 법",
    "파스 붙이는 법 알려주세요",
    "인공눈물 어떻게 넣어요",
    "감기약 먹고 술 마셔도 돼요",
    "타이레놀이랑 판콜에스 같이 먹어도 돼요?",
    "아스피린 공복에 먹으면 안 되나요",
    "타이레놀 부작용",
    "게보린 효능",
    "두통에 먹는 약",
    "속쓰림에 좋은 약",
    "판콜에스",
    "해열제 추천해줘",
    "비염약 알려줘",
    "소화제 뭐가 좋아",
    "이거 먹어도 되니",
    "애드빌이랑 타이레놀 차이가 뭐야",
    "임산부가 먹을 수 있는 감기약 있나요",
    "65세 남성 당뇨 환자가 이부프로펜 먹어도 되나요?",
    "와파린 먹고 있는데 진통제는 뭘 먹어야 하나요",
    "고혈압약이랑 감기약 같이 먹어도 되나요?",
    "아이가 열이 나요 해열제 얼마나 먹여요",
    "어지러워요",
    "잠이 안 와요",
    "목이 따끔따끔해요",
    "두통이 있어요",
    "약 먹는 시간이 궁금해요",
    # English
    "Can I take ibuprofen with warfarin?",
    "tylenol dosage for adults",
    "ibuprofen side effects",
    "how to use a nasal spray",
    "what is the max dose of acetaminophen",
    "I take warfarin, can I take aspirin?",
    "I'm pregnant, is tylenol safe",
    "my head hurts",
    "I have a bad cough at night",
    "recommend something for heartburn",
    "tell me about metformin",
    "aspirin",
]

STATEMENTS = [
    "저는 아침 저녁으로 혈압약 먹어요",
    "식전 식후 상관없이 먹고 있어요",
    "65세 남성이고 당뇨가 있어요",
    "와파린을 먹고 있어요",
    "혈압이 150/95예요",
    "임신 12주예요",
    "혈압약 복용 중",
    "아스피린 매일 먹어요",
    "메트포르민 처방받았어요",
    "저는 고혈압이 있고 암로디핀 먹고 있습니다.",
    "당뇨 있음",
    "65세 남성, 혈압 150/95",
    "공복 혈당 130이에요",
    "당화혈색소 7.2%예요",
    "타이레놀은 안 먹어요",
    "수면제는 끊었어요",
    "저 임신했어요",
    "수유 중이에요",
    "저는 70대 여자예요",
    "고지혈증으로 스타틴 먹고 있어요",
    "갑상선약 먹는 중이에요",
    "몇 년째 당뇨가 있어요",
    "I take metformin",
    "I'm on lisinopril",
    "I'm 65 years old and have diabetes",
    "I am pregnant",
    "My blood pressure is 150/95",
    "I stopped taking aspirin last week",
    "I was prescribed amlodipine",
    "I have high blood pressure",
]


@pytest.mark.parametrize("text", QUESTIONS)
def test_questions(text: str) -> None:
    assert message_kind(text, []) == "question", [(c.text, c.kind) for c in clauses(text)]


@pytest.mark.parametrize("text", STATEMENTS)
def test_statements(text: str) -> None:
    assert message_kind(text, []) == "statement", [(c.text, c.kind) for c in clauses(text)]


def test_slots_mark_facts_and_symptoms() -> None:
    diabetes = SlotItem("conditions", "당뇨병", concept_id="YK:CON:diabetes", text="당뇨", source="medcat")
    headache = SlotItem("symptoms", "두통", concept_id="YK:SYM:headache", text="두통", source="medcat")
    # a bare condition name is a query, unless the message also states something about the user
    assert message_kind("당뇨", [diabetes]) == "question"
    assert message_kind("65세 남성, 당뇨", [diabetes]) == "statement"
    # a MedCAT symptom the text rules do not know still makes the message a complaint
    assert message_kind("두통 있음", [headache]) == "question"
    assert message_kind("날씨가 좋네요", []) == "question"  # nothing about the user: not a statement


def test_bad_input_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="non-empty"):
        message_kind("  ", [])
    with pytest.raises(TypeError):
        question_part(None)  # type: ignore[arg-type]


TAKING = [
    ("와파린을 먹고 있어요", True),
    ("혈압약 복용 중", True),
    ("아스피린 매일 먹어요", True),
    ("메트포르민 처방받았어요", True),
    ("저용량 아스피린 먹는 중이에요", True),
    ("I'm on lisinopril", True),
    ("I take warfarin", True),
    ("I was prescribed metformin", True),
    ("타이레놀 먹어도 되나요", None),
    ("아세트아미노펜 하루 최대 용량", None),
    ("판콜에스 하루에 몇 번 먹어요", None),
    ("트리메부틴 식전에 먹어요 식후에 먹어요", None),
    ("타이레놀이랑 이부프로펜 같이 먹어도 돼요?", None),
    ("타이레놀 먹고 싶어요", None),
    ("can I take aspirin", None),
    ("타이레놀 부작용", None),
    ("아스피린 안 먹어요", False),
    ("수면제 끊었어요", False),
    ("와파린은 먹지 않아요", False),
    ("I stopped taking aspirin", False),
    ("I don't take any blood thinners", False),
]


@pytest.mark.parametrize(("clause", "expected"), TAKING)
def test_takes_medication(clause: str, expected: bool | None) -> None:
    assert takes_medication(clause) is expected


@pytest.mark.parametrize(("text", "drug"), [
    # a list joined by 하고 is one clause: every drug of it is taken (the dialogue study found these lost)
    ("지금 에스시탈로프람, 부스피론, 세르트랄린하고 페니실린 항생제를 복용 중이에요.", "세르트랄린"),
    ("약은 페니실린 항생제하고 히드로클로로티아지드를 먹고 있어요.", "페니실린"),
    ("매일 나프록센, 리튬하고 암로디핀을 챙겨 먹어요.", "리튬"),
])
def test_a_list_joined_by_hago_is_taken_as_a_whole(text: str, drug: str) -> None:
    assert takes_medication(clause_at(text, text.index(drug))) is True
    assert message_kind(text, []) == "statement"


def test_hago_between_clauses_still_splits() -> None:
    # a verb with 하고 ("복용하고") ends its clause: taking one drug, asking about the other
    text = "타이레놀 복용하고 아스피린을 먹어도 돼요?"
    assert takes_medication(clause_at(text, 0)) is True
    assert takes_medication(clause_at(text, text.index("아스피린"))) is None
    assert [c.kind for c in clauses("기침하고 콧물을 흘려요")] == ["symptom", "symptom"]


QUESTION_PARTS = [
    ("저는 HIV 양성이며 우울증약을 먹고 있어요. 타이레놀 먹어도 되나요?", "타이레놀 먹어도 되나요?"),
    ("65세 남성 당뇨 환자가 이부프로펜 먹어도 되나요?", "이부프로펜 먹어도 되나요?"),
    ("두통에 먹는 약", "두통에 먹는 약"),
    ("임신 중인데 타이레놀 먹어도 되나요", "타이레놀 먹어도 되나요"),
    ("와파린 먹고 있는데 이부프로펜 먹어도 돼요?", "이부프로펜 먹어도 돼요?"),
    ("당뇨가 있어요. 감기약 추천해 주세요", "감기약 추천해 주세요"),
    ("혈압이 150/95인데 판콜에스 먹어도 되나", "판콜에스 먹어도 되나"),
    ("저는 70대 여자고 골다공증이 있어요. 칼슘제 언제 먹어요?", "칼슘제 언제 먹어요?"),
    ("임산부가 타이레놀 먹어도 되나요?", "타이레놀 먹어도 되나요?"),
    ("두통이 있는데 아세트아미노펜 먹어도 되나요?", "두통이 있는데 아세트아미노펜 먹어도 되나요?"),
    ("배탈 나서 설사해요", "배탈 나서 설사해요"),
    ("타이레놀 부작용", "타이레놀 부작용"),
    ("판콜에스 하루에 몇 번 먹어요", "판콜에스 하루에 몇 번 먹어요"),
    ("65세 남성이고 당뇨가 있어요", ""),
    ("와파린을 먹고 있어요", ""),
    ("I take warfarin, can I take aspirin?", "can I take aspirin?"),
    ("I'm pregnant. Is tylenol safe?", "Is tylenol safe?"),
    ("I'm 65 and have diabetes. What can I take for a cold?", "What can I take for a cold?"),
    ("I'm on lisinopril and I was wondering if ibuprofen is ok", "I was wondering if ibuprofen is ok"),
    ("ibuprofen side effects", "ibuprofen side effects"),
    ("I take metformin", ""),
]


@pytest.mark.parametrize(("text", "expected"), QUESTION_PARTS)
def test_question_part(text: str, expected: str) -> None:
    assert question_part(text) == expected


def test_question_part_never_carries_facts_about_the_user() -> None:
    private = ["HIV", "우울증약", "65세", "남성", "150/95", "임신", "와파린", "pregnant", "warfarin", "lisinopril"]
    for text, _ in QUESTION_PARTS:
        part = question_part(text)
        assert not [w for w in private if w in part], (text, part)


def test_question_part_keeps_populations_and_drops_context_about_the_user() -> None:
    assert question_part("어린이 해열제 용량") == "어린이 해열제 용량"
    assert question_part("간이 안 좋은데 타이레놀 먹어도 되나요") == "타이레놀 먹어도 되나요"
    assert question_part("술을 자주 마시는데 아세트아미노펜 괜찮을까요") == "아세트아미노펜 괜찮을까요"
    assert question_part("혈압이 높아요") == ""


def test_a_question_ending_mid_message_asks() -> None:
    """A real post wrote two sentences without a full stop; the first asks ("…될까요"), the second ends as a
    statement ("…같아서요"): one clause ending in 같아서요 was a statement, remembered and acknowledged."""
    text = "위염에 단백질 보충제 먹어도 될까요 닭가슴살로 먹으려니 위에 부담이 가는거 같아서요"
    assert message_kind(text, []) == "question"
    assert clauses(text)[0].kind == "asks"


def test_a_spoken_sentence_ending_cuts_clauses_so_facts_are_read_apart() -> None:
    """Cut at "되나요", the second sentence is a fact the user states: 혈압약 is taken, 타이레놀 only asked about."""
    kinds = [(c.text, c.kind) for c in clauses("타이레놀 먹어도 되나요 지금 혈압약 먹고 있어요")]
    assert kinds == [("타이레놀 먹어도 되나요", "asks"), ("지금 혈압약 먹고 있어요", "fact")]
    assert takes_medication(clause_at("타이레놀 먹어도 되나요 지금 혈압약 먹고 있어요", 20)) is True


def test_an_alternative_question_is_not_cut_at_its_first_ending() -> None:
    assert [c.kind for c in clauses("트리메부틴 식전에 먹어요 식후에 먹어요")] == ["asks"]
