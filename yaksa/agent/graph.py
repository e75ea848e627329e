"""The agent graph, built once per AgentDeps and reused by every turn (a `StepGraph`: one path, see why there).

    scope ─out of scope (refused: no cache, LLM, memory, web or search)─→ store_response → END
       │
    resolve_followup ─"그 약은…?" with no (or no single) drug earlier: which drug?─→ store_response
       │ (a follow-up continues as its standalone question: "페니라민정은…?")
    check_similarity ─hit─→ extract_slots → store_memory ─────────────→ store_response → END
       │miss
    classify_intent ─chitchat──────────────────────────────────────────→ store_response
       │            ─mode=llm──→ assemble_context
    extract_slots → store_memory ─statement (profile facts, no question)→ store_response
       │
    assemble_context ─mode=llm (no retrieval)──→ generate_answer
       │
    retrieve ─named drug not in the data (said so, no LLM call)─────────→ store_response
       │
    generate_answer → verify ─FAIL, rounds left→ correct → verify ...
                         │PASS / verify off
                      refine → quality_check ─retry→ assemble_context → retrieve ...
                                             ─stop──→ store_response → END

Flags of the turn's ablation variant (in the state) decide the routes, so one graph serves every
variant.
"""

from __future__ import annotations

from yaksa.agent.deps import AgentDeps
from yaksa.agent.nodes.context import assemble_context
from yaksa.agent.nodes.followup import resolve_followup
from yaksa.agent.nodes.generate import generate_answer
from yaksa.agent.nodes.intent import classify_intent
from yaksa.agent.nodes.memory import extract_slots, store_memory
from yaksa.agent.nodes.refine import quality_check, refine
from yaksa.agent.nodes.retrieve import retrieve
from yaksa.agent.nodes.scope import scope
from yaksa.agent.nodes.similarity import check_similarity, store_response
from yaksa.agent.nodes.verify import correct_answer, needs_correction, verify_answer
from yaksa.agent.state import AgentState
from yaksa.agent.steps import END, StepGraph, always, branch
from yaksa.agent.turn import instrumented

NODES = ("scope", "resolve_followup", "check_similarity", "classify_intent", "extract_slots", "store_memory",
         "assemble_context", "retrieve", "generate_answer", "verify", "correct", "refine", "quality_check",
         "store_response")


def build_graph(deps: AgentDeps) -> StepGraph:
    factories = {
        "scope": scope, "resolve_followup": resolve_followup, "check_similarity": check_similarity,
        "classify_intent": classify_intent, "extract_slots": extract_slots, "store_memory": store_memory,
        "assemble_context": assemble_context, "retrieve": retrieve, "generate_answer": generate_answer,
        "verify": verify_answer, "correct": correct_answer, "refine": refine, "quality_check": quality_check,
        "store_response": store_response,
    }
    nodes = {name: instrumented(name, factories[name](deps)) for name in NODES}

    @branch("store_response", "classify_intent", "resolve_followup")
    def after_scope(s: dict) -> str:
        if s.get("blocked"):
            return "store_response"
        return "classify_intent" if s.get("greeting") else "resolve_followup"

    @branch("store_response", "extract_slots", "check_similarity")
    def after_followup(s: dict) -> str:
        if s.get("intent") != "clarify":
            return "check_similarity"
        # asked which drug, but what the message says of the person is kept ("임신 20주인데 먹어도 돼요?")
        return "extract_slots" if s["flags"].mode == "rag" else "store_response"

    @branch("extract_slots", "store_response", "classify_intent")
    def after_similarity(s: dict) -> str:
        if s.get("cache_hit"):  # the answer is cached, the user's own facts in this message are not
            return "extract_slots" if s["flags"].mode == "rag" else "store_response"
        return "classify_intent"

    @branch("store_response", "assemble_context", "extract_slots")
    def after_intent(s: dict) -> str:
        if s.get("intent") == "chitchat":
            return "store_response"
        return "assemble_context" if s["flags"].mode == "llm" else "extract_slots"

    @branch("store_response", "assemble_context")
    def after_memory(s: dict) -> str:
        return ("store_response" if s.get("cache_hit") or s.get("intent") in ("statement", "clarify")
                else "assemble_context")

    @branch("generate_answer", "retrieve")
    def after_context(s: dict) -> str:
        return "generate_answer" if s["flags"].mode == "llm" else "retrieve"

    @branch("store_response", "generate_answer")
    def after_retrieve(s: dict) -> str:
        return "store_response" if s.get("no_evidence") else "generate_answer"

    @branch("verify", "refine")
    def after_generate(s: dict) -> str:
        return "verify" if s["flags"].verify else "refine"

    @branch("correct", "refine")
    def after_verify(s: dict) -> str:
        return "correct" if needs_correction(s, deps) else "refine"

    @branch("store_response", "assemble_context")
    def after_quality(s: dict) -> str:
        return "store_response" if s.get("stop_reason") else "assemble_context"

    routes = {
        "scope": after_scope, "resolve_followup": after_followup, "check_similarity": after_similarity,
        "classify_intent": after_intent, "extract_slots": always("store_memory"), "store_memory": after_memory,
        "assemble_context": after_context, "retrieve": after_retrieve, "generate_answer": after_generate,
        "verify": after_verify, "correct": always("verify"), "refine": always("quality_check"),
        "quality_check": after_quality, "store_response": always(END),
    }
    return StepGraph(nodes, routes, start="scope", keys=frozenset(AgentState.__annotations__))
