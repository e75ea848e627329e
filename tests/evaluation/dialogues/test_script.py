"""Scripted dialogues on hand-made MFDS rows and personas: five turns of the right kinds, seeded
determinism, turn 4's caution checked against the row's own text, turn 5 resolved only through turn 4."""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest

from yaksa.evaluation.dialogues.personas import Allergy, Coded, Persona, load_mapping
from yaksa.evaluation.dialogues.script import (
    FIELD_LABELS,
    TURN_KINDS,
    DrugRow,
    Fact,
    Turn,
    cautions_for,
    dialogue,
    generate,
    load_drugs,
    summary,
)

HEADER = ["업체명", "제품명", "제품일련번호", "효능효과", "용법용량", "주의사항", "상호작용", "부작용", "보관방법"]
ROWS = [
    ["가제약", "두통싹정(아세트아미노펜)", "100", "이 약은 두통, 치통, 생리통에 사용합니다.", "성인 1회 1정, 1일 3회 복용합니다.",
     "이 약을 복용하기 전에 고혈압 환자, 간장애 환자는 의사 또는 약사와 상의하십시오.", "와파린과 함께 복용 시 상의하십시오.",
     "발진이 나타날 수 있습니다.", "실온 보관"],
    ["나제약", "임부조심시럽", "200", "이 약은 기침, 가래에 사용합니다.", "1회 10 mL, 1일 3회 복용합니다.",
     "임부 또는 임신하고 있을 가능성이 있는 여성은 이 약을 복용하지 마십시오.", "", "졸음", "실온 보관"],
    ["다제약", "어르신정", "300", "이 약은 소화불량에 사용합니다.", "1회 1정 복용합니다.",
     "고령자는 의사 또는 약사와 상의하십시오. 만 2세 미만 소아는 복용하지 마십시오.", "", "", "실온 보관"],
    ["라제약", "어린이콧물정", "400", "이 약은 콧물, 코막힘에 사용합니다.", "1회 1정 복용합니다.",
     "이 약을 복용하기 전에 12세 미만의 소아는 의사 또는 약사와 상의하십시오.", "", "", "실온 보관"],
    ["마제약", "가려움연고", "500", "이 약은 가려움, 두드러기에 사용합니다.", "1일 수회 환부에 바릅니다.",
     "눈에 들어가지 않도록 하십시오.", "", "", "실온 보관"],
    ["바제약", "용법없는정", "600", "이 약은 두통에 사용합니다.", "", "고혈압 환자는 상의하십시오.", "", "", ""],
]


@pytest.fixture()
def drugs(tmp_path: Path) -> list[DrugRow]:
    path = tmp_path / "drugs.csv"
    with path.open("w", encoding="utf-8-sig", newline="") as fh:   # the dump has a BOM
        writer = csv.writer(fh)
        writer.writerow(HEADER)
        writer.writerows(ROWS)
    return load_drugs(path)


def persona(pid: str, age: int, sex: str, pregnant: bool = False, conditions: tuple = (), medications: tuple = (),
            allergies: tuple = (), vitals: dict | None = None, labs: dict | None = None) -> Persona:
    return Persona(pid=pid, age=age, sex=sex, pregnant=pregnant, conditions=conditions, medications=medications,
                   allergies=allergies, vitals=vitals or {}, labs=labs or {}, as_of="2024-06-10")


HYPERTENSION = Coded("59621000", "Essential hypertension (disorder)", "고혈압")
CYSTITIS = Coded("307426000", "Acute infective cystitis (disorder)", "방광염")
MI_HISTORY = Coded("399211009", "History of myocardial infarction (situation)", "심근경색")
AMLODIPINE = Coded("308136", "amLODIPine 2.5 MG Oral Tablet", "암로디핀")
WARFARIN = Coded("855332", "Warfarin Sodium 5 MG Oral Tablet", "와파린")
INHALER = Coded("630208", "albuterol 0.83 MG/ML Inhalation Solution", "살부타몰 흡입제")
ASPIRIN = Allergy("1191", "Aspirin", "아스피린", "medication")
DANDER = Allergy("264287008", "Animal dander (substance)", "동물 털", "environment")

