"""Long posts answered for the person who wrote them (issue 23.4), end to end on the tiny bundle.

The posts are written for these tests in the style of real forum posts; none is copied from one.
The tiny bundle's acetaminophen products (트라몰정160, 세토펜정, 세토펜정80) are all children's
tablets, whose 용법용량 doses children only ("만 12세 이하의 소아는 …").
"""

from __future__ import annotations

from collections.abc import Callable

from yaksa.agent.runner import AgentRunner

CHILD_DOSE_LINE = "만 12세 이하의 소아는"
ADULT_POST = ("안녕하세요 29살 여자입니다. 어제 저녁부터 열이 38도까지 오르고 온몸이 쑤셔요. 기침은 없고 목도 안 "
              "아파요. 집에 세토펜정이 있는데 먹어도 될까요? 하루에 몇 번까지 먹어도 되는지도 알려주세요.")
CHILD_POST = ("32살 엄마인데 6살 딸이 어제 저녁부터 열이 38.5도까지 올라요. 밥도 잘 안 먹고 계속 누워만 있어요. "
              "체중은 20kg이에요. 집에 세토펜정이 있는데 얼마나 먹여야 하나요?")
PREGNANT_POST = ("임신 20주 임산부입니다. 며칠 전부터 열이 나고 머리가 아파서 잠을 잘 못 자요. 집에 세토펜정이 "
                 "있는데 먹어도 괜찮을까요? 다른 약은 먹고 있는 게 없어요.")
CARE_POST = ("몇 달 전부터 가슴 한쪽에서 진물이 조금씩 나와요. 아프지는 않은데 속옷에 묻어서 신경이 쓰여요. "
             "왜 이런 걸까요? 무슨 과에 가야 하나요?")

FEVER_WAIT_POST = ("딸아이가 만 4년 6개월이에요. 어제 보건소에서 예방접종을 했는데 밤부터 39도 정도 열이 계속 나요. 해열제를 "
                   "두 번 먹였어요. 예전에 접종했을 때는 열이 없었거든요. 언제까지 열이 지속되는지 괜찮은 건지 궁금해요.")


def _turn(make_runner: Callable[..., AgentRunner], text: str):
    return make_runner().run(text, "writer", remember=False)


def test_an_adult_post_gets_no_childrens_dose(make_runner: Callable[..., AgentRunner]) -> None:
    result = _turn(make_runner, ADULT_POST)
    post = result.trace["post"]
    assert post["person"]["population"] == ["adult"] and post["person"]["age_years"] == 29.0
    assert result.trace["focus"]["population"] == ["adult"]   # "29살" once read as a child
    assert result.citations and CHILD_DOSE_LINE not in result.answer
    assert "세토펜정이 있는데 먹어도 될까요?" in result.trace["search_query"]


def test_a_childs_post_gets_the_childs_dose(make_runner: Callable[..., AgentRunner]) -> None:
    result = _turn(make_runner, CHILD_POST)
    person = result.trace["post"]["person"]
    assert (person["who"], person["age_years"], person["population"]) == ("child", 6.0, ["child"])
    assert result.trace["focus"]["population"] == ["child"]
    assert CHILD_DOSE_LINE in result.answer


def test_a_pregnant_writer_gets_the_pregnancy_caution_first(make_runner: Callable[..., AgentRunner]) -> None:
    result = _turn(make_runner, PREGNANT_POST)
    assert result.trace["post"]["person"]["pregnant"] is True
    opening = result.answer.split("[문서", 1)[0]
    assert "임부" in opening or "임신" in opening
    assert result.citations[0].metadata.get("section_key") in ("precautions", "warning")


def test_a_post_only_a_doctor_can_answer_is_told_so(make_runner: Callable[..., AgentRunner]) -> None:
    result = _turn(make_runner, CARE_POST)
    assert result.citations == [] and not result.blocked
    assert "허가 정보로는 답할 수 없습니다" in result.answer and "진료" in result.answer
    assert "전문가와 꼭 상담하세요" in result.answer
    assert "retrieve" in result.trace["nodes"] and not result.trace.get("retrieval")   # no search was run


