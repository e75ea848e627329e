"""The dialogue study's report: Markdown with the comparisons table, and PNG plots (per-profile metric
bars with 95% CIs, per-turn profile-recall curves, latency per profile).

Why beside the numbers: an ablation's worth is read from its CI against the full profile, and context
loss from the recall curve across turns; the plots show both at a glance.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # headless

import matplotlib.pyplot as plt

from yaksa.atomicio import atomic_write_text
from yaksa.evaluation.dialogues.study import (
    REFERENCE,
    StudyResult,
    identical_profiles,
    persona_means,
    profile_means,
    recall_by_turn,
)
from yaksa.evaluation.paired import PairedComparison, bootstrap_ci
from yaksa.reporting import fmt_delta, fmt_num, fmt_p, md_table

QUALITY = ("profile_recall", "personalisation", "product_hit", "follow_up_resolved", "citation_validity",
           "number_grounding", "safety_sentence")
ALPHA = 0.05


def _bars(study: StudyResult, path: Path) -> None:
    profiles = study.profiles()
    fig, axes = plt.subplots(len(QUALITY), 1, figsize=(9, 2.2 * len(QUALITY)), sharex=True)
    for ax, metric in zip(axes, QUALITY):
        means, errs = [], [[], []]
        for name in profiles:
            values = list(persona_means(study, name, metric).values())
            mean = statistics.fmean(values) if values else float("nan")
            low, high = bootstrap_ci(values, resamples=2_000) if len(values) > 1 else (mean, mean)
            means.append(mean)
            errs[0].append(max(0.0, mean - low))
            errs[1].append(max(0.0, high - mean))
        ax.bar(range(len(profiles)), means, yerr=errs, capsize=3, color="#3b7d5a")
        ax.set_ylabel(metric, rotation=0, ha="right", fontsize=8)
        ax.set_ylim(0, 1.05)
    axes[-1].set_xticks(range(len(profiles)), profiles, rotation=20, ha="right", fontsize=8)
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
    profiles = study.profiles()
    data = [[r.metrics["latency_ms"] for r in study.rows if r.profile == p and "latency_ms" in r.metrics]
            for p in profiles]
    fig, ax = plt.subplots(figsize=(8, 4))
    ax.boxplot(data, showfliers=False)
    ax.set_xticks(range(1, len(profiles) + 1), profiles, rotation=20, ha="right", fontsize=8)
    ax.set_ylabel("turn latency (ms)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def comparisons_table(comparisons: Sequence[PairedComparison]) -> list[str]:
    rows = [[c.profile, c.metric, c.n, fmt_num(c.baseline_mean), fmt_num(c.variant_mean), fmt_delta(c.delta),
             f"[{fmt_delta(c.ci[0])}, {fmt_delta(c.ci[1])}]", fmt_p(c.p_t), fmt_p(c.p_wilcoxon), fmt_p(c.p_holm),
             fmt_num(c.d_z), fmt_num(c.d_av), "yes" if c.p_holm < ALPHA else ""]
            for c in comparisons if c.delta != 0 or c.ci != (0.0, 0.0)]
    return md_table(["profile", "metric", "n", REFERENCE, "profile mean", "Δ", "95% CI (BCa)", "p (t)",
                     "p (Wilcoxon)", "p (Holm)", "d_z", "d_av", "significant"], rows)


def write_report(study: StudyResult, comparisons: Sequence[PairedComparison], out_dir: Path,
                 title: str = "Multi-turn dialogue study") -> Path:
    """report.md and its PNGs in `out_dir`; returns the Markdown path."""
    out_dir.mkdir(parents=True, exist_ok=True)
    _bars(study, out_dir / "metrics.png")
    _recall_curves(study, out_dir / "recall_by_turn.png")
    _latency(study, out_dir / "latency.png")
    means = profile_means(study)
    metrics = [m for m in (*QUALITY, "latency_ms", "llm_calls", "tokens") if any(m in v for v in means.values())]
    same = identical_profiles(study)
    unchanged = [f"{c.profile} / {c.metric}" for c in comparisons if c.delta == 0 and c.ci == (0.0, 0.0)]
    intro = (f"{len({r.pid for r in study.rows})} personas, {len({(r.pid, r.turn) for r in study.rows})} turns per "
             f"profile, profiles: {', '.join(study.profiles())}; each compared with `{REFERENCE}` paired per "
             "persona (Δ = profile − reference; two-sided tests; Holm across the whole table).")
    lines = [f"# {title}", "", intro, "",
             "## Means per profile", "",
             *md_table(["profile", *metrics], [[p, *(fmt_num(v.get(m)) for m in metrics)] for p, v in means.items()]),
             "", "## Comparisons with the full profile", "", *comparisons_table(comparisons), "",
             "## Identical profiles", "",
             *([(f"- {', '.join(g)}: the same answer and citations on every turn — offline these mechanisms "
                 "change nothing, so their differences are not costs") for g in same] or ["none"]), "",
             f"Comparisons with no difference on any persona (omitted above): {', '.join(unchanged) or 'none'}.", "",
             "![metrics](metrics.png)", "", "![profile recall by turn](recall_by_turn.png)", "",
             "![latency](latency.png)", ""]
    path = out_dir / "report.md"
    atomic_write_text(path, "\n".join(lines))
    return path
