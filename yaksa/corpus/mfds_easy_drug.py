"""MFDS e약은요 (의약품개요정보) → one `drugs` document per non-empty product section.

A pharmacist's question is usually about one aspect of one product ("타이레놀 부작용"), so each
section (효능효과, 용법용량, ...) is its own document: retrieval returns the side-effects text, not a
whole leaflet. Reads the CSV dump and the OpenAPI's JSON pages alike, so a full API dump drops in
next to (or instead of) the 500-item CSV.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, NamedTuple

from yaksa.corpus.document import Document, normalize_text
from yaksa.corpus.rawio import (
    LoadResult,
    SourceFormatError,
    has_bad_bytes,
    list_files,
    one_line,
    read_csv,
    read_json,
)
from yaksa.corpus.rejects import RejectLog

SOURCE = "mfds_easy_drug"


class Section(NamedTuple):
    key: str  # doc_id suffix and metadata["section_key"]
    label: str  # Document.section, and the CSV dump's column name
    api_field: str  # field in the OpenAPI's JSON items


SECTIONS: tuple[Section, ...] = (
    Section("efficacy", "효능효과", "efcyQesitm"),
    Section("usage", "용법용량", "useMethodQesitm"),
    Section("warning", "경고", "atpnWarnQesitm"),  # API only; the CSV dump has no 경고 column
    Section("precautions", "주의사항", "atpnQesitm"),
    Section("interactions", "상호작용", "intrcQesitm"),
    Section("side_effects", "부작용", "seQesitm"),
    Section("storage", "보관방법", "depositMethodQesitm"),
)
_CSV_IDENTITY = {"company": "업체명", "name": "제품명", "item_seq": "제품일련번호"}
_API_IDENTITY = {"company": "entpName", "name": "itemName", "item_seq": "itemSeq"}
_CSV_OPTIONAL = {"warning"}

# Only real HTML tag names: the text also contains Korean in angle brackets ("<포비돈요오드>").
_TAGS = r"(?:p|br|div|span|b|strong|i|em|u|sup|sub|font|table|thead|tbody|tr|td|th|ul|ol|li|h[1-6]|a|img|hr)"
_BLOCK_TAG = re.compile(r"<\s*/?\s*(?:p|br|div|tr|li|h[1-6]|hr)\b[^<>]*>", re.IGNORECASE)
_ANY_TAG = re.compile(rf"<\s*/?\s*{_TAGS}\b[^<>]*>", re.IGNORECASE)
# Trailing name annotations that are not ingredients: export/military-supply names.
_NOT_INGREDIENT = re.compile(r"수출|군납")


def clean_text(raw: Any) -> str:
    """Strip the HTML the API embeds (block tags become line breaks), unescape entities, normalise."""
    text = _BLOCK_TAG.sub("\n", str(raw or ""))
    text = _ANY_TAG.sub("", text)
    return normalize_text(html.unescape(text))


def split_product_name(name: str) -> tuple[str, str | None]:
    """"타이레놀정500밀리그람(아세트아미노펜)" → ("타이레놀정500밀리그람", "아세트아미노펜").

    Names carry trailing parenthesised groups: usually the ingredient, but also export and
    military-supply names ("(수출명:...)", "(수출용)"), which are skipped. Parentheses are matched
    with nesting, so "(글루타티온(환원형))" stays one ingredient.
    """
    rest, groups = name.strip(), []
    while rest.endswith(")"):
        depth, start = 0, -1
        for i in range(len(rest) - 1, -1, -1):
            depth += {")": 1, "(": -1}.get(rest[i], 0)
            if depth == 0:
                start = i
                break
        if start <= 0:  # unbalanced, or the whole name is parenthesised
            break
        groups.insert(0, rest[start + 1 : -1].strip())
        rest = rest[:start].rstrip()
    ingredients = [g for g in groups if g and not _NOT_INGREDIENT.search(g)]
    return rest, (ingredients[-1] if ingredients else None)


def _csv_products(file: Path, rejects: RejectLog) -> Iterator[tuple[int, dict[str, Any] | None]]:
    """(row, product) per CSV record; `None` after recording a reject for a malformed row."""
    rows = read_csv(file)
    if not rows:
        return
    header = [one_line(h) for h in rows[0]]
    wanted = dict(_CSV_IDENTITY) | {s.key: s.label for s in SECTIONS if s.key not in _CSV_OPTIONAL}
    missing = [col for col in wanted.values() if col not in header]
    if missing:
        raise SourceFormatError(f"{file}: header lacks column(s) {', '.join(missing)}; got {header}")
    columns = dict(_CSV_IDENTITY) | {s.key: s.label for s in SECTIONS if s.label in header}
    for row_no, row in enumerate(rows[1:], start=1):
        if not row:
            continue
        if len(row) != len(header):
            rejects.add(SOURCE, str(file), row_no, f"wrong column count: expected {len(header)}, got {len(row)}")
            yield row_no, None
        elif has_bad_bytes(row):
            rejects.add(SOURCE, str(file), row_no, "invalid UTF-8: undecodable bytes in row")
            yield row_no, None
        else:
            yield row_no, {key: row[header.index(col)] for key, col in columns.items()}


def _api_products(file: Path, rejects: RejectLog) -> Iterator[tuple[int, dict[str, Any] | None]]:
    """(item number, product) per item of an API JSON page (`{"body": {"items": [...]}}` or a bare
    list); a file that cannot be read is one reject at row 0."""
    data, error = read_json(file)
    items = data if isinstance(data, list) else ((data or {}).get("body") or {}).get("items")
    if error or not isinstance(items, list):
        header = data.get("header") if isinstance(data, dict) else None
        rejects.add(SOURCE, str(file), 0, error or f"not an API page: no body.items list (header: {header})")
        yield 0, None
        return
    fields = dict(_API_IDENTITY) | {s.key: s.api_field for s in SECTIONS}
    for row_no, item in enumerate(items, start=1):
        if not isinstance(item, dict):
            rejects.add(SOURCE, str(file), row_no, f"not an object: item is a JSON {type(item).__name__}")
            yield row_no, None
        else:
            yield row_no, {key: item.get(field) for key, field in fields.items()}


def _product_documents(
    product: dict[str, Any], pills: Mapping[str, dict] | None, result: LoadResult
) -> tuple[list[Document], str]:
    """The section documents of one product, or `([], reason)` when the product must be rejected."""
    item_seq = one_line(product["item_seq"])
    title = one_line(product["name"])
    if not item_seq:
        return [], "missing id: empty 제품일련번호/itemSeq"
    if not title:
        return [], f"missing product name: item_seq {item_seq}"
    product_name, ingredient = split_product_name(title)
    meta: dict[str, Any] = {
        "company": one_line(product["company"]),
        "item_seq": item_seq,
        "product_name": product_name,
        "ingredient": ingredient,
    }
    appearance = (pills or {}).get(item_seq)
    if appearance is not None:
        meta["appearance"] = dict(appearance)
    docs, empty = [], 0
    for section in SECTIONS:
        if section.key not in product:  # column absent from this file format, not an empty value
            continue
        text = clean_text(product[section.key])
        if not text:
            empty += 1
            continue
        docs.append(Document(
            doc_id=f"mfds:{item_seq}:{section.key}", collection="drugs", source=SOURCE,
            title=title, section=section.label, text=text, lang="ko",
            metadata={**meta, "section_key": section.key},
        ))
    if not docs:
        return [], f"no non-empty section: item_seq {item_seq} ({title})"
    result.bump("empty_sections", empty)
    result.bump("pill_matches", int(appearance is not None))
    return docs, ""


def load_with_stats(
    path: Path, rejects: RejectLog, limit: int = 0, pills: Mapping[str, dict] | None = None
) -> LoadResult:
    """Documents plus counts: `records` = product rows read; `stats` has `empty_sections` (skipped
    empty sections, not rejects: 217 products in the dump legitimately lack 상호작용) and
    `pill_matches` (products that got `metadata["appearance"]` from the 낱알식별 table)."""
    result = LoadResult(stats={"empty_sections": 0, "pill_matches": 0})
    for file in list_files(path, ("*.csv", "*.json")):
        products = _api_products(file, rejects) if file.suffix.lower() == ".json" else _csv_products(file, rejects)
        for row_no, product in products:
            result.records += 1
            if product is not None:
                docs, reason = _product_documents(product, pills, result)
                if reason:
                    rejects.add(SOURCE, str(file), row_no, reason)
                for doc in docs:
                    result.add(doc, str(file), row_no)
            if limit and result.records >= limit:  # checked before the generator reads another row
                return result
    return result


def load(
    path: Path, rejects: RejectLog, limit: int = 0, pills: Mapping[str, dict] | None = None
) -> list[Document]:
    """Section documents from a CSV dump, API JSON pages, or a directory holding either."""
    return load_with_stats(path, rejects, limit, pills).documents
