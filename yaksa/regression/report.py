"""The nightly regression report people actually read: Markdown + standalone HTML with three plots.

Why both formats: the Markdown goes next to the run (and, shortened by `markdown_summary`, into the
orchestrator's artifact view); the HTML opens from a file share without a renderer. Both show the same
thing in the same order: verdict, gate table, plots, per-category means, then the worst item-level
regressions with the old and new answer side by side, because a number alone does not tell anyone
what broke.

Answers are model output and may contain anything (HTML, pipes, newlines), so every dynamic value is
escaped for the format it lands in. Files are written atomically so a reader never sees half a report.
"""

from __future__ import annotations

import html
import io
import math
import warnings
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # headless: the nightly run has no display

import matplotlib.pyplot as plt
import numpy as np
from matplotlib import font_manager
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from yaksa.atomicio import atomic_write, atomic_write_text
from yaksa.regression.gate import GateResult, MetricComparison
from yaksa.reporting import MISSING, finite, fmt_delta, fmt_num, fmt_p, md_cell, md_table

TITLE = "Answer-quality regression"
IMAGE_NAMES = ("forest", "history", "categories")
HANGUL_FONTS = ("NanumGothic", "NanumBarunGothic", "NanumSquare")  # preferred; any other Nanum* next
FALLBACK_FONT = "DejaVu Sans"
STATUS_COLORS = {"pass": "#1a7f37", "fail": "#cf222e", "insufficient": "#8c959f"}
DPI = 110
SUMMARY_REGRESSIONS = 5
SUMMARY_QUESTION_CHARS = 80
GATE_COLUMNS = (
    "metric",
    "kind",
    "n paired",
    "n unpaired",
    "baseline",
    "current",
    "Δ (+ = better)",
    "95% CI",
    "p",
    "p (Holm)",
    "status",
    "reason",
)


@dataclass(frozen=True)
class RunInfo:
    run_id: str
    bundle_version: str
    params_hash: str
    git_rev: str
    created_at: str
    baseline_run_id: str | None
    n_items: int


@dataclass(frozen=True)
class HistoryPoint:
    run_id: str
    created_at: str
    metric: str
    value: float
    accepted: bool


@dataclass(frozen=True)
class Regression:
    item_id: str
    category: str
    metric: str
    question: str
    old_answer: str
    new_answer: str
    old_value: float
    new_value: float


@dataclass(frozen=True)
class ReportPaths:
    markdown: Path
    html: Path
    images: dict[str, Path]


# ---------------------------------------------------------------- formatting


def verdict(gate: GateResult) -> str:
    return "PASS" if gate.passed else "FAIL"


def fmt_ci(m: MetricComparison) -> str:
    return MISSING if not finite(m.ci_low) else f"[{fmt_delta(m.ci_low)}, {fmt_delta(m.ci_high)}]"


def _gate_row(m: MetricComparison) -> list[str]:
    direction = "" if m.higher_is_better else " ↓"
    return [
        m.name + direction,
        m.kind,
        str(m.n_paired),
        str(m.n_unpaired),
        fmt_num(m.baseline_mean),
        fmt_num(m.current_mean),
        fmt_delta(m.delta),
        fmt_ci(m),
        fmt_p(m.p_value),
        fmt_p(m.p_holm),
        m.status.upper(),
        m.reason,
    ]


def _run_rows(run: RunInfo) -> list[tuple[str, str]]:
    return [
        ("run", run.run_id),
        ("baseline run", run.baseline_run_id or "none (first run)"),
        ("bundle version", run.bundle_version),
        ("params hash", run.params_hash),
        ("git rev", run.git_rev),
        ("created at", run.created_at),
        ("items", str(run.n_items)),
    ]


def _verdict_line(gate: GateResult) -> str:
    failed = gate.failed
    if not failed:
        return f"{verdict(gate)}: no metric failed ({len(gate.metrics)} checked)."
    return f"{verdict(gate)}: {len(failed)} of {len(gate.metrics)} metrics failed: " + ", ".join(
        m.name for m in failed
    )


