"""Issue 9 (7/8) at the agent level: what is answered, what is only remembered, and which drugs are
remembered as taken. Offline, default profile, the tiny published bundle."""

from __future__ import annotations

from yaksa.agent.replies import statement_reply

REMEMBERED = "말씀하신 내용을 기억해 두고"


def slot_items(runner, user: str, slot_type: str) -> list[str]:
    return [i["name"] for i in runner.profile(user)["items"] if i["slot_type"] == slot_type]


def test_questions_without_a_question_mark_are_answered_not_remembered(make_runner) -> None:
    runner = make_runner()
    for i, text in enumerate(["판콜에스 하루에 몇 번 먹어요", "아세트아미노펜 하루 최대 용량", "무좀약 바르는 법"]):
        user = f"asker-{i}"
        result = runner.run(text, user)
        assert result.trace["intent"] == "question", text
        assert REMEMBERED not in result.answer and "extract_slots" in result.trace["nodes"]
        assert slot_items(runner, user, "medications") == []  # asking about a drug is not taking it


def test_symptom_descriptions_are_answered_and_their_symptoms_remembered(make_runner) -> None:
    runner = make_runner()
    result = runner.run("배탈 나서 설사해요", "sym")
    assert result.trace["intent"] == "question" and REMEMBERED not in result.answer
    assert "설사" in slot_items(runner, "sym", "symptoms")
    cough = runner.run("밤에 기침이 심해요", "cough")
    assert cough.trace["intent"] == "question" and "기침" in slot_items(runner, "cough", "symptoms")


def test_taken_drug_is_remembered_and_asked_drug_is_not(make_runner) -> None:
    runner = make_runner()
    stated = runner.run("와파린을 먹고 있어요", "w")
    assert stated.trace["intent"] == "statement" and "retrieve" not in stated.trace["nodes"]
    assert stated.answer == statement_reply(stated.profile_summary) and "와파린" in stated.profile_summary
    assert slot_items(runner, "w", "medications") == ["와파린"]

    asked = runner.run("두통이 있는데 아세트아미노펜 먹어도 되나요?", "a")
    assert asked.trace["intent"] == "question"
    assert slot_items(runner, "a", "medications") == [] and "두통" in slot_items(runner, "a", "symptoms")

    mixed = runner.run("임신 중인데 타이레놀 먹어도 되나요", "p")
    assert mixed.trace["intent"] == "question" and REMEMBERED not in mixed.answer
    assert any(i["name"] == "pregnancy" and i["value"] == "yes" for i in runner.profile("p")["items"])


def test_a_childs_facts_are_remembered_for_the_child_not_the_writer(make_runner) -> None:
    """'5살 아이 해열제 얼마나 먹여요?' remembered '5세' as the writer's own age: the next question
    about herself would have been answered for a 5-year-old."""
    runner = make_runner()
    child = runner.run("5살 아이 해열제 얼마나 먹여요?", "mum")
    assert child.trace["memory"]["about"] == "child"
    items = runner.profile("mum")["items"]
    assert [(i["name"], i["value"], i["about"]) for i in items if i["name"] == "age"] == [("age", 5.0, "child")]
    assert runner.profile("mum")["summary"].startswith("(자녀) 5세")

    own = runner.run("저는 임신 중인데 타이레놀 먹어도 되나요?", "mum")
    assert own.trace["memory"]["about"] == "self"
    assert "5세" not in own.profile_summary and "임신" in own.profile_summary

    # a message that names no one continues with the person of the last stated fact
    runner.run("아이가 열이 나요", "mum")
    follow = runner.run("해열제는 하루에 몇 번까지 돼요?", "mum")
    assert follow.trace["memory"]["about"] == "child" and "5세" in follow.profile_summary
    assert "임신" not in follow.profile_summary


def test_a_message_naming_no_one_continues_with_the_person_last_named_though_nothing_was_stored(make_runner) -> None:
    """Found as a user: after a 5-year-old's fever, "저는 당뇨가 있는데 감기약 먹어도 되나요?" (nothing stored of the
    writer when the extractor reads no condition) and then "당뇨 있는데 타이레놀 먹어도 돼요?" got children's
    acetaminophen: the person so far was the child of the last stored fact."""
    runner = make_runner()
    runner.run("5살 아이 해열제 얼마나 먹여요? 18kg이에요", "mum3")
    own = runner.run("제가 먹을 감기약 추천해 주세요", "mum3")   # the writer, and no fact of hers to store
    assert own.trace["memory"]["about"] == "self" and not own.trace["memory"]["changed"]
    turn = runner.run("타이레놀 먹어도 돼요?", "mum3")
    assert turn.trace["memory"]["about"] == "self" and "child" not in turn.trace["focus"]["population"]
    again = runner.run("아이는 시럽 얼마나 먹여요?", "mum3")
    assert again.trace["memory"]["about"] == "child"
    follow = runner.run("하루에 몇 번 먹여요?", "mum3")   # names no one: the child, named last
    assert follow.trace["memory"]["about"] == "child"


def test_a_message_naming_no_one_is_about_whom_its_facts_are(make_runner) -> None:
    """Found as a user: after a question about a feverish baby, "임신 20주인데 타이레놀 먹어도 되나요?" names
    no one; its pregnancy was filed as the writer's, but the turn was answered with the baby's profile."""
    runner = make_runner()
    runner.run("생후 50일 아기가 열이 38.2도예요", "mum2")
    turn = runner.run("임신 20주인데 타이레놀 먹어도 되나요?", "mum2")
    assert turn.trace["memory"]["about"] == "self"
    assert "임신" in turn.profile_summary and "(자녀)" not in turn.profile_summary


