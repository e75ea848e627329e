"""The response cache is keyed by the bundle and by the code and settings that made the answers."""

from __future__ import annotations

from dataclasses import replace

from yaksa.agent.answers_id import ID_LENGTH, answers_id, code_fingerprint


def test_the_id_follows_answer_settings_not_where_files_live(settings) -> None:
    base = answers_id(settings)
    assert len(base) == ID_LENGTH and base == answers_id(settings)
    assert answers_id(settings.with_state_in(settings.paths.root / "elsewhere", "x")) == base
    stricter = replace(settings, agent=replace(settings.agent, cache_threshold=settings.agent.cache_threshold + 0.01))
    assert answers_id(stricter) != base
    assert answers_id(replace(settings, retrieval=replace(settings.retrieval, k=settings.retrieval.k + 1))) != base


def test_the_id_follows_the_code(settings, monkeypatch) -> None:
    base = answers_id(settings)
    monkeypatch.setattr("yaksa.agent.answers_id.code_fingerprint", lambda: "another build")
    assert answers_id(settings) != base
    assert len(code_fingerprint()) == 64


def test_a_cached_answer_is_not_served_by_other_code(make_runner, settings, monkeypatch) -> None:
    question = "알레르기에 페니라민정 먹어도 되나요"   # a product of the tiny bundle
    first = make_runner()
    assert not first.run(question, "anon-1").trace["cache_hit"]
    assert first.run(question, "anon-2").trace["cache_hit"]
    assert first.deps.cache_version.startswith(first.deps.bundle_version + "-")
    monkeypatch.setattr("yaksa.agent.factory.answers_id", lambda _settings: "fixedrelease")
    later = make_runner()  # same cache file location, same bundle, a new release of the code
    assert not later.run(question, "anon-3").trace["cache_hit"]
    assert later.run(question, "anon-4").trace["cache_hit"]
