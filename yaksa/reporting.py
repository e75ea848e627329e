"""Markdown table cells and number formatting shared by every report (the nightly regression's and the
dialogue study's).

Why one module: the reports sit side by side in the README and in review, so a delta, a p-value and a
missing value must read the same in all of them.
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence

MISSING = "—"


def finite(x: float | None) -> bool:
    return x is not None and math.isfinite(x)


def fmt_num(x: float | None) -> str:
    if not finite(x):
        return MISSING
    return f"{x:.3f}" if abs(x) < 1000 else f"{x:,.0f}"


def fmt_delta(x: float | None) -> str:
    if not finite(x):
        return MISSING
    return f"{x:+.3f}" if abs(x) < 1000 else f"{x:+,.0f}"


def fmt_p(x: float | None) -> str:
    return f"{x:.3g}" if finite(x) else MISSING


def md_cell(text: object) -> str:
    """Text safe inside a Markdown table cell: HTML escaped, pipes escaped, newlines as <br>."""
    s = html.escape(str(text), quote=False).replace("|", "\\|")
    return s.replace("\r\n", "\n").replace("\r", "\n").replace("\n", "<br>")


def md_table(header: Sequence[str], rows: Sequence[Sequence[object]]) -> list[str]:
    lines = ["| " + " | ".join(md_cell(h) for h in header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(md_cell(c) for c in row) + " |" for row in rows]
    return lines
