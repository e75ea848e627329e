"""The shared report formatting: numbers, deltas, p-values, missing values and Markdown table cells."""

from __future__ import annotations

import math

from yaksa.reporting import MISSING, fmt_delta, fmt_num, fmt_p, md_cell, md_table


def test_numbers_deltas_and_p_values() -> None:
    assert fmt_num(0.61449) == "0.614" and fmt_num(12345.6) == "12,346"
    assert fmt_delta(-0.0625) == "-0.062" and fmt_delta(0.5) == "+0.500" and fmt_delta(-2500.0) == "-2,500"
    assert fmt_p(2.11e-46) == "2.11e-46" and fmt_p(0.0244) == "0.0244"
    assert fmt_num(None) == fmt_delta(math.nan) == fmt_p(math.inf) == MISSING


def test_markdown_table_escapes_its_cells() -> None:
    assert md_cell("a | b\n<c>") == "a \\| b<br>&lt;c&gt;"
    assert md_table(["x", "y"], [[1, "p|q"]]) == ["| x | y |", "|---|---|", "| 1 | p\\|q |"]
