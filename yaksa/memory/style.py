"""Light, deterministic rewording of a cached answer's connective phrases (off by default).

Why: a user who asks twice and gets a byte-identical paragraph notices the cache; swapping a few
connectives ("또한" / "그리고", "따라서" / "그러므로") is enough. Why so little: the answer passed
verification, and anything more than connectives could change its meaning. Numbers (doses),
citations `[문서 N]`, the safety sentence and the protected terms (drug names) are never touched:
a replacement that would overlap one of them is skipped.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable

# Each group lists interchangeable connectives; a seed picks one rotation per group.
CONNECTIVES: tuple[tuple[str, ...], ...] = (
    ("또한", "그리고"),
    ("따라서", "그러므로"),
    ("하지만", "그러나"),
    ("예를 들어", "예컨대"),
    ("일반적으로", "보통"),
    ("특히", "무엇보다"),
)
SAFETY_SENTENCE = "전문가와 꼭 상담하세요"
_FIXED = re.compile(r"\[문서\s*\d+\]|\d[\d.,/~\-]*|" + re.escape(SAFETY_SENTENCE))
_ALL = sorted({w for group in CONNECTIVES for w in group}, key=len, reverse=True)
_CONNECTIVE = re.compile(r"(?<![가-힣A-Za-z0-9])(" + "|".join(map(re.escape, _ALL)) + r")(?![가-힣])")


def _protected_spans(text: str, protected: Iterable[str]) -> list[tuple[int, int]]:
    spans = [m.span() for m in _FIXED.finditer(text)]
    for term in {t for t in protected if t}:
        spans += [m.span() for m in re.finditer(re.escape(term), text)]
    return spans


def vary_style(text: str, seed: str, protected: Iterable[str] = ()) -> str:
    """`text` with connectives rotated by `seed` (same seed, same output); protected spans untouched."""
    digest = hashlib.sha256(seed.encode("utf-8")).digest()
    mapping: dict[str, str] = {}
    for i, group in enumerate(CONNECTIVES):
        shift = digest[i] % len(group)
        mapping.update({word: group[(j + shift) % len(group)] for j, word in enumerate(group)})
    spans = _protected_spans(text, protected)

    def replace(m: re.Match[str]) -> str:
        start, end = m.span()
        if any(start < e and s < end for s, e in spans):
            return m.group(0)
        return mapping[m.group(0)]

    return _CONNECTIVE.sub(replace, text)
