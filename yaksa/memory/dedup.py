"""Is a newly extracted fact one the profile already holds? Then refresh it instead of adding a row.

Why: users repeat themselves ("혈압이 150/95라고 했잖아요", "두통이 또 있어요"), and a profile that
grows one row per mention drowns the context window in copies of the same fact.

Two kinds of slot:
- single-valued names (demographics such as age/gender/pregnancy, vitals, labs) hold one current
  value per name. For measurements (vitals, labs) the tolerance decides what a new value means:
  - within it (blood pressure ±5 mmHg on both numbers, glucose ±5 mg/dL, HbA1c ±0.2 %) it is the
    same reading restated ("150/95" then "아까 152/96이었어요"): the stored reading is kept and
    only refreshed (its time, any concept id). Keeping it is what makes the tolerance matter, and
    stops a reading from creeping through restatements (after 150/95, "154/95" keeps 150/95;
    "158/95" is then 8 mmHg from it, a new reading);
  - outside it, it is a new measurement and replaces the old one (vitals and labs: the latest
    wins; the profile carries the current measurement, not a history).
  Demographics have no tolerance: a different age or gender replaces the stored one.
- facts about different people (`SlotItem.about`: the writer, a child …) never match: a child's
  age does not replace the writer's.
- multi-valued slots (conditions, symptoms, medications) hold many facts: two items are the same
  fact when they share a concept id, or when their names are the same after normalisation or
  nearly so (difflib ratio >= 0.9, e.g. "Tylenol" / "tylenol " / "타이레놀정" vs "타이레놀 정").

Facts of one person that cannot both be true (`contradicts`): a man is neither pregnant nor
breastfeeding. The newer statement wins, as a new age replaces an old one: a profile that said "58세
남성 임신 중" (found as a user, 2026-11-29) answered every later question with pregnancy cautions for a man.
"""

from __future__ import annotations

import dataclasses
import re
from difflib import SequenceMatcher

from yaksa.extraction.slots import SlotItem
from yaksa.memory.profile_summary import GENDER_WORDS, NO_VALUES

SINGLE_VALUED_SLOTS = frozenset({"demographics", "vitals", "labs"})
MEASUREMENT_SLOTS = frozenset({"vitals", "labs"})
NAME_SIMILARITY = 0.9
# Largest difference between two readings of the same measurement, per number in the value.
TOLERANCE: dict[str, float] = {"blood_pressure": 5.0, "glucose": 5.0, "hba1c": 0.2}

_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
_NOISE = re.compile(r"[\s\-_.,·()\[\]]+")


def normalise_name(name: str) -> str:
    """Lower-case and drop spaces and punctuation, so spelling variants compare equal."""
    return _NOISE.sub("", name.casefold())


def _numbers(value: str | float | None) -> list[float]:
    if value is None:
        return []
    if isinstance(value, (int, float)):
        return [float(value)]
    return [float(x) for x in _NUMBER.findall(value)]


def readings_match(name: str, new: str | float | None, old: str | float | None) -> bool:
    """Whether two readings of measurement `name` are the same within its tolerance."""
    tolerance = TOLERANCE.get(name, 0.0)
    a, b = _numbers(new), _numbers(old)
    if not a or len(a) != len(b):
        return str(new).strip() == str(old).strip()
    return all(abs(x - y) <= tolerance + 1e-9 for x, y in zip(a, b, strict=True))


def names_match(new: str, old: str) -> bool:
    a, b = normalise_name(new), normalise_name(old)
    return a == b or SequenceMatcher(None, a, b).ratio() >= NAME_SIMILARITY


def same_fact(new: SlotItem, old: SlotItem) -> bool:
    """Whether `new` states the same fact as the stored `old` (see the module docstring)."""
    if new.slot_type != old.slot_type or new.about != old.about:   # a child's fever is not the writer's
        return False
    same_concept = bool(new.concept_id) and new.concept_id == old.concept_id
    if new.slot_type in SINGLE_VALUED_SLOTS:  # one value per name: the value must agree too
        return (same_concept or new.name == old.name) and readings_match(new.name, new.value, old.value)
    return same_concept or names_match(new.name, old.name)


def supersedes(new: SlotItem, old: SlotItem) -> bool:
    """Whether storing `new` updates the stored `old`'s row (restated or replaced) rather than adds one."""
    if same_fact(new, old):
        return True
    return (new.slot_type == old.slot_type and new.slot_type in SINGLE_VALUED_SLOTS and new.name == old.name
            and new.about == old.about)


def merge(old: SlotItem, new: SlotItem) -> SlotItem:
    """The item to keep in `old`'s row when `new` supersedes it.

    A measurement restated within its tolerance keeps the stored reading (value, unit, surface text);
    anything else takes the new value and surface text. Either way the stored name is kept (a stable
    key that should not drift with spelling variants) and the concept id if either has one.
    """
    concept_id = new.concept_id or old.concept_id
    if old.slot_type in MEASUREMENT_SLOTS and same_fact(new, old):
        return dataclasses.replace(old, concept_id=concept_id)
    return dataclasses.replace(new, name=old.name, concept_id=concept_id)


_MALE = GENDER_WORDS["male"]
_ONLY_FOR_WOMEN = frozenset({"pregnancy", "breastfeeding"})


def _is_male(item: SlotItem) -> bool:
    return item.name == "gender" and GENDER_WORDS.get(str(item.value).strip().casefold()) == _MALE


def _is_stated_so(item: SlotItem) -> bool:
    return item.name in _ONLY_FOR_WOMEN and str(item.value).strip().casefold() not in NO_VALUES


def contradicts(new: SlotItem, old: SlotItem) -> bool:
    """Whether `new` makes the stored `old` untrue of the same person (module docstring): a man stated
    where a pregnancy or breastfeeding is stored, or either stated where a man is."""
    if new.slot_type != "demographics" or old.slot_type != "demographics" or new.about != old.about:
        return False
    return (_is_male(new) and _is_stated_so(old)) or (_is_stated_so(new) and _is_male(old))