PERSONAS = [
    persona("pregnant", 29, "female", pregnant=True, conditions=(HYPERTENSION,)),
    persona("hypertensive", 52, "male", conditions=(HYPERTENSION, MI_HISTORY), medications=(AMLODIPINE, WARFARIN),
            allergies=(ASPIRIN, DANDER), vitals={"blood_pressure": ("150/95", "mmHg")}, labs={"hba1c": (6.84, "%")}),
    persona("elder", 72, "female", vitals={"blood_pressure": ("138/80", "mmHg")}, labs={"glucose": (104.3, "mg/dL")}),
    persona("child", 6, "male", medications=(INHALER,), vitals={"weight": (21.43, "kg")}),
    persona("infant", 0, "female"),
    persona("plain", 30, "male", conditions=(CYSTITIS,)),
]


def test_load_drugs_reads_the_bom_csv_and_keeps_rows_with_usage(drugs: list[DrugRow]) -> None:
    assert [d.item_seq for d in drugs] == ["100", "200", "300", "400", "500"]   # 600 has no 용법용량
    assert drugs[0].name == "두통싹정" and drugs[0].title == "두통싹정(아세트아미노펜)"
    assert drugs[0].oral and not drugs[4].oral                                   # 바릅니다 → a topical
    assert drugs[0].doc_id("usage") == "mfds:100:usage"


def test_every_dialogue_has_five_turns_of_the_required_kinds(drugs: list[DrugRow]) -> None:
    dialogues = generate(PERSONAS, drugs, seed=13)
    assert len(dialogues) == len(PERSONAS)
    for turns in dialogues:
        assert [t.index for t in turns] == [1, 2, 3, 4, 5]
        assert tuple(t.kind for t in turns) == TURN_KINDS
        assert all(isinstance(t, Turn) and t.text.strip() for t in turns)
        assert all(isinstance(f, Fact) and len(f) == 3 for t in turns for f in t.facts_stated)
        slot, name, value = turns[0].facts_stated[0]   # plain (slot_type, name, value) tuples
        assert (slot, name, value) == ("demographics", "gender", turns[0].facts_stated[0].value)
    assert summary(dialogues)["turns"] == 5 * len(PERSONAS)


def test_same_seed_same_dialogues_other_seed_other_wording(drugs: list[DrugRow]) -> None:
    first = [[t.to_json() for t in d] for d in generate(PERSONAS, drugs, seed=13)]
    again = [[t.to_json() for t in d] for d in generate(PERSONAS, drugs, seed=13)]
    assert first == again
    texts = {seed: [t.text for d in generate(PERSONAS, drugs, seed) for t in d] for seed in (13, 14, 15)}
    assert texts[13] != texts[14] and texts[13] != texts[15]
    # what is said stays the persona's: facts do not depend on the seed (only which are held back for turn 3)
    facts = {seed: {f for d in generate(PERSONAS, drugs, seed) for t in d for f in t.facts_stated
                    if f.slot_type == "demographics"} for seed in (13, 14)}
    assert {f for f in facts[13] if f.name != "pregnancy"} == {f for f in facts[14] if f.name != "pregnancy"}


def _by_pid(drugs: list[DrugRow], seed: int = 13) -> dict[str, list[Turn]]:
    return {p.pid: d for p, d in zip(PERSONAS, generate(PERSONAS, drugs, seed), strict=True)}


def test_turn1_states_demographics_conditions_medications_and_drug_allergies(drugs: list[DrugRow]) -> None:
    for seed in range(5):
        t1 = _by_pid(drugs, seed)["hypertensive"][0]
        facts = set(t1.facts_stated)
        assert {("demographics", "age", 52.0), ("demographics", "gender", "male"),
                ("conditions", "고혈압", None), ("conditions", "심근경색", None),
                ("conditions", "아스피린 알레르기", None)} <= facts
        assert "52" in t1.text and "고혈압" in t1.text and "심근경색을 앓은 적이 있어요" in t1.text
        assert "아스피린" in t1.text and "동물 털" not in t1.text          # only drug allergies are said
        assert t1.expects["concepts"]["고혈압"] == "YK:CON:hypertension"
        stated_meds = {f.name for t in _by_pid(drugs, seed)["hypertensive"][:3] for f in t.facts_stated
                       if f.slot_type == "medications"}
        assert stated_meds == {"암로디핀", "와파린"}                         # turn 1, or one held back for turn 3


