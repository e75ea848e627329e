"""Hand-made documents (a few MFDS products and MedQuAD questions) and one MedCAT pack built from
them, shared by the extraction tests."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from yaksa.corpus.document import Document
from yaksa.corpus.ingest import DOCUMENT_SCHEMA


def _drug(item_seq: str, product: str, ingredient: str | None) -> Document:
    meta = {"company": "테스트제약", "ingredient": ingredient, "item_seq": item_seq,
            "product_name": product, "section_key": "efficacy"}
    return Document(f"mfds:{item_seq}:efficacy", "drugs", "mfds_easy_drug", product, "효능효과",
                    "이 약은 두통, 치통, 생리통에 사용합니다.", "ko", meta)


def _question(qid: str, focus: str, cuis: list[str], group: str | None) -> Document:
    meta = {"cuis": cuis, "focus": focus, "qid": qid, "qtype": "information", "semantic_group": group}
    return Document(f"medquad:{qid}", "health", "medquad", focus, "information", f"What is {focus}?", "en", meta)


DOCUMENTS = [
    _drug("200001", "타이레놀정500밀리그람", "아세트아미노펜"),
    _drug("200002", "타이레놀정160밀리그람", "아세트아미노펜"),
    _drug("200003", "고려아시클로버크림(아시클로버)", None),
    _drug("200004", "낙센정275밀리그램", "나프록센나트륨"),
    _drug("200005", "판콜에스내복액", None),
    _question("0001-1", "High Blood Pressure", ["C0020538"], "Disorders"),
    _question("0001-2", "High Blood Pressure", ["C0020538"], "Disorders"),
    _question("0002-1", "Hypertension (High Blood Pressure)", ["C0020538"], "Disorders"),
    _question("0003-1", "Diabetes", ["C0011849", "C0011860"], "Disorders"),
    _question("0004-1", "A1C", [], None),
    _question("0005-1", "Acupuncture", ["C0394664"], None),
]


def write_documents(path: Path) -> Path:
    rows = [doc.to_row() for doc in DOCUMENTS]
    pq.write_table(pa.Table.from_pylist(rows, DOCUMENT_SCHEMA), path)
    return path


@pytest.fixture(scope="session")
def built_concepts(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    """(out_dir, counts) of `build_concepts` over the hand-made documents."""
    from yaksa.extraction.build import build_concepts

    root = tmp_path_factory.mktemp("extraction")
    counts = build_concepts(write_documents(root / "documents.parquet"), root / "out")
    return root / "out", counts


@pytest.fixture(scope="session")
def korean_medcat(built_concepts: tuple[Path, dict]):
    from yaksa.extraction.medcat_ko import load_pack

    return load_pack(built_concepts[0] / "pack")
