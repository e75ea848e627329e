"""Fixtures for the tokenizer tests: hand-built drug Documents, real MFDS rows, shared tokenizers.

Kiwi takes ~1.5 s to load and again to rebuild after user words are added, so tokenizers are built
once per session.
"""

from __future__ import annotations

import csv
from collections.abc import Callable
from pathlib import Path

import pytest

from yaksa.config import TokenizerParams
from yaksa.corpus.document import Document, normalize_text
from yaksa.text.kiwi import KiwiTokenizer
from yaksa.text.userdict import UserWord, build_user_words, write_userdict

SHARED_DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data"
MFDS_CSV = SHARED_DATA / "mfds-easy-drug-500" / "drug500_data.csv"
MEDQUAD = SHARED_DATA / "medquad" / "passages.jsonl"
SECTIONS = ("효능효과", "용법용량", "주의사항", "상호작용", "부작용", "보관방법")

POS_FILTER = TokenizerParams().pos_filter


def split_product(title: str) -> tuple[str, str]:
    """'타치온정50밀리그램(글루타티온(환원형))' → ('타치온정50밀리그램', '글루타티온(환원형)')."""
    head, sep, rest = title.partition("(")
    if not sep:
        return title, ""
    depth, inner = 1, []
    for ch in rest:
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if depth == 0:
            break
        inner.append(ch)
    return head, "".join(inner)


@pytest.fixture(scope="session")
def make_drug_doc() -> Callable[..., Document]:
    def make(product_name: str, ingredient: str = "", section: str = "효능효과", text: str = "",
             collection: str = "drugs") -> Document:  # fmt: skip
        title = f"{product_name}({ingredient})" if ingredient else product_name
        return Document(
            doc_id=f"test:{product_name}:{section}", collection=collection, source="test", title=title,
            section=section, text=text or f"{product_name}의 {section}", lang="ko",
            metadata={"product_name": product_name, "ingredient": ingredient},
        )  # fmt: skip

    return make


@pytest.fixture(scope="session")
def drug_docs(make_drug_doc: Callable[..., Document]) -> list[Document]:
    """MFDS-shaped documents, including the forms the brand-stem rules must handle."""
    return [
        make_drug_doc("타이레놀정500밀리그람", "아세트아미노펜", text="두통, 발열에 사용합니다."),
        make_drug_doc("타이레놀정500밀리그람", "아세트아미노펜", section="부작용", text="간 손상"),
        make_drug_doc("대웅우루사연질캡슐", "우르소데옥시콜산"),
        make_drug_doc("로프민캡슐", "로페라미드염산염"),
        make_drug_doc("신일트리메부틴말레산염정", "트리메부틴말레산염"),
        make_drug_doc("판콜에이내복액", "아세트아미노펜, 카페인무수물"),
        make_drug_doc("겔포스현탁액", "인산알루미늄겔"),
    ]


@pytest.fixture(scope="session")
def mfds_rows() -> list[dict[str, str]]:
    if not MFDS_CSV.is_file():
        pytest.skip(f"shared MFDS data not found at {MFDS_CSV}")
    with MFDS_CSV.open(encoding="utf-8-sig", newline="") as fh:
        return list(csv.DictReader(fh))


@pytest.fixture(scope="session")
def mfds_documents(mfds_rows: list[dict[str, str]]) -> list[Document]:
    """Real MFDS sections as Documents, built here rather than by the corpus adapter under test elsewhere."""
    docs = []
    for row in mfds_rows:
        title = normalize_text(row["제품명"])
        product, ingredient = split_product(title)
        for section in SECTIONS:
            text = normalize_text(row[section] or "")
            if text:
                docs.append(Document(
                    doc_id=f"mfds:{row['제품일련번호']}:{section}", collection="drugs", source="mfds",
                    title=title, section=section, text=text, lang="ko",
                    metadata={"product_name": product, "ingredient": ingredient},
                ))  # fmt: skip
    return docs


@pytest.fixture(scope="session")
def medquad_passages() -> list[str]:
    if not MEDQUAD.is_file():
        pytest.skip(f"shared MedQuAD data not found at {MEDQUAD}")
    import json

    with MEDQUAD.open(encoding="utf-8") as fh:
        return [json.loads(line)["answer"] for _, line in zip(range(300), fh)]


@pytest.fixture(scope="session")
def drug_userdict(tmp_path_factory: pytest.TempPathFactory, drug_docs: list[Document]) -> Path:
    path = tmp_path_factory.mktemp("userdict") / "userdict.tsv"
    write_userdict(path, build_user_words(drug_docs) + [UserWord("두통")])
    return path


@pytest.fixture(scope="session")
def kiwi_plain() -> KiwiTokenizer:
    return KiwiTokenizer(POS_FILTER)


@pytest.fixture(scope="session")
def kiwi_dict(drug_userdict: Path) -> KiwiTokenizer:
    return KiwiTokenizer(POS_FILTER, drug_userdict)