def test_turn1_for_pregnancy_children_and_infants(drugs: list[DrugRow]) -> None:
    turns = _by_pid(drugs)
    assert ("demographics", "pregnancy", "yes") in turns["pregnant"][0].facts_stated
    assert "임신" in turns["pregnant"][0].text
    child = turns["child"][0]
    assert "6살" in child.text and ("demographics", "age", 6.0) in child.facts_stated
    assert ("demographics", "age_group", "infant") in turns["infant"][0].facts_stated
    assert "아기" in turns["infant"][0].text


def test_turn3_states_a_new_fact_with_its_value_as_said(drugs: list[DrugRow]) -> None:
    kinds = set()
    for seed in range(12):
        t3 = _by_pid(drugs, seed)["hypertensive"][2]
        kinds.add(t3.expects["fact"])
        (fact,) = t3.facts_stated
        if fact.name == "blood_pressure":
            assert fact.value == "150/95" and ("150" in t3.text and "95" in t3.text)
        if fact.name == "hba1c":
            assert fact.value == 6.8 and "6.8" in t3.text
        if fact.slot_type == "medications":
            assert fact.name in t3.text
            assert fact not in _by_pid(drugs, seed)["hypertensive"][0].facts_stated
    assert {"blood_pressure", "hba1c", "medication"} <= kinds
    child = _by_pid(drugs)["child"][2]
    assert child.facts_stated in ((("vitals", "weight", 21.4),), (("medications", "살부타몰 흡입제", None),))


def _pattern_for(reason: str, condition: str | None) -> list[str]:
    if reason == "pregnancy":
        return [r"임부|임신"]
    if reason == "age":
        return [r"고령자|노인|소아|유아|영아|젖먹이|신생아|\d+\s*세\s*(?:미만|이하)"]
    mapping = load_mapping()
    codes = [c for p in PERSONAS for c in p.conditions if c.korean == condition]
    return list(mapping.entry("conditions", codes[0].code, codes[0].english).caution)


def test_turn4_product_really_cautions_for_what_expects_says(drugs: list[DrugRow]) -> None:
    rows = {d.item_seq: d for d in drugs}
    for seed in range(5):
        for p, turns in zip(PERSONAS, generate(PERSONAS, drugs, seed), strict=True):
            t4 = turns[3]
            drug = rows[t4.expects["item_seq"]]
            assert drug.name == t4.expects["product"] and drug.name in t4.text
            if t4.expects["reason"] is None:
                continue
            field = {v: k for k, v in FIELD_LABELS.items()}[t4.expects["field"]]
            text = getattr(drug, field)
            assert t4.expects["keyword"] in text and t4.expects["sentence"] in text
            assert t4.expects["keyword"] in t4.expects["sentence"]
            assert any(re.search(rx, t4.expects["keyword"]) for rx in _pattern_for(t4.expects["reason"],
                                                                                   t4.expects.get("condition")))
            assert t4.expects["gold"] == [drug.doc_id(field)]
            if t4.expects["reason"] == "condition":   # only a condition the patient has already said
                assert t4.expects["condition"] in {f.name for f in turns[0].facts_stated}


def test_turn4_reason_priority(drugs: list[DrugRow]) -> None:
    t4 = {pid: turns[3].expects for pid, turns in _by_pid(drugs).items()}
    assert (t4["pregnant"]["reason"], t4["pregnant"]["product"], t4["pregnant"]["keyword"]) == (
        "pregnancy", "임부조심시럽", "임부")
    assert (t4["hypertensive"]["reason"], t4["hypertensive"]["keyword"]) == ("condition", "고혈압")
    assert t4["hypertensive"]["product"] == "두통싹정"
    assert (t4["elder"]["reason"], t4["elder"]["product"], t4["elder"]["keyword"]) == ("age", "어르신정", "고령자")
    # "만 2세 미만 소아" is not about a 6-year-old; "12세 미만의 소아" is
    assert (t4["child"]["reason"], t4["child"]["product"], t4["child"]["keyword"]) == ("age", "어린이콧물정", "12세 미만")
    assert t4["infant"]["reason"] == "age"
    assert t4["plain"]["reason"] is None and t4["plain"]["keyword"] is None   # 방광염: no product cautions for it


