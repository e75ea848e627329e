"""The multi-turn ablation study: every variant answers the same scripted dialogues (a paired design),
and the reference variant also answers the same questions cold.

Why per persona: a persona's five turns share its facts and its drugs, so they are not independent
items; the persona's mean of each metric is the paired unit (80 personas → n = 80 per comparison).

Why a cold run: the multi-turn gap is what a conversation adds. The reference variant is asked each
question turn of every dialogue (the symptom question, the caution question, the follow-up) by a fresh
user with no profile and no history, and scored against the same persona's facts and cautions; the
persona's dialogue turns of those kinds are its pair (`analysis.compare_cold`). Cold users have no
variant, so the response cache may serve them, as it serves such users in the service.

Isolation: each (variant, trial) and each cold trial gets its own memory and response cache in a
temporary folder, so no variant answers from another's memory or cache, and trial k of every variant
starts equally cold. Offline the agent is deterministic, so one trial is what there is to measure;
with an LLM endpoint answers are stochastic and `run.resolve_trials` asks for at least three.
"""

from __future__ import annotations

import hashlib
import tempfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from yaksa.agent.api import TurnResult
from yaksa.config import Settings
from yaksa.evaluation.answer_checks import ACKNOWLEDGED, answer_checks, quoted_advice
from yaksa.evaluation.dialogues.metrics import (
    Fact,
    follow_up_resolved,
    personalisation,
    product_hit,
    profile_recall,
)
from yaksa.retrieval.loader import LoadedBundle

REFERENCE = "full_context_engineering"
ELDERLY_AGE, CHILD_AGE = 65, 12
PREGNANCY_WORDS = ("임부", "임신")
ELDERLY_WORDS = ("고령자", "노인")
CHILD_WORDS = ("소아", "어린이")
QUESTION_KINDS = ("symptom_question", "caution_question", "follow_up")  # the turns asked cold as well
LLM_METRICS = ("faithfulness", "answer_relevancy")  # judged by an LLM (yaksa.evaluation.judge): endpoint only
METRICS = ("profile_recall", "personalisation", "product_hit", "follow_up_resolved", "citation_validity",
           "number_grounding", "safety_sentence", *LLM_METRICS, "latency_ms", "llm_calls", "tokens")


@dataclass(frozen=True)
class TurnRow:
    variant: str
    trial: int
    pid: str
    turn: int
    kind: str
    metrics: dict[str, float]          # only the metrics that apply to this turn
    fingerprint: str                   # answer + cited doc ids: equal rows mean identical behaviour
    question: str = ""
    answer: str = ""
    contexts: tuple[str, ...] = ()     # the evidence the generator saw (what faithfulness is judged on)
    answered: bool = False             # a medical answer (not refused, not an acknowledgement): judgeable

    @property
    def item_id(self) -> str:
        """Unique within a study run and its mode (dialogue or cold)."""
        return f"{self.variant}/{self.trial}/{self.pid}/{self.turn}"


@dataclass
class StudyResult:
    rows: list[TurnRow] = field(default_factory=list)   # the dialogues, every variant
    cold: list[TurnRow] = field(default_factory=list)   # the reference variant, question turns asked cold

    def variants(self) -> list[str]:
        return list(dict.fromkeys(r.variant for r in self.rows))


def persona_cautions(persona: Any) -> list[str]:
    """The words a cited 주의사항 uses for this persona: its conditions (Korean), its age group, pregnancy."""
    words = [korean for _, _, korean in persona.conditions if korean]
    if persona.age is not None and persona.age >= ELDERLY_AGE:
        words += ELDERLY_WORDS
    if persona.age is not None and persona.age < CHILD_AGE:
        words += CHILD_WORDS
    if persona.pregnant:
        words += PREGNANCY_WORDS
    return list(dict.fromkeys(words))


def _fingerprint(result: TurnResult) -> str:
    cited = ",".join(c.doc_id for c in result.citations)
    return hashlib.sha256(f"{result.answer}\x00{cited}".encode()).hexdigest()[:16]


def _answered(result: TurnResult) -> bool:
    return not result.blocked and result.trace.get("intent") not in ACKNOWLEDGED


