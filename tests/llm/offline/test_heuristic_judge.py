from __future__ import annotations

import pytest

from yaksa.llm.evidence import Citation
from yaksa.llm.offline.extractive import extractive_answer
from yaksa.llm.offline.heuristic_judge import heuristic_judge


def test_grounded_personal_answer_scores_high(tylenol: list[Citation]) -> None:
    question = "타이레놀 복용할 때 당뇨병 환자 주의사항은?"
    answer = extractive_answer(question, tylenol, profile_summary="당뇨병")
    result = heuristic_judge(question, answer, tylenol, profile_terms=["당뇨병"])
    assert result.source == "heuristic" and result.missing == []
    assert result.parts == {"coverage": 1.0, "length": 1.0, "personalisation": 1.0} and result.score == 1.0


def test_weights_and_missing_terms(tylenol: list[Citation]) -> None:
    question = "타이레놀과 와파린을 같이 먹어도 되나요?"
    answer = "이 약은 두통, 치통, 발열, 생리통에 사용합니다. [문서 1]"  # 29 chars, no profile mention
    result = heuristic_judge(question, answer, tylenol, profile_terms=["고혈압"])
    assert result.missing == ["와파린"]
    assert result.parts["coverage"] == 0.5      # 타이레놀 found in the cited document, 와파린 not
    assert result.parts["length"] == pytest.approx(len("이 약은 두통, 치통, 발열, 생리통에 사용합니다.") / 120, abs=1e-3)
    assert result.parts["personalisation"] == 0.0
    expected = 0.4 * 0.5 + 0.3 * result.parts["length"] + 0.3 * 0.0
    assert result.score == pytest.approx(expected, abs=1e-4)


def test_uncited_answer_has_no_coverage(tylenol: list[Citation]) -> None:
    result = heuristic_judge("타이레놀 효능", "두통에 씁니다.", tylenol)
    assert result.parts["coverage"] == 0.0 and result.parts["personalisation"] == 1.0  # no profile


def test_profile_aliases_count_as_personalised(tylenol: list[Citation]) -> None:
    answer = "고령자는 복용 전에 의사 또는 약사와 상의하십시오. [문서 3]"
    assert heuristic_judge("타이레놀", answer, tylenol, ["노인"]).parts["personalisation"] == 1.0


def test_empty_question_is_rejected(tylenol: list[Citation]) -> None:
    with pytest.raises(ValueError, match="question"):
        heuristic_judge("", "a", tylenol)