def test_a_fever_post_asking_how_long_gets_when_to_see_a_doctor(make_runner: Callable[..., AgentRunner]) -> None:
    """Written after a real post (a 4½-year-old with 39 °C after a vaccination; "how long will the fever last,
    is it all right?") that was only told to see a doctor: it now gets the child fever rules that say when,
    for a child of that age (not the under-3-months one), after a first paragraph that answers what it asked
    and carries no urgent advice (no red flag is in the post)."""
    result = _turn(make_runner, FEVER_WAIT_POST)
    assert result.trace["post"]["person"]["age_years"] == 4.5
    assert result.trace["post_answer"] == "fever_care" and result.citations == []
    assert result.trace["fever_rules"] == ["child_fever_red", "child_fever_amber", "child_fever_5_days"]
    first, rest = result.answer.split("\n\n", 1)
    assert "119" not in first and "응급실" not in first and "오늘" not in first
    assert "5일 이상" in rest and "NICE NG143" in rest and "전문가와 꼭 상담하세요" in rest


def test_a_fever_post_asking_about_its_antipyretic_keeps_the_labels(make_runner) -> None:
    result = _turn(make_runner, CHILD_POST.replace("얼마나 먹여야 하나요?", "얼마나 먹여야 하나요? 언제까지 열이 갈까요?"))
    assert result.trace.get("post_answer") != "fever_care" and CHILD_DOSE_LINE in result.answer


def test_a_short_question_keeps_its_path(make_runner: Callable[..., AgentRunner]) -> None:
    result = _turn(make_runner, "세토펜정 먹어도 되나요?")
    assert "post" not in result.trace and result.trace["search_query"] == "세토펜정 먹어도 되나요?"


def test_a_long_post_with_a_pointer_word_is_not_asked_which_drug(make_runner) -> None:
    """"이번에도 역시 …" in a story is not a follow-up: no "which drug do you mean?" for a first message."""
    post = ("안녕하세요. 며칠 전부터 오른쪽 가슴이 욱신거리고 조금 부은 느낌이에요. 만져 보면 열감도 있어요. "
            "재작년에도 양쪽 가슴이 이렇게 아파서 병원에서 초음파와 조직검사를 했는데 이상은 없다고 했어요. "
            "그때는 스트레스 때문이라고 했는데 이번에도 그 약을 먹으면 될지 걱정이에요.")
    result = make_runner().run(post, "long-post-pointer")
    assert result.trace.get("intent") != "clarify"
    assert "앞선 대화에서 찾지 못했" not in result.answer


UNLISTED_POST = ("루푸스가 있어 신장내과를 다니고 있고 단백뇨 때문에 고혈압 약을 아침 저녁으로 먹습니다. 그런데 피부가 너무 "
                 "아프고 고름이 나고 잠을 못 잘 정도로 아파서 피부과에 갔습니다. 신장 상태를 설명해 드리고 독시정과 "
                 "아시팜정 약을 처방받아 지금 3주 가까이 먹고 있습니다. 그런데 엊그제부터 다리 부종이 많이 심해졌습니다. "
                 "혹시 지금 먹고 있는 피부과 약 때문에 그런건 아닌지. 궁금합니다.")


def test_a_post_on_medicines_the_data_lacks_is_told_so(make_runner: Callable[..., AgentRunner]) -> None:
    """A real post like this one got doxylamine sleep aids (its "잠을 못 잘 정도로 아파서" read as insomnia, its
    독시정 matched by nothing): the medicines it asks about are named as missing, and no label is quoted."""
    result = _turn(make_runner, UNLISTED_POST)
    assert result.trace["post"]["medicines"] == ["독시정", "아시팜정"]
    # the legs swelling more in kidney disease sends the writer to the kidney doctor first (`swelling_worse_kidney_heart`)
    assert result.trace["red_flag"]["rule"] == "swelling_worse_kidney_heart"
    assert result.answer.startswith("신장이나 심장 질환이 있는데 붓기(부종)가 심해지면")
    assert "독시정, 아시팜정에 해당하는 제품의 허가 정보가 자료에 없어" in result.answer
    assert "처방한 의사" in result.answer and not result.citations
    assert "불면" not in result.trace["post"]["symptoms"]
