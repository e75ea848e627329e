"""The offline query rewrite: the question plus what the last retrieval lacked and who is asking.

Why append rather than rephrase: without a model, the safe improvement is to add the words the judge
found missing from the evidence and the user's conditions/medications (so caution sections that name
them rank higher), keeping the user's own wording first. Capped so BM25 and the embedder still see
mostly the question.

    rewrite_query("타이레놀 부작용", ["간손상"], ["당뇨병"])  # "타이레놀 부작용 간손상 당뇨병"
"""

from __future__ import annotations

from collections.abc import Sequence

from yaksa.text.lexical import mentions

MAX_ADDED_TERMS = 6
MAX_QUERY_CHARS = 200


def rewrite_query(question: str, missing: Sequence[str], profile_terms: Sequence[str]) -> str:
    """`question` followed by missing and profile terms it does not already contain, de-duplicated."""
    if not isinstance(question, str) or not question.strip():
        raise ValueError(f"question must be a non-empty string, got {question!r}")
    query = " ".join(question.split())
    added: list[str] = []
    for term in (*missing, *profile_terms):
        term = " ".join(str(term).split())
        if not term or mentions(term, query) or len(added) >= MAX_ADDED_TERMS:
            continue
        if len(query) + 1 + len(term) > MAX_QUERY_CHARS:
            break
        query += " " + term
        added.append(term)
    return query
