"""Offline token estimate: the one place that turns text length into tokens.

Why an estimate: tiktoken downloads its encodings on first use, which cannot happen here, and the
served model's tokenizer is unknown anyway. Measured BPE tokenizers (cl100k/o200k, Llama 3) spend
about one token per Hangul syllable and about one token per four characters of Latin text, so
budgets computed this way are close enough to keep prompts inside the context window.
"""

from __future__ import annotations

import math

from yaksa.text.hangul import HANGUL

ELLIPSIS = "…"


def _cost(ch: str) -> float:
    return 1.0 if HANGUL.match(ch) else 0.25


def estimate_tokens(text: str) -> int:
    """≈ tokens of `text`: 1 per Hangul character, 1 per 4 other characters (rounded up)."""
    hangul = len(HANGUL.findall(text))
    return math.ceil(hangul + (len(text) - hangul) / 4)


def truncate_to_tokens(text: str, budget: int) -> str:
    """The longest prefix of `text` within `budget` tokens, ending in "…" when something was cut."""
    if budget <= 0:
        return ""
    if estimate_tokens(text) <= budget:
        return text
    used = 0.0
    for i, ch in enumerate(text):
        used += _cost(ch)
        if used > budget - 1:  # keep one token for the ellipsis
            return text[:i].rstrip() + ELLIPSIS
    return text
