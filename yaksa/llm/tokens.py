"""Offline token estimate: the one place that turns text length into tokens.

Why an estimate: tiktoken downloads its encodings on first use, which cannot happen here, and the
served model's tokenizer is unknown anyway. Measured BPE tokenizers (cl100k/o200k, Llama 3) spend
about one token per Hangul syllable and about one token per four characters of Latin text, so
budgets computed this way are close enough to keep prompts inside the context window.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator

from yaksa.text.hangul import HANGUL

ELLIPSIS = "…"
HANGUL_COST, OTHER_COST = 1.0, 0.25   # tokens per character (module doc)
# Counting and cutting walk runs of Hangul (the text between two runs is all other characters), not
# single characters: both ran over every evidence text of every turn, ~7% of a served turn's Python
# time (py-spy, 2026-11-27).
_HANGUL_RUN = re.compile(HANGUL.pattern + "+")


def estimate_tokens(text: str) -> int:
    """≈ tokens of `text`: 1 per Hangul character, 1 per 4 other characters (rounded up)."""
    hangul = sum(map(len, _HANGUL_RUN.findall(text)))
    return math.ceil(hangul + (len(text) - hangul) / 4)


def _spans(text: str) -> Iterator[tuple[int, int, float]]:
    """(start, end, cost per character) of the text's alternating stretches of other and Hangul characters."""
    pos = 0
    for run in _HANGUL_RUN.finditer(text):
        yield pos, run.start(), OTHER_COST
        yield run.start(), run.end(), HANGUL_COST
        pos = run.end()
    yield pos, len(text), OTHER_COST


def truncate_to_tokens(text: str, budget: int) -> str:
    """The longest prefix of `text` within `budget` tokens, ending in "…" when something was cut."""
    if budget <= 0:
        return ""
    if estimate_tokens(text) <= budget:
        return text
    room = budget - 1   # keep one token for the ellipsis
    used = 0.0
    for start, end, cost in _spans(text):
        if used + cost * (end - start) > room:
            # the first character past the room: the smallest j with used + cost * (j + 1) > room
            return text[:start + math.floor((room - used) / cost)].rstrip() + ELLIPSIS
        used += cost * (end - start)
    return text
