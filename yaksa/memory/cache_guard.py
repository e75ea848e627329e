"""What the shared response cache refuses, and how close two questions must be in content to share an answer.

Why: every user with no remembered profile is served the cache, so one user's abnormal message
must not become another's answer. The review's case: "타이레놀 먹어도 되나요? " typed 100 times got an
answer repeating a notice 100 times (5,408 characters); it passed verification, was stored, and
"타이레놀 먹어도 돼요?" of three other users (cosine 0.91-0.93) got it back. So:

- `abnormal_question`: a question longer than `MAX_QUESTION_CHARS` (300; a long post tells a
  personal story, it is not a generic question: the longest of the service's question sets is well
  under 100 characters), or a repetitive one: a sentence said `MAX_SENTENCE_REPEATS` (3) times or
  more, or a text whose character 4-grams are less than half distinct (`MIN_DISTINCT_4GRAMS`, over
  at least `MIN_4GRAMS` of them: natural Korean questions score above 0.9, a sentence said three
  times about 0.37) is neither stored nor served from the cache.
- `abnormal_answer`: an answer longer than `MAX_ANSWER_CHARS` (2,500; the offline answer is at most
  four documents of three sentences and is ~300-1,500 characters) is not stored.
- `content_match`: besides the vector's cosine (which sees "X" and "X X X ... X" as the same), a
  hit needs the two questions' content (letters and digits, NFKC, lower-cased; spaces and
  punctuation dropped) to share character bigrams (Dice >= `MIN_DICE`, 0.6: "타이레놀 먹어도 되나요"
  and "타이레놀 먹어도 돼요?" score 0.71, a question with as much again of other words ~0.67 at best
  before the length rule) and to be of similar length (shorter/longer >= `MIN_LENGTH_RATIO`, 0.6).

The stored side keeps only `signature`: keyed hashes (BLAKE2b keyed with the cache file's salt, a
MAC like HMAC at a fifth of its cost here) of the bigrams, each cut to `SIGNATURE_BITS` (12) bits, so each value stands for thousands of
possible bigrams and the set cannot be read back as words, plus the content length. The lookup
hashes its own question's bigrams the same way; with 4,096 buckets two unrelated 30-bigram
questions share ~0.2 values by chance, which moves Dice by under 0.01.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections import Counter
from dataclasses import dataclass

MAX_QUESTION_CHARS = 300
MAX_ANSWER_CHARS = 2500
MAX_SENTENCE_REPEATS = 3
MIN_4GRAMS = 24
MIN_DISTINCT_4GRAMS = 0.5
MIN_DICE = 0.6
MIN_LENGTH_RATIO = 0.6
SIGNATURE_BITS = 12

_SENTENCE_BREAK = re.compile(r"[.!?。？！\n]+")


def content(text: str) -> str:
    """The letters and digits of `text` (NFKC, lower-cased): what two questions' content is compared on."""
    return "".join(ch for ch in unicodedata.normalize("NFKC", text).lower() if ch.isalnum())


def bigrams(text: str) -> set[str]:
    """Character bigrams of `content(text)` (the single character of a one-character text)."""
    c = content(text)
    return {c[i:i + 2] for i in range(max(1, len(c) - 1))} if c else set()


def abnormal_question(text: str) -> str | None:
    """Why `text` must not be stored in nor served from the shared cache (module doc); None when it may."""
    if len(" ".join(text.split())) > MAX_QUESTION_CHARS:
        return f"longer than {MAX_QUESTION_CHARS} characters"
    said = Counter(s for s in (content(part) for part in _SENTENCE_BREAK.split(text)) if s)
    if said and max(said.values()) >= MAX_SENTENCE_REPEATS:
        return f"a sentence repeated {max(said.values())} times"
    c = content(text)
    total = len(c) - 3
    if total >= MIN_4GRAMS and len({c[i:i + 4] for i in range(total)}) / total < MIN_DISTINCT_4GRAMS:
        return "repetitive text"
    return None


def abnormal_answer(text: object) -> str | None:
    """Why an answer must not be stored in the shared cache; None when it may."""
    if isinstance(text, str) and len(text) > MAX_ANSWER_CHARS:
        return f"answer longer than {MAX_ANSWER_CHARS} characters"
    return None


@dataclass(frozen=True)
class Signature:
    """A question's content as the cache keeps it: bucketed keyed hashes of its bigrams, its length."""

    buckets: frozenset[int]
    length: int

    def to_json(self) -> dict[str, object]:
        return {"buckets": sorted(self.buckets), "length": self.length}

    @classmethod
    def from_json(cls, data: dict[str, object]) -> Signature:
        buckets = data["buckets"]
        if not isinstance(buckets, list) or not all(isinstance(b, int) for b in buckets):
            raise ValueError("signature buckets must be a list of integers")
        return cls(frozenset(buckets), int(data["length"]))  # type: ignore[arg-type]


def signature(text: str, salt: str) -> Signature:
    """`text`'s content signature under the cache file's `salt` (module doc)."""
    key, mask = salt.encode("ascii")[:64], (1 << SIGNATURE_BITS) - 1
    buckets = frozenset(int.from_bytes(hashlib.blake2b(g.encode("utf-8"), key=key, digest_size=4).digest(), "big") & mask
                        for g in bigrams(text))
    return Signature(buckets, len(content(text)))


def content_match(a: Signature, b: Signature) -> bool:
    """Whether two questions are close in content: similar length and most bigrams shared (module doc)."""
    if not a.buckets or not b.buckets:
        return False
    if min(a.length, b.length) / max(a.length, b.length, 1) < MIN_LENGTH_RATIO:
        return False
    return 2 * len(a.buckets & b.buckets) / (len(a.buckets) + len(b.buckets)) >= MIN_DICE
