"""Whom an answer took a message naming no one to be about (`yaksa.llm.offline.assumed_person`)."""

from __future__ import annotations

from yaksa.extraction.post_reader import read_post
from yaksa.llm.context import assemble_prompt
from yaksa.llm.evidence import Citation
from yaksa.llm.offline.assumed_person import assumed_person, assumed_person_note, without_told_person
from yaksa.llm.offline.extractive import extractive_answer
from yaksa.llm.offline.rule_verifier import verify_rules

FATHER = "(부모) 68세 남성. 질환: 고혈압."


def test_a_question_naming_no_one_is_taken_for_the_remembered_person() -> None:
    assert assumed_person("진드기에 물린 것 같은데 타이레놀 먹어도 되나요?", None, FATHER) == "부모, 68세 남성"
    assert assumed_person("해열제 얼마나 먹여요?", None, "(자녀) 증상: 구토.") == "자녀"   # a child's, no age kept
    assert assumed_person("타이레놀 먹어도 돼요?", None, "임신 중.") == "임신 중"


def test_a_question_naming_its_person_or_an_adult_profile_assumes_no_one() -> None:
    assert assumed_person("5살 아이가 열이 나는데 타이레놀 먹여도 되나요?", None, FATHER) == ""
    assert assumed_person("임신 중인데 타이레놀 먹어도 되나요?", None, FATHER) == ""
    assert assumed_person("타이레놀 먹어도 되나요?", None, "29세 여성. 증상: 몸살.") == ""   # an adult: nothing to say
    assert assumed_person("타이레놀 먹어도 되나요?", None, "") == ""
    # the memory node's reading of the person wins over the summary's words (it chose whose profile it is)
    assert assumed_person("타이레놀 먹어도 되나요?", None, FATHER, remembered=()) == ""


def test_a_long_post_is_read_for_its_own_person() -> None:
    post = read_post("어제부터 머리가 아프고 열이 조금 있어요. 회사 일이 많아서 잠도 못 잤습니다. 집에 타이레놀이 있는데요. "
                     "타이레놀 먹어도 괜찮을까요? 얼마나 먹어야 하나요? 답변 부탁드립니다.")
    assert post.long and assumed_person("타이레놀 먹어도 괜찮을까요?", post, FATHER) == ""


def test_the_note_comes_first_and_its_age_is_no_unsupported_dose(tylenol: list[Citation]) -> None:
    answer = extractive_answer("타이레놀 하루에 몇 번 먹어요?", tylenol, profile_summary=FATHER)
    first = answer.split("\n\n")[0]
    assert first == assumed_person_note("부모, 68세 남성", korean=True)
    # "68세" is the user's own word quoted back, not a figure the labels must state
    assert verify_rules(answer, tylenol).verdict == "PASS", answer
    assert "68세" not in without_told_person(first) and "68세" in first
    # ... also after the source notice the answer gets in front of it once verified
    noticed = "타이레놀은 자료에 없어 같은 성분(아세트아미노펜) 제품의 허가 정보로 답합니다. " + answer
    assert "68세" not in without_told_person(noticed)


def test_an_age_the_answer_claims_elsewhere_is_still_checked(tylenol: list[Citation]) -> None:
    claimed = "타이레놀은 3세부터 먹을 수 있습니다. [문서 2]\n\n복용 전에 약사나 의사 등 전문가와 꼭 상담하세요."
    assert without_told_person(claimed) == claimed
    assert verify_rules(claimed, tylenol).verdict == "FAIL"


def test_no_one_assumed_no_note(tylenol: list[Citation]) -> None:
    answer = extractive_answer("타이레놀 하루에 몇 번 먹어요?", tylenol, profile_summary="")
    assert "앞서 알려 주신 정보" not in answer


def test_the_llm_prompt_is_told_whom_to_answer_for(tylenol: list[Citation]) -> None:
    prompt = assemble_prompt("타이레놀 하루에 몇 번 먹어요?", tylenol, FATHER)
    user = prompt.messages[-1]["content"]
    assert user.startswith("## 답변 대상") and "부모, 68세 남성" in user.split("\n")[0]
    named = assemble_prompt("우리 5살 아이 타이레놀 하루에 몇 번 먹여요?", tylenol, FATHER)
    assert "## 답변 대상" not in named.messages[-1]["content"]


def test_english_note_keeps_the_consult_phrase() -> None:
    note = assumed_person_note("자녀, 5세", korean=False)
    assert note.startswith("This is answered for what you told me earlier (자녀, 5세).")
    assert "전문가와 꼭 상담하세요" in note and without_told_person(note).startswith(". If you")