def _rules_text(gate: GateResult) -> str:
    return (
        "Paired items only; Δ = mean(current − baseline), sign-flipped for ↓ (lower-is-better) metrics. "
        f"Deterministic: fail when the drop exceeds the tolerance and p (Holm) < {gate.alpha}, or the drop "
        "exceeds max(5 × tolerance, 0.05). "
        f"LLM-judged: fail when the CI upper bound < {gate.llm_margin:+.2f} and p (Holm) < {gate.alpha}. "
        f"CI: paired bootstrap, {gate.resamples} resamples, seed {gate.seed}; p: one-sided Wilcoxon."
    )


def _category_columns(categories: Mapping[str, Mapping[str, float]], gate: GateResult) -> list[str]:
    present = {metric for row in categories.values() for metric in row}
    ordered = [m.name for m in gate.metrics if m.name in present]
    return ordered + sorted(present - set(ordered))


def _truncate(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


# ---------------------------------------------------------------- markdown


def _md_regression(i: int, r: Regression) -> list[str]:
    return [
        (
            f"### {i}. {md_cell(r.item_id)} · {md_cell(r.category)} · {md_cell(r.metric)}: "
            f"{fmt_num(r.old_value)} → {fmt_num(r.new_value)}"
        ),
        "",
        f"**Question:** {md_cell(r.question)}",
        "",
        *md_table(["old answer (baseline)", "new answer (current)"], [[r.old_answer, r.new_answer]]),
        "",
    ]


def render_markdown(
    run: RunInfo,
    gate: GateResult,
    categories: Mapping[str, Mapping[str, float]],
    regressions: Sequence[Regression],
    images: Mapping[str, str],
) -> str:
    """The full report; `images` maps image name -> path relative to the report."""
    lines = [f"# {TITLE}: {verdict(gate)}", ""]
    lines += md_table(["", ""], _run_rows(run)) + [""]
    lines += [f"**{md_cell(_verdict_line(gate))}**", ""]
    lines += ["## Gate", ""]
    lines += md_table(GATE_COLUMNS, [_gate_row(m) for m in gate.metrics]) + [""]
    lines += [md_cell(_rules_text(gate)), ""]
    lines += [f"![Change per metric with 95% CI]({images['forest']})", ""]
    lines += ["## History", "", f"![Metrics over runs]({images['history']})", ""]
    lines += ["## Categories", ""]
    columns = _category_columns(categories, gate)
    if categories and columns:
        rows = [[cat, *(fmt_num(categories[cat].get(c)) for c in columns)] for cat in sorted(categories)]
        lines += md_table(["category", *columns], rows) + [""]
    else:
        lines += ["No per-category scores.", ""]
    lines += [f"![Per-category means]({images['categories']})", ""]
    lines += ["## Worst regressions", ""]
    if not regressions:
        lines += ["No item-level regressions.", ""]
    for i, r in enumerate(regressions, 1):
        lines += _md_regression(i, r)
    return "\n".join(lines).rstrip() + "\n"


def markdown_summary(run: RunInfo, gate: GateResult, regressions: Sequence[Regression]) -> str:
    """A short Markdown verdict (no images) for an orchestrator artifact or a chat message."""
    baseline = run.baseline_run_id or "none (first run)"
    lines = [
        f"## {TITLE}: {verdict(gate)}",
        "",
        (
            f"Run {md_cell(run.run_id)} vs baseline {md_cell(baseline)} · {run.n_items} items · "
            f"bundle {md_cell(run.bundle_version)} · git {md_cell(run.git_rev)}"
        ),
        "",
        md_cell(_verdict_line(gate)),
        "",
    ]
    rows = [[m.name, fmt_delta(m.delta), fmt_ci(m), fmt_p(m.p_holm), m.status.upper()] for m in gate.metrics]
    lines += md_table(["metric", "Δ", "95% CI", "p (Holm)", "status"], rows) + [""]
    if regressions:
        shown = regressions[:SUMMARY_REGRESSIONS]
        lines += [f"Worst regressions ({len(shown)} of {len(regressions)}):", ""]
        reg_rows = [
            [
                r.item_id,
                r.category,
                r.metric,
                f"{fmt_num(r.old_value)} → {fmt_num(r.new_value)}",
                _truncate(r.question, SUMMARY_QUESTION_CHARS),
            ]
            for r in shown
        ]
        lines += md_table(["item", "category", "metric", "old → new", "question"], reg_rows)
    return "\n".join(lines).rstrip() + "\n"


# ---------------------------------------------------------------- html

CSS = """
body { font-family: system-ui, "Nanum Gothic", "Noto Sans KR", sans-serif; max-width: 1280px;
       margin: 2em auto; padding: 0 1em; color: #1f2328; line-height: 1.45; }
table { border-collapse: collapse; margin: 1em 0; font-size: 0.92em; }
th, td { border: 1px solid #d0d7de; padding: 4px 8px; text-align: left; vertical-align: top; }
th { background: #f6f8fa; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.status-pass { color: #1a7f37; } .status-fail { color: #cf222e; font-weight: bold; }
.status-insufficient { color: #6e7781; }
.banner { padding: 0.6em 1em; border-radius: 6px; font-weight: bold; }
.banner.pass { background: #dafbe1; } .banner.fail { background: #ffebe9; }
.rules { color: #57606a; font-size: 0.9em; }
img { max-width: 100%; }
.pair { display: grid; grid-template-columns: 1fr 1fr; gap: 1em; }
.answer { white-space: pre-wrap; border: 1px solid #d0d7de; padding: 0.6em; background: #f6f8fa; }
.answer h4 { margin: 0 0 0.4em 0; }
"""
NUMERIC_GATE_COLUMNS = frozenset(range(2, 10))


def _esc(text: object) -> str:
    return html.escape(str(text), quote=True)


def _html_table(header: Sequence[str], rows: Sequence[Sequence[str]], numeric: frozenset[int]) -> list[str]:
    out = ["<table>", "<tr>" + "".join(f"<th>{_esc(h)}</th>" for h in header) + "</tr>"]
    for row in rows:
        cells = "".join(
            f'<td class="num">{_esc(c)}</td>' if j in numeric else f"<td>{_esc(c)}</td>"
            for j, c in enumerate(row)
        )
        out.append(f"<tr>{cells}</tr>")
    out.append("</table>")
    return out


def _html_gate_table(gate: GateResult) -> list[str]:
    out = ["<table>", "<tr>" + "".join(f"<th>{_esc(h)}</th>" for h in GATE_COLUMNS) + "</tr>"]
    for m in gate.metrics:
        cells = []
        for j, c in enumerate(_gate_row(m)):
            cls = "num" if j in NUMERIC_GATE_COLUMNS else f"status-{m.status}" if j == 10 else ""
            cells.append(f'<td class="{cls}">{_esc(c)}</td>' if cls else f"<td>{_esc(c)}</td>")
        out.append("<tr>" + "".join(cells) + "</tr>")
    out.append("</table>")
    return out


def _html_regression(i: int, r: Regression) -> list[str]:
    return [
        '<div class="regression">',
        (
            f"<h3>{i}. {_esc(r.item_id)} · {_esc(r.category)} · {_esc(r.metric)}: "
            f"{_esc(fmt_num(r.old_value))} → {_esc(fmt_num(r.new_value))}</h3>"
        ),
        f"<p><strong>Question:</strong> {_esc(r.question)}</p>",
        '<div class="pair">',
        f'<div class="answer"><h4>old answer (baseline)</h4>{_esc(r.old_answer)}</div>',
        f'<div class="answer"><h4>new answer (current)</h4>{_esc(r.new_answer)}</div>',
        "</div>",
        "</div>",
    ]


def render_html(
    run: RunInfo,
    gate: GateResult,
    categories: Mapping[str, Mapping[str, float]],
    regressions: Sequence[Regression],
    images: Mapping[str, str],
) -> str:
    """The same content as `render_markdown`, as one standalone page (images by relative path)."""
    state = "pass" if gate.passed else "fail"
    body = [f"<h1>{_esc(TITLE)}: {verdict(gate)}</h1>"]
    body += _html_table(["", ""], _run_rows(run), frozenset())
    body += [f'<p class="banner {state}">{_esc(_verdict_line(gate))}</p>', "<h2>Gate</h2>"]
    body += _html_gate_table(gate)
    body += [f'<p class="rules">{_esc(_rules_text(gate))}</p>']
    body += [f'<img src="{_esc(images["forest"])}" alt="Change per metric with 95% CI">']
    body += ["<h2>History</h2>", f'<img src="{_esc(images["history"])}" alt="Metrics over runs">']
    body += ["<h2>Categories</h2>"]
    columns = _category_columns(categories, gate)
    if categories and columns:
        rows = [[cat, *(fmt_num(categories[cat].get(c)) for c in columns)] for cat in sorted(categories)]
        body += _html_table(["category", *columns], rows, frozenset(range(1, len(columns) + 1)))
    else:
        body += ["<p>No per-category scores.</p>"]
    body += [f'<img src="{_esc(images["categories"])}" alt="Per-category means">']
    body += ["<h2>Worst regressions</h2>"]
    if not regressions:
        body += ["<p>No item-level regressions.</p>"]
    for i, r in enumerate(regressions, 1):
        body += _html_regression(i, r)
    head = [
        "<!DOCTYPE html>",
        '<html lang="ko">',
        "<head>",
        '<meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{_esc(TITLE)}: {verdict(gate)} · {_esc(run.run_id)}</title>",
        f"<style>{CSS}</style>",
        "</head>",
        "<body>",
    ]
    return "\n".join([*head, *body, "</body>", "</html>"]) + "\n"


# ---------------------------------------------------------------- plots


@cache
def font_family() -> tuple[str, ...]:
    """A Hangul-capable font first when one is installed (CI installs fonts-nanum), else DejaVu only."""
    names = {f.name for f in font_manager.fontManager.ttflist}
    for preferred in HANGUL_FONTS:
        if preferred in names:
            return (preferred, FALLBACK_FONT)
    nanum = sorted(n for n in names if n.startswith("Nanum"))
    return (nanum[0], FALLBACK_FONT) if nanum else (FALLBACK_FONT,)


@contextmanager
def _plot_style() -> Iterator[None]:
    # Nanum fonts lack U+2212 (the math minus sign): use ASCII '-' on axes.
    style = {"font.family": list(font_family()), "axes.unicode_minus": False}
    with matplotlib.rc_context(style), warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r".*[Gg]lyph .* missing from.*")
        yield


