"""A long caution sentence shortened to the items that matter, every word of them the label's.

Why its own module: the offline answer quotes caution lists (`extractive`), and so does a child's age limit
(`age_limits`: "게보린정 … 15세 미만의 소아, … 복용하지 마십시오" is a list of 20 items); one reader shortens both.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from yaksa.text.lexical import grams, list_items, mentions

LIST_SENTENCE = 300   # characters: a caution sentence this long that lists many items is shortened
MIN_LIST_ITEMS = 8    # ... when it has at least this many comma-separated items
LIST_HEAD = 4         # items kept from its start (the list's lead-in and its first, most serious, items)
ELIDED = " … "
_DIGIT = re.compile(r"\d")


def shortened_list(sentence: str, query: set[str], profile: Sequence[str]) -> str:
    """A long caution sentence that lists every side effect or condition, shortened to its first
    LIST_HEAD items, the items the question (`query`: the bigrams of its content words, so "있는" of
    "부작용이 있는 약인가요?" keeps no "출혈 경향이 있는 환자") or the person names, and its last item (which says what to
    do: "… 등이 나타나는 경우 복용을 즉각 중지하고 의사 또는 약사와 상의하십시오"), the rest elided with "…".
    Why: real people asking "코피가 자주 나요" got a 900-character list quoted whole, with the one item that
    concerned them somewhere inside. Nothing is reworded and no number is dropped: an item with a digit
    ("만 2세 미만의 소아", "중단한 후 2주 이내의 사람") is always kept."""
    if len(sentence) <= LIST_SENTENCE:
        return sentence
    items = list_items(sentence)
    if len(items) < MIN_LIST_ITEMS:
        return sentence
    keep = {*range(LIST_HEAD), len(items) - 1}
    keep.update(i for i, item in enumerate(items)
                if query & grams(item) or any(mentions(w, item) for w in profile) or _DIGIT.search(item))
    out, previous = "", -1
    for i in sorted(keep):
        out += items[i] if previous < 0 else (", " if i == previous + 1 else ELIDED) + items[i]
        previous = i
    return out
