"""The offline verifier and corrector: the safety rules checked and repaired without a model.

Why rules even when an LLM verifies: an invented dose is the one error that must never reach a user,
and a deterministic check of it costs nothing. FAIL reasons:
  * a content paragraph without a `[문서 N]` citation (short headings, the consult line, the
    corrector's "nothing could be confirmed" and the extractive answer's "no document answers this"
    statements are exempt);
  * a `[문서 N]` that names no retrieved document;
  * a number+unit (500mg, 1회 2정, 3회) that the cited documents do not contain;
  * no consult line ("전문가와 꼭 상담하세요").
`rule_correct` repairs by removal, never by writing new claims: bad citations are dropped, uncited
paragraphs get the citation of the document they overlap most (or are dropped), sentences with
unsupported doses are dropped, and the consult line is appended.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from yaksa.llm.evidence import Citation
from yaksa.llm.offline.assumed_person import without_told_person
from yaksa.llm.offline.extractive import NO_EVIDENCE_EN, NO_EVIDENCE_KO
from yaksa.llm.results import Verification
from yaksa.llm.safety import (
    CITATION,
    SAFETY_LINE_EN,
    SAFETY_LINE_KO,
    cited_numbers,
    dose_mentions,
    has_safety_line,
    unsupported_doses,
)
from yaksa.text.lexical import grams, is_korean, overlap, sentences

HEADING_MAX_CHARS = 40
MIN_ATTACH_OVERLAP = 0.3   # share of a paragraph's grams a document must contain to be cited for it
NOTHING_SUPPORTED_KO = "근거 문서로 확인되는 내용이 없어 답변을 드리기 어렵습니다."
NOTHING_SUPPORTED_EN = "Nothing in this answer could be confirmed by the source documents."
# statements that nothing is claimed: no citation to check. The extractive answer says NO_EVIDENCE when
# no sentence could be quoted for the person (a child and only adult-only labels): flagged as uncited,
# the corrector then dropped the see-a-doctor note of a long post along with it
NOTHING_FOUND = frozenset({NOTHING_SUPPORTED_KO, NOTHING_SUPPORTED_EN, NO_EVIDENCE_KO, NO_EVIDENCE_EN})
_PARAGRAPH_BREAK = re.compile(r"\n\s*\n")


def _paragraphs(answer: str) -> list[str]:
    return [p.strip() for p in _PARAGRAPH_BREAK.split(answer) if p.strip()]


def _is_heading(paragraph: str) -> bool:
    return ("\n" not in paragraph and len(paragraph) <= HEADING_MAX_CHARS and not dose_mentions(paragraph)
            and not CITATION.search(paragraph) and not paragraph.endswith((".", "!", "?", "다", "요")))  # fmt: skip


def _sources(citations: Sequence[Citation]) -> str:
    return "\n".join(f"{c.title}\n{c.section}\n{c.text}" for c in citations)


def verify_rules(answer: str, evidence: Sequence[Citation]) -> Verification:
    """PASS when every rule holds; otherwise FAIL with one problem per broken rule instance."""
    by_n = {c.n: c for c in evidence}
    problems: list[str] = []
    if not has_safety_line(answer):
        problems.append("안전 문구가 없습니다: '전문가와 꼭 상담하세요'로 전문가 상담을 권해야 합니다.")
    for i, para in enumerate(_paragraphs(answer), start=1):
        numbers = cited_numbers(para)
        for n in dict.fromkeys(numbers):
            if n not in by_n:
                problems.append(f"문단 {i}: [문서 {n}]은(는) 검색된 문서에 없습니다.")
        exempt = has_safety_line(para) or _is_heading(para) or para in NOTHING_FOUND
        if evidence and not numbers and not exempt:
            problems.append(f"문단 {i}에 [문서 N] 인용이 없습니다: {para[:60]!r}")
        cited = [by_n[n] for n in numbers if n in by_n] or list(evidence)
        for dose in unsupported_doses(without_told_person(para), _sources(cited)):
            problems.append(f"문단 {i}: 근거 문서에 없는 용량/횟수 '{dose}'")
    return Verification("FAIL" if problems else "PASS", problems, source="rule")


def _sentences_with_citations(paragraph: str) -> list[str]:
    """Sentences, with a trailing bare "[문서 N]" kept on the sentence before it."""
    out: list[str] = []
    for sent in sentences(paragraph):
        if out and not CITATION.sub("", sent).strip():
            out[-1] = f"{out[-1]} {sent}"
        else:
            out.append(sent)
    return out


def _repair(paragraph: str, evidence: Sequence[Citation]) -> str | None:
    by_n = {c.n: c for c in evidence}
    para = CITATION.sub(lambda m: m.group(0) if int(m.group(1)) in by_n else "", paragraph)
    numbers = list(dict.fromkeys(cited_numbers(para)))
    if not numbers:
        if not evidence:
            return None
        best = max(evidence, key=lambda c: overlap(grams(para), _sources([c])))
        if overlap(grams(para), _sources([best])) < MIN_ATTACH_OVERLAP:
            return None
        numbers = [best.n]
    sources = _sources([by_n[n] for n in numbers])
    kept = [s for s in _sentences_with_citations(para) if not unsupported_doses(s, sources)]
    if not CITATION.sub("", " ".join(kept)).strip():
        return None
    text = " ".join(kept)
    missing = [n for n in numbers if f"[문서 {n}]" not in text]
    return text + "".join(f" [문서 {n}]" for n in missing)


def rule_correct(answer: str, evidence: Sequence[Citation]) -> str:
    """The answer with every rule violation removed, ending with the consult line."""
    korean = is_korean(answer) or not answer.strip()
    out: list[str] = []
    for para in _paragraphs(answer):
        if has_safety_line(para) and not CITATION.search(para) and not dose_mentions(without_told_person(para)):
            continue  # re-added once at the end
        if _is_heading(para):
            out.append(para)
            continue
        fixed = _repair(para, evidence)
        if fixed:
            out.append(fixed)
    if all(_is_heading(p) for p in out):
        out = [NOTHING_SUPPORTED_KO if korean else NOTHING_SUPPORTED_EN]
    out.append(SAFETY_LINE_KO if korean else SAFETY_LINE_EN)
    return "\n\n".join(out)
