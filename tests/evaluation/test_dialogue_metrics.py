"""The dialogue metrics on hand-made turns, and the answer checks they share with the regression."""

from __future__ import annotations

import pytest

from yaksa.evaluation.answer_checks import answer_checks
from yaksa.evaluation.dialogues.metrics import (
    follow_up_resolved,
    personalisation,
    product_hit,
    product_key,
    profile_recall,
)
from yaksa.llm.evidence import Citation
from yaksa.llm.safety import SAFETY_LINE_KO

TYLENOL = Citation(1, "mfds:1:precautions", "drugs", "타이레놀정500밀리그람(아세트아미노펜)", "주의사항",
                   "매일 세잔 이상 정기적으로 술을 마시는 사람, 간질환 환자, 고령자는 복용 전 의사 또는 약사와 상의하십시오. "
                   "1일 최대 4그램을 넘기지 마십시오.", 0.9)
GAS = Citation(2, "mfds:2:usage", "drugs", "활명수", "용법용량", "만 15세 이상 1회 1병(75 mL).", 0.5)


def item(slot_type: str, name: str, value=None, text: str = "", active: bool = True) -> dict:
    return {"slot_type": slot_type, "name": name, "value": value, "text": text, "active": active}


def test_profile_recall_counts_the_facts_the_profile_still_holds() -> None:
    stated = [("demographics", "age", 72), ("conditions", "고혈압", None), ("medications", "암로디핀", None),
              ("vitals", "blood_pressure", "150/95")]
    profile = [item("demographics", "age", 72.0), item("conditions", "hypertension", text="고혈압"),
               item("medications", "amlodipine", text="암로디핀", active=False),   # faded: not held
               item("vitals", "blood_pressure", "140/90")]                         # another reading
    assert profile_recall(stated, profile) == pytest.approx(2 / 4)
    assert profile_recall([], profile) is None
    assert profile_recall(stated, []) == 0.0
    assert profile_recall([("demographics", "gender", "female")], [item("demographics", "gender", "male")]) == 0.0


def test_personalisation_applies_only_when_the_cited_text_cautions() -> None:
    cautions = ["고령자", "간질환", "임부"]
    both = "고령자와 간질환이 있으신 분은 약사와 상의하세요 [문서 1]."
    one = "고령자는 약사와 상의하세요 [문서 1]."
    assert personalisation(both, [TYLENOL], cautions) == 1.0
    assert personalisation(one, [TYLENOL], cautions) == 0.5            # 임부 is not in the text: 2 apply
    assert personalisation("하루 3번 드세요.", [TYLENOL], cautions) == 0.0
    assert personalisation(both, [GAS], cautions) is None              # nothing to personalise on


def test_product_hit_and_follow_up_compare_names_without_brackets_or_spaces() -> None:
    assert product_key("타이레놀정 500밀리그람 (아세트아미노펜)") == product_key("타이레놀정500밀리그람")
    assert product_hit([GAS, TYLENOL], "타이레놀정500밀리그람") == 1.0
    assert product_hit([GAS], "타이레놀정500밀리그람") == 0.0
    assert product_hit([TYLENOL], "") == 0.0
    assert follow_up_resolved("하루 3~4회 [문서 1]", [TYLENOL], "타이레놀정500밀리그람") == 1.0
    assert follow_up_resolved("", [TYLENOL], "타이레놀정500밀리그람") == 0.0


def test_answer_checks() -> None:
    good = f"1일 최대 4그램을 넘기지 마세요 [문서 1]. {SAFETY_LINE_KO}"
    row = answer_checks(good, [TYLENOL], n_contexts=1)
    assert row == {"citation_validity": 1.0, "number_grounding": 1.0, "safety_sentence": 1.0}
    bad = answer_checks("1회 3정 드세요 [문서 3].", [TYLENOL], n_contexts=1)
    assert bad["citation_validity"] == 0.0 and bad["number_grounding"] == 0.0 and bad["safety_sentence"] == 0.0
    assert "citation_validity" not in answer_checks("안녕하세요.", [], n_contexts=0)
