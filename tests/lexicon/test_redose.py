"""A dose brought back up, and whether to give it again (`yaksa.lexicon.redose`)."""

from __future__ import annotations

import pytest

from yaksa.lexicon.redose import asks_to_redose_after_vomiting


@pytest.mark.parametrize("question", [
    "아이가 해열제 먹고 바로 토했는데 다시 먹여야 하나요?",
    "약 먹고 10분 만에 토했어요 다시 먹어도 되나요?",
    "타이레놀 먹고 토했는데 한 번 더 먹여도 되나요",
    "감기약 먹자마자 다 게웠어요 또 먹어야 돼요?",
    "시럽을 먹이자마자 토해서 다시 먹일까요?",
])
def test_a_dose_brought_up_and_another_asked(question: str) -> None:
    assert asks_to_redose_after_vomiting(question)


@pytest.mark.parametrize("question", [
    "다시 먹였더니 또 토했어요",              # told, not asked
    "토했는데 병원 가야 하나요?",              # no dose asked about
    "아이가 토해요 어떤 약 먹여야 하나요?",    # which medicine, not another dose
    "타이레놀 먹은지 2시간 됐는데 또 먹어도 되나요?",   # nothing came back up: the dosing answers it
])
def test_not_a_redose_question(question: str) -> None:
    assert not asks_to_redose_after_vomiting(question)