def _save_png(fig: Figure, path: Path) -> None:
    buf = io.BytesIO()
    try:
        fig.savefig(buf, format="png", dpi=DPI, bbox_inches="tight")
    finally:
        plt.close(fig)
    data = buf.getvalue()
    atomic_write(path, lambda tmp: tmp.write_bytes(data))


def _message_figure(text: str) -> Figure:
    fig, ax = plt.subplots(figsize=(6, 2))
    ax.axis("off")
    ax.text(0.5, 0.5, text, ha="center", va="center", fontsize=12, color="#57606a")
    return fig


def _unit_scale(m: MetricComparison) -> bool:
    """Scores in [0, 1] share one axis; anything else (latency, counts) gets its own panel."""
    means = [x for x in (m.baseline_mean, m.current_mean) if finite(x)]
    return all(-1e-9 <= x <= 1 + 1e-9 for x in means)


def _forest_panel(ax: plt.Axes, group: Sequence[MetricComparison], title: str, margin: float | None) -> None:
    ys = np.arange(len(group))[::-1]
    for y, m in zip(ys, group, strict=True):
        color = STATUS_COLORS[m.status]
        if finite(m.delta):
            low = max(0.0, m.delta - m.ci_low) if finite(m.ci_low) else 0.0
            high = max(0.0, m.ci_high - m.delta) if finite(m.ci_high) else 0.0
            ax.errorbar(m.delta, y, xerr=[[low], [high]], fmt="o", color=color, capsize=3, lw=1.6)
        else:
            ax.text(0, y, f"n={m.n_paired}", ha="center", va="center", color=color, fontsize=8)
    ax.set_yticks(ys, labels=[f"{m.name} ({'LLM' if m.kind == 'llm' else 'det'})" for m in group])
    ax.set_ylim(-0.7, len(group) - 0.3)
    ax.axvline(0, color="black", lw=1)
    if margin is not None:
        ax.axvline(margin, color="#57606a", lw=1, ls="--")
    ax.set_title(title, fontsize=10)
    ax.grid(axis="x", alpha=0.3)


