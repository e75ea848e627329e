from __future__ import annotations

import pytest

from yaksa.llm.offline.rule_rewrite import MAX_ADDED_TERMS, MAX_QUERY_CHARS, rewrite_query


def test_adds_missing_and_profile_terms_once() -> None:
    assert rewrite_query("타이레놀  부작용", ["간손상", "부작용"], ["당뇨병", "간손상"]) == "타이레놀 부작용 간손상 당뇨병"


def test_stays_short() -> None:
    query = rewrite_query("두통약", [f"용어{i}" for i in range(20)], [])
    assert len(query.split()) == 1 + MAX_ADDED_TERMS
    assert len(rewrite_query("약 " * 90, ["가" * 50], [])) <= MAX_QUERY_CHARS


def test_empty_question_is_rejected() -> None:
    with pytest.raises(ValueError, match="question"):
        rewrite_query(" ", ["x"], [])
