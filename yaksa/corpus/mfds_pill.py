"""MFDS 낱알식별 (pill identification) table, keyed by 품목일련번호 (item_seq).

It is not narrative text, so it yields no documents: its imprint, shape and colour are joined onto
the e약은요 sections of the same product, so "하얀 원형 알약 SJ" can find the right drug.
"""

from __future__ import annotations

from pathlib import Path

from yaksa.corpus.rawio import SourceFormatError, has_bad_bytes, list_files, one_line, read_csv
from yaksa.corpus.rejects import RejectLog

SOURCE = "mfds_pill"

# CSV column -> appearance key
COLUMNS: dict[str, str] = {
    "품목일련번호": "item_seq",
    "품목명": "item_name",
    "표시앞": "imprint_front",
    "표시뒤": "imprint_back",
    "의약품제형": "form",
    "색상": "color",
    "큰제품이미지": "image_url",
}
APPEARANCE_KEYS: tuple[str, ...] = ("imprint_front", "imprint_back", "form", "color", "image_url")


def _value(raw: str) -> str | None:
    """"-" is the source's placeholder for "no imprint on this side"; store it as null."""
    text = one_line(raw)
    return None if text in ("", "-") else text


def load_with_stats(path: Path, rejects: RejectLog, limit: int = 0) -> tuple[dict[str, dict], int]:
    """`(item_seq -> appearance, input rows read)`; bad and duplicate rows become rejects."""
    pills: dict[str, dict] = {}
    first_row: dict[str, tuple[str, int]] = {}
    records = 0
    for file in list_files(path, ("*.csv",)):
        rows = read_csv(file)
        if not rows:
            continue
        header = [one_line(h) for h in rows[0]]
        missing = [c for c in COLUMNS if c not in header]
        if missing:
            raise SourceFormatError(f"{file}: header lacks column(s) {', '.join(missing)}; got {header}")
        index = {COLUMNS[name]: header.index(name) for name in COLUMNS}
        for row_no, row in enumerate(rows[1:], start=1):
            if not row:
                continue
            if limit and records >= limit:
                return pills, records
            records += 1
            if len(row) != len(header):
                rejects.add(SOURCE, str(file), row_no,
                            f"wrong column count: expected {len(header)}, got {len(row)}")
                continue
            if has_bad_bytes(row):
                rejects.add(SOURCE, str(file), row_no, "invalid UTF-8: undecodable bytes in row")
                continue
            item_seq = one_line(row[index["item_seq"]])
            if not item_seq:
                rejects.add(SOURCE, str(file), row_no, "missing id: empty 품목일련번호")
                continue
            appearance = {key: _value(row[index[key]]) for key in APPEARANCE_KEYS}
            if item_seq in pills:
                f0, r0 = first_row[item_seq]
                kind = "repeated row" if pills[item_seq] == appearance else "conflicting appearance"
                rejects.add(SOURCE, str(file), row_no,
                            f"duplicate item_seq: {item_seq} is a {kind}; kept {Path(f0).name} row {r0}")
                continue
            pills[item_seq] = appearance
            first_row[item_seq] = (str(file), row_no)
    return pills, records


def load(path: Path, rejects: RejectLog, limit: int = 0) -> dict[str, dict]:
    """item_seq -> {imprint_front, imprint_back, form, color, image_url} from a CSV file or a
    directory of them."""
    return load_with_stats(path, rejects, limit)[0]
