"""Rewrite the search query for the next retrieval round: by the LLM, or by the rule rewrite."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from yaksa.llm.client import LLMClient
from yaksa.llm.errors import LLMError
from yaksa.llm.offline.rule_rewrite import MAX_QUERY_CHARS, rewrite_query
from yaksa.llm.results import Rewrite
from yaksa.llm.usage import UsageLedger

PROMPT = f"""You rewrite a user's question into one search query for a drug-label and medical search
engine. Keep the drug and condition names, add the missing information and the user's relevant
conditions or medications, keep the question's language, at most {MAX_QUERY_CHARS} characters.
Reply with JSON only: {{"query": "..."}}"""


def parse_query(data: dict[str, Any]) -> str:
    query = data["query"]
    if not isinstance(query, str) or not query.strip():
        raise ValueError("query must be a non-empty string")
    if len(query) > MAX_QUERY_CHARS:
        raise ValueError(f"query is longer than {MAX_QUERY_CHARS} characters")
    return " ".join(query.split())


def rewrite(client: LLMClient | None, question: str, missing: Sequence[str], profile_terms: Sequence[str], *,
            usage: UsageLedger) -> Rewrite:  # fmt: skip
    """A better query for `question` given what the evidence lacked and who is asking."""
    error: str | None = None
    if client is not None:
        messages = [
            {"role": "system", "content": PROMPT},
            {"role": "user", "content": f"Question: {question}\nMissing information: {', '.join(missing) or '-'}\n"
                                        f"User profile: {', '.join(profile_terms) or '-'}"},
        ]  # fmt: skip
        try:
            return Rewrite(client.chat_json("rewriter", messages, parse_query, usage=usage), "llm")
        except LLMError as exc:
            error = str(exc)
    usage.mark_fallback("rewriter", "rule", error)
    return Rewrite(rewrite_query(question, missing, profile_terms), "rule", error)
