"""Offline, end to end: a five-turn Korean conversation on the tiny built project."""

from __future__ import annotations

import re
from dataclasses import replace

from yaksa.agent.factory import build_runner

CITE = re.compile(r"\[문서 (\d+)\]")


def test_five_turn_conversation_remembers_and_cites(make_runner, settings) -> None:
    runner = make_runner()
    events: list[tuple[str, dict]] = []
    user = "patient-1"

    first = runner.run("65세 남성이고 당뇨가 있어요", user)
    assert first.trace["intent"] == "statement" and "retrieve" not in first.trace["nodes"]
    assert "65세" in first.profile_summary and "당뇨" in first.profile_summary

    second = runner.run("혈압이 150/95예요", user)
    assert "150/95" in second.profile_summary and "65세" in second.profile_summary

    third = runner.run("콧물이 나는데 뭐 먹어도 돼요?", user,  # 페니라민정 in the tiny bundle
                        on_event=lambda n, p: events.append((n, p)))
    assert not third.blocked and third.citations
    assert all(c.doc_id.startswith("mfds:") and c.collection == "drugs" for c in third.citations)
    cited = {int(n) for n in CITE.findall(third.answer)}
    assert cited and cited <= {c.n for c in third.citations}
    assert "전문가와 꼭 상담하세요" in third.answer
    assert third.verification and third.verification["verdict"] == "PASS"
    assert "당뇨" in third.profile_summary  # the profile reached the generator
    names = [n for n, _ in events]
    assert names[0] == "status" and names[-4:] == ["answer", "citations", "verification", "done"]
    assert "token" in names and "verification" in names
    # tokens stream the generated draft; the `answer` event carries the final text (it replaces the
    # draft when verification rebuilt the answer from the documents about the asked symptom)
    assert [p["text"] for n, p in events if n == "answer"] == [third.answer]
    assert third.trace["iterations"] >= 1 and third.trace["stop_reason"]
    assert third.trace["llm_calls"]["totals"]["calls"] == 0  # offline: every role fell back

    greeting = runner.run("안녕하세요", user)
    assert greeting.trace["nodes"] == ["scope", "classify_intent", "store_response"]
    assert not greeting.citations

    off_topic = runner.run("삼성전자 주가 알려줘", user)
    assert off_topic.blocked and not off_topic.citations
    assert "generate_answer" not in off_topic.trace["nodes"]

    # a restart: a new runner over the same memory file still knows the user
    restarted = make_runner()
    assert "150/95" in restarted.run("고마워요", user).profile_summary or \
        "150/95" in restarted.profile(user)["summary"]
    assert restarted.forget(user) and restarted.profile(user)["items"] == []


def test_profile_of_another_user_is_separate(make_runner) -> None:
    runner = make_runner()
    runner.run("임신 중이에요", "a")
    assert runner.profile("b")["items"] == []
    assert runner.profile("a")["items"]


def test_a_nursing_mother_is_remembered_as_one(make_runner) -> None:
    """"수유 중인데 감기약 먹어도 되나요" was answered for a nursing mother, but the profile kept only "증상: 감기",
    so the next question, naming no one, was asked for anybody."""
    runner = make_runner()
    first = runner.run("수유 중인데 감기약 먹어도 되나요", "mother")
    assert "수유 중" in first.profile_summary
    later = runner.run("페니라민정 먹어도 되나요?", "mother")
    assert "breastfeeding" in later.trace["focus"]["population"]


def test_baseline_profile_skips_extraction_memory_and_retrieval(make_runner) -> None:
    result = make_runner(enforce_safety=False).run("두통이 있는데 뭐 먹어도 돼요?", "u", variant="baseline")
    assert "retrieve" not in result.trace["nodes"] and "extract_slots" not in result.trace["nodes"]
    assert not result.citations and "전문가와 꼭 상담하세요" in result.answer


def test_cache_keeps_polarity_apart_and_empties_on_a_new_bundle(make_runner, loaded, settings) -> None:
    runner = make_runner()
    allowed = runner.run("알레르기에 페니라민정 먹어도 되나요", "anon-1")   # a product of the tiny bundle
    assert not allowed.trace["cache_hit"] and allowed.verification["verdict"] == "PASS"
    again = runner.run("알레르기에 페니라민정 먹어도 되나요?", "anon-2")
    assert again.trace["cache_hit"] and again.answer == allowed.answer
    forbidden = runner.run("알레르기에 페니라민정 먹으면 안 되나요", "anon-3")
    assert not forbidden.trace["cache_hit"]

    cache = runner.deps.cache
    assert len(cache) >= 1
    cache.set_bundle_version("a-newer-bundle")
    assert len(cache) == 0


def test_unknown_profile_and_bad_input_are_clear_errors(make_runner) -> None:
    import pytest

    runner = make_runner()
    with pytest.raises(ValueError, match="unknown variant"):
        runner.run("두통", "u", variant="nope")
    with pytest.raises(ValueError, match="must not be empty"):
        runner.run("   ", "u")
    with pytest.raises(ValueError):
        runner.run("두통", "")


def test_memory_mode_none_forgets_between_turns(loaded, settings, offline) -> None:
    agent = replace(settings.agent, variant="self_refine_full_safety")
    runner = build_runner(loaded, replace(settings, agent=agent))
    runner.run("65세 남성이고 당뇨가 있어요", "u")
    assert runner.run("두통에 먹는 약", "u").profile_summary == ""


def test_a_follow_up_naming_no_one_says_whom_it_was_taken_for(make_runner) -> None:
    """Found as a user: after "68세 아버지가 …", a question naming no one was answered with the father's 고령자
    caution and did not say it took the question to be about him (Korean drops its subjects)."""
    runner = make_runner()
    user = "son-1"
    runner.run("68세 아버지가 고혈압이 있으세요", user)
    follow_up = runner.run("콧물이 나는데 뭐 먹어도 돼요?", user)
    assert not follow_up.blocked and follow_up.citations
    assert follow_up.answer.startswith("앞서 알려 주신 정보(부모, 68세)를 기준으로 답합니다."), follow_up.answer
    assert "고령자" in follow_up.answer   # ... and is answered for him
    assert follow_up.verification and follow_up.verification["verdict"] == "PASS"
    # a question naming its own person is answered for that person, with no such note
    named = runner.run("5살 아이가 콧물이 나는데 뭐 먹여도 돼요?", user)
    assert "앞서 알려 주신 정보" not in named.answer
