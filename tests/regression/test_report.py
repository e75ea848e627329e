from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from yaksa.regression.gate import GateResult, MetricSpec, compare
from yaksa.regression.report import (
    FALLBACK_FONT,
    HistoryPoint,
    Regression,
    RunInfo,
    font_family,
    markdown_summary,
    md_cell,
    write_report,
)

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
QUESTION = "타이레놀과 이부프로펜을 같이 먹어도 되나요?"
EVIL_ANSWER = "<script>alert('x')</script> 하루 최대 4000 mg | 간 손상 주의\n두 번째 줄"
SPECS = [
    MetricSpec("citation_valid", "deterministic", 0.02),
    MetricSpec("faithfulness", "llm"),
    MetricSpec("latency_s", "deterministic", 0.2, higher_is_better=False),
]


def _gate(broken: bool) -> GateResult:
    rng = np.random.default_rng(0)
    n = 40
    base = {
        f"q{i:02d}": {"citation_valid": 1.0, "faithfulness": float(rng.uniform(0.6, 1)), "latency_s": 1.2}
        for i in range(n)
    }
    cur = {k: dict(v) for k, v in base.items()}
    if broken:
        for i in range(10):
            cur[f"q{i:02d}"]["citation_valid"] = 0.0
    return compare(cur, base, SPECS, resamples=500)


def _run(baseline: str | None = "run-0002") -> RunInfo:
    return RunInfo(
        run_id="run-0003",
        bundle_version="bundle-7",
        params_hash="ab12cd",
        git_rev="deadbeef",
        created_at="2026-11-23T02:00:00+09:00",
        baseline_run_id=baseline,
        n_items=40,
    )


def _history() -> list[HistoryPoint]:
    out = []
    for k, (run_id, accepted) in enumerate([("run-0001", True), ("run-0002", True), ("run-0003", False)]):
        for m, v in (("citation_valid", 1.0 - 0.1 * (k == 2)), ("faithfulness", 0.8 + 0.01 * k)):
            out.append(HistoryPoint(run_id, f"2026-11-{21 + k}T02:00:00+09:00", m, v, accepted))
    return out


CATEGORIES = {
    "복약 상호작용": {"citation_valid": 0.75, "faithfulness": 0.81, "latency_s": 1.3},
    "부작용": {"citation_valid": 1.0, "faithfulness": math.nan, "latency_s": 0.9},
}
REGRESSIONS = [
    Regression(
        item_id="q00",
        category="복약 상호작용",
        metric="citation_valid",
        question=QUESTION,
        old_answer="함께 복용할 수 있습니다 [1].",
        new_answer=EVIL_ANSWER,
        old_value=1.0,
        new_value=0.0,
    )
]


def _assert_png(path: Path, min_bytes: int = 5_000) -> None:
    data = path.read_bytes()
    assert data[:8] == PNG_MAGIC
    assert len(data) > min_bytes


def test_full_report_files_and_content(tmp_path: Path) -> None:
    gate = _gate(broken=True)
    assert not gate.passed
    paths = write_report(
        tmp_path / "out",
        run=_run(),
        gate=gate,
        history=_history(),
        categories=CATEGORIES,
        regressions=REGRESSIONS,
    )
    assert set(paths.images) == {"forest", "history", "categories"}
    for image in paths.images.values():
        _assert_png(image)
    expected = {"report.md", "report.html", "forest.png", "history.png", "categories.png"}
    assert {p.name for p in (tmp_path / "out").iterdir()} == expected  # no temp files left behind

    md = paths.markdown.read_text("utf-8")
    assert md.startswith("# Answer-quality regression: FAIL")
    for spec in SPECS:
        assert spec.name in md
    assert QUESTION in md
    assert "복약 상호작용" in md and "run-0002" in md and "deadbeef" in md
    assert "](forest.png)" in md and "](history.png)" in md and "](categories.png)" in md
    assert "<script>" not in md and "&lt;script&gt;" in md
    assert "4000 mg \\| 간 손상 주의<br>두 번째 줄" in md  # pipe escaped, newline kept inside the cell
    gate_rows = [line for line in md.splitlines() if line.startswith("| citation_valid")]
    assert len(gate_rows) == 1 and "FAIL" in gate_rows[0]

    page = paths.html.read_text("utf-8")
    assert '<meta charset="utf-8">' in page
    assert "<script>" not in page
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;" in page
    assert QUESTION in page
    assert 'src="forest.png"' in page and 'src="history.png"' in page
    assert page.count('class="answer"') == 2


def test_passing_report_without_history_categories_or_regressions(tmp_path: Path) -> None:
    gate = _gate(broken=False)
    assert gate.passed
    paths = write_report(tmp_path, run=_run(None), gate=gate, history=[], categories={}, regressions=[])
    _assert_png(paths.images["forest"])
    _assert_png(paths.images["history"], min_bytes=1_500)  # "no history yet"
    _assert_png(paths.images["categories"], min_bytes=1_500)  # "no per-category scores"
    md = paths.markdown.read_text("utf-8")
    assert md.startswith("# Answer-quality regression: PASS")
    assert "none (first run)" in md
    assert "No item-level regressions." in md and "No per-category scores." in md


def test_history_with_a_single_run_renders(tmp_path: Path) -> None:
    single = [HistoryPoint("run-0003", "2026-11-23T02:00:00+09:00", "faithfulness", 0.8, False)]
    paths = write_report(
        tmp_path, run=_run(), gate=_gate(broken=False), history=single, categories=CATEGORIES, regressions=[]
    )
    _assert_png(paths.images["history"])


def test_markdown_summary_is_short_and_has_no_images() -> None:
    gate = _gate(broken=True)
    long = Regression("q01", "부작용", "citation_valid", "두통 " * 100, "a", "b", 1.0, 0.0)
    summary = markdown_summary(_run(), gate, [*REGRESSIONS, long] * 4)
    assert "FAIL" in summary and "citation_valid" in summary
    assert "![" not in summary and "<script>" not in summary
    assert QUESTION in summary
    assert "Worst regressions (5 of 8)" in summary
    assert "두통 " * 100 not in summary  # questions are truncated
    assert len(summary) < 3_000


@pytest.mark.parametrize(
    ("text", "cell"),
    [("a|b", "a\\|b"), ("x\r\ny\nz", "x<br>y<br>z"), ("<b>&", "&lt;b&gt;&amp;"), ("약사", "약사")],
)
def test_md_cell_escaping(text: str, cell: str) -> None:
    assert md_cell(text) == cell


def test_font_family_prefers_hangul_and_falls_back_to_dejavu() -> None:
    from matplotlib import font_manager

    family = font_family()
    assert family[-1] == FALLBACK_FONT
    if any(f.name.startswith("Nanum") for f in font_manager.fontManager.ttflist):
        assert family[0].startswith("Nanum")
