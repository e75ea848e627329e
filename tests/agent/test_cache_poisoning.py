"""Issue 22 (4, 12) at the agent level: one user's abnormal message never becomes another's answer, and
what a user sees of the cache says nothing about other users. Offline, default profile, tiny bundle."""

from __future__ import annotations

import json

from yaksa.agent.web_query import web_query

MEDICAL = "알레르기에 페니라민정 먹어도 되나요"   # a product of the tiny bundle: verified and cached
PARAPHRASE = "알레르기에 페니라민정 먹어도 되나요?"


def events_of(runner, question: str, user: str) -> tuple[object, list[tuple[str, dict]]]:
    seen: list[tuple[str, dict]] = []
    result = runner.run(question, user, on_event=lambda name, payload: seen.append((name, payload)))
    return result, seen


def test_a_repeated_question_is_neither_cached_nor_served_to_others(make_runner) -> None:
    runner = make_runner()
    planted = runner.run(f"{PARAPHRASE} " * 60, "planter")        # 1,260 characters, the sentence 60 times
    assert not planted.blocked
    assert planted.trace["stored_in_cache"] is False and runner.deps.cache.owned_by("planter") == 0
    three = runner.run(f"{PARAPHRASE} " * 3, "planter-2")          # short, but one sentence said three times
    assert three.trace["stored_in_cache"] is False
    victim = runner.run(MEDICAL, "victim")
    assert not victim.trace["cache_hit"] and victim.trace["stored_in_cache"]
    assert victim.answer.count("[문서") <= 4 and len(victim.answer) < 2500
    # the repeated question is not served the generic answer either: a long or repetitive post is personal
    assert not runner.run(f"{PARAPHRASE} " * 60, "planter-3").trace["cache_hit"]


def test_a_hit_reports_only_that_it_hit_and_still_announces_the_web_query(make_runner) -> None:
    runner = make_runner()
    first, seen_first = events_of(runner, MEDICAL, "asker")
    assert not first.trace["cache_hit"] and first.trace["stored_in_cache"]
    assert first.trace["cache"] == {"hit": False}
    hit, seen = events_of(runner, PARAPHRASE, "other")
    assert hit.trace["cache_hit"] and hit.trace["cache"] == {"hit": True}
    # the only cache note: how close the other user's question was would tell that someone asked it
    assert {k for k in hit.trace if "cache" in k} == {"cache_hit", "cache", "stored_in_cache"}
    assert "similarity" not in json.dumps(hit.trace["cache"])
    # an in-scope question served from the cache gets web references like any other (serving/webrefs.py)
    assert [p["query"] for n, p in seen_first if n == "web_query"] == [web_query(MEDICAL)]
    assert [p["query"] for n, p in seen if n == "web_query"] == [web_query(PARAPHRASE)]
    assert "페니라민정" in web_query(PARAPHRASE)


def test_a_user_with_a_remembered_profile_never_gets_a_cached_answer(make_runner) -> None:
    runner = make_runner()
    assert runner.run(MEDICAL, "anon").trace["stored_in_cache"]
    runner.run("65세 남성이고 당뇨가 있어요", "known")
    assert runner.profile("known")["items"]
    result = runner.run(PARAPHRASE, "known")
    assert not result.trace["cache_hit"] and result.trace["cache"] == "off"
    assert not result.trace["stored_in_cache"]                      # a personalised answer is not shared