def plot_forest(gate: GateResult, path: Path) -> None:
    """Each metric's change with its 95% CI, colored by status; 0 solid, the LLM margin dashed."""
    with _plot_style():
        if not gate.metrics:
            _save_png(_message_figure("no metrics"), path)
            return
        scores = [m for m in gate.metrics if _unit_scale(m)]
        others = [m for m in gate.metrics if not _unit_scale(m)]
        panels = [
            (group, title, margin)
            for group, title, margin in (
                (scores, "scores (0-1)", gate.llm_margin),
                (others, "other units (e.g. latency)", None),
            )
            if group
        ]
        heights = [len(group) for group, _, _ in panels]
        fig, axes = plt.subplots(
            len(panels),
            1,
            figsize=(8, 1.2 + 0.42 * sum(heights) + 0.6 * len(panels)),
            height_ratios=heights,
            squeeze=False,
            layout="constrained",
        )
        for ax, (group, title, margin) in zip(axes[:, 0], panels, strict=True):
            _forest_panel(ax, group, title, margin)
        axes[-1, 0].set_xlabel("change vs baseline (positive = better), 95% CI")
        handles = [Line2D([], [], color=c, marker="o", ls="", label=s) for s, c in STATUS_COLORS.items()]
        fig.legend(handles=handles, loc="outside upper right", fontsize=8, ncols=3)
        fig.suptitle(f"{TITLE}: {verdict(gate)}", x=0.02, ha="left", fontsize=11)
        _save_png(fig, path)


