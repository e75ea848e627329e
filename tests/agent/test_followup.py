"""Follow-up resolution: the rules over the real 500-product catalog, then the agent end to end on the
tiny built project (two users, the same follow-up words, each their own drug; the shared cache)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from yaksa.agent.followup import (
    bare_name,
    clarify_reply,
    elliptical,
    follows_an_answer,
    referring_expression,
    resolve,
    with_particle,
)
from yaksa.lexicon.linking import DrugCatalog
from yaksa.llm.safety import SAFETY_LINE_KO


@pytest.fixture(scope="module")
def catalog(shared_data: Callable[[str], Path]) -> DrugCatalog:
    from yaksa.corpus import mfds_easy_drug
    from yaksa.corpus.rejects import RejectLog

    return DrugCatalog.from_documents(enumerate(mfds_easy_drug.load(shared_data("mfds-easy-drug-500"), RejectLog())))


def turns(*pairs: tuple[str, str]) -> list[dict[str, str]]:
    """Chat messages oldest first, as ProfileStore.recent_turns returns them."""
    return [m for q, a in pairs for m in ({"role": "user", "content": q}, {"role": "assistant", "content": a})]


CITED_PHENIRAMINE = ("페니라민정(클로르페니라민말레산염) (용법용량): 성인은 1회 1~3정(2~6 mg)씩, 1일 2~4회 복용합니다. "
                     f"[문서 1]\n\n{SAFETY_LINE_KO}")


@pytest.mark.parametrize("question", [
    "그럼 그 약은 하루에 몇 번 먹어요?", "그거 부작용은요?", "그건 식후에 먹어야 하나요?", "이 약 먹어도 돼요?",
    "아까 그 약을 제가 먹는 이부프로펜이랑 같이 먹어도 돼요?", "그걸 아이한테 먹여도 돼요?", "그게 위험한가요?",
    "그 제품은 얼마나 자주 써요?", "그거랑 같이 먹어도 돼요?", "그 약은요?", "그거요?",
])
def test_referring_words_are_found(question: str) -> None:
    assert referring_expression(question) is not None


@pytest.mark.parametrize("question", [
    "그럼 두통약 추천해 주세요", "그 약국 어디에 있어요?", "이것저것 궁금해요", "그런데 타이레놀은요?",
    "그 약사님이 괜찮대요", "이거나 저거나 다 같은가요", "약은 하루에 몇 번 먹어요?", "저 약 먹고 있어요",
])
def test_other_words_are_not_referring(question: str) -> None:
    assert referring_expression(question) is None


@pytest.mark.parametrize(("name", "meaning", "expected"), [
    ("페니라민정", "topic", "페니라민정은"), ("활명수", "topic", "활명수는"), ("활명수", "object", "활명수를"),
    ("부루펜정", "object", "부루펜정을"), ("자모", "with", "자모랑"), ("페니라민정", "with", "페니라민정이랑"),
    ("타이레놀", "by", "타이레놀로"), ("시럽", "by", "시럽으로"), ("자모", "도", "자모도"),
    ("비타민B1", "subject", "비타민B1이"), ("판피린Q", "subject", "판피린Q가"),
])
def test_particles_agree_with_the_name(name: str, meaning: str, expected: str) -> None:
    assert with_particle(name, meaning) == expected


def test_the_drug_the_previous_question_named_replaces_the_pointer(catalog: DrugCatalog) -> None:
    history = turns(("활명수 먹어도 돼요?", "활명수 (효능효과): 식욕감퇴, 위부팽만감 [문서 1]"))
    r = resolve("그럼 그 약은 하루에 몇 번 먹어요?", history, catalog.link)
    assert r.resolved and r.referent.name == "활명수" and r.referent.source == "question"
    assert r.question == "그럼 활명수는 하루에 몇 번 먹어요?" and r.expression == "그 약은"
    assert resolve("그걸 아이한테 먹여도 돼요?", history, catalog.link).question == "활명수를 아이한테 먹여도 돼요?"
    assert resolve("그건 식후에 먹어요?", history, catalog.link).question == "활명수는 식후에 먹어요?"
    # a full product name with its particle is one drug, not two ("페니라민정" and "페니라민정을")
    joined = resolve("그 약은요?", turns(("페니라민정을 먹어도 될까요?", "…")), catalog.link)
    assert joined.resolved and joined.question == "페니라민정은요?"


def test_a_cited_answer_about_one_product_is_the_referent_when_the_user_named_none(catalog: DrugCatalog) -> None:
    history = turns(("콧물이 나는데 무슨 약 먹으면 돼요?", CITED_PHENIRAMINE))
    r = resolve("그거 부작용은요?", history, catalog.link)
    assert r.referent.name == "페니라민정" and r.referent.source == "answer"
    assert r.question == "페니라민정 부작용은요?"


def test_the_newest_turn_naming_a_drug_wins_and_turns_without_one_are_skipped(catalog: DrugCatalog) -> None:
    history = turns(("활명수 먹어도 돼요?", "활명수 (효능효과): 식욕감퇴 [문서 1]"),
                    ("페니라민정 먹어도 될까요?", CITED_PHENIRAMINE),
                    ("혈압이 150/95예요", "말씀하신 내용을 기억해 두고 다음 답변에 반영할게요."))
    r = resolve("그 약은 하루에 몇 번 먹어요?", history, catalog.link)
    assert r.referent.name == "페니라민정" and r.referent.turns_back == 2


def test_another_drug_in_the_follow_up_is_kept(catalog: DrugCatalog) -> None:
    history = turns(("페니라민정 먹어도 될까요?", CITED_PHENIRAMINE))
    r = resolve("그 약을 제가 먹는 이부프로펜이랑 같이 먹어도 돼요?", history, catalog.link)
    assert r.question == "페니라민정을 제가 먹는 이부프로펜이랑 같이 먹어도 돼요?"


def test_several_drugs_or_none_means_asking_which_one(catalog: DrugCatalog) -> None:
    ambiguous = resolve("그 약은 하루에 몇 번 먹어요?",
                        turns(("타이레놀이랑 부루펜 같이 먹어도 돼요?", "… [문서 1]")), catalog.link)
    assert ambiguous.refers_back and not ambiguous.resolved and ambiguous.candidates == ("타이레놀", "부루펜")
    assert ambiguous.question == "그 약은 하루에 몇 번 먹어요?"
    reply = clarify_reply(ambiguous)
    assert "타이레놀, 부루펜이" in reply and reply.endswith(SAFETY_LINE_KO)

    nothing = resolve("그 약은 하루에 몇 번 먹어요?", [], catalog.link)
    assert nothing.refers_back and not nothing.resolved and not nothing.candidates
    assert "약 이름" in clarify_reply(nothing) and "앞선 대화에서 찾지 못했" in clarify_reply(nothing)
    assert "앞선 대화" not in clarify_reply(nothing, first_message=True)
    # an acknowledgement lists the remembered medicines, but it is not an answer about them
    ack = turns(("저 65세예요", "말씀하신 내용을 기억해 두고 다음 답변에 반영할게요. 지금까지 기억한 내용: 페니라민정"))
    assert not resolve("그 약은 하루에 몇 번 먹어요?", ack, catalog.link).resolved
    assert not resolve("그 약은 하루에 몇 번 먹어요?", turns(("페니라민정 먹어도 돼요?", "…")), None).resolved


def test_a_drug_named_before_the_pointer_needs_no_history(catalog: DrugCatalog) -> None:
    history = turns(("활명수 먹어도 돼요?", "… [문서 1]"))
    r = resolve("페니라민정 먹어도 돼요? 그거 하루에 몇 번 먹어요?", history, catalog.link)
    assert not r.refers_back and r.question == "페니라민정 먹어도 돼요? 그거 하루에 몇 번 먹어요?"
    plain = resolve("페니라민정은 하루에 몇 번 먹어요?", history, catalog.link)
    assert not plain.refers_back and plain.referent is None


def test_bare_name_drops_particles_only_when_the_same_products_remain(catalog: DrugCatalog) -> None:
    assert bare_name("페니라민정을", catalog.link) == "페니라민정"
    assert bare_name("타이레놀이랑", catalog.link) == "타이레놀"
    assert bare_name("판콜에이", catalog.link) == "판콜에이"   # "판콜에" + 이 would link every 판콜


def test_bad_input_is_a_clear_error(catalog: DrugCatalog) -> None:
    with pytest.raises(ValueError, match="non-empty"):
        resolve("  ", [], catalog.link)
    with pytest.raises(TypeError):
        referring_expression(None)  # type: ignore[arg-type]


# ------------------------------------------------------------------------------ the agent, end to end

FOLLOW_UP = "그럼 그 약은 하루에 몇 번 먹어요?"
PHENIRAMINE, IBUPROFEN_200 = "196000011", "197700120"   # 페니라민정, 부루펜정200밀리그램 of the tiny bundle


def _cited(result) -> set[str]:
    return {str(c.metadata.get("item_seq")) for c in result.citations}


def test_two_users_asking_the_same_follow_up_each_get_their_own_drug(make_runner) -> None:
    runner = make_runner()
    runner.run("페니라민정 먹어도 될까요?", "user-a")
    runner.run("부루펜정 먹어도 돼요?", "user-b")

    a = runner.run(FOLLOW_UP, "user-a")
    assert a.trace["nodes"][:3] == ["scope", "resolve_followup", "check_similarity"]
    assert a.trace["followup"]["question"] == "그럼 페니라민정은 하루에 몇 번 먹어요?"
    assert _cited(a) == {PHENIRAMINE} and "페니라민정" in a.answer

    b = runner.run(FOLLOW_UP, "user-b")   # the same words: never user-a's cached answer
    assert not b.trace["cache_hit"] and b.trace["followup"]["referent"]["name"] == "부루펜정"
    assert IBUPROFEN_200 in _cited(b) and PHENIRAMINE not in _cited(b) and "부루펜정" in b.answer

    # the history and the cache hold only the standalone question, so another user asking it outright is
    # served, nobody is served an answer for "그 약", and a follow-up to the follow-up means the same drug
    assert runner.profile("user-a")["history"][-2]["content"] == "그럼 페니라민정은 하루에 몇 번 먹어요?"
    runner.run("저는 와파린을 먹고 있어요", "user-a")
    again = runner.run("그거 와파린이랑 같이 먹어도 돼요?", "user-a")
    assert again.trace["followup"]["referent"]["name"] == "페니라민정" and PHENIRAMINE in _cited(again)
    direct = runner.run("그럼 페니라민정은 하루에 몇 번 먹어요?", "user-c")
    assert direct.trace["cache_hit"] and direct.answer == a.answer
    cold = runner.run(FOLLOW_UP, "user-d")
    assert cold.trace["intent"] == "clarify" and not cold.trace["cache_hit"] and not cold.citations
    # asked back, its facts still read and kept, nothing searched or cached
    assert cold.trace["nodes"] == ["scope", "resolve_followup", "extract_slots", "store_memory", "store_response"]
    assert SAFETY_LINE_KO in cold.answer
    # nothing earlier, but the message names what it is about: answered as asked, not questioned back
    named = runner.run("이거 먹고 졸리면 어떡해요? 페니라민정이요", "user-e")
    assert named.trace["intent"] == "question" and PHENIRAMINE in _cited(named)


def test_a_question_that_leaves_its_drug_out_continues_the_last_answer(make_runner) -> None:
    """"하루에 몇 번까지 돼요?" right after an answer about 페니라민정 was refused as off-topic: it names
    nothing medical. It continues the conversation's drug; with no answer before it, it is still refused."""
    runner = make_runner()
    first = runner.run("페니라민정 먹어도 돼요?", "u")
    assert not first.blocked and "[문서" in first.answer
    follow = runner.run("하루에 몇 번까지 돼요?", "u")
    assert not follow.blocked
    assert follow.trace["followup"]["implicit"] and follow.trace["followup"]["referent"]["name"] == "페니라민정"
    assert follow.citations and all("페니라민" in c.title for c in follow.citations[:1])

    assert runner.run("하루에 몇 번까지 돼요?", "stranger").blocked          # nothing to continue
    assert runner.run("오늘 날씨 어때요?", "u").blocked                    # not a question about a medicine
    assert runner.run("주식 하루에 몇 번까지 사도 돼요?", "u").blocked       # another domain's cue
    alarm = runner.run("식후에 먹게 알림 맞춰줘", "u")                      # an alarm, not a question
    assert alarm.blocked and alarm.trace["scope"]["reason"] == "scope_model:device_command"


