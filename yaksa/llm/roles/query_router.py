"""LLM query routing: the terms a search should require, add for recall, and stay away from.

Why an LLM here: a question like "타이레놀이랑 술 같이 먹어도 돼?" needs the product (core), the
ingredient and the label's wording (recall: 아세트아미노펜, 음주, 간손상), and not e.g. other brands
(avoid). Rules cannot know brand → ingredient; a model can. This runs only when an endpoint is
configured; offline (or when the call fails) the result is empty with source "offline" and the
caller uses the rule-based expansion (`yaksa.lexicon.expansion`). The error, if any, is kept for
the trace.

    terms = route_terms(client_from_env(), "타이레놀이랑 술 같이 먹어도 돼?", ledger)
    terms.core_terms, terms.recall_terms, terms.avoid_terms, terms.source
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from yaksa.llm.client import LLMClient
from yaksa.llm.errors import LLMError
from yaksa.llm.usage import UsageLedger

MAX_TERMS = 8
KEYS = ("core_terms", "recall_terms", "avoid_terms")
PROMPT = f"""You plan searches over Korean drug labels (MFDS e약은요) and English medical texts.
For the user's question give: core_terms — the drug, ingredient or condition names a relevant
document must mention; recall_terms — synonyms, ingredient names, label wording and translations
that help find more relevant documents; avoid_terms — words whose documents would be off-topic.
At most {MAX_TERMS} terms per list, each a word or short phrase; core_terms must not be empty.
Reply with JSON only: {{"core_terms": [], "recall_terms": [], "avoid_terms": []}}"""


@dataclass(frozen=True)
class RouterTerms:
    core_terms: list[str] = field(default_factory=list)
    recall_terms: list[str] = field(default_factory=list)
    avoid_terms: list[str] = field(default_factory=list)
    source: str = "offline"
    error: str | None = None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def parse_terms(data: dict[str, Any]) -> RouterTerms:
    lists: dict[str, list[str]] = {}
    for key in KEYS:
        value = data.get(key, [])
        if not isinstance(value, list) or not all(isinstance(t, str) for t in value):
            raise ValueError(f"{key} must be a list of strings, got {value!r}")
        cleaned = list(dict.fromkeys(" ".join(t.split()) for t in value if t.strip()))
        if len(cleaned) > MAX_TERMS:
            raise ValueError(f"{key} has {len(cleaned)} terms, more than {MAX_TERMS}")
        lists[key] = cleaned
    if not lists["core_terms"]:
        raise ValueError("core_terms must not be empty")
    return RouterTerms(**lists, source="llm")


def route_terms(client: LLMClient | None, question: str, usage: UsageLedger) -> RouterTerms:
    """Search terms from the router model; empty with source "offline" when there is none or it fails."""
    if not isinstance(question, str) or not question.strip():
        raise ValueError(f"question must be a non-empty string, got {question!r}")
    error: str | None = None
    if client is not None:
        messages = [{"role": "system", "content": PROMPT}, {"role": "user", "content": question.strip()}]
        try:
            return client.chat_json("router", messages, parse_terms, usage=usage)
        except LLMError as exc:
            error = str(exc)
    usage.mark_fallback("router", "offline", error)
    return RouterTerms(error=error)