def plot_history(
    history: Sequence[HistoryPoint], path: Path, *, metric_order: Sequence[str] = (), current_run_id: str = ""
) -> None:
    """One small panel per metric over runs (oldest left); accepted runs filled, others hollow."""
    with _plot_style():
        if not history:
            _save_png(_message_figure("no history yet"), path)
            return
        runs = sorted({(p.created_at, p.run_id) for p in history})
        position = {run_id: i for i, (_, run_id) in enumerate(runs)}
        present = {p.metric for p in history}
        metrics = [m for m in metric_order if m in present] + sorted(present - set(metric_order))
        ncols = min(3, len(metrics))
        nrows = math.ceil(len(metrics) / ncols)
        fig, axes = plt.subplots(
            nrows, ncols, figsize=(4.2 * ncols, 2.5 * nrows), squeeze=False, layout="constrained"
        )
        tick_step = max(1, math.ceil(len(runs) / 6))
        ticks = list(range(0, len(runs), tick_step))
        for ax, metric in zip(axes.flat, metrics, strict=False):
            points = {position[p.run_id]: p for p in history if p.metric == metric}  # last one wins
            xs = sorted(points)
            ys = [points[x].value for x in xs]
            ax.plot(xs, ys, color="#8c959f", lw=1)
            accepted = [x for x in xs if points[x].accepted]
            rejected = [x for x in xs if not points[x].accepted]
            ax.scatter(accepted, [points[x].value for x in accepted], color="#0969da", s=22, zorder=3)
            ax.scatter(
                rejected,
                [points[x].value for x in rejected],
                facecolors="white",
                edgecolors="#cf222e",
                s=22,
                zorder=3,
            )
            if current_run_id in position and position[current_run_id] in points:
                x = position[current_run_id]
                ax.scatter([x], [points[x].value], marker="*", color="#bf8700", s=90, zorder=4)
            ax.set_title(metric, fontsize=9)
            ax.set_xticks(ticks, labels=[runs[i][0][:10] for i in ticks], fontsize=7, rotation=30)
            ax.set_xlim(-0.5, len(runs) - 0.5)
            ax.tick_params(axis="y", labelsize=7)
            ax.grid(alpha=0.3)
        for ax in list(axes.flat)[len(metrics) :]:
            ax.axis("off")
        handles = [
            Line2D([], [], color="#0969da", marker="o", ls="", label="accepted"),
            Line2D(
                [],
                [],
                markerfacecolor="white",
                markeredgecolor="#cf222e",
                marker="o",
                ls="",
                label="not accepted",
            ),
            Line2D([], [], color="#bf8700", marker="*", ls="", markersize=10, label="this run"),
        ]
        fig.legend(handles=handles, loc="outside upper right", fontsize=8, ncols=3)
        fig.suptitle(f"Metrics over {len(runs)} run(s)", x=0.02, ha="left", fontsize=11)
        _save_png(fig, path)