@pytest.mark.parametrize(("question", "leaves_out"), [
    ("하루에 몇 번까지 돼요?", True), ("부작용은요?", True), ("임산부도 먹어도 돼요?", True), ("식후에 먹어요?", True),
    ("그 약은 하루에 몇 번?", False),          # a pointer, read by `referring_expression`
    ("오늘 날씨 어때요?", False), ("하루에 몇 번까지 돼요? " * 4, False),   # nothing about a medicine; too long
    ("운전 연수 몇 번 받아야 해요?", False), ("커피랑 같이 먹어도 돼요?", True),  # every word about taking it
    ("임신 20주인데 먹어도 돼요?", True), ("임신 중인데 먹어도 되나요?", True),   # the person's state, the last drug
    ("고혈압이 있는데 먹어도 돼요?", True), ("천식 환자인데 먹어도 돼요?", True),  # ... or the person's condition
    ("당뇨 있는데 뭐 먹어도 돼요?", False),      # which to take: a new question
    ("고혈압이 있어요", False), ("고혈압 증상이 뭐예요?", False),   # nothing about taking a medicine
    ("운전해야 하는데 먹어도 돼요?", False),     # a word neither about taking it nor a condition
])
def test_elliptical_questions(question: str, leaves_out: bool) -> None:
    assert elliptical(question) == leaves_out