def score_turn(turn: Any, result: TurnResult, stated: Sequence[Fact], profile_items: Iterable[Mapping[str, Any]],
               cautions: Sequence[str]) -> dict[str, float]:
    """Every metric that applies to one answered turn."""
    llm = result.trace.get("llm_calls", {}).get("totals", {})
    row: dict[str, float] = {"latency_ms": float(result.trace.get("timings_ms", {}).get("total", 0.0)),
                             "llm_calls": float(llm.get("calls", 0)),
                             "tokens": float(llm.get("prompt_tokens", 0) + llm.get("completion_tokens", 0))}
    recall = profile_recall(stated, profile_items)
    if recall is not None:
        row["profile_recall"] = recall
    if result.blocked:
        return row
    if _answered(result):
        row.update(answer_checks(result.answer, result.citations, len(result.contexts), quoted_advice(result.trace),
                                  turn.text))
    if turn.kind == "caution_question":
        row["product_hit"] = product_hit(result.citations, turn.expects["product"], turn.expects.get("item_seq"))
        # the caution the script chose this product for, else any the persona's facts could trigger
        keyword = turn.expects.get("keyword")
        fit = personalisation(result.answer, result.citations, [keyword] if keyword else cautions)
        if fit is not None:
            row["personalisation"] = fit
    if turn.kind == "follow_up":
        row["follow_up_resolved"] = follow_up_resolved(result.answer, result.citations, turn.expects["referent"],
                                                       turn.expects.get("item_seq"))
    return row


def _row(name: str, trial: int, pid: str, turn: Any, result: TurnResult, metrics: dict[str, float]) -> TurnRow:
    return TurnRow(name, trial, pid, turn.index, turn.kind, metrics, _fingerprint(result), turn.text,
                   result.answer, tuple(result.contexts), _answered(result))


def _runner(loaded: LoadedBundle, settings: Settings, name: str, folder: Path, label: str) -> Any:
    """The agent with `name` as its variant and a memory and cache of its own (`label`) in `folder`."""
    from yaksa.agent.factory import build_runner  # the agent graph is heavy to import; only runs need it

    private = settings.with_state_in(folder, label)
    # ablation variants switch the scope guard off; the study measures them as configured
    return build_runner(loaded, replace(private, agent=replace(settings.agent, variant=name)), enforce_safety=False)


def run_study(loaded: LoadedBundle, settings: Settings, personas: Sequence[Any], dialogues: Sequence[Sequence[Any]],
              variants: Sequence[str], trials: int = 1, cold: bool = True,
              progress: Callable[[str], None] | None = None) -> StudyResult:
    """Every variant × trial answers every dialogue, turn by turn, as one user per persona; with `cold`,
    the reference variant also answers each question turn as a fresh user, once per trial."""
    if trials < 1:
        raise ValueError(f"trials must be >= 1, got {trials}")
    study = StudyResult()
    with tempfile.TemporaryDirectory(prefix="yaksa-dialogues-") as tmp:
        for name in variants:
            for trial in range(trials):
                runner = _runner(loaded, settings, name, Path(tmp), f"{name}-{trial}")
                for persona, turns in zip(personas, dialogues, strict=True):
                    user = f"dlg-{trial}-{persona.pid}"
                    cautions = persona_cautions(persona)
                    stated: list[Fact] = []
                    for turn in turns:
                        stated.extend(turn.facts_stated)
                        result = runner.run(turn.text, user, variant=name)
                        items = runner.profile(user).get("items", [])
                        study.rows.append(_row(name, trial, persona.pid, turn, result,
                                               score_turn(turn, result, stated, items, cautions)))
                if progress:
                    progress(f"{name} trial {trial + 1}/{trials}: {len(personas)} dialogues")
        for trial in range(trials if cold else 0):
            runner = _runner(loaded, settings, REFERENCE, Path(tmp), f"cold-{trial}")
            for persona, turns in zip(personas, dialogues, strict=True):
                cautions = persona_cautions(persona)
                for turn in (t for t in turns if t.kind in QUESTION_KINDS):
                    result = runner.run(turn.text, f"cold-{trial}-{persona.pid}-{turn.index}", variant=REFERENCE)
                    study.cold.append(_row(REFERENCE, trial, persona.pid, turn, result,
                                           score_turn(turn, result, (), (), cautions)))
            if progress:
                progress(f"{REFERENCE} cold trial {trial + 1}/{trials}: question turns of {len(personas)} dialogues")
    return study