def _color_matrix(values: np.ndarray, lower_is_better: Sequence[bool]) -> np.ndarray:
    """0..1 per cell for the colormap: scores in [0, 1] as they are, other columns min-max scaled;
    lower-is-better columns inverted so green always means good."""
    colors = np.full(values.shape, np.nan)
    for j in range(values.shape[1]):
        col = values[:, j]
        finite = col[np.isfinite(col)]
        if finite.size == 0:
            continue
        if finite.min() >= 0 and finite.max() <= 1:
            scaled = col
        elif finite.max() > finite.min():
            scaled = (col - finite.min()) / (finite.max() - finite.min())
        else:
            scaled = np.where(np.isfinite(col), 0.5, np.nan)
        colors[:, j] = 1 - scaled if lower_is_better[j] else scaled
    return colors


def plot_categories(categories: Mapping[str, Mapping[str, float]], path: Path, gate: GateResult) -> None:
    """Heatmap of per-category means (rows: categories, columns: metrics), values written in the cells."""
    with _plot_style():
        columns = _category_columns(categories, gate)
        if not categories or not columns:
            _save_png(_message_figure("no per-category scores"), path)
            return
        cats = sorted(categories)
        values = np.array(
            [[float(categories[c].get(m, math.nan)) for m in columns] for c in cats], dtype=float
        )
        direction = {m.name: m.higher_is_better for m in gate.metrics}
        colors = _color_matrix(values, [not direction.get(m, True) for m in columns])
        fig, ax = plt.subplots(
            figsize=(max(6.0, 0.75 * len(columns) + 2.5), max(2.5, 0.45 * len(cats) + 1.8)),
            layout="constrained",
        )
        cmap = matplotlib.colormaps["RdYlGn"].with_extremes(bad="#eaeef2")
        ax.imshow(np.ma.masked_invalid(colors), cmap=cmap, vmin=0, vmax=1, aspect="auto")
        for i in range(len(cats)):
            for j in range(len(columns)):
                label = MISSING if not np.isfinite(values[i, j]) else f"{values[i, j]:.3g}"
                dark = np.isfinite(colors[i, j]) and not 0.2 <= colors[i, j] <= 0.8
                ax.text(j, i, label, ha="center", va="center", fontsize=7, color="white" if dark else "black")
        ax.set_xticks(range(len(columns)), labels=columns, rotation=40, ha="right", fontsize=8)
        ax.set_yticks(range(len(cats)), labels=cats, fontsize=8)
        ax.set_title("Per-category means (this run)", fontsize=10)
        _save_png(fig, path)


# ---------------------------------------------------------------- entry point


def write_report(
    out_dir: Path,
    *,
    run: RunInfo,
    gate: GateResult,
    history: Sequence[HistoryPoint],
    categories: Mapping[str, Mapping[str, float]],
    regressions: Sequence[Regression],
) -> ReportPaths:
    """Write forest/history/categories PNGs, report.md and report.html into `out_dir` (atomically)."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    images = {name: out_dir / f"{name}.png" for name in IMAGE_NAMES}
    plot_forest(gate, images["forest"])
    plot_history(
        history, images["history"], metric_order=[m.name for m in gate.metrics], current_run_id=run.run_id
    )
    plot_categories(categories, images["categories"], gate)
    relative = {name: p.name for name, p in images.items()}
    markdown = out_dir / "report.md"
    page = out_dir / "report.html"
    atomic_write_text(markdown, render_markdown(run, gate, categories, regressions, relative))
    atomic_write_text(page, render_html(run, gate, categories, regressions, relative))
    return ReportPaths(markdown=markdown, html=page, images=images)
