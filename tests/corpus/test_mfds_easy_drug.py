from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest

from yaksa.corpus import mfds_easy_drug, mfds_pill
from yaksa.corpus.mfds_easy_drug import clean_text, split_product_name
from yaksa.corpus.rawio import SourceFormatError
from yaksa.corpus.rejects import RejectLog

HEADER = "업체명,제품명,제품일련번호,효능효과,용법용량,주의사항,상호작용,부작용,보관방법\n"


@pytest.fixture(scope="module")
def dump(shared_data):
    rejects = RejectLog()
    pills = mfds_pill.load(shared_data("mfds-pill-idntfc-sample"), RejectLog())
    result = mfds_easy_drug.load_with_stats(shared_data("mfds-easy-drug-500"), rejects, pills=pills)
    return result, rejects


def by_id(result):
    return {d.doc_id: d for d in result.documents}


def test_real_dump_sections_and_counts(dump):
    result, rejects = dump
    assert result.records == 500
    # non-empty counts documented in SOURCE.md
    assert Counter(d.section for d in result.documents) == {
        "효능효과": 496, "용법용량": 496, "주의사항": 491, "상호작용": 283, "부작용": 439, "보관방법": 491}
    assert result.stats["empty_sections"] == 286  # not rejects; 3 all-empty products are rejects instead
    assert sorted(r.row for r in rejects.items) == [135, 136, 144]
    assert all(r.reason.startswith("no non-empty section: item_seq 202") for r in rejects.items)
    assert all(re.fullmatch(r"mfds:\d{9}:[a-z_]+", d.doc_id) for d in result.documents)
    assert len(by_id(result)) == len(result.documents)


def test_known_product_section(dump):
    doc = by_id(dump[0])["mfds:195700020:efficacy"]
    # BOM-prefixed first header (업체명) parsed: the company is there
    assert doc.metadata["company"] == "동화약품(주)"
    assert doc.title == "활명수" and doc.section == "효능효과" and doc.lang == "ko"
    assert doc.collection == "drugs" and doc.source == "mfds_easy_drug"
    assert doc.text == "이 약은 식욕감퇴(식욕부진), 위부팽만감, 소화불량, 과식, 체함, 구역, 구토에 사용합니다."
    assert doc.metadata["section_key"] == "efficacy" and doc.metadata["ingredient"] is None


def test_no_nbsp_or_bom_left(dump):
    for doc in dump[0].documents:
        blob = doc.title + doc.section + doc.text + json.dumps(doc.metadata, ensure_ascii=False)
        assert "\xa0" not in blob and "\ufeff" not in blob, doc.doc_id


def test_ingredient_from_parentheses(dump):
    docs = by_id(dump[0])
    gelfos = docs["mfds:197400207:efficacy"].metadata
    assert (gelfos["product_name"], gelfos["ingredient"]) == ("겔포스현탁액", "인산알루미늄겔")
    assert docs["mfds:197400207:efficacy"].title == "겔포스현탁액(인산알루미늄겔)"  # title keeps the full name
    tachion = docs["mfds:197100015:efficacy"].metadata
    assert tachion["ingredient"] == "글루타티온(환원형)"  # nested parentheses


@pytest.mark.parametrize("name, expected", [
    ("타이레놀정500밀리그람(아세트아미노펜)", ("타이레놀정500밀리그람", "아세트아미노펜")),
    ("신신티눈고(살리실산반창고)(수출명:SINSINCORNPLASTER)", ("신신티눈고", "살리실산반창고")),
    ("복합엘씨500연질캡슐(수출명:MEGA-NAMIC)(수출용)", ("복합엘씨500연질캡슐", None)),
    ("미보(MEBO)연고", ("미보(MEBO)연고", None)),
    ("활명수", ("활명수", None)),
    ("(괄호뿐)", ("(괄호뿐)", None)),
])
def test_split_product_name(name, expected):
    assert split_product_name(name) == expected


def test_appearance_joined_from_pill_table(dump):
    result, _ = dump
    assert result.stats["pill_matches"] == 221
    anemo = [d for d in result.documents if d.metadata["item_seq"] == "195900043"]
    assert anemo and all(d.metadata["appearance"]["imprint_front"] == "SJΛ" for d in anemo)
    assert "appearance" not in by_id(result)["mfds:195700020:efficacy"].metadata  # 활명수 is not a pill


def test_limit_counts_products(shared_data):
    result = mfds_easy_drug.load_with_stats(shared_data("mfds-easy-drug-500/drug500_data.csv"), RejectLog(), limit=3)
    assert result.records == 3
    assert {d.metadata["item_seq"] for d in result.documents} == {"195700020", "195900034", "195900043"}


