"""Cut a message into sentence windows for the scope model.

Why windows: a 2,000-character post embedded whole is the embedding of its first few hundred tokens
(the query window), so a question written at the end of a long story about a child's night is never
seen, and the averaged meaning of a long text drifts towards its narrative. The learned scope model
(`learned.py`) scores every window and the mean of them and keeps the most in-scope reading: a
message is about health when it is, as a whole or in any part.

A window is a run of whole sentences up to `WINDOW_CHARS` characters; a sentence longer than that is
cut at a space. Korean forum text often has no punctuation, so a sentence also ends after a polite
or plain declarative/interrogative ending followed by a space ("…아파요 그리고…", "…했습니다 어제…").
At most `MAX_WINDOWS` windows are kept (evenly spread over the text), which caps the cost of one
message at that many query embeddings.
"""

from __future__ import annotations

import re

WINDOW_CHARS = 160   # ~100 tokens of Korean: short enough that a window has one topic
MAX_WINDOWS = 12     # a 2,000-character post: ~13 windows; spread the 12 over it

# a sentence ends at . ! ? 。 … or a newline, or after a Korean sentence ending followed by a space
_SENTENCE_END = re.compile(r"(?<=[.!?。…\n])\s*|(?<=(?:요|다|죠|까|니|냐|네|음|함|임))\s+")


def sentences(text: str) -> list[str]:
    """The sentences of `text`, stripped, empty ones dropped."""
    return [s.strip() for s in _SENTENCE_END.split(text) if s and s.strip()]


def _cut_long(sentence: str, limit: int) -> list[str]:
    """A sentence over `limit` characters, cut at the last space before each limit (or at it)."""
    parts: list[str] = []
    rest = sentence
    while len(rest) > limit:
        cut = rest.rfind(" ", 0, limit + 1)
        cut = cut if cut > limit // 2 else limit
        parts.append(rest[:cut].strip())
        rest = rest[cut:].strip()
    if rest:
        parts.append(rest)
    return parts


def text_windows(text: str, window_chars: int = WINDOW_CHARS, max_windows: int = MAX_WINDOWS) -> list[str]:
    """Consecutive sentence windows of `text` (one window for a short text: the text itself)."""
    if window_chars < 20 or max_windows < 1:
        raise ValueError(f"window_chars must be >= 20 and max_windows >= 1, got {window_chars}, {max_windows}")
    text = text.strip()
    if not text:
        raise ValueError("text is empty")
    if len(text) <= window_chars:
        return [text]
    windows: list[str] = []
    current = ""
    for sentence in sentences(text):
        for piece in _cut_long(sentence, window_chars):
            if current and len(current) + 1 + len(piece) > window_chars:
                windows.append(current)
                current = piece
            else:
                current = f"{current} {piece}" if current else piece
    if current:
        windows.append(current)
    if len(windows) <= max_windows:
        return windows
    step = (len(windows) - 1) / (max_windows - 1) if max_windows > 1 else 0.0
    return [windows[round(i * step)] for i in range(max_windows)]
