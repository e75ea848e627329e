"""Issue 9 at the agent level: the scope stage runs first and nothing else sees an out-of-scope
question (cache, LLM router, memory, web), no profile turns safety off, erasure erases."""

from __future__ import annotations

import json

import pytest

from tests.fake_openai import FakeOpenAI
from yaksa.agent.runtime import build_runner

OUT = "삼성전자 주가 어떻게 될까요"
MEDICAL = "알레르기에 페니라민정 먹어도 되나요"   # a product of the tiny bundle


def events_of(runner, question: str, user: str, **kw) -> tuple[object, list[tuple[str, dict]]]:
    seen: list[tuple[str, dict]] = []
    result = runner.run(question, user, on_event=lambda name, payload: seen.append((name, payload)), **kw)
    return result, seen


def test_out_of_scope_is_refused_first_and_touches_nothing(make_runner) -> None:
    runner = make_runner()
    result, seen = events_of(runner, OUT, "oos-user")
    assert result.blocked and result.trace["nodes"] == ["scope", "store_response"]
    assert result.trace["scope"]["in_scope"] is False and not result.citations
    assert not [p for n, p in seen if n == "web_query"]
    assert runner.profile("oos-user")["items"] == []
    assert runner.deps.profiles.recent_turns("oos-user", 3) == []      # not even in the history


def test_cache_is_never_consulted_for_an_out_of_scope_question(make_runner) -> None:
    runner = make_runner()
    assert not runner.run("비타민 C 하루 권장량이 얼마예요", "a").blocked
    result = runner.run(OUT, "b")
    assert result.blocked and not result.trace["cache_hit"] and "check_similarity" not in result.trace["nodes"]


@pytest.mark.parametrize("profile", ["self_refine_heuristic", "self_refine_llm_quality", "self_refine_dynamic_query"])
def test_no_profile_turns_the_guard_or_verification_off(make_runner, profile: str) -> None:
    runner = make_runner()
    assert not runner.deps.params.flags(profile).oos_guard  # the profile itself asks for no guard
    assert runner.run(OUT, "u", profile=profile).blocked
    answered = runner.run(MEDICAL, "u2", profile=profile)
    assert "verify" in answered.trace["nodes"] and answered.verification is not None


def test_unverifiable_profile_is_refused_outside_the_evaluation_code(make_runner) -> None:
    with pytest.raises(ValueError, match="evaluation"):
        make_runner().run(MEDICAL, "u", profile="baseline")
    assert not make_runner(enforce_safety=False).run(MEDICAL, "u", profile="baseline").citations


def test_router_llm_is_not_called_for_an_out_of_scope_question(llm_env: FakeOpenAI, loaded, settings) -> None:
    runner = build_runner(loaded, settings)
    assert runner.run(OUT, "u").blocked
    assert llm_env.requests == []


def test_erasure_removes_cache_entries_and_no_response_carries_another_users_words(make_runner) -> None:
    runner = make_runner()
    runner.run("65세 남성 당뇨 환자가 페니라민정 먹어도 되나요?", "dave")
    leaked = runner.run("제 이름은 홍길동이고 010-1234-5678 인데 콧물에 페니라민정 먹어도 되나요?", "frank")
    assert not leaked.trace["stored_in_cache"]                        # identifiers: never cached
    first = runner.run("콧물에 페니라민정 먹어도 되나요?", "carol")
    assert first.trace["stored_in_cache"]
    again = runner.run("콧물에 페니라민정 먹어도 되나요", "erin")
    assert again.trace["cache_hit"] and "콧물에 페니라민정 먹어도 되나요?" not in json.dumps(again.trace,
                                                                                 ensure_ascii=False)
    assert runner.forget("carol")
    after = runner.run("콧물에 페니라민정 먹어도 되나요", "gina")
    assert not after.trace["cache_hit"]


def test_web_query_only_for_in_scope_questions_without_identifiers_or_statements(make_runner) -> None:
    runner = make_runner()
    _, seen = events_of(runner, "제 이름은 홍길동이고 010-1234-5678 인데 HIV 양성이에요. 타이레놀 먹어도 되나요?", "w1")
    queries = [p["query"] for n, p in seen if n == "web_query"]
    assert len(queries) == 1 and "타이레놀" in queries[0]
    assert not any(s in queries[0] for s in ("홍길동", "010", "HIV"))
    for message in ("안녕하세요", "65세 남성이고 당뇨가 있어요", OUT):
        _, seen = events_of(runner, message, "w2")
        assert not [p for n, p in seen if n == "web_query"], message


def test_cache_keys_carry_the_focus_so_different_symptoms_and_intents_never_share(make_runner) -> None:
    from yaksa.agent.nodes.similarity import cache_entities

    deps = make_runner().deps
    assert cache_entities(deps, "목이 칼칼하고 아파요") != cache_entities(deps, "머리가 지끈지끈 아파요")
    assert cache_entities(deps, "알레르기약 먹으면 졸린가요") != cache_entities(deps, "애드빌 부작용 뭐예요")
    assert cache_entities(deps, "페니라민정 부작용") != cache_entities(deps, "페니라민정 용법")
    assert cache_entities(deps, "두통에 먹는 약") == cache_entities(deps, "두통에 먹는 약?")
