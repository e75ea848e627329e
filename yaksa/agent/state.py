"""The typed state one agent turn carries through the graph.

Why a TypedDict: the step graph (`yaksa.agent.steps`) merges each node's partial update into this
state, and a declared shape keeps the nodes honest about what they read and write (a key it does not
declare is an error there).
"""

from __future__ import annotations

from typing import Any, TypedDict

from yaksa.agent.analysis import TurnAnalysis
from yaksa.config import AgentFlags
from yaksa.extraction.post_reader import PostReading
from yaksa.extraction.slots import SlotItem
from yaksa.lexicon.focus import Focus
from yaksa.llm.evidence import Citation
from yaksa.llm.offline.age_limits import ChildAge
from yaksa.scope.decision import ScopeDecision


class AgentState(TypedDict, total=False):
    # input
    question: str                  # what every node after resolve_followup answers: standalone
    user_id: str
    variant: str
    flags: AgentFlags
    erasure_epoch: int             # the user's erasure epoch when the turn began: its writes carry it
    analysis: TurnAnalysis         # what `question` says (red flag, greeting, slots, plan, focus, cache
                                   # entities), each worked out once (yaksa.agent.analysis)
    # scope, intent and context
    scope: ScopeDecision           # decided first; nothing else runs for an out-of-scope question
    greeting: bool                 # "안녕하세요": answered with a fixed reply, never refused or cached
    intent: str                    # "out_of_scope" | "crisis" | "chitchat" | "clarify" | "question" | "statement"
    complexity: str                # none | simple | moderate | complex
    k: int
    slots: list[SlotItem]
    profile_summary: str
    profile_population: tuple[str, ...]   # whom the remembered profile describes (child, pregnant …)
    profile_terms: list[str]
    history: list[dict[str, str]]
    search_query: str
    post: PostReading | None       # a long post's questions and person (read once, in round one)
    child_age: ChildAge            # the child's age the answer is judged by (read once, by the first search)
    router: dict[str, Any]
    # retrieval and answer
    focus: Focus | None            # what the user's question is about (named drug, symptom, intent)
    no_evidence: bool              # a named drug with no product in the data: said so, nothing else
    citations: list[Citation]
    contexts: list[str]            # the evidence blocks exactly as the generator's prompt carried them
    doc_ids_by_iteration: list[list[str]]
    blocked: bool                  # refused by the scope stage
    answer: str
    generation_source: str
    # verification and refinement
    verification: dict[str, Any] | None
    corrections: int
    verified: bool
    judgements: list[dict[str, Any]]
    iteration: int
    stop_reason: str
    best: dict[str, Any] | None    # the best answer so far (highest judge score)
    # bookkeeping
    cache_hit: bool
    cacheable: bool                # no profile before this turn: the cache may serve and store it
    nodes: list[str]
