"""When to stop refining: the Corrective-RAG loop rules, or one pass.

Why strategy objects: `refine_strategy` in an ablation profile swaps the loop policy without
touching the graph. CorrectiveRAG stops on the first rule that holds, checked in this order:

  1. quality         the judge score reached the threshold;
  2. duplicate_docs  the documents are (almost) the same as the previous round's
                     (Jaccard of doc ids >= duplicate_jaccard): another round would see nothing new;
  3. no_improvement  the score improved by less than min_improvement over the previous round;
  4. max_iterations  the turn has used its retrieve -> answer -> judge rounds.
The more specific reasons come first so the trace says *why* another round would not help.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from yaksa.config import AgentParams


def jaccard(a: Sequence[str], b: Sequence[str]) -> float:
    sa, sb = set(a), set(b)
    if not sa and not sb:
        return 1.0
    return len(sa & sb) / len(sa | sb)


class RefineStrategy(Protocol):
    name: str

    def stop_reason(self, scores: Sequence[float], doc_ids: Sequence[Sequence[str]]) -> str | None:
        """None to retrieve again; otherwise why the loop ends."""
        ...


@dataclass(frozen=True)
class BasicRAG:
    name: str = "basic"

    def stop_reason(self, scores: Sequence[float], doc_ids: Sequence[Sequence[str]]) -> str | None:
        return "single_pass"


@dataclass(frozen=True)
class CorrectiveRAG:
    quality_threshold: float
    max_iterations: int
    duplicate_jaccard: float
    min_improvement: float
    name: str = "crag"

    @classmethod
    def from_params(cls, params: AgentParams) -> CorrectiveRAG:
        return cls(params.quality_threshold, params.max_iterations, params.duplicate_jaccard, params.min_improvement)

    def stop_reason(self, scores: Sequence[float], doc_ids: Sequence[Sequence[str]]) -> str | None:
        if not scores:
            raise ValueError("stop_reason needs the score of at least one round")
        if scores[-1] >= self.quality_threshold:
            return "quality"
        if len(doc_ids) >= 2 and jaccard(doc_ids[-1], doc_ids[-2]) >= self.duplicate_jaccard:
            return "duplicate_docs"
        if len(scores) >= 2 and scores[-1] - scores[-2] < self.min_improvement:
            return "no_improvement"
        if len(scores) >= self.max_iterations:
            return "max_iterations"
        return None


def make_strategy(name: str, params: AgentParams) -> RefineStrategy:
    if name == "crag":
        return CorrectiveRAG.from_params(params)
    if name == "basic":
        return BasicRAG()
    raise ValueError(f"unknown refine_strategy {name!r}; expected crag or basic")
