"""generate_answer: the cited answer, streamed as tokens (LLM, or extractive offline)."""

from __future__ import annotations

from typing import Any

from yaksa.agent.deps import AgentDeps
from yaksa.agent.turn import TurnContext
from yaksa.llm.context import assemble_prompt
from yaksa.llm.roles import generate


def generate_answer(deps: AgentDeps):
    def run(state: dict, turn: TurnContext) -> dict[str, Any]:
        iteration = state.get("iteration", 0)
        prompt = assemble_prompt(state["question"], state.get("citations") or [], state.get("profile_summary", ""),
                                 state.get("history") or [], total_tokens=deps.params.context_tokens,
                                 post=state.get("post"), remembered=state.get("profile_population", ()),
                                 child_age=state.get("child_age"))
        gen = generate(deps.llm, prompt, usage=turn.ledger,
                       on_token=lambda text: turn.emit("token", {"text": text, "iteration": iteration}))
        turn.notes.setdefault("generation", []).append(
            {"source": gen.source, "error": gen.error, "prompt_tokens_by_section": gen.prompt_tokens_by_section})
        return {"answer": gen.text, "generation_source": gen.source, "corrections": 0, "verified": False,
                "verification": None, "contexts": list(prompt.evidence_blocks)}
    return run
