"""The classes of prescription medicine a message names ("혈압약", "당뇨약", "항생제") and the data holds no label of.

Why: "혈압약 먹어도 운동해도 되나요?" named no product, symptom or over-the-counter class, so its search matched
the everyday words of naproxen's side effects (혈압강하, 혈압상승) and quoted them as the answer. The 500 MFDS
labels are over-the-counter medicines: none is a blood-pressure, diabetes or cholesterol medicine. A question about
such a medicine is the prescriber's or the dispensing pharmacy's to answer, and the reply says so.

The names are the medication-class rows (`YK:CLASS:*`) of the curated concept lexicon (`data/lexicon_ko.csv`), minus
the classes sold over the counter in Korea under the same everyday word (`_SOLD_OVER_THE_COUNTER`: "수면제" is also
how people call the data's doxylamine sleep aids, "스테로이드" its steroid ointments, and oral contraceptives are
over the counter).
"""

from __future__ import annotations

import re
from functools import cache, lru_cache

from yaksa.lexicon.concept_rows import lexicon_rows
from yaksa.lexicon.linking import without_spaces

_SOLD_OVER_THE_COUNTER = frozenset({"YK:CLASS:hypnotic", "YK:CLASS:corticosteroid", "YK:CLASS:contraceptive"})
_HANGUL = re.compile(r"[가-힣]")


@cache
def _names() -> tuple[tuple[str, str], ...]:
    """(compact Korean name, preferred name) of every prescription class, longest names first."""
    pairs: dict[str, str] = {}
    for row in lexicon_rows():
        if not row["concept_id"].startswith("YK:CLASS:") or row["concept_id"] in _SOLD_OVER_THE_COUNTER:
            continue
        for name in row["names"].split("|"):
            compact = without_spaces(name)
            if len(compact) >= 2 and _HANGUL.search(compact):
                pairs.setdefault(compact, row["preferred"])
    return tuple(sorted(pairs.items(), key=lambda p: -len(p[0])))


@cache
def _matcher() -> re.Pattern[str]:
    # "저혈압약" is a low-blood-pressure medicine, not 혈압약 (the same guard as `yaksa.lexicon.conditions`)
    return re.compile("(?<!저)(?:" + "|".join(re.escape(name) for name, _ in _names()) + ")")


@lru_cache(maxsize=1024)
def prescription_classes_named(text: str) -> tuple[str, ...]:
    """The preferred names of the prescription classes `text` names, in the order they appear, once each
    ("고혈압약이랑 콜레스테롤약" → 혈압약, 고지혈증약). Memoised: a turn asks it of its message up to three times
    (the elliptical check, the decision to reply, the reply itself)."""
    preferred = dict(_names())
    return tuple(dict.fromkeys(preferred[m.group(0)] for m in _matcher().finditer(without_spaces(text))))
