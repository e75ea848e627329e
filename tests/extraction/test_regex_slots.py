import pytest

from yaksa.extraction.regex_slots import regex_slots


def slots(text: str) -> list[tuple]:
    return [(i.slot_type, i.name, i.value, i.unit) for i in regex_slots(text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("65세 남성이고 당뇨가 있어요", [("demographics", "age", 65.0, "years"), ("demographics", "gender", "male", None)]),
        ("만 65세 여자입니다", [("demographics", "age", 65.0, "years"), ("demographics", "gender", "female", None)]),
        ("7살 아이예요", [("demographics", "age", 7.0, "years")]),
        ("60대에요", [("demographics", "age_group", "60s", None)]),
        ("어르신이 드셔도 되나요", [("demographics", "age_group", "older_adult", None)]),
        ("A 65-year-old woman", [("demographics", "age", 65.0, "years"), ("demographics", "gender", "female", None)]),
        ("I'm in my 40s", [("demographics", "age_group", "40s", None)]),
    ],
)
def test_demographics(text: str, expected: list[tuple]) -> None:
    assert slots(text) == expected


@pytest.mark.parametrize(
    ("text", "name", "value"),
    [
        ("임신 중이에요", "pregnancy", "yes"),
        ("임신 12주입니다", "pregnancy", "yes"),
        ("임산부도 먹을 수 있나요", "pregnancy", "yes"),
        ("I am pregnant", "pregnancy", "yes"),
        ("임신 아니에요", "pregnancy", "no"),
        ("임신 중은 아니에요", "pregnancy", "no"),
        ("임신은 안 했어요", "pregnancy", "no"),
        ("I'm not pregnant", "pregnancy", "no"),
        ("모유 수유 중이에요", "breastfeeding", "yes"),
        ("수유는 안 해요", "breastfeeding", "no"),
    ],
)
def test_pregnancy_and_breastfeeding_with_negation(text: str, name: str, value: str) -> None:
    assert slots(text) == [("demographics", name, value, None)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("혈압이 150/95예요", ("vitals", "blood_pressure", "150/95", "mmHg")),
        ("150/95mmHg 나왔어요", ("vitals", "blood_pressure", "150/95", "mmHg")),
        ("BP 130/85", ("vitals", "blood_pressure", "130/85", "mmHg")),
        ("수축기 150 이완기 95", ("vitals", "blood_pressure", "150/95", "mmHg")),
        ("수축기 150이에요", ("vitals", "blood_pressure_systolic", 150.0, "mmHg")),
        ("혈당 180", ("labs", "glucose", 180.0, "mg/dL")),
        ("공복혈당 130 mg/dL", ("labs", "fasting_glucose", 130.0, "mg/dL")),
        ("식후 혈당이 200 정도", ("labs", "postprandial_glucose", 200.0, "mg/dL")),
        ("fasting glucose 7.2 mmol/L", ("labs", "fasting_glucose", 7.2, "mmol/L")),
        ("당화혈색소 7.5%", ("labs", "hba1c", 7.5, "%")),
        ("HbA1c 7.5", ("labs", "hba1c", 7.5, "%")),
    ],
)
def test_vitals_and_labs(text: str, expected: tuple) -> None:
    assert slots(text) == [expected]


def test_surface_text_is_kept() -> None:
    (item,) = regex_slots("혈압이 150/95예요")
    assert item.text == "혈압이 150/95"
    assert item.source == "regex"


@pytest.mark.parametrize(
    "text",
    [
        "혈압약 2/3 알 먹어요",          # a fraction, not a reading
        "혈압 95/150",                 # diastolic above systolic
        "수축기 1500",                 # implausible
        "65세 이상은 몇 알 먹나요?",     # a dosing rule, not the patient's age
        "남자친구가 물어봐서요",          # not the patient's gender
        "HbA1c 75",                    # implausible percent
    ],
)
def test_no_false_slots(text: str) -> None:
    assert slots(text) == []


def test_mixed_sentence_in_order() -> None:
    text = "A 70-year-old man, BP 150/95 mmHg, HbA1c of 8.1%, not pregnant"
    assert [i.name for i in regex_slots(text)] == ["age", "gender", "blood_pressure", "hba1c", "pregnancy"]


def test_rejects_non_text() -> None:
    with pytest.raises(TypeError, match="expects str"):
        regex_slots(None)  # type: ignore[arg-type]