def test_clean_text_strips_html_but_not_korean_brackets():
    raw = "<p>이 약은&nbsp;두통에 사용합니다.</p><p>1일 3회&lt;식후&gt;</p><br/><포비돈요오드> 함유"
    # each block tag is a line break; runs of them collapse to one blank line
    assert clean_text(raw) == "이 약은 두통에 사용합니다.\n\n1일 3회<식후>\n\n<포비돈요오드> 함유"


def test_csv_bad_rows(tmp_path: Path):
    path = tmp_path / "drugs.csv"
    path.write_bytes(
        ("\ufeff" + HEADER
         + "가제약,좋은정(성분)\xa0,100000001,\xa0두통에\xa0사용합니다.,1일 3회,,,  ,실온\n"
         + "가제약,빈정,100000002,\"  \n \",\xa0,,,,\n"
         + "가제약,번호없음정,,두통,,,,,\n"
         + "가제약,짧은정,100000004\n").encode()
        + "가제약,깨진정,100000005,".encode() + b"\xc3\x28" + b",,,,,\n"
    )
    rejects = RejectLog()
    result = mfds_easy_drug.load_with_stats(path, rejects)
    assert [d.doc_id for d in result.documents] == ["mfds:100000001:efficacy", "mfds:100000001:usage",
                                                    "mfds:100000001:storage"]
    first = result.documents[0]
    assert first.text == "두통에 사용합니다." and first.title == "좋은정(성분)"
    assert first.metadata["ingredient"] == "성분"
    assert result.stats["empty_sections"] == 3  # 주의사항, 상호작용, 부작용 (whitespace only) of product 1
    assert {r.row: r.reason.split(":")[0] for r in rejects.items} == {
        2: "no non-empty section", 3: "missing id", 4: "wrong column count", 5: "invalid UTF-8"}
    assert result.records == 5


def test_csv_wrong_header(tmp_path: Path):
    path = tmp_path / "x.csv"
    path.write_text("업체명,제품명\n가,나\n", encoding="utf-8")
    with pytest.raises(SourceFormatError, match="header lacks column"):
        mfds_easy_drug.load(path, RejectLog())


API_ITEM = {
    "entpName": "한국얀센", "itemName": "타이레놀정500밀리그람(아세트아미노펜)", "itemSeq": "200003092",
    "efcyQesitm": "<p>이 약은 감기로 인한 발열 및 동통(통증), 두통에 사용합니다.</p>",
    "useMethodQesitm": "<p>만 12세 이상 소아 및 성인은 1회 1~2정씩</p><br/><p>1일 3-4회 복용합니다.</p>",
    "atpnWarnQesitm": "<p>매일 세잔 이상 정기적으로 술을 마시는 사람은 의사와 상의하십시오.</p>",
    "atpnQesitm": "<p>이 약에 과민증 환자는 복용하지 마십시오.</p>",
    "intrcQesitm": None,
    "seQesitm": "<p>쇼크 &amp; 아나필락시스</p>",
    "depositMethodQesitm": "<p>실온에서 보관하십시오.</p>",
    "openDe": "2021-01-29 00:00:00", "updateDe": "20240423", "itemImage": None, "bizrno": "1068137016",
}


def test_api_json_pages(tmp_path: Path):
    (tmp_path / "page1.json").write_text(json.dumps(
        {"header": {"resultCode": "00", "resultMsg": "NORMAL SERVICE."},
         "body": {"pageNo": 1, "totalCount": 2, "numOfRows": 100,
                  "items": [API_ITEM, {**API_ITEM, "itemSeq": ""}, "oops"]}}, ensure_ascii=False), encoding="utf-8")
    (tmp_path / "page2.json").write_text(json.dumps([{**API_ITEM, "itemSeq": "200003093"}]), encoding="utf-8")
    (tmp_path / "page3.json").write_text('{"header": {"resultCode": "30"', encoding="utf-8")
    rejects = RejectLog()
    result = mfds_easy_drug.load_with_stats(tmp_path, rejects, pills={"200003092": {"color": "하양"}})
    docs = by_id(result)
    assert len(docs) == 12  # 6 non-empty sections (경고 included, 상호작용 null) × 2 products
    assert docs["mfds:200003092:warning"].section == "경고"
    assert docs["mfds:200003092:usage"].text == "만 12세 이상 소아 및 성인은 1회 1~2정씩\n\n1일 3-4회 복용합니다."
    assert docs["mfds:200003092:side_effects"].text == "쇼크 & 아나필락시스"
    assert not any("<" in d.text for d in result.documents)
    assert docs["mfds:200003092:efficacy"].metadata["appearance"] == {"color": "하양"}
    assert "appearance" not in docs["mfds:200003093:efficacy"].metadata
    assert result.stats == {"empty_sections": 2, "pill_matches": 1}
    assert [(Path(r.file).name, r.row, r.reason.split(":")[0]) for r in rejects.items] == [
        ("page1.json", 2, "missing id"), ("page1.json", 3, "not an object"), ("page3.json", 0, "malformed JSON")]
    assert result.records == 5
