"""One parser for the reviewable word tables under `rules/` (word -> [words]).

Why shared: the expansion rules and the focus rules are the same kind of file a pharmacist edits, so a
malformed entry must be reported the same way, naming the file and the entry.
"""

from __future__ import annotations

from typing import Any


class RulesFileError(ValueError):
    """A rules file is malformed; the message names the file and the entry."""


def word_table(raw: Any, file: str, where: str) -> dict[str, tuple[str, ...]]:
    """`raw` (a mapping of word -> list of words) checked and frozen; RulesFileError otherwise."""
    raw = raw or {}
    if not isinstance(raw, dict):
        raise RulesFileError(f"{file}: {where} must be a mapping of word -> [words]")
    out: dict[str, tuple[str, ...]] = {}
    for key, values in raw.items():
        if not isinstance(values, list) or not all(isinstance(v, str) and v.strip() for v in values):
            raise RulesFileError(f"{file}: {where}.{key} must be a list of non-empty strings")
        out[str(key)] = tuple(values)
    return out
