"""The real-post, exam and research categories: drawn by id from ../shared at run time (skipped with a
notice without it), and scored on not being refused, urgent advice first and citing a document."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import SHARED, shared_or_skip
from yaksa.config import load_settings
from yaksa.corpus.ingest import read_documents
from yaksa.evaluation.posts_eval import load_labels
from yaksa.llm.evidence import Citation
from yaksa.regression.metrics import ItemOutcome, score_item
from yaksa.regression.shared_items import shared_items
from yaksa.regression.suite import SuiteItem, load_suite

SPEC = {"real_posts": 20, "exam": 20, "research": 20}
DOC = Citation(1, "mfds:1:usage", "drugs", "세토펜정", "용법용량", "성인 1회 1정", 0.9, {"item_seq": "1"})
URGENT = "지금 바로 응급실로 가세요.\n\n세토펜정 (효능효과): 발열 [문서 1]"
PLAIN = "세토펜정 (효능효과): 발열 [문서 1]\n\n복용 전에 약사나 의사 등 전문가와 꼭 상담하세요."


def _outcome(answer: str, blocked: bool = False, intent: str = "question", cited: bool = True) -> ItemOutcome:
    return ItemOutcome(answer, [DOC] if cited else [], ["[문서 1] ..."] if cited else [], blocked, 10.0, 0,
                       {"intent": intent})


def test_the_three_categories_come_from_the_shared_folder() -> None:
    shared_or_skip("real-questions", "posts_ko.jsonl")
    shared_or_skip("real-questions", "med_ko.jsonl")
    shared_or_skip("pubmedqa", "dev_questions.jsonl")
    out = shared_items(SPEC, 7, SHARED, taken_pmids=())
    by_cat: dict[str, list] = {}
    for q in out.items:
        by_cat.setdefault(q.category, []).append(q)
    assert {c: len(v) for c, v in by_cat.items()} == {"real_post": 20, "exam": 20, "research": 20}
    assert sum(q.red_flag for q in by_cat["real_post"]) == 8 and not out.skipped
    held = {lb.id: lb for lb in load_labels() if lb.split == "held_out"}
    assert all(q.item_id.removeprefix("real_post:") in held for q in by_cat["real_post"])
    assert all(q.red_flag == held[q.item_id.removeprefix("real_post:")].red_flag for q in by_cat["real_post"])
    assert all(q.lang == "en" for q in by_cat["research"]) and all(q.text for q in out.items)
    again = shared_items(SPEC, 7, SHARED)
    assert [q.item_id for q in again.items] == [q.item_id for q in out.items]  # the seed fixes the draw
    taken = [q.item_id.rsplit(":", 1)[-1] for q in by_cat["research"]]
    other = shared_items({"research": 20}, 7, SHARED, taken_pmids=taken)
    assert not {q.item_id for q in other.items} & {q.item_id for q in by_cat["research"]}


def test_without_the_shared_folder_each_category_is_skipped_with_a_notice(tmp_path: Path) -> None:
    out = shared_items(SPEC, 7, None)
    assert not out.items and [n.split(":")[0] for n in out.skipped] == ["real_post", "exam", "research"]
    exam = tmp_path / "real-questions" / "med_ko.jsonl"
    exam.parent.mkdir()
    exam.write_text("".join(json.dumps({"id": f"made-up-{i}", "question": f"질문 {i}"}) + "\n" for i in range(3)),
                    "utf-8")
    partial = shared_items(SPEC, 7, tmp_path)
    assert sorted(q.item_id for q in partial.items) == ["exam:made-up-0", "exam:made-up-1", "exam:made-up-2"]
    assert [n.split(":")[0] for n in partial.skipped] == ["real_post", "research"]
    assert "never committed" in partial.skipped[0]


def test_load_suite_adds_them_when_given_the_shared_folder(tiny_project: Path) -> None:
    shared_or_skip("real-questions", "posts_ko.jsonl")
    documents = read_documents(load_settings(tiny_project / "params.yaml").paths.documents)
    raw = tiny_project / "data" / "raw"
    with_shared = load_suite(documents, raw, shared_dir=SHARED)
    counts = with_shared.by_category()
    assert counts["real_post"] == 20 and counts["exam"] == 20 and counts["research"] == 20
    assert sum(i.red_flag for i in with_shared.items) == 8
    without = load_suite(documents, raw)
    assert "real_post" not in without.by_category() and len(without.skipped) >= 3
    assert with_shared.suite_hash != without.suite_hash


@pytest.mark.parametrize(("answer", "expected"), [(URGENT, 1.0), (PLAIN, 0.0)])
def test_urgent_first_on_red_flag_posts(answer: str, expected: float) -> None:
    post = SuiteItem("real_post:p", "real_post", ("...",), red_flag=True)
    assert score_item(post, _outcome(answer), k=5)["urgent_first"] == expected
    assert "urgent_first" not in score_item(SuiteItem("real_post:q", "real_post", ("...",)), _outcome(URGENT), k=5)


def test_a_crisis_reply_to_a_real_post_is_help_not_a_refusal() -> None:
    post = SuiteItem("real_post:p", "real_post", ("...",), red_flag=True)
    crisis = _outcome("자살예방상담전화 109(24시간)에서 지금 바로", blocked=True, intent="crisis", cited=False)
    row = score_item(post, crisis, k=5)
    assert row["refusal_ok"] == 1.0 and row["urgent_first"] == 1.0 and "cites_document" not in row
    refused = score_item(post, _outcome("죄송합니다. 범위를 벗어나", blocked=True, intent="out_of_scope", cited=False),
                         k=5)
    assert refused["refusal_ok"] == 0.0 and "cites_document" not in refused
    exam = SuiteItem("exam:e", "exam", ("...",))
    assert score_item(exam, crisis, k=5)["refusal_ok"] == 0.0  # elsewhere a blocked turn stays a refusal


def test_cites_document_for_the_three_categories_only() -> None:
    for category in ("real_post", "exam", "research"):
        item = SuiteItem(f"{category}:x", category, ("...",))
        assert score_item(item, _outcome(PLAIN), k=5)["cites_document"] == 1.0
        assert score_item(item, _outcome("근거 없이 답합니다.", cited=False), k=5)["cites_document"] == 0.0
    assert "cites_document" not in score_item(SuiteItem("in_scope:x", "in_scope", ("...",)), _outcome(PLAIN), k=5)
