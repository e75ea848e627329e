"""Verify an answer: the LLM's PASS/FAIL with problems, always combined with the rule checks.

Why both: the LLM catches claims the evidence does not support in substance; the rules catch what
must never pass whatever a model says (an invented dose, a missing citation or consult line). The
verdict is FAIL when either fails. Without an endpoint, or when the LLM call fails, the rules alone
decide (source "rule", with the LLM error recorded).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from yaksa.llm.client import LLMClient
from yaksa.llm.context import render_evidence
from yaksa.llm.errors import LLMError
from yaksa.llm.evidence import EVIDENCE_TOKENS, Citation
from yaksa.llm.offline.rule_verifier import verify_rules
from yaksa.llm.results import Verification
from yaksa.llm.usage import UsageLedger

PROMPT = """You verify a pharmacist assistant's answer against its evidence documents.
FAIL the answer if any claim is not supported by the documents, a dose or number differs from the
cited document, a claim lacks a [문서 N] citation, a contraindication for the user is ignored, or it
does not advise consulting a pharmacist or doctor. Reply with JSON only:
{"verdict": "PASS" or "FAIL", "problems": ["one short sentence per problem"]}"""


def parse_verdict(data: dict[str, Any]) -> tuple[str, list[str]]:
    verdict = str(data["verdict"]).strip().upper()
    if verdict not in ("PASS", "FAIL"):
        raise ValueError(f"verdict must be PASS or FAIL, got {data['verdict']!r}")
    problems = data.get("problems", [])
    if not isinstance(problems, list) or not all(isinstance(p, str) for p in problems):
        raise ValueError("problems must be a list of strings")
    problems = [p.strip() for p in problems if p.strip()]
    if verdict == "FAIL" and not problems:
        raise ValueError("verdict FAIL needs at least one problem")
    return verdict, problems


def verify(client: LLMClient | None, question: str, answer: str, evidence: Sequence[Citation], *,
           usage: UsageLedger) -> Verification:  # fmt: skip
    """PASS/FAIL with problems; rule problems are always included."""
    rules = verify_rules(answer, evidence)
    if client is None:
        usage.mark_fallback("verifier", "rule")
        return rules
    messages = [
        {"role": "system", "content": PROMPT},
        {"role": "user", "content": f"## Evidence\n{render_evidence(evidence, EVIDENCE_TOKENS)}\n\n"
                                    f"## Question\n{question}\n\n## Answer\n{answer}"},
    ]  # fmt: skip
    try:
        verdict, problems = client.chat_json("verifier", messages, parse_verdict, usage=usage)
    except LLMError as exc:
        usage.mark_fallback("verifier", "rule", str(exc))
        return replace(rules, error=str(exc))
    problems += [p for p in rules.problems if p not in problems]
    failed = verdict == "FAIL" or rules.verdict == "FAIL"
    return Verification("FAIL" if failed else "PASS", problems, "llm")
