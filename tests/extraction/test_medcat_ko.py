import json
from pathlib import Path

import pytest

from yaksa.extraction.medcat_ko import (
    CONCEPT_MAP_FILE,
    Entity,
    KoreanMedCAT,
    build_pack,
    load_pack,
    longest_spans,
    register_korean,
    user_words,
)


def found(model: KoreanMedCAT, text: str) -> list[tuple[str, str, str]]:
    return [(e.concept_id, e.type, e.text) for e in model.entities(text)]


def test_build_counts_and_no_ambiguous_names(built_concepts: tuple[Path, dict]) -> None:
    out, counts = built_concepts
    pack = counts["pack"]
    assert pack["ambiguous_names"] == 0
    assert pack["concepts"] == counts["concepts"]
    assert json.loads((out / "pack" / "build_info.json").read_text("utf-8")) == pack
    assert "두통" in (out / "pack" / "user_words.txt").read_text("utf-8").split()


def test_demographics_sentence_finds_the_condition(korean_medcat: KoreanMedCAT) -> None:
    assert found(korean_medcat, "65세 남성이고 당뇨가 있어요") == [("YK:CON:diabetes", "condition", "당뇨")]


def test_vitals_sentence_has_no_concepts(korean_medcat: KoreanMedCAT) -> None:
    assert found(korean_medcat, "혈압이 150/95예요") == []


def test_symptom_and_brand_with_particles(korean_medcat: KoreanMedCAT) -> None:
    ents = korean_medcat.entities("두통이 있는데 타이레놀 먹어도 돼요?")
    assert [(e.concept_id, e.type, e.preferred, e.text, e.start, e.end) for e in ents] == [
        ("YK:SYM:headache", "symptom", "두통", "두통", 0, 2),
        ("YK:BRAND:타이레놀", "medication", "타이레놀", "타이레놀", 8, 12),
    ]


def test_inflected_colloquial_forms_match_base_form_names(korean_medcat: KoreanMedCAT) -> None:
    assert found(korean_medcat, "머리가 아파요, 열이 나고 콧물이 나요") == [
        ("YK:SYM:headache", "symptom", "머리가 아파"),
        ("YK:SYM:fever", "symptom", "열이 나"),
        ("YK:SYM:rhinorrhea", "symptom", "콧물이 나"),
    ]


def test_overlapping_spans_keep_the_longest(korean_medcat: KoreanMedCAT) -> None:
    # "타이레놀" (brand) lies inside "타이레놀정500밀리그람" (the product): only the product is returned.
    assert found(korean_medcat, "타이레놀정500밀리그람 두 알") == [("YK:MFDS:200001", "medication", "타이레놀정500밀리그람")]
    assert found(korean_medcat, "편두통이 심해요") == [("YK:SYM:migraine", "symptom", "편두통")]


def test_ingredients_english_and_salt_forms(korean_medcat: KoreanMedCAT) -> None:
    assert found(korean_medcat, "아세트아미노펜이랑 나프록센나트륨") == [
        ("YK:ING:아세트아미노펜", "medication", "아세트아미노펜"),
        ("YK:ING:나프록센", "medication", "나프록센나트륨"),
    ]
    assert found(korean_medcat, "I have high blood pressure") == [("C0020538", "condition", "high blood pressure")]


def test_empty_text(korean_medcat: KoreanMedCAT) -> None:
    assert korean_medcat.entities("  ") == []
    with pytest.raises(TypeError, match="expects str"):
        korean_medcat.entities(None)  # type: ignore[arg-type]


def test_longest_spans_prefers_length_then_position() -> None:
    def ent(cid: str, start: int, end: int) -> Entity:
        return Entity(cid, "symptom", cid, start, end, "x" * (end - start))

    kept = longest_spans([ent("short", 0, 2), ent("long", 0, 5), ent("inner", 3, 4), ent("next", 5, 7),
                          ent("tie_late", 8, 10), ent("tie_early", 7, 9)])
    assert [e.concept_id for e in kept] == ["long", "next", "tie_early"]


def test_user_words_are_single_hangul_nouns() -> None:
    assert user_words(["두통", "머리가 아프다", "토하다", "타이레놀정500밀리그람", "열", "High Blood Pressure", "두통"]) == ["두통"]


def test_registration_is_idempotent() -> None:
    register_korean()
    register_korean()


def test_rebuild_replaces_pack_atomically(tmp_path: Path) -> None:
    csv_path = tmp_path / "concepts.csv"
    csv_path.write_text("cui,name,name_status,type_ids\nYK:SYM:cough,기침,P,symptom\n", encoding="utf-8")
    out = tmp_path / "pack"
    out.mkdir()
    (out / "stale.txt").write_text("from an older build", encoding="utf-8")
    build_pack(csv_path, out)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["concepts.csv", "pack"]  # no temp or old dirs left
    assert not (out / "stale.txt").exists()
    assert json.loads((out / CONCEPT_MAP_FILE).read_text("utf-8")) == {"YK:SYM:cough": ["symptom", "기침"]}
    assert (out / "user_words.txt").read_text("utf-8") == "기침\n"


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("cui,name\nYK:SYM:x,두통\n", "missing columns"),
        ("cui,name,name_status,type_ids\nYK:SYM:x,두통,P,vitals\n", "unknown type"),
        ("cui,name,name_status,type_ids\nYK:SYM:x,두통,A,symptom\n", "no concepts with a preferred"),
    ],
)
def test_build_rejects_bad_csv(tmp_path: Path, body: str, message: str) -> None:
    csv_path = tmp_path / "concepts.csv"
    csv_path.write_text(body, encoding="utf-8")
    with pytest.raises(ValueError, match=message):
        build_pack(csv_path, tmp_path / "pack")
    assert not (tmp_path / "pack").exists()


def test_load_rejects_a_dir_that_is_not_a_pack(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="not a yaksa MedCAT pack"):
        load_pack(tmp_path)
