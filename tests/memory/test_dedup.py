from __future__ import annotations

import pytest

from yaksa.extraction.slots import SlotItem
from yaksa.memory.dedup import contradicts, merge, names_match, readings_match, same_fact, supersedes


def bp(value: str) -> SlotItem:
    return SlotItem("vitals", "blood_pressure", value, "mmHg")


def test_blood_pressure_within_5_mmhg_on_both_numbers_is_the_same_reading() -> None:
    assert same_fact(bp("153/97"), bp("150/95"))
    assert same_fact(bp("145/100"), bp("150/95"))
    assert not same_fact(bp("156/95"), bp("150/95"))    # systolic off by 6
    assert not same_fact(bp("150/101"), bp("150/95"))   # diastolic off by 6


def test_a_new_measurement_of_the_same_vital_still_supersedes_the_old_one() -> None:
    assert not same_fact(bp("170/100"), bp("150/95"))
    assert supersedes(bp("170/100"), bp("150/95"))
    assert not supersedes(SlotItem("vitals", "glucose", 150.0, "mg/dL"), bp("150/95"))


@pytest.mark.parametrize(("new", "kept"), [
    ("153/97", "150/95"),     # within ±5 on both numbers: the same reading restated, the stored one kept
    ("145/100", "150/95"),    # the edges of the tolerance are inside it
    ("156/95", "156/95"),     # systolic 6 off: a new measurement, the latest wins
    ("150/101", "150/101"),   # diastolic 6 off
    ("170/100", "170/100"),
])
def test_the_blood_pressure_tolerance_decides_which_reading_is_kept(new: str, kept: str) -> None:
    old = bp("150/95")
    assert supersedes(bp(new), old)                   # one row either way: vitals are single-valued
    assert merge(old, bp(new)).value == kept


def test_a_restated_reading_keeps_the_stored_surface_and_takes_a_concept_id() -> None:
    old = SlotItem("vitals", "blood_pressure", "150/95", "mmHg", text="혈압 150/95")
    new = SlotItem("vitals", "blood_pressure", "152/96", "mmHg", concept_id="C0005823", text="152에 96")
    assert merge(old, new) == SlotItem("vitals", "blood_pressure", "150/95", "mmHg", concept_id="C0005823",
                                       text="혈압 150/95")


def test_a_shared_concept_id_does_not_make_a_new_reading_the_same() -> None:
    old = SlotItem("vitals", "blood_pressure", "150/95", "mmHg", concept_id="C0005823")
    new = SlotItem("vitals", "blood_pressure", "170/100", "mmHg", concept_id="C0005823")
    assert not same_fact(new, old) and merge(old, new).value == "170/100"


def test_labs_use_their_own_tolerance() -> None:
    def hba1c(v: float) -> SlotItem:
        return SlotItem("labs", "hba1c", v, "%")

    assert merge(hba1c(7.0), hba1c(7.1)).value == 7.0
    assert merge(hba1c(7.0), hba1c(7.5)).value == 7.5


@pytest.mark.parametrize(("name", "new", "old", "expected"), [
    ("glucose", 185.0, 180, True),
    ("glucose", 186.0, 180.0, False),
    ("hba1c", "7.2", 7.0, True),
    ("hba1c", 7.3, 7.0, False),
    ("blood_pressure", "150/95", "150", False),   # different shape: compared as text
    ("ldl", "130", "130", True),                  # no tolerance known: exact
    ("ldl", 131, 130, False),
])
def test_readings_match(name: str, new: object, old: object, expected: bool) -> None:
    assert readings_match(name, new, old) is expected


def test_conditions_match_by_concept_id_or_similar_names() -> None:
    a = SlotItem("conditions", "당뇨병", concept_id="C0011849")
    assert same_fact(SlotItem("conditions", "diabetes mellitus", concept_id="C0011849"), a)
    assert same_fact(SlotItem("conditions", "당뇨 병"), a)
    assert not same_fact(SlotItem("conditions", "고혈압"), a)
    assert not same_fact(SlotItem("symptoms", "당뇨병"), a)          # other slot type
    assert names_match("Tylenol", " tylenol")
    assert names_match("타이레놀8시간이알서방정", "타이레놀 8시간 이알 서방정")
    assert not names_match("게보린", "타이레놀")


def test_new_gender_or_age_replaces_the_old_value() -> None:
    assert supersedes(SlotItem("demographics", "age", 66), SlotItem("demographics", "age", 65))
    assert not supersedes(SlotItem("demographics", "gender", "female"), SlotItem("demographics", "age", 65))


def test_merge_keeps_newest_value_and_any_concept_id() -> None:
    old = SlotItem("medications", "타이레놀", concept_id="YK:tylenol", text="타이레놀")
    new = SlotItem("medications", "타이레놀", text="타이레놀을")
    merged = merge(old, new)
    assert merged.text == "타이레놀을" and merged.concept_id == "YK:tylenol"
    assert merge(SlotItem("demographics", "age", 65), SlotItem("demographics", "age", 66)).value == 66


def test_facts_about_different_people_never_match() -> None:
    mine, childs = SlotItem("demographics", "age", 35), SlotItem("demographics", "age", 5, about="child")
    assert not supersedes(childs, mine) and not same_fact(childs, mine)
    assert supersedes(SlotItem("demographics", "age", 6, about="child"), childs)
    assert not same_fact(SlotItem("symptoms", "발열", about="child"), SlotItem("symptoms", "발열"))


def test_a_man_is_neither_pregnant_nor_breastfeeding() -> None:
    man, pregnant = SlotItem("demographics", "gender", "남성"), SlotItem("demographics", "pregnancy", "yes")
    assert contradicts(man, pregnant) and contradicts(pregnant, man)
    assert contradicts(SlotItem("demographics", "breastfeeding", "yes"), SlotItem("demographics", "gender", "male"))
    assert not contradicts(man, SlotItem("demographics", "pregnancy", "no"))      # "임신은 아니에요"
    assert not contradicts(SlotItem("demographics", "gender", "여성"), pregnant)
    # the writer is a man, his wife is pregnant: two people
    assert not contradicts(SlotItem("demographics", "pregnancy", "yes", about="spouse"), man)
