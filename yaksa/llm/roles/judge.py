"""Judge answer quality: LLM scores for grounding / completeness / accuracy (0.4 / 0.3 / 0.3), or
the heuristic judge (coverage / length / personalisation) when there is no endpoint or it fails.

Why `missing`: what the judge says the evidence lacks drives the next retrieval's query rewrite.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from yaksa.llm.client import LLMClient
from yaksa.llm.context import render_evidence
from yaksa.llm.errors import LLMError
from yaksa.llm.evidence import EVIDENCE_TOKENS, Citation
from yaksa.llm.offline.heuristic_judge import heuristic_judge
from yaksa.llm.results import Judgement
from yaksa.llm.usage import UsageLedger

WEIGHTS = {"grounding": 0.4, "completeness": 0.3, "accuracy": 0.3}
PROMPT = """You grade a pharmacist assistant's answer against its evidence documents.
grounding: share of claims supported by the cited documents; completeness: how fully it answers the
question for this user; accuracy: doses, numbers and cautions match the documents. Each in [0, 1].
missing_info: facts the question needs that the documents do not contain (short search phrases).
Reply with JSON only: {"grounding": 0.0, "completeness": 0.0, "accuracy": 0.0, "missing_info": []}"""


def parse_scores(data: dict[str, Any]) -> tuple[dict[str, float], list[str]]:
    parts: dict[str, float] = {}
    for key in WEIGHTS:
        value = data[key]
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0.0 <= value <= 1.0:
            raise ValueError(f"{key} must be a number in [0, 1], got {value!r}")
        parts[key] = float(value)
    missing = data.get("missing_info", [])
    if not isinstance(missing, list) or not all(isinstance(m, str) for m in missing):
        raise ValueError("missing_info must be a list of strings")
    return parts, [m.strip() for m in missing if m.strip()]


def judge(client: LLMClient | None, question: str, answer: str, evidence: Sequence[Citation], *,
          usage: UsageLedger, profile_terms: Sequence[str] = ()) -> Judgement:  # fmt: skip
    """Weighted quality score in [0, 1] with its parts and the missing information."""
    error: str | None = None
    if client is not None:
        profile = ", ".join(profile_terms) or "(none)"
        messages = [
            {"role": "system", "content": PROMPT},
            {"role": "user", "content": f"## Evidence\n{render_evidence(evidence, EVIDENCE_TOKENS)}\n\n"
                                        f"## User profile\n{profile}\n\n## Question\n{question}\n\n## Answer\n{answer}"},
        ]  # fmt: skip
        try:
            parts, missing = client.chat_json("judge", messages, parse_scores, usage=usage)
            score = round(sum(WEIGHTS[k] * v for k, v in parts.items()), 4)
            return Judgement(score, parts, missing, "llm")
        except LLMError as exc:
            error = str(exc)
    usage.mark_fallback("judge", "heuristic", error)
    result = heuristic_judge(question, answer, evidence, profile_terms)
    return Judgement(result.score, result.parts, result.missing, result.source, error)
