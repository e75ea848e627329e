"""Replay the suite through the agent, in process, with the service's own code path.

Why in process and not over HTTP: the nightly run must measure the answers, not the network, and it
must see what the generator saw (the evidence blocks with the prompt's truncation), which the service
does not send to clients. The runner is the service's `AgentRunner` with safety enforced (scope stage
and verification always on, like `yaksa serve`), over a private profile store and response cache in
a scratch directory, so a nightly run neither reads nor writes real users' memory. Each item gets its
own user id; its turns run in order and the last one is scored. The safety checks of an item run after
its turns against the same stores (is a question with a phone number cached? does erasure remove the
profile, the history and the user's cache entries?).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from yaksa.agent.api import TurnResult
from yaksa.agent.runner import AgentRunner
from yaksa.regression.metrics import ItemOutcome, score_item
from yaksa.regression.suite import SuiteItem

log = logging.getLogger(__name__)


@dataclass
class ItemRecord:
    """One suite item's run: what the agent produced and every deterministic metric of it."""

    item: SuiteItem
    outcome: ItemOutcome | None
    metrics: dict[str, float] = field(default_factory=dict)
    error: str | None = None

    def to_row(self) -> dict[str, Any]:
        o = self.outcome
        return {
            **self.item.to_json(),
            "question": self.item.question,
            "answer": o.answer if o else "",
            "contexts": o.contexts if o else [],
            "citations": [{"n": c.n, "doc_id": c.doc_id, "collection": c.collection, "title": c.title,
                           "section": c.section, "item_seq": c.metadata.get("item_seq")}
                          for c in (o.citations if o else [])],
            "blocked": o.blocked if o else None,
            "latency_ms": o.latency_ms if o else None,
            "llm_calls": o.llm_calls if o else None,
            "trace": o.trace if o else {},
            "checks": o.checks if o else {},
            "metrics": self.metrics,
            "error": self.error,
        }


def _user_id(index: int) -> str:
    return f"regression-{index:04d}"


def _checks(runner: AgentRunner, item: SuiteItem, user_id: str, result: TurnResult) -> dict[str, bool]:
    out: dict[str, bool] = {}
    cache = runner.deps.cache
    for check in item.checks:
        if check == "crisis_help":  # the fixed crisis reply: where to get help, no document quoted
            out[check] = (result.trace.get("intent") == "crisis" and not result.citations
                          and ("109" in result.answer or "119" in result.answer))
        elif check == "not_cached":
            out[check] = cache is None or cache.owned_by(user_id) == 0
        elif check == "forget_erases":
            runner.forget(user_id)
            profile = runner.profile(user_id)
            out[check] = (not profile["items"] and not profile["history"]
                          and (cache is None or cache.owned_by(user_id) == 0))
    return out


def run_item(runner: AgentRunner, item: SuiteItem, index: int, k: int) -> ItemRecord:
    """All turns of `item` as one user; the last turn scored, then the item's safety checks."""
    user_id = _user_id(index)
    try:
        for turn in item.turns[:-1]:
            runner.run(turn, user_id)
        start = time.perf_counter()
        result = runner.run(item.question, user_id)
        latency = (time.perf_counter() - start) * 1000
        calls = int(result.trace.get("llm_calls", {}).get("totals", {}).get("calls", 0))
        trace = {key: result.trace.get(key) for key in
                 ("intent", "nodes", "iterations", "scores", "stop_reason", "cache_hit", "generation_source",
                  "timings_ms", "relevance", "scope", "red_flag", "fever_rules", "watch_signs", "post_answer")
                 if key in result.trace}
        outcome = ItemOutcome(result.answer, list(result.citations), list(result.contexts), result.blocked,
                              round(latency, 3), calls, trace, _checks(runner, item, user_id, result))
    except Exception as exc:  # one broken item must not end the night: it is recorded and gated on
        log.exception("regression item %s failed", item.item_id)
        return ItemRecord(item, None, {"run_ok": 0.0}, f"{type(exc).__name__}: {exc}")
    return ItemRecord(item, outcome, {"run_ok": 1.0, **score_item(item, outcome, k)})


def run_suite(runner: AgentRunner, items: Sequence[SuiteItem], k: int,
              progress: Callable[[int, int, ItemRecord], None] | None = None) -> list[ItemRecord]:
    """Every item in order (deterministic: one thread, fresh users, a private cache)."""
    records = []
    for index, item in enumerate(items):
        record = run_item(runner, item, index, k)
        records.append(record)
        if progress:
            progress(index + 1, len(items), record)
    return records
