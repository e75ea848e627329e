from pathlib import Path

import pytest

from yaksa.extraction.extractor import SlotExtractor


@pytest.fixture(scope="module")
def extractor(built_concepts: tuple[Path, dict]) -> SlotExtractor:
    return SlotExtractor(built_concepts[0] / "pack", medcat_enabled=True)


def rows(items: list) -> list[tuple]:
    return [(i.slot_type, i.name, i.value, i.concept_id, i.text, i.source) for i in items]


def test_regex_and_medcat_slots(extractor: SlotExtractor) -> None:
    assert extractor.medcat_active
    assert rows(extractor.extract("65세 남성이고 당뇨가 있어요")) == [
        ("demographics", "age", 65.0, None, "65세", "regex"),
        ("demographics", "gender", "male", None, "남성", "regex"),
        ("conditions", "당뇨병", None, "YK:CON:diabetes", "당뇨", "medcat"),
    ]
    assert rows(extractor.extract("혈압이 150/95예요")) == [
        ("vitals", "blood_pressure", "150/95", None, "혈압이 150/95", "regex"),
    ]
    # Asking about a drug is not taking it: before issue 9 this stored 타이레놀 as a medication.
    assert rows(extractor.extract("두통이 있는데 타이레놀 먹어도 돼요?")) == [
        ("symptoms", "두통", None, "YK:SYM:headache", "두통", "medcat"),
    ]


TAKEN = [
    ("와파린을 먹고 있어요", {"YK:DRUG:warfarin"}),
    ("혈압약 복용 중", {"YK:CLASS:antihypertensive"}),
    ("아스피린 매일 먹어요", {"YK:DRUG:aspirin"}),
    ("메트포르민 처방받았어요", {"YK:DRUG:metformin"}),
    ("우울증약 먹고 있고 수면제도 먹어요", {"YK:CLASS:antidepressant", "YK:CLASS:hypnotic"}),
    ("I'm on lisinopril", {"YK:DRUG:lisinopril"}),
    ("I take warfarin", {"YK:DRUG:warfarin"}),
    ("타이레놀 안 먹고 아세트아미노펜만 먹어요", {"YK:ING:아세트아미노펜"}),
    ("와파린 먹고 있는데 타이레놀 먹어도 되나요?", {"YK:DRUG:warfarin"}),
    ("두통이 있는데 아세트아미노펜 먹어도 되나요?", set()),
    ("아세트아미노펜 하루 최대 용량", set()),
    ("판콜에스 하루에 몇 번 먹어요", set()),
    ("타이레놀이랑 낙센 같이 먹어도 돼요?", set()),
    ("수면제는 끊었어요", set()),
    ("저는 게보린을 매일 먹고 있어요", {"YK:OTC:게보린"}),   # a brand of the linker's rules, not in the data
    ("판피린 먹고 있는데 판콜에스 먹어도 되나요?", {"YK:OTC:판피린"}),
    ("지르텍 먹고 있는데 판콜에스 먹어도 되나요?", {"YK:DRUG:cetirizine"}),  # the lexicon's row comes first
    ("can I take warfarin with aspirin", set()),
]


@pytest.mark.parametrize(("text", "expected"), TAKEN)
def test_medications_are_slots_only_when_taken(extractor: SlotExtractor, text: str, expected: set[str]) -> None:
    assert {i.concept_id for i in extractor.extract(text) if i.slot_type == "medications"} == expected
    # every drug mentioned still keys the response cache
    assert extractor.medications(text) >= expected


def test_denied_concepts_are_not_extracted(extractor: SlotExtractor) -> None:
    items = extractor.extract("당뇨는 없고 두통은 전혀 없어요. 열이 나요")
    assert [(i.slot_type, i.concept_id) for i in items] == [("symptoms", "YK:SYM:fever")]


def test_a_disease_vaccinated_against_is_no_condition(extractor: SlotExtractor) -> None:
    """A real post listing a child's booster (Diphtheria/Tetanus/…) remembered the child with diphtheria and
    tetanus; the fever after it is still a symptom."""
    items = extractor.extract("어제 간염 예방접종을 맞았는데 열이 나요")
    assert [(i.slot_type, i.concept_id) for i in items] == [("symptoms", "YK:SYM:fever")]
    assert [i.concept_id for i in extractor.extract("간염이 있어요")] == ["YK:CON:liver_disease"]


def test_a_complaint_wondered_about_as_a_cause_is_not_remembered(extractor: SlotExtractor) -> None:
    """A real post asked "등 근육통때문에 가슴통증이 느껴질수도 있나요?" and was remembered with a muscle ache."""
    assert "YK:SYM:headache" not in [i.concept_id for i in extractor.extract("두통 때문에 속이 울렁거리는 걸까요?")]
    assert "YK:SYM:headache" not in [i.concept_id for i in extractor.extract("두통때문인가요?")]
    # stated, with the question about something else
    assert "YK:SYM:headache" in [i.concept_id for i in extractor.extract("두통 때문에 잠을 못 자는데 뭐 먹어야 하나요?")]


