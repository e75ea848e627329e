from __future__ import annotations

import math

import pytest

from yaksa.extraction.slots import SLOT_TYPES
from yaksa.memory.decay import DECAY_PER_HOUR, WEIGHT_FLOOR, decay_weight, is_active


def test_every_slot_type_has_a_rate() -> None:
    assert set(DECAY_PER_HOUR) == set(SLOT_TYPES)


def test_weights_by_hand() -> None:
    assert decay_weight("vitals", 0) == 1.0
    assert decay_weight("vitals", 10) == pytest.approx(math.exp(-1.0))          # 0.3679
    assert decay_weight("labs", 10) == pytest.approx(math.exp(-0.5))            # 0.6065
    assert decay_weight("symptoms", 24) == pytest.approx(math.exp(-0.48))       # 0.6188
    assert decay_weight("medications", 24 * 7) == pytest.approx(math.exp(-0.84))
    assert decay_weight("conditions", 24 * 30) == pytest.approx(math.exp(-0.72))
    assert decay_weight("demographics", 24 * 365 * 10) == 1.0                   # age/gender never fade


def test_floor_drops_a_day_old_blood_pressure_but_not_a_day_old_symptom() -> None:
    assert not is_active(decay_weight("vitals", 30))    # exp(-3) = 0.0498 < 0.05
    assert is_active(decay_weight("vitals", 29))        # exp(-2.9) = 0.055
    assert is_active(decay_weight("symptoms", 24))
    assert WEIGHT_FLOOR == 0.05


@pytest.mark.parametrize("hours", [-1.0, float("nan"), float("inf")])
def test_bad_hours_are_rejected(hours: float) -> None:
    with pytest.raises(ValueError, match="hours"):
        decay_weight("vitals", hours)


def test_unknown_slot_type_is_rejected() -> None:
    with pytest.raises(ValueError, match="unknown slot type"):
        decay_weight("allergies", 1)
