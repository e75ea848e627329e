"""`yaksa eval scope`: the scope model on the held-out half, per domain, and on the dev sets.

Why these numbers: the model is fitted and its threshold chosen on the tuning half of the committed
question sets (`yaksa/scope/questions/`), so only the other half says how it does on questions it
has not seen: the block rate on out-of-scope questions (target >= 98%), the false-block rate on
in-scope ones (target <= 1%), both per domain and for the drug-word decoys. The MFDS-ko, MedQuAD and
PubMedQA dev questions are in scope by construction and were never used to fit anything, so all of
them count; their false-block rate must not regress. Every misclassified question is listed, and
the report is written to `metrics/scope.json` (committed, so `dvc metrics diff` compares it).
"""

from __future__ import annotations

import json
import random
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from yaksa.atomicio import write_json
from yaksa.config import Settings
from yaksa.evaluation.natural_ko import load_questions as load_natural_questions
from yaksa.evaluation.suite import build_goldsets
from yaksa.retrieval.loader import LoadedBundle, load_published
from yaksa.retrieval.searcher import Searcher
from yaksa.scope.exemplars import ScopeQuestion, is_held_out, load_questions
from yaksa.scope.learned import OUT_OF_SOURCE_FILE
from yaksa.scope.stage import ScopeStage
from yaksa.scope.training_data import SOURCES, LabelledText, load_training_texts

METRICS_FILE = Path("metrics") / "scope.json"


@dataclass(frozen=True)
class Miss:
    set: str
    qid: str
    text: str
    expected: str                # "in_scope" | "out_of_scope"
    p_in_scope: float
    reason: str


@dataclass
class ScopeReport:
    version: str
    model: str
    weights: dict[str, float]
    threshold: float
    tuning: dict[str, float]                  # out-of-fold rates at the threshold, tuning half
    held_out: dict[str, float]                # block_rate, false_block_rate, decoy_block_rate, n_*
    per_domain: dict[str, dict[str, float]]   # "out:<domain>" -> block rate, "in:<domain>" -> false-block rate; n
    dev_false_block: dict[str, dict[str, float]] = field(default_factory=dict)  # set -> false_block_rate, n
    # source -> {n, refused, category, in_scope, loso_refused, fit_held_out_refused}: other people's
    # questions (training_data.SOURCES), live through the stage on each source's held-out half, beside
    # the learned model's leave-one-source-out and held-out rates from its card
    per_source: dict[str, dict[str, Any]] = field(default_factory=dict)
    misses: list[Miss] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def _rate(flags: Sequence[bool]) -> float:
    return round(sum(flags) / len(flags), 4) if flags else 0.0


def evaluate_stage(stage: ScopeStage, dev_sets: dict[str, Sequence[tuple[str, str]]] | None = None,
                   questions: Sequence[ScopeQuestion] | None = None,
                   progress: Callable[[str], None] | None = None) -> ScopeReport:
    """Score a built stage: held-out half of the scope sets, and every (qid, text) of each dev set."""
    held = [q for q in (questions if questions is not None else load_questions()) if is_held_out(q.qid)]
    misses: list[Miss] = []
    blocked: dict[str, bool] = {}
    for q in held:
        decision = stage.decide(q.text)
        blocked[q.qid] = not decision.in_scope
        if decision.in_scope != q.in_scope:
            misses.append(Miss("scope_set", q.qid, q.text, "in_scope" if q.in_scope else "out_of_scope",
                               float(decision.signals["p_in_scope"]), decision.reason))
    outs = [q for q in held if not q.in_scope]
    ins = [q for q in held if q.in_scope]
    by_domain: dict[str, list[bool]] = defaultdict(list)
    for q in held:
        by_domain[f"{'in' if q.in_scope else 'out'}:{q.domain}"].append(blocked[q.qid])
    held_out = {"block_rate": _rate([blocked[q.qid] for q in outs]),
                "false_block_rate": _rate([blocked[q.qid] for q in ins]),
                "decoy_block_rate": _rate([blocked[q.qid] for q in outs if q.decoy]),
                "n_out_of_scope": float(len(outs)), "n_in_scope": float(len(ins)),
                "n_decoys": float(sum(q.decoy for q in outs))}
    per_domain = {name: {"rate": _rate(flags), "n": float(len(flags))} for name, flags in sorted(by_domain.items())}
    if progress:
        progress(f"held-out: blocked {held_out['block_rate']:.1%} of {len(outs)} out-of-scope "
                 f"(decoys {held_out['decoy_block_rate']:.1%}), {held_out['false_block_rate']:.1%} of "
                 f"{len(ins)} in-scope")
    dev: dict[str, dict[str, float]] = {}
    for name, items in (dev_sets or {}).items():
        flags = []
        for qid, text in items:
            decision = stage.decide(text)
            flags.append(not decision.in_scope)
            if not decision.in_scope:
                misses.append(Miss(name, qid, text, "in_scope", float(decision.signals["p_in_scope"]),
                                   decision.reason))
        dev[name] = {"false_block_rate": _rate(flags), "n": float(len(flags))}
        if progress:
            progress(f"dev set {name}: {dev[name]['false_block_rate']:.1%} of {len(flags)} blocked")
    learned = stage.learned
    if learned is not None:
        weights, threshold = learned.card.combiner_weights, learned.threshold
        tuning = {"method": "leave-one-source-out"}
    else:
        model = stage.scope_model
        weights, threshold = model.weights(), round(model.threshold, 6)
        tuning = {"block_rate": round(model.tuning.block_rate, 4),
                  "false_block_rate": round(model.tuning.false_block_rate, 4)}
    return ScopeReport(version=stage.loaded.version, model=stage.model, weights=weights, threshold=threshold,
                       tuning=tuning, held_out=held_out, per_domain=per_domain, dev_false_block=dev, misses=misses)