def test_cautions_for_reads_age_limits(drugs: list[DrugRow]) -> None:
    elder_drug = next(d for d in drugs if d.item_seq == "300")
    for age, expected in ((1, ["만 2세 미만"]), (2, []), (6, []), (40, []), (65, ["고령자"])):
        found = cautions_for(elder_drug, persona("x", age, "male"), [])
        assert [c.keyword for c in found] == expected, age


def test_turn5_resolves_only_through_turn4(drugs: list[DrugRow]) -> None:
    for seed in range(8):
        for turns in generate(PERSONAS, drugs, seed):
            t4, t5 = turns[3], turns[4]
            assert t5.expects["referent"] == t4.expects["product"]
            assert t5.expects["item_seq"] == t4.expects["item_seq"]
            assert t4.expects["product"] not in t5.text                      # "그 약", never the name
            assert re.search(r"그 약|그거|그건", t5.text)
            assert t5.expects["gold"] == [f"mfds:{t4.expects['item_seq']}:{t5.expects['asks']}"]
            if t5.expects["asks"] == "interactions":                          # names a drug said earlier
                earlier = {f.name for t in turns[:3] for f in t.facts_stated if f.slot_type == "medications"}
                assert t5.expects["with"] in earlier and t5.expects["with"] in t5.text


def test_turn2_symptom_question_and_its_gold(drugs: list[DrugRow]) -> None:
    for seed in range(6):
        for p, turns in zip(PERSONAS, generate(PERSONAS, drugs, seed), strict=True):
            t2 = turns[1]
            (fact,) = t2.facts_stated
            assert fact.slot_type == "symptoms" and fact.name == t2.expects["symptom"]
            assert t2.text.rstrip().endswith(("?", "."))
            for doc_id in t2.expects["gold"]:
                row = next(d for d in drugs if d.doc_id("efficacy") == doc_id)
                assert row.efficacy
            if p.age < 12:
                assert "아이" in t2.text or "애가" in t2.text


def test_korean_particles_agree_with_the_last_sound(drugs: list[DrugRow]) -> None:
    from yaksa.text.hangul import with_particle, with_ro

    assert with_particle("고혈압", "이", "가") == "고혈압이" and with_particle("당뇨 전단계", "이", "가") == "당뇨 전단계가"
    assert with_particle("소부날캡슐200mg", "을", "를") == "소부날캡슐200mg을"
    assert with_particle("마이녹실액3%", "은", "는") == "마이녹실액3%는"
    assert with_particle("비타민B2", "이", "가") == "비타민B2가" and with_particle("엘씨500", "을", "를") == "엘씨500을"
    assert with_ro("천식") == "천식으로" and with_ro("편두통") == "편두통으로" and with_ro("뇌전증") == "뇌전증으로"
    assert with_ro("빈혈") == "빈혈로" and with_ro("축농증") == "축농증으로" and with_ro("조울증") == "조울증으로"
    assert with_ro("당뇨 전단계") == "당뇨 전단계로"


def test_no_drugs_is_an_error() -> None:
    with pytest.raises(ValueError, match="at least one"):
        dialogue(PERSONAS[0], [], seed=1)


def test_turn1_never_denies_a_medication_said_later(drugs: list[DrugRow]) -> None:
    child = PERSONAS[3]   # one inhaler: stated in turn 1, or held back for turn 3
    for seed in range(20):
        turns = dialogue(child, drugs, seed)
        if any(f.slot_type == "medications" for f in turns[2].facts_stated):
            assert "약도 없어요" not in turns[0].text and "먹는 약은 없어요" not in turns[0].text


def test_turn3_without_measurements_adds_a_second_complaint(drugs: list[DrugRow]) -> None:
    for seed in range(6):
        turns = dialogue(PERSONAS[4], drugs, seed)          # an infant with no vitals and no medications
        (fact,) = turns[2].facts_stated
        assert fact.slot_type == "symptoms" and fact.name != turns[1].expects["symptom"]
        assert turns[2].text.startswith("아이가")


def test_symptom_concepts_are_lexicon_ids() -> None:
    from tests.evaluation.dialogues.test_personas import _lexicon_ids
    from yaksa.evaluation.dialogues.script import _EXTRA_ADULT, _EXTRA_CHILD, SYMPTOMS

    lexicon = _lexicon_ids()
    assert {s.concept for s in SYMPTOMS} <= lexicon
    assert {c for _, c, _ in _EXTRA_ADULT + _EXTRA_CHILD} <= lexicon
