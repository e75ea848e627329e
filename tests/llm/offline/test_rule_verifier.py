from __future__ import annotations

from yaksa.llm.evidence import Citation
from yaksa.llm.offline.rule_verifier import rule_correct, verify_rules
from yaksa.llm.safety import SAFETY_LINE_EN, SAFETY_LINE_KO

GOOD = f"""타이레놀 복용법

타이레놀은 두통과 발열에 사용합니다 [문서 1].

만 12세 이상은 1회 1~2정씩 1일 3~4회 복용합니다. [문서 2]

{SAFETY_LINE_KO}"""


def test_a_grounded_cited_answer_passes(tylenol: list[Citation]) -> None:
    result = verify_rules(GOOD, tylenol)
    assert (result.verdict, result.problems, result.source) == ("PASS", [], "rule")


def test_invented_dose_fails(tylenol: list[Citation]) -> None:
    answer = GOOD.replace("1회 1~2정씩", "1회 1000mg씩")
    result = verify_rules(answer, tylenol)
    assert result.verdict == "FAIL" and result.problems == ["문단 3: 근거 문서에 없는 용량/횟수 '1000mg'"]


def test_dose_must_come_from_the_cited_document(tylenol: list[Citation]) -> None:
    # "1~2정" is in document 2, but this paragraph cites document 1
    answer = GOOD.replace("만 12세 이상은 1회 1~2정씩 1일 3~4회 복용합니다. [문서 2]", "1회 1~2정씩 드세요. [문서 1]")
    assert "문단 3: 근거 문서에 없는 용량/횟수 '1회'" in verify_rules(answer, tylenol).problems


def test_missing_citation_unknown_document_and_safety_line(tylenol: list[Citation]) -> None:
    answer = "이 약은 두통, 치통에 사용합니다.\n\n술과 함께 먹으면 간 손상이 올 수 있습니다. [문서 9]"
    problems = verify_rules(answer, tylenol).problems
    assert problems[0].startswith("안전 문구가 없습니다")
    assert problems[1].startswith("문단 1에 [문서 N] 인용이 없습니다")
    assert problems[2] == "문단 2: [문서 9]은(는) 검색된 문서에 없습니다."


def test_correction_removes_what_is_unsupported_and_passes(tylenol: list[Citation]) -> None:
    # the bad [문서 7] is dropped and the claim re-attached to the document that says it (술 → 문서 3);
    # the vitamin paragraph overlaps no document and is dropped
    answer = ("타이레놀 복용법\n\n타이레놀은 두통과 발열에 사용합니다 [문서 1].\n\n"
              "성인은 1회 1000mg을 드세요. 1일 3~4회 복용합니다. [문서 2]\n\n"
              "이 약은 두통, 치통에 사용합니다.\n\n술과 함께 드시면 좋지 않습니다. [문서 7]\n\n"
              "비타민은 하루 두 알이 좋습니다.")  # fmt: skip
    fixed = rule_correct(answer, tylenol)
    assert fixed == ("타이레놀 복용법\n\n타이레놀은 두통과 발열에 사용합니다 [문서 1].\n\n"
                     "1일 3~4회 복용합니다. [문서 2]\n\n이 약은 두통, 치통에 사용합니다. [문서 1]\n\n"
                     f"술과 함께 드시면 좋지 않습니다. [문서 3]\n\n{SAFETY_LINE_KO}")  # fmt: skip
    assert verify_rules(fixed, tylenol).verdict == "PASS"


def test_correction_with_nothing_supported(aspirin_en: list[Citation]) -> None:
    fixed = rule_correct("Take 1000 mg of ibuprofen twice a day.", aspirin_en)
    assert fixed == f"Nothing in this answer could be confirmed by the source documents.\n\n{SAFETY_LINE_EN}"
    assert verify_rules(fixed, aspirin_en).verdict == "PASS"
    assert rule_correct("500mg 드세요", []).endswith(SAFETY_LINE_KO)


def test_saying_no_document_answers_is_no_uncited_claim(tylenol: list[Citation]) -> None:
    """A long post about a child whose labels were all adult-only got the see-a-doctor note and "no
    document answers this"; flagged as uncited, the correction dropped the note with it."""
    from yaksa.llm.offline.extractive import NO_EVIDENCE_KO

    answer = f"{NO_EVIDENCE_KO}\n\n복용 전에 약사나 의사 등 전문가와 꼭 상담하세요."
    assert verify_rules(answer, tylenol).verdict == "PASS"
    claim = "이 약은 하루 세 번 먹습니다.\n\n복용 전에 약사나 의사 등 전문가와 꼭 상담하세요."
    assert verify_rules(claim, tylenol).verdict == "FAIL"   # an uncited claim still fails