def evaluate_sources(stage: ScopeStage, texts: Sequence[LabelledText], per_source: int,
                     progress: Callable[[str], None] | None = None,
                     out_of_source: Mapping[str, float] | None = None) -> tuple[dict[str, dict[str, Any]], list[Miss]]:
    """Each source's held-out half (at most `per_source` texts, a seeded draw) through `stage.decide`.

    With `out_of_source` (text id -> the fit's leave-one-source-out P(in scope), `OUT_OF_SOURCE_FILE`), each
    source's whole tuning half too (a few milliseconds a text) through `stage.decide_at` at that probability:
    `loso_stage_refused`, the whole stage on a source none of it was fitted on. The model's
    `loso_refused` alone leaves out the rules after it (quiz form, device commands, nothing near, named
    medicines and symptoms), which act on every message.

    Misses carry the id only: the real questions may not be redistributed, and the metrics file is
    committed."""
    by_source: dict[str, list[LabelledText]] = defaultdict(list)
    for t in texts:
        if t.held_out and not t.source.startswith("yaksa_"):  # our own sets are reported above
            by_source[t.source].append(t)
    card = stage.learned.card if stage.learned is not None else None
    out: dict[str, dict[str, Any]] = {}
    misses: list[Miss] = []
    for source, items in sorted(by_source.items()):
        if per_source and len(items) > per_source:
            items = random.Random(source).sample(items, per_source)
        refused = []
        for t in items:
            decision = stage.decide(t.text)
            refused.append(not decision.in_scope)
            if decision.in_scope != t.in_scope:
                misses.append(Miss(f"source:{source}", t.qid, "", "in_scope" if t.in_scope else "out_of_scope",
                                   float(decision.signals.get("p_in_scope", 0.0)), decision.reason))
        row: dict[str, Any] = {"n": len(items), "refused": _rate(refused), "category": SOURCES[source],
                               "in_scope": items[0].in_scope}
        if card is not None:
            for key, rates in (("loso_refused", card.leave_one_source_out), ("fit_held_out_refused", card.held_out)):
                if source in rates:
                    row[key] = rates[source].refused
        if out_of_source:
            row.update(_out_of_source_row(stage, source, texts, out_of_source))
        out[source] = row
        if progress:
            unseen = (f"; left out, through the stage {row['loso_stage_refused']:.1%} of {row['loso_stage_n']}"
                      if "loso_stage_refused" in row else "")
            progress(f"source {source}: refused {row['refused']:.1%} of {len(items)} "
                     f"({'in scope' if row['in_scope'] else 'non-medical'}){unseen}")
    return out, misses


def _out_of_source_row(stage: ScopeStage, source: str, texts: Sequence[LabelledText],
                       out_of_source: Mapping[str, float]) -> dict[str, Any]:
    """`loso_stage_refused` and its n over the source's tuning half (`evaluate_sources`)."""
    items = [t for t in texts if t.source == source and not t.held_out and t.qid in out_of_source]
    if not items:
        return {}
    refused = [not stage.decide_at(t.text, out_of_source[t.qid]).in_scope for t in items]
    return {"loso_stage_refused": _rate(refused), "loso_stage_n": len(items)}


def load_out_of_source(folder: Path) -> dict[str, float]:
    """The fit's out-of-source probabilities by text id ({} when the fit wrote none: an older build)."""
    path = folder / OUT_OF_SOURCE_FILE
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text("utf-8"))
        return {str(k): float(v) for k, v in data["p_in_scope"].items()}
    except (OSError, KeyError, TypeError, ValueError, AttributeError) as exc:
        raise ValueError(f"{path}: unreadable out-of-source probabilities ({exc})") from exc


def write_report(path: Path, report: ScopeReport) -> None:
    write_json(path, report.to_json())


def _stage(loaded: LoadedBundle, settings: Settings) -> ScopeStage:
    searcher = Searcher(loaded, settings.retrieval)
    return ScopeStage(loaded, searcher.query_vector, scope_params=settings.scope,
                      catalog=searcher.catalog, cache_dir=settings.paths.embedding_cache,
                      learned_dir=settings.paths.scope_model)


def run_scope_eval(settings: Settings, limit: int = 0, metrics_path: Path | None = None,
                   progress: Callable[[str], None] | None = None, per_source: int = 200) -> ScopeReport:
    """Build the stage on the published bundle as configured, evaluate it, write the metrics file."""
    sets, skipped = build_goldsets(settings, limit)
    for line in skipped:
        if progress:
            progress(f"skipped {line}")
    loaded = load_published(settings.paths.indexes)
    try:
        stage = _stage(loaded, settings)
        dev = {name: [(q.qid, q.question) for q in qs] for name, qs in sets.items()}
        # the natural Korean questions (relevance work) are in scope too: brands, everyday symptom words
        dev["natural_ko"] = [(q.qid, q.question) for q in load_natural_questions()]
        report = evaluate_stage(stage, dev, progress=progress)
        texts = load_training_texts(settings.paths.raw)
        report.per_source, source_misses = evaluate_sources(
            stage, texts, per_source, progress, load_out_of_source(settings.paths.scope_model))
        report.misses.extend(source_misses)
    finally:
        loaded.close()
    if metrics_path is not None:
        write_report(metrics_path, report)
    return report
