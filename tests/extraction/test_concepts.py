import csv
import json
from pathlib import Path

import pytest

from tests.extraction.conftest import write_documents
from yaksa.extraction.concepts import (
    LEXICON_PATH,
    Concept,
    assign_names,
    concepts_from_documents,
    name_key,
    read_concept_map,
    read_lexicon,
    write_concept_map,
    write_medcat_csv,
)


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Concept]:
    docs = write_documents(tmp_path_factory.mktemp("concepts") / "documents.parquet")
    return {c.concept_id: c for c in concepts_from_documents(docs)}


def test_lexicon_is_curated_with_project_ids_only() -> None:
    lexicon = read_lexicon()
    assert 80 <= len(lexicon) <= 250
    assert all(c.concept_id.startswith(("YK:SYM:", "YK:CON:", "YK:DRUG:", "YK:CLASS:")) for c in lexicon)
    by_id = {c.concept_id: c for c in lexicon}
    assert by_id["YK:SYM:headache"].type == "symptom"
    assert "머리가 아프다" in by_id["YK:SYM:headache"].names
    assert by_id["YK:CON:diabetes"].type == "condition"
    assert {"당뇨", "당뇨병"} <= set(by_id["YK:CON:diabetes"].names)
    # Distinct concepts stay distinct: no name (after normalisation) belongs to two lexicon concepts.
    keys = [k for c in lexicon for k in {name_key(n) for n in c.names}]
    assert len(keys) == len(set(keys))


def test_products_get_full_name_and_unique_brand_stem(table: dict[str, Concept]) -> None:
    naxen = table["YK:MFDS:200004"]
    assert naxen.type == "medication"
    assert naxen.names == ("낙센정275밀리그램", "낙센")
    assert table["YK:MFDS:200005"].names == ("판콜에스내복액", "판콜에스")


def test_brand_stem_shared_by_products_is_its_own_concept(table: dict[str, Concept]) -> None:
    assert table["YK:BRAND:타이레놀"].names == ("타이레놀",)
    assert table["YK:MFDS:200001"].names == ("타이레놀정500밀리그람",)
    assert table["YK:MFDS:200002"].names == ("타이레놀정160밀리그람",)


def test_brands_of_the_linker_rules_are_medications_unless_the_data_names_them(table: dict[str, Concept]) -> None:
    assert table["YK:OTC:게보린"].type == "medication" and table["YK:OTC:게보린"].names == ("게보린",)
    assert table["YK:OTC:판피린"].names == ("판피린",)
    assert "YK:OTC:지르텍" not in table    # the lexicon's cetirizine row names 지르텍 first
    assert table["YK:OTC:타이레놀"].names == ("tylenol", "타이레놀정")  # the data's 타이레놀 products keep the name


def test_ingredients_from_metadata_salt_split_and_from_parentheses(table: dict[str, Concept]) -> None:
    assert table["YK:ING:아세트아미노펜"].names == ("아세트아미노펜",)
    assert table["YK:ING:나프록센"].names == ("나프록센", "나프록센나트륨")
    # No `ingredient` in the metadata: taken from the product name's parentheses.
    assert table["YK:ING:아시클로버"].names == ("아시클로버",)
    # The parenthesis-free product name and the brand stem are names of the product.
    assert table["YK:MFDS:200003"].names == ("고려아시클로버크림(아시클로버)", "고려아시클로버크림", "고려아시클로버")


def test_medquad_focus_names_keep_their_cuis(table: dict[str, Concept]) -> None:
    hbp = table["C0020538"]
    assert hbp.type == "condition"
    assert hbp.names == ("High Blood Pressure", "Hypertension (High Blood Pressure)", "Hypertension")
    assert table["C0011849"].names == ("Diabetes",)   # the first CUI of the question
    assert "C0011860" not in table
    # No CUI, or a semantic group that is not a slot type: skipped, never given an invented id.
    assert not any("A1C" in c.names or "Acupuncture" in c.names for c in table.values())


