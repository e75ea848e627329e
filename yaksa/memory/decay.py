"""How fast a remembered fact stops mattering: exponential decay per slot type.

Why per slot type: a blood-pressure reading says little about the patient a day later, a diagnosed
condition stays true for months, and age or gender do not fade at all. The weight of a fact stored
`hours` ago is `exp(-rate * hours)`; the rates below are per hour (vitals halve in ~7 h, labs in
~14 h, symptoms in ~35 h, medications in ~6 days, conditions in ~29 days).

Facts whose weight falls below `WEIGHT_FLOOR` are left out of the profile the agent sees, but they
stay on disk (and are listed, marked inactive, by `ProfileStore.to_json`) so a user can always see
everything that is remembered and erase it; mentioning the fact again refreshes it.
"""

from __future__ import annotations

import math

from yaksa.extraction.slots import SLOT_TYPES

DECAY_PER_HOUR: dict[str, float] = {
    "demographics": 0.0,
    "vitals": 0.1,
    "labs": 0.05,
    "symptoms": 0.02,
    "medications": 0.005,
    "conditions": 0.001,
}
WEIGHT_FLOOR = 0.05


def decay_weight(slot_type: str, hours: float) -> float:
    """Weight in (0, 1] of a `slot_type` fact stored `hours` ago."""
    if slot_type not in DECAY_PER_HOUR:
        raise ValueError(f"unknown slot type {slot_type!r}; expected one of {SLOT_TYPES}")
    if not math.isfinite(hours) or hours < 0:
        raise ValueError(f"hours must be a finite number >= 0, got {hours!r}")
    return math.exp(-DECAY_PER_HOUR[slot_type] * hours)


def is_active(weight: float) -> bool:
    """Whether a fact with this weight still belongs in the profile the agent sees."""
    return weight >= WEIGHT_FLOOR
