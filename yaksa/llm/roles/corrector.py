"""Correct an answer the verifier failed: the LLM rewrites it, or the rules repair it by removal."""

from __future__ import annotations

from collections.abc import Sequence

from yaksa.llm.client import LLMClient
from yaksa.llm.context import render_evidence
from yaksa.llm.errors import LLMError
from yaksa.llm.evidence import EVIDENCE_TOKENS, Citation
from yaksa.llm.offline.rule_verifier import rule_correct
from yaksa.llm.results import Correction
from yaksa.llm.usage import UsageLedger

PROMPT = """You correct a pharmacist assistant's answer. Fix every listed problem using only the
evidence documents: remove or fix unsupported claims, copy doses exactly from the cited document,
cite every claim as [문서 N], keep the user's language, and end with "전문가와 꼭 상담하세요".
Reply with the corrected answer only."""


def correct(client: LLMClient | None, question: str, answer: str, evidence: Sequence[Citation],
            problems: Sequence[str], *, usage: UsageLedger) -> Correction:  # fmt: skip
    """The corrected answer (re-verify it: a correction is a new answer)."""
    error: str | None = None
    if client is not None:
        listed = "\n".join(f"- {p}" for p in problems) or "- (none listed)"
        messages = [
            {"role": "system", "content": PROMPT},
            {"role": "user", "content": f"## Evidence\n{render_evidence(evidence, EVIDENCE_TOKENS)}\n\n"
                                        f"## Question\n{question}\n\n## Answer\n{answer}\n\n## Problems\n{listed}"},
        ]  # fmt: skip
        try:
            return Correction(client.chat("corrector", messages, usage=usage).strip(), "llm")
        except LLMError as exc:
            error = str(exc)
    usage.mark_fallback("corrector", "rule", error)
    return Correction(rule_correct(answer, evidence), "rule", error)
