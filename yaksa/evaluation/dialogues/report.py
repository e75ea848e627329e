"""The dialogue study's report: Markdown with the comparisons table, the cold-vs-dialogue table, what
needs an LLM endpoint, and PNG plots (per-variant metric bars with 95% CIs, per-turn profile-recall
curves, latency per variant).

Why beside the numbers: an ablation's worth is read from its CI against the full variant, and context
loss from the recall curve across turns; the plots show both at a glance. Why the LLM section even
offline: a variant that only differs with an LLM must not be read as a mechanism that does nothing.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")  # headless

import matplotlib.pyplot as plt

from yaksa.atomicio import atomic_write_text
from yaksa.config import AgentFlags
from yaksa.evaluation.dialogues.analysis import (
    cold_means,
    differing_flags,
    identical_variants,
    persona_means,
    recall_by_turn,
    variant_means,
)
from yaksa.evaluation.dialogues.study import LLM_METRICS, QUESTION_KINDS, REFERENCE, StudyResult
from yaksa.evaluation.paired import PairedComparison, bootstrap_ci
from yaksa.reporting import fmt_delta, fmt_num, fmt_p, md_table

QUALITY = ("profile_recall", "personalisation", "product_hit", "follow_up_resolved", "citation_validity",
           "number_grounding", "safety_sentence", *LLM_METRICS)
ALPHA = 0.05


def _bars(study: StudyResult, path: Path) -> None:
    variants = study.variants()
    shown = [m for m in QUALITY if any(m in r.metrics for r in study.rows)]
    fig, axes = plt.subplots(len(shown), 1, figsize=(9, 2.2 * len(shown)), sharex=True, squeeze=False)
    axes = axes[:, 0]
    for ax, metric in zip(axes, shown):
        means, errs = [], [[], []]
        for name in variants:
            values = list(persona_means(study.rows, name, metric).values())
            mean = statistics.fmean(values) if values else float("nan")
            low, high = bootstrap_ci(values, resamples=2_000) if len(values) > 1 else (mean, mean)
            means.append(mean)
            errs[0].append(max(0.0, mean - low))
            errs[1].append(max(0.0, high - mean))
        ax.bar(range(len(variants)), means, yerr=errs, capsize=3, color="#3b7d5a")
        ax.set_ylabel(metric, rotation=0, ha="right", fontsize=8)
        ax.set_ylim(0, 1.05)
    axes[-1].set_xticks(range(len(variants)), variants, rotation=20, ha="right", fontsize=8)
    fig.suptitle("per-persona means with bootstrap 95% CIs")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _recall_curves(study: StudyResult, path: Path) -> None:
    fig, ax = plt.subplots(figsize=(7, 4))
    for name, turns in recall_by_turn(study).items():
        ax.plot(list(turns), list(turns.values()), marker="o", label=name)
    ax.set_xlabel("turn")
    ax.set_ylabel("profile recall (facts stated so far that the profile holds)")
    ax.set_ylim(-0.02, 1.05)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _latency(study: StudyResult, path: Path) -> None:
    variants = study.variants()
    data = [[r.metrics["latency_ms"] for r in study.rows if r.variant == p and "latency_ms" in r.metrics]
            for p in variants]
    fig, ax = plt.subplots(figsize=(8, 4))
    ax.boxplot(data, showfliers=False)
    ax.set_xticks(range(1, len(variants) + 1), variants, rotation=20, ha="right", fontsize=8)
    ax.set_ylabel("turn latency (ms)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _unchanged(c: PairedComparison) -> bool:
    return c.delta == 0 and c.ci == (0.0, 0.0)


def comparisons_table(comparisons: Sequence[PairedComparison], baseline: str = REFERENCE,
                      variant: str = "variant mean") -> list[str]:
    """The comparisons that changed anything (Δ = variant − baseline)."""
    rows = [[c.name, c.metric, c.n, fmt_num(c.baseline_mean), fmt_num(c.variant_mean), fmt_delta(c.delta),
             f"[{fmt_delta(c.ci[0])}, {fmt_delta(c.ci[1])}]", fmt_p(c.p_t), fmt_p(c.p_wilcoxon), fmt_p(c.p_holm),
             fmt_num(c.d_z), fmt_num(c.d_av), "yes" if c.p_holm < ALPHA else ""]
            for c in comparisons if not _unchanged(c)]
    return md_table(["variant", "metric", "n", baseline, variant, "Δ", "95% CI (BCa)", "p (t)",
                     "p (Wilcoxon)", "p (Holm)", "d_z", "d_av", "significant"], rows)


def cold_section(study: StudyResult, cold: Sequence[PairedComparison]) -> list[str]:
    """The question turns asked cold beside the same turns in the dialogue."""
    if not study.cold:
        return ["not run"]
    means = cold_means(study)
    metrics = [m for m in means["cold"] if m in means["dialogue"]]
    unchanged = [c.metric for c in cold if _unchanged(c)]
    return [(f"The `{REFERENCE}` variant answered the {', '.join(QUESTION_KINDS)} turns again, each as a fresh "
            "user with no profile and no history; paired per persona with the same turns in the dialogue "
            "(Δ = cold − dialogue: negative where the conversation helps; Holm across this table)."), "",
            *md_table(["question turns", *metrics],
                      [[mode, *(fmt_num(means[mode].get(m)) for m in metrics)] for mode in ("dialogue", "cold")]),
            "", *comparisons_table(cold, "dialogue", "cold"), "",
            f"No difference on any persona: {', '.join(unchanged) or 'none'}."]


def llm_section(study: StudyResult, judged: Mapping[str, Any], flags: Mapping[str, AgentFlags]) -> list[str]:
    """What the LLM judge did, or plainly that it needs an endpoint and which variants only differ with one."""
    if judged.get("ran"):
        rates = ", ".join(f"{m} {v:.1%}" for m, v in judged.get("nan_rate", {}).items())
        caveat = "" if judged.get("ok") else " — above the regression's limit, read these means with care"
        unjudged = [p for p in study.variants()
                    if not any(m in r.metrics for r in study.rows if r.variant == p for m in LLM_METRICS)]
        return [(f"Faithfulness and answer relevancy judged by `{judged['model']}` through the regression's "
                 f"answer evaluation (ragas), K = {judged['k']} scores per answer averaged; {judged['judged']} "
                 f"answers judged, {judged['skipped']} skipped (no answer or no evidence); NaN share {rates}"
                 f"{caveat}."), "",
                *(f"- {p}: no evidence on any turn (nothing retrieved), so not judged (as in the regression)"
                  for p in unjudged)]
    lines = [(f"**{judged.get('note', 'not run')}.** Faithfulness and answer relevancy need an LLM endpoint "
             "(`YAKSA_LLM_BASE_URL`; see `yaksa/llm/config.py`), and so does every LLM role of the agent: offline "
             "the router, judge and rewriter fall back to their offline steps.")]
    llm_mode = [p for p in study.variants() if p in flags and flags[p].mode == "llm"]
    if llm_mode:
        lines.append(f"- {', '.join(llm_mode)}: `mode: llm`, the LLM alone — offline it has no generator, so "
                     "its answers are measured only with an endpoint.")
    for group in identical_variants(study):
        if all(p in flags for p in group):
            differ = ", ".join(f"`{f}`" for f in differing_flags(group, flags)) or "nothing"
            lines.append(f"- {', '.join(group)}: identical offline; their configurations differ only in {differ} "
                         "(mechanisms that act only with an LLM), so they can only be told apart with an endpoint.")
    return lines


def write_report(study: StudyResult, comparisons: Sequence[PairedComparison], out_dir: Path, *,
                 cold: Sequence[PairedComparison] = (), judged: Mapping[str, Any] | None = None,
                 flags: Mapping[str, AgentFlags] | None = None, title: str = "Multi-turn dialogue study") -> Path:
    """report.md and its PNGs in `out_dir`; returns the Markdown path."""
    out_dir.mkdir(parents=True, exist_ok=True)
    _bars(study, out_dir / "metrics.png")
    _recall_curves(study, out_dir / "recall_by_turn.png")
    _latency(study, out_dir / "latency.png")
    means = variant_means(study)
    metrics = [m for m in (*QUALITY, "latency_ms", "llm_calls", "tokens") if any(m in v for v in means.values())]
    same = identical_variants(study)
    unchanged = [f"{c.name} / {c.metric}" for c in comparisons if _unchanged(c)]
    trials = len({r.trial for r in study.rows})
    intro = (f"{len({r.pid for r in study.rows})} personas, {len({(r.pid, r.turn) for r in study.rows})} turns per "
             f"variant, {trials} trial(s), variants: {', '.join(study.variants())}; each compared with "
             f"`{REFERENCE}` paired per persona (Δ = variant − reference; two-sided tests; Holm across the "
             "whole table).")
    lines = [f"# {title}", "", intro, "",
             "## Means per variant", "",
             *md_table(["variant", *metrics], [[p, *(fmt_num(v.get(m)) for m in metrics)] for p, v in means.items()]),
             "", "## Comparisons with the full variant", "", *comparisons_table(comparisons), "",
             "## Identical variants", "",
             *([(f"- {', '.join(g)}: the same answer and citations on every turn — offline these mechanisms "
                 "change nothing, so their differences are not costs") for g in same] or ["none"]), "",
             f"Comparisons with no difference on any persona (omitted above): {', '.join(unchanged) or 'none'}.", "",
             "## Single turn vs multi-turn (the same questions asked cold)", "", *cold_section(study, cold), "",
             "## LLM-judged metrics and LLM-only mechanisms", "", *llm_section(study, judged or {}, flags or {}), "",
             "![metrics](metrics.png)", "", "![profile recall by turn](recall_by_turn.png)", "",
             "![latency](latency.png)", ""]
    path = out_dir / "report.md"
    atomic_write_text(path, "\n".join(lines))
    return path
