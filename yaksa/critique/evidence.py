"""What a critique cites and what it claims: one type each, shared by the offline and the LLM paths.

Why a module of its own: the agent, the LLM roles and the service all speak in these two types, and
none of them should import the others to get them.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Evidence:
    ref: str          # "PMID:123" | "doc:medquad:..." | "case:mtsamples:12"
    title: str
    text: str
    score: float
    source: str       # "pubmed" | "literature" | "health" | "cases"


@dataclass(frozen=True)
class Claim:
    section: str
    text: str
    refs: tuple[str, ...]
