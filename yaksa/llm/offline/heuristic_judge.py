"""The offline quality judge: is the answer grounded, of a useful length, and about this user?

Why these three parts (weights 0.4 / 0.3 / 0.3): without a model we can still measure whether the
documents the answer cites contain the question's content words (evidence coverage), whether the
answer is neither a stub nor a wall of text (length), and whether it speaks to the user's profile
(personalisation). `missing` — question words no retrieved document contains — is what the agent's
query rewrite adds on the next retrieval round.

    heuristic_judge("타이레놀 하루 몇 번?", answer, evidence, profile_terms=["당뇨병"]).score
"""

from __future__ import annotations

from collections.abc import Sequence

from yaksa.llm.evidence import Citation
from yaksa.llm.offline.profile_terms import with_aliases
from yaksa.llm.results import Judgement
from yaksa.llm.safety import CITATION, SAFETY_LINE_EN, SAFETY_LINE_KO, cited_numbers
from yaksa.text.lexical import mentions, terms

WEIGHTS = {"coverage": 0.4, "length": 0.3, "personalisation": 0.3}
LENGTH_MIN_CHARS = 120    # shorter answers rarely give both the use and the caution
LENGTH_MAX_CHARS = 1500   # longer ones bury the answer


def _length_score(answer: str) -> float:
    body = CITATION.sub("", answer.replace(SAFETY_LINE_KO, "").replace(SAFETY_LINE_EN, "")).strip()
    n = len(body)
    if n < LENGTH_MIN_CHARS:
        return n / LENGTH_MIN_CHARS
    return 1.0 if n <= LENGTH_MAX_CHARS else LENGTH_MAX_CHARS / n


def _text(citations: Sequence[Citation]) -> str:
    return "\n".join(f"{c.title} {c.section} {c.text}" for c in citations)


def heuristic_judge(question: str, answer: str, evidence: Sequence[Citation],
                    profile_terms: Sequence[str] = ()) -> Judgement:  # fmt: skip
    """Score in [0, 1]; parts coverage / length / personalisation; question words the evidence lacks."""
    if not isinstance(question, str) or not question.strip():
        raise ValueError(f"question must be a non-empty string, got {question!r}")
    wanted = terms(question)
    numbers = set(cited_numbers(answer))
    cited_text = _text([c for c in evidence if c.n in numbers])
    if wanted:
        coverage = sum(mentions(t, cited_text) for t in wanted) / len(wanted)
    else:
        coverage = 1.0 if cited_text else 0.0
    all_text = _text(evidence)
    missing = [t for t in wanted if not mentions(t, all_text)]
    profile = [t for t in profile_terms if t.strip()]
    if profile:
        personal = sum(any(mentions(a, answer) for a in with_aliases([t])) for t in profile) / len(profile)
    else:
        personal = 1.0  # nothing known about the user: nothing to personalise
    parts = {"coverage": round(coverage, 4), "length": round(_length_score(answer), 4),
             "personalisation": round(personal, 4)}  # fmt: skip
    score = round(sum(WEIGHTS[k] * v for k, v in parts.items()), 4)
    return Judgement(score=score, parts=parts, missing=missing, source="heuristic")