@pytest.mark.parametrize("text", ["간염 검사 결과는 정상이었어요. 열이 나요", "간염 수치가 조금 높대요. 열이 나요"])
def test_a_disease_tested_for_is_no_condition(extractor: SlotExtractor, text: str) -> None:
    """A real post ("creatinine 수치는 … 정상") was remembered with the condition Creatinine: a test or a level is
    no diagnosis."""
    assert [i.concept_id for i in extractor.extract(text) if i.slot_type == "conditions"] == []
    assert "YK:SYM:fever" in [i.concept_id for i in extractor.extract(text)]


@pytest.mark.parametrize("text", ["간염? 피곤하고 열이 나요", "간염일까요? 열이 나요", "간염인 것 같아요. 열이 나요"])
def test_a_disease_asked_about_is_no_condition(extractor: SlotExtractor, text: str) -> None:
    """A real post titled "우울증? 불안증?" was remembered with depression: what the writer wonders is no diagnosis."""
    assert [i.concept_id for i in extractor.extract(text) if i.slot_type == "conditions"] == []
    assert "YK:SYM:fever" in [i.concept_id for i in extractor.extract(text)]


def test_a_sore_neck_beside_its_posture_is_no_sore_throat(extractor: SlotExtractor) -> None:
    """"거북목 때문에 목이 아파요" was remembered with 인후통 (the concept pack files "목이 아파" as a sore throat);
    the focus rules' `not_with` words of its other sense drop it here too."""
    assert "YK:SYM:sore_throat" not in [i.concept_id for i in extractor.extract("거북목 때문에 목이 아파요")]
    assert "YK:SYM:sore_throat" in [i.concept_id for i in extractor.extract("감기 걸려서 목이 아파요")]


def test_a_symptom_that_brings_on_a_pain_is_not_remembered(extractor: SlotExtractor) -> None:
    """"재채기를 하거나 기침을 해도 왼쪽가슴이 아파요" was remembered as a cough; the chest pain is the complaint."""
    found = [i.concept_id for i in extractor.extract("기침을 해도 왼쪽가슴이 아파요")]
    assert "YK:SYM:cough" not in found and "YK:SYM:chest_pain" in found
    assert "YK:SYM:cough" in [i.concept_id for i in extractor.extract("기침이 나고 가슴이 아파요")]


def test_an_english_condition_before_a_question_mark_is_the_topic_not_a_doubt() -> None:
    from yaksa.extraction.extractor import _asked_about

    text = "What are the treatments for Cancer ?"
    assert not _asked_about(text, text.index("Cancer"), text.index("Cancer") + len("Cancer"))
    assert _asked_about("우울증? 불안증?", 0, 3)


def test_medications_are_concept_ids_even_when_negated(extractor: SlotExtractor) -> None:
    assert extractor.medications("타이레놀 안 먹고 아세트아미노펜만 먹어요") == frozenset(
        {"YK:BRAND:타이레놀", "YK:ING:아세트아미노펜"}
    )
    assert extractor.medications("두통이 있어요") == frozenset()
    with pytest.raises(TypeError, match="expects str"):
        extractor.medications(None)  # type: ignore[arg-type]


@pytest.mark.parametrize("pack", [None, "built"])
def test_medcat_disabled_is_regex_only(built_concepts: tuple[Path, dict], pack: str | None) -> None:
    off = SlotExtractor(built_concepts[0] / "pack" if pack else None, medcat_enabled=False)
    assert not off.medcat_active
    assert rows(off.extract("65세 남성이고 당뇨가 있어요, 타이레놀")) == [
        ("demographics", "age", 65.0, None, "65세", "regex"),
        ("demographics", "gender", "male", None, "남성", "regex"),
    ]
    assert off.medications("타이레놀") == frozenset()


def test_enabled_without_pack_falls_back_to_regex(caplog: pytest.LogCaptureFixture) -> None:
    extractor = SlotExtractor(None, medcat_enabled=True)
    assert not extractor.medcat_active
    assert "no MedCAT pack" in caplog.text
    assert [i.name for i in extractor.extract("당뇨가 있고 혈당 180")] == ["glucose"]


def test_enabled_with_a_missing_pack_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="not a yaksa MedCAT pack"):
        SlotExtractor(tmp_path / "nowhere", medcat_enabled=True)


def test_medcat_runs_once_per_message_however_often_a_turn_asks(built_concepts: tuple[Path, dict]) -> None:
    fresh = SlotExtractor(built_concepts[0] / "pack", medcat_enabled=True)
    calls: list[str] = []
    model_entities = fresh._model.entities
    fresh._model.entities = lambda text: calls.append(text) or model_entities(text)
    text = "와파린 먹고 있는데 두통에 타이레놀 먹어도 돼요?"
    first = rows(fresh.extract(text))
    assert rows(fresh.extract(text)) == first and "YK:DRUG:warfarin" in fresh.medications(text)
    assert calls == [text]
    fresh.extract("두통이 있어요")
    assert calls == [text, "두통이 있어요"]
