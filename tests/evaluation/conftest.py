"""Fixtures for the evaluation tests: real shared-data subsets (skipped when absent) and tiny
hand-made MFDS documents whose questions and golds can be checked by eye."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from yaksa.corpus.document import Document


@pytest.fixture(scope="session")
def mfds_documents(shared_data: Callable[[str], Path]) -> list[Document]:
    """Every section document of the real 500-product e약은요 CSV (loads in well under a second)."""
    from yaksa.corpus import mfds_easy_drug
    from yaksa.corpus.rejects import RejectLog

    return mfds_easy_drug.load(shared_data("mfds-easy-drug-500"), RejectLog())


def _drug(seq: str, name: str, key: str, label: str, text: str) -> Document:
    return Document(
        doc_id=f"mfds:{seq}:{key}", collection="drugs", source="mfds_easy_drug", title=name,
        section=label, text=text, lang="ko",
        metadata={"item_seq": seq, "product_name": name, "ingredient": None, "section_key": key},
    )


@pytest.fixture()
def tiny_drugs() -> list[Document]:
    """Three products: 두통 appears in two efficacy texts, 변비 in one, 멀미 in none; 펜잘정 has no
    interactions section; two strengths of 타이레놀정 share a brand name."""
    return [
        _drug("1", "펜잘정", "efficacy", "효능효과", "이 약은 두통, 치통, 생리통에 사용합니다."),
        _drug("1", "펜잘정", "storage", "보관방법", "실온에서 보관하십시오."),
        _drug("2", "둘코락스에스장용정", "efficacy", "효능효과", "이 약은 변비에 사용합니다."),
        _drug("2", "둘코락스에스장용정", "interactions", "상호작용", "제산제와 함께 복용하지 마십시오."),
        _drug("3", "타이레놀정500밀리그람", "efficacy", "효능효과", "이 약은 두통, 발열에 사용합니다."),
        _drug("4", "타이레놀정160밀리그람", "storage", "보관방법", "습기를 피해 보관하십시오."),
        Document(doc_id="pubmed:1", collection="literature", source="pubmedqa", title="", section="abstract",
                 text="두통 headache trial", lang="en"),
    ]