def test_an_elliptical_question_gets_the_last_turns_drug_in_front(catalog: DrugCatalog) -> None:
    history = turns(("페니라민정 먹어도 돼요?", CITED_PHENIRAMINE))
    assert follows_an_answer(history) and not follows_an_answer(turns(("안녕", "안녕하세요!")))
    r = resolve("하루에 몇 번까지 돼요?", history, catalog.link, implicit=True)
    assert r.implicit and r.refers_back and r.question == "페니라민정은 하루에 몇 번까지 돼요?"
    assert r.referent is not None and r.referent.source == "question"
    nothing = resolve("하루에 몇 번까지 돼요?", [], catalog.link, implicit=True)   # nothing to continue: ask which
    assert nothing.refers_back and not nothing.resolved and not nothing.candidates
    assert not resolve("하루에 몇 번까지 돼요?", history, catalog.link).refers_back             # not implicit


@pytest.mark.parametrize(("question", "leaves_out"), [
    ("How much can I take per day?", True), ("Can I take it while pregnant?", True),
    ("What about side effects?", True), ("Is it safe for my 5 year old?", True),
    ("Can I take it with alcohol?", True),
    ("Is it safe to exercise with a cold?", False),       # a word neither about taking a medicine nor its person
    ("What is the weather tomorrow?", False),             # nothing about taking a medicine
    ("How much can I take per day? " * 3, False),         # too long for a follow-up
])
def test_english_elliptical_questions(question: str, leaves_out: bool) -> None:
    """"How much can I take per day?" after "What is naproxen used for?" was answered from MedQuAD's balance problems."""
    assert elliptical(question) == leaves_out