def test_first_source_keeps_a_shared_name() -> None:
    a = Concept("YK:SYM:a", "symptom", "두통", ("두통", "머리 아픔"))
    b = Concept("YK:MFDS:1", "medication", "두통약", ("두통약", "머리  아픔!"))
    c = Concept("YK:MFDS:2", "medication", "머리아픔", ("머리아픔",))
    out = assign_names([a, b, c])
    assert [x.names for x in out] == [("두통", "머리 아픔"), ("두통약",)]
    with pytest.raises(ValueError, match="duplicate concept id"):
        assign_names([a, Concept("YK:SYM:A", "symptom", "x", ("x",))])


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"concept_id": "C12345"}, "UMLS CUI or a YK: project id"),
        ({"type": "vitals"}, "type must be one of"),
        ({"preferred": "다른 이름"}, "must start with the preferred"),
        ({"names": ("두통", "a|b")}, "free of '|'"),
    ],
)
def test_concept_validation(kwargs: dict, message: str) -> None:
    fields = {"concept_id": "YK:SYM:x", "type": "symptom", "preferred": "두통", "names": ("두통",)} | kwargs
    with pytest.raises(ValueError, match=message):
        Concept(**fields)


def test_medcat_csv_has_one_row_per_name_and_preferred_status(tmp_path: Path, table: dict[str, Concept]) -> None:
    path = tmp_path / "concepts.csv"
    write_medcat_csv(path, [table["YK:ING:나프록센"], table["C0020538"]])
    with path.open(encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert rows[0] == {"cui": "YK:ING:나프록센", "name": "나프록센", "name_status": "P", "type_ids": "medication"}
    assert [r["name_status"] for r in rows] == ["P", "A", "P", "A", "A"]
    assert not list(tmp_path.glob(".*.tmp"))


def test_concept_map_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "map.json"
    write_concept_map(path, {"YK:SYM:headache": ("symptom", "두통")})
    assert json.loads(path.read_text("utf-8")) == {"YK:SYM:headache": ["symptom", "두통"]}
    assert read_concept_map(path) == {"YK:SYM:headache": ("symptom", "두통")}


def test_bad_inputs_are_reported(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="documents parquet not found"):
        concepts_from_documents(tmp_path / "missing.parquet")
    bad = tmp_path / "lexicon.csv"
    bad.write_text("concept_id,type,preferred,names,source\nC0018681,symptom,두통,두통,x\n", encoding="utf-8")
    with pytest.raises(ValueError, match="lexicon ids must"):
        read_lexicon(bad)
    bad.write_text("concept_id,type,preferred,names,source\nYK:DRUG:x,symptom,엑스,엑스,x\n", encoding="utf-8")
    with pytest.raises(ValueError, match="have type 'medication'"):
        read_lexicon(bad)
    bad.write_text("concept_id,type,preferred,names,source\nYK:DRUG:x,medication,엑스,엑스,\n", encoding="utf-8")
    with pytest.raises(ValueError, match="source is empty"):
        read_lexicon(bad)
    bad.write_text("id,names\n", encoding="utf-8")
    with pytest.raises(ValueError, match="missing columns"):
        read_lexicon(bad)


def test_packaged_lexicon_exists() -> None:
    assert LEXICON_PATH.is_file()


def test_lexicon_drug_rows_say_where_they_come_from() -> None:
    """Chronic-use drugs and classes missing from the MFDS data, each mapped to a WHO ATC code/group."""
    with LEXICON_PATH.open(encoding="utf-8", newline="") as fh:
        rows = [r for r in csv.DictReader(fh) if r["type"] == "medication"]
    assert len(rows) >= 30
    assert all(r["source"].startswith("WHO ATC ") for r in rows)
    by_id = {c.concept_id: c for c in read_lexicon()}
    assert {"와파린", "warfarin"} <= set(by_id["YK:DRUG:warfarin"].names)
    assert "혈압약" in by_id["YK:CLASS:antihypertensive"].names
    assert "혈압약" not in by_id["YK:CON:hypertension"].names  # a drug class, not the condition
    assert {"우울증약", "항우울제"} <= set(by_id["YK:CLASS:antidepressant"].names)


def test_mfds_names_win_over_lexicon_drug_rows(tmp_path: Path) -> None:
    """The lexicon fills gaps: a name the MFDS data also has stays with its ingredient concept."""
    lexicon = tmp_path / "lexicon.csv"
    lexicon.write_text("concept_id,type,preferred,names,source\n"
                       "YK:DRUG:acetaminophen,medication,아세트아미노펜,아세트아미노펜|paracetamol,WHO ATC N02BE01\n",
                       encoding="utf-8")
    docs = write_documents(tmp_path / "documents.parquet")
    table = {c.concept_id: c for c in concepts_from_documents(docs, lexicon)}
    assert table["YK:ING:아세트아미노펜"].names == ("아세트아미노펜",)
    assert table["YK:DRUG:acetaminophen"].names == ("paracetamol",)