def test_a_question_about_the_writers_own_drinking_is_not_answered_for_the_child(make_runner) -> None:
    """Found as a user: after "애기 열나는데 해열제 뭐 먹여?", "술 먹고 타이레놀 먹어도 돼?" names no one and was
    answered with the child's profile (the conversation's person so far). Only a grown-up drinks."""
    runner = make_runner()
    runner.run("3살 애기 열나는데 해열제 뭐 먹여?", "dad")
    turn = runner.run("술 먹고 타이레놀 먹어도 돼?", "dad")
    assert turn.trace["memory"]["about"] == "self"
    assert "(자녀)" not in turn.profile_summary and "3세" not in turn.profile_summary
    assert "child" not in turn.trace["focus"]["population"]


def test_a_desk_posture_is_the_writers_own_after_a_babys_fever(make_runner) -> None:
    """Found as a user: after a question about a feverish baby, "거북목 때문에 목이 아파요" names no one and was
    answered for the baby (children's acetaminophen). A posture from desks and screens is the writer's."""
    runner = make_runner()
    runner.run("6개월 아기 열나는데 해열제 뭐 먹여?", "mom")
    turn = runner.run("거북목 때문에 목이 아파요", "mom")
    assert turn.trace["memory"]["about"] == "self" and "(자녀)" not in turn.profile_summary


def test_an_exam_case_is_neither_remembered_nor_answered_with_the_writers_profile(make_runner) -> None:
    """Found as a user: "58세 남자가 … 병원에 왔다. 식은땀을 흘렸다. 진단은?" filed 58세 남성 and the case's
    complaints as the writer's own, and was read with the writer's pregnancy."""
    runner = make_runner()
    runner.run("저 임신 20주예요", "doc")
    turn = runner.run("58세 남자가 갑자기 숨이 차고 왼쪽 가슴이 아파서 병원에 왔다. 식은땀을 흘렸다. 진단은?", "doc")
    assert turn.trace["memory"]["about"] == "case" and turn.profile_summary == ""
    assert "red_flag" not in turn.trace
    summary = runner.profile("doc")["summary"]
    assert "58세" not in summary and "임신" in summary


def test_a_pregnant_users_dose_question_is_answered_with_the_labels_word_on_pregnancy(make_runner) -> None:
    """Found as a user: after "임신 20주예요", "타이레놀 하루에 몇 번까지 먹어도 돼요?" got five 용법용량 sections
    and a note that they say nothing of pregnancy. The remembered pregnancy now joins the search's focus, so the
    first product's 주의사항 is cited beside its dose and its pregnancy sentence is quoted."""
    runner = make_runner()
    runner.run("저 임신 20주예요", "preg")
    turn = runner.run("타이레놀 하루에 몇 번까지 먹어도 돼요?", "preg")
    assert "pregnant" in turn.trace["focus"]["population"]
    sections = [c.metadata.get("section_key") for c in turn.citations]
    assert "usage" in sections and "precautions" in sections
    assert "임부" in turn.answer or "임신" in turn.answer.split("\n\n")[0]

    stranger = runner.run("타이레놀 하루에 몇 번까지 먹어도 돼요?", "nobody")
    assert not stranger.trace["focus"]["population"]

    # a complaint too: each product comes with its cautions
    headache = runner.run("머리가 아파요 두통약 추천해주세요", "preg")
    assert "pregnant" in headache.trace["focus"]["population"]
    assert "precautions" in [c.metadata.get("section_key") for c in headache.citations]


def test_a_childs_follow_up_that_names_no_one_is_answered_for_the_child(make_runner) -> None:
    """Found as a user: after "5살 아이가 열이 나요", "해열제는 한 번에 얼마나 먹여요?" names no one; it was
    answered with adults' doses ("성인은 1회 300~1,000 mg"). The remembered child (the turn's person) now
    sets the search's population and the answer's."""
    runner = make_runner()
    runner.run("5살 아이가 열이 나요", "mum3")
    turn = runner.run("해열제는 한 번에 얼마나 먹여요?", "mum3")
    assert turn.trace["memory"]["about"] == "child"
    assert "child" in turn.trace["focus"]["population"]
    assert "성인" not in turn.answer


def test_feeding_is_a_childs_question_with_no_profile_to_go_by(make_runner) -> None:
    """Found as a user on the chat page (the operator's turns remember nothing): "해열제는 하루에 몇 번까지 먹여도
    돼요?" got adults' doses (성인 1회 300~1,000 mg); one feeds a child."""
    runner = make_runner()
    for remember in (True, False):
        turn = runner.run("해열제는 하루에 몇 번까지 먹여도 돼요?", f"new-{remember}", remember=remember)
        assert "child" in turn.trace["focus"]["population"]
        assert "성인" not in turn.answer.split("\n\n")[0]


def test_a_remembered_child_past_infancy_is_not_given_a_babys_fever_rules(make_runner) -> None:
    """Found as a user: a parent whose remembered child is 7 asked "아이 열이 39도인데 지켜봐도 되나요?" and got the
    under-3-months rule first (the message states no age). A new user still gets every child rule."""
    runner = make_runner()
    runner.run("저희 아이가 7살이에요", "dad7")
    turn = runner.run("아이 열이 39도인데 지켜봐도 되나요?", "dad7")
    assert turn.trace["post_answer"] == "fever_care"
    assert "fever_under_3_months" not in turn.trace["fever_rules"] and "child_fever_red" in turn.trace["fever_rules"]
    new = runner.run("아이 열이 39도인데 지켜봐도 되나요?", "new-parent")
    assert new.trace["fever_rules"][0] == "fever_under_3_months"