def test_an_english_follow_up_gets_the_last_turns_drug_after_it(catalog: DrugCatalog) -> None:
    history = turns(("What is naproxen used for?", "낙센정(나프록센) (효능효과): 이 약은 … [문서 1]"))
    r = resolve("How much can I take per day?", history, catalog.link, implicit=True)
    assert r.question == "How much can I take per day? (naproxen)" and r.referent.source == "question"
    nothing = resolve("How much can I take per day?", [], catalog.link, implicit=True)
    assert clarify_reply(nothing, first_message=True).startswith("Which medicine do you mean?")


def test_a_statement_of_who_the_person_is_is_remembered(make_runner) -> None:
    """"저희 아이가 5살이에요" was refused as small talk (an age is not medical), so the child was never
    remembered; now it passes, first or after an answer, and is remembered. Asking something else is not it."""
    runner = make_runner()
    first = runner.run("저 14살이고 여자예요.", "stranger")
    assert not first.blocked and first.trace["intent"] == "statement" and "14세" in first.profile_summary
    assert runner.run("페니라민정 먹어도 돼요?", "u").citations
    told = runner.run("저희 아이가 5살이에요", "u")
    assert not told.blocked and told.trace["intent"] == "statement" and "5세" in told.profile_summary
    assert runner.run("오늘 날씨 어때요?", "u").blocked                  # states nothing about the person
    assert runner.run("나 25살인데 주식 뭐 사?", "v").blocked             # asks another domain's question


def test_a_first_message_that_leaves_its_drug_out_asks_which_and_remembers_the_person(make_runner) -> None:
    """"임신 20주인데 먹어도 돼요?" as a first message names no drug: its search found an antacid, whose adult dose was
    the answer. Now the user is asked which drug, the pregnancy is remembered, and the next question is answered
    for a pregnant woman."""
    runner = make_runner()
    first = runner.run("임신 20주인데 먹어도 돼요?", "new-user")
    assert not first.blocked and first.trace["intent"] == "clarify" and not first.citations
    assert "약 이름" in first.answer and SAFETY_LINE_KO in first.answer
    assert "앞선 대화" not in first.answer   # there is none to speak of
    assert "plan" not in first.trace   # no search follows a question back: no retrieval plan is made for it
    assert "임신" in first.profile_summary and "임신" in runner.profile("new-user")["summary"]
    then = runner.run("페니라민정 먹어도 돼요?", "new-user")
    assert then.citations and "임신" in then.profile_summary
