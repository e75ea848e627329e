"""What each LLM step returns: the result plus where it came from, so the trace shows degradations.

`source` is "llm" when the endpoint answered, otherwise the fallback's name ("extractive", "rule",
"heuristic", "offline"); `error` says why the LLM was not used (None when it was, or when offline).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal


@dataclass(frozen=True)
class Generation:
    text: str
    source: str
    error: str | None = None
    prompt_tokens_by_section: dict[str, int] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Verification:
    verdict: Literal["PASS", "FAIL"]
    problems: list[str]
    source: str
    error: str | None = None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Correction:
    text: str
    source: str
    error: str | None = None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Judgement:
    """`score` in [0, 1] is the weighted sum of `parts`; `missing` names what the evidence lacks."""

    score: float
    parts: dict[str, float]
    missing: list[str]
    source: str
    error: str | None = None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Rewrite:
    query: str
    source: str
    error: str | None = None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)
