from __future__ import annotations

from pathlib import Path

import pytest

from yaksa.corpus import mfds_pill
from yaksa.corpus.rawio import SourceFormatError
from yaksa.corpus.rejects import RejectLog

HEADER = "품목일련번호,품목명,표시앞,표시뒤,의약품제형,색상,큰제품이미지\n"


def test_real_file_keyed_by_item_seq(shared_data):
    rejects = RejectLog()
    pills, records = mfds_pill.load_with_stats(shared_data("mfds-pill-idntfc-sample"), rejects)
    assert records == 1559
    assert len(pills) == 1557
    assert pills["195900043"] == {
        "imprint_front": "SJΛ",
        "imprint_back": None,  # "-" in the source: no imprint on the back
        "form": "원형",
        "color": "하양",
        "image_url": "https://nedrug.mfds.go.kr/pbp/cmn/itemImageDownload/152035092098000085",
    }
    # one product is listed three times, identically: two rejects, and they say so
    assert [(r.row, r.reason.split(":")[0]) for r in rejects.items] == [
        (1307, "duplicate item_seq"), (1342, "duplicate item_seq")]
    assert all("201507425 is a repeated row" in r.reason for r in rejects.items)


def test_limit_counts_rows(shared_data):
    pills, records = mfds_pill.load_with_stats(
        shared_data("mfds-pill-idntfc-sample/pills_data.available_in_api.csv"), RejectLog(), limit=5)
    assert records == 5 and len(pills) == 5


def test_bad_rows_become_rejects(tmp_path: Path):
    path = tmp_path / "pills.csv"
    path.write_bytes(
        ("\ufeff" + HEADER
         + "111,좋은정,AB,-,원형,하양,http://x/1\n"
         + "222,짧은행,AB\n"
         + " ,빈번호정,AB,-,원형,하양,http://x/2\n").encode()
        + "333,깨진정,".encode() + b"\xff\xfe" + ",-,원형,하양,http://x/3\n".encode()
        + "111,다른정,ZZ,-,타원형,노랑,http://x/4\n".encode()
    )
    rejects = RejectLog()
    pills = mfds_pill.load(path, rejects)
    assert pills == {"111": {"imprint_front": "AB", "imprint_back": None, "form": "원형", "color": "하양",
                             "image_url": "http://x/1"}}
    got = {r.row: r.reason for r in rejects.items}
    assert got[2] == "wrong column count: expected 7, got 3"
    assert got[3].startswith("missing id")
    assert got[4].startswith("invalid UTF-8")
    assert got[5].startswith("duplicate item_seq: 111 is a conflicting appearance")
    assert all(r.file == str(path) and r.source == "mfds_pill" for r in rejects.items)


def test_wrong_header_is_a_clear_error(tmp_path: Path):
    path = tmp_path / "pills.csv"
    path.write_text("id,name\n1,x\n", encoding="utf-8")
    with pytest.raises(SourceFormatError, match=r"pills\.csv: header lacks column\(s\) 품목일련번호"):
        mfds_pill.load(path, RejectLog())
