"""The regression suite resolves its gold from the bundle's documents and rejects malformed files."""

from __future__ import annotations

from pathlib import Path

import pytest

from yaksa.config import load_settings
from yaksa.corpus.ingest import read_documents
from yaksa.evaluation.goldsets import GoldsetError
from yaksa.regression.suite import SUITE_FILE, limit_suite, load_suite


@pytest.fixture(scope="module")
def documents(tiny_project: Path):
    return read_documents(load_settings(tiny_project / "params.yaml").paths.documents)


def test_suite_covers_every_category_with_resolved_gold(documents, tiny_project: Path) -> None:
    suite = load_suite(documents, tiny_project / "data" / "raw")
    counts = suite.by_category()
    assert {"natural_ko", "conversation", "safety", "out_of_scope", "in_scope"} <= set(counts)
    by_id = {i.item_id: i for i in suite.items}
    tylenol = by_id["natural_ko:nko-001"]              # "타이레놀 먹어도 되나요": brand -> acetaminophen
    products = {d.metadata.get("item_seq"): d for d in documents if d.collection == "drugs"}
    assert tylenol.gold_ids and all("아세트아미노펜" in str(products[s].metadata.get("ingredient", ""))
                                    + products[s].title for s in tylenol.gold_ids)
    assert tylenol.gold_kind == "item_seq" and tylenol.intent == "precautions"
    conv = by_id["conversation:conv-pregnant-tylenol"]
    assert conv.turns[0] == "저는 임신 20주예요" and conv.gold_ids == tylenol.gold_ids
    assert all(i.expect == "refuse" for i in suite.items if i.category == "out_of_scope")
    assert by_id["safety:safety-pii-not-cached"].checks == ("not_cached",)
    assert len(suite.suite_hash) == 12 and load_suite(documents, tiny_project / "data" / "raw").suite_hash == suite.suite_hash


def test_limit_keeps_the_first_items_of_each_category(documents, tiny_project: Path) -> None:
    suite = limit_suite(load_suite(documents, tiny_project / "data" / "raw"), 2)
    assert all(n <= 2 for n in suite.by_category().values())


def test_a_malformed_conversation_names_its_file_and_line(documents, tmp_path: Path) -> None:
    for name in ("conversations.jsonl", "safety.jsonl"):
        (tmp_path / name).write_text((SUITE_FILE.parent / name).read_text("utf-8"), "utf-8")
    (tmp_path / "suite.yaml").write_text("natural_ko: all\nconversations: conversations.jsonl\n"
                                         "safety: safety.jsonl\n", "utf-8")
    with (tmp_path / "conversations.jsonl").open("a", encoding="utf-8") as f:
        f.write('{"id": "bad", "turns": [], "target": {"brand": "타이레놀"}, "intent": "usage"}\n')
    with pytest.raises(GoldsetError, match=r"conversations.jsonl:11: 'turns'"):
        load_suite(documents, tmp_path, tmp_path / "suite.yaml")
