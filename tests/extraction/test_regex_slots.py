import pytest

from yaksa.extraction.regex_slots import regex_slots


def slots(text: str) -> list[tuple]:
    return [(i.slot_type, i.name, i.value, i.unit) for i in regex_slots(text)]



def test_a_pregnancy_or_nursing_that_is_over_is_none() -> None:
    """"예전에 임신한 적이 있는데", "임신했었는데" tell of a pregnancy that is over; "임신했을 때 먹어도 되나요?" asks about
    one, and a current one said beside a past one is kept."""
    assert slots("예전에 임신한 적이 있는데 타이레놀 먹어도 되나요?") == []
    assert slots("작년에 임신했었는데 유산했어요") == []
    assert slots("8개월 전 분만했으며, 모유수유 중이었다.") == []
    assert slots("임신했을 때 타이레놀 먹어도 되나요?") == [("demographics", "pregnancy", "yes", None)]
    assert slots("전에 임신한 적이 있고 지금 임신 중이에요") == [("demographics", "pregnancy", "yes", None)]

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
        # an age group named as a class (a textbook question) is no person; one's own baby is
        ("영아의 대천문이 닫히는 시기는?", []),
        ("노인의 약물 대사 특징은?", []),
        ("우리 아기의 열이 안 떨어져요", [("demographics", "age_group", "infant", None)]),
        ("소아의 정상 호흡수는? 우리 아기가 숨을 빨리 쉬어요", [("demographics", "age_group", "infant", None)]),
        ("애기가 분유도 안 먹어요", [("demographics", "age_group", "infant", None)]),   # how many spell 아기
        # a form's age with no unit (90 of the shared posts)
        ("나이 17 여성이며 이틀 전부터 열이 나요", [("demographics", "age", 17.0, "years"),
                                          ("demographics", "gender", "female", None)]),
        ("나이: 45 키 170", [("demographics", "age", 45.0, "years")]),
        # a boy seen on the underground is not the writer: her own sex stands (a real post, 2026-11-30)
        ("20대 여자입니다. 지하철에서 옆자리 남자애가 장난을 쳐서 놀랐어요",
         [("demographics", "age_group", "20s", None), ("demographics", "gender", "female", None)]),
        ("5살 남자아이가 열이 나요", [("demographics", "age", 5.0, "years"), ("demographics", "gender", "male", None)]),
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


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # how the dialogue study's patients say them
        ("어제 혈압 재보니 123에 79 나왔어요.", ("vitals", "blood_pressure", "123/79", "mmHg")),
        ("혈압이 130에 80 정도예요", ("vitals", "blood_pressure", "130/80", "mmHg")),
        ("아이 체중은 11.6kg 정도 나가요.", ("vitals", "weight", 11.6, "kg")),
        ("참, 아이 몸무게는 17.2킬로예요.", ("vitals", "weight", 17.2, "kg")),
        ("몸무게는 60이에요", ("vitals", "weight", 60.0, "kg")),
        ("I weigh 150 lbs", ("vitals", "weight", 68.0, "kg")),
    ],
)
def test_spoken_readings(text: str, expected: tuple) -> None:
    assert slots(text) == [expected]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("6살 된 아들 때문에 여쭤봐요.", [("demographics", "age", 6.0, "years"), ("demographics", "gender", "male", None)]),
        ("5살 된 딸 때문에 여쭤봐요.", [("demographics", "age", 5.0, "years"),
                                   ("demographics", "gender", "female", None)]),
        ("딸이 5살이에요", [("demographics", "gender", "female", None), ("demographics", "age", 5.0, "years")]),
        # no age beside it: the son may be someone else than the patient
        ("아들이 사다 준 약인데 먹어도 돼요?", []),
        ("딸기 먹어도 돼요?", []),
        ("딸꾹질이 안 멈춰요", []),
    ],
)
def test_a_child_is_a_son_or_daughter_only_beside_their_age(text: str, expected: list[tuple]) -> None:
    assert slots(text) == expected


@pytest.mark.parametrize(
    ("text", "allergies"),
    [
        ("아스피린 알레르기가 있어요.", ["아스피린 알레르기"]),
        ("리시노프릴에 알레르기가 있어요.", ["리시노프릴 알레르기"]),
        ("페니실린과 설파제 항생제 알레르기가 있어요.", ["페니실린 알레르기", "설파제 항생제 알레르기"]),
        ("페니실린, 아스피린에 알레르기가 있어요", ["페니실린 알레르기", "아스피린 알레르기"]),
        ("아스피린하고 설파제 항생제 알레르기가 있어요.", ["아스피린 알레르기", "설파제 항생제 알레르기"]),
        ("아이가 세프디니르에 알레르기가 있어요.", ["세프디니르 알레르기"]),
        ("병원에 다니고 있고 페니실린 알레르기가 있어요", ["페니실린 알레르기"]),
        ("페니실린 알레르기가 있는데 아목시실린 먹어도 돼요?", ["페니실린 알레르기"]),
        # not stated, or not an allergen
        ("페니실린 알레르기가 있으면 먹으면 안 되나요?", []),
        ("페니실린 알레르기는 없어요", []),
        ("알레르기 비염이 있어요", []),
        ("알레르기가 있어요", []),
    ],
)
def test_allergies_are_conditions_one_per_allergen(text: str, allergies: list[str]) -> None:
    found = [i for i in regex_slots(text) if i.slot_type == "conditions"]
    assert [i.name for i in found] == allergies
    assert all(i.concept_id is None and i.text in text and i.text.endswith("알레르기") for i in found)


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
        "150에 95 나왔어요",             # two numbers, but the sentence does not say blood pressure
        "체중이 5kg 빠졌어요",            # a change, not the weight
        "몸무게 60킬로 넘어요",           # a bound
        "체중이 3개월 동안 줄었어요",       # another unit
        "체중 1kg당 10mg",              # a dosing rule
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


@pytest.mark.parametrize(("text", "years"), [
    ("세 살 아이 열이 나요", 3.0), ("다섯살 딸", 5.0), ("두돌 애기 열나요", 2.0), ("돌 지난 아기", 1.0),
    ("세 살 때 수술했어요", None), ("하루 세 번 먹어요", None),
])
def test_an_age_in_words_is_an_age(text: str, years: float | None) -> None:
    """"두돌 애기" was filed as an infant with no age, "세 살 아이" as nobody (2026-11-30)."""
    ages = [s.value for s in regex_slots(text) if s.name == "age"]
    assert ages == ([years] if years is not None else [])
