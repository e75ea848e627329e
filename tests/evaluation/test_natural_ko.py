"""The natural Korean question set: file checks, gold resolved from document fields, scoring."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from yaksa.corpus.document import Document
from yaksa.evaluation.goldsets import GoldsetError
from yaksa.evaluation.natural_ko import (
    Hit,
    NaturalQuestion,
    evaluate_natural,
    load_questions,
    markdown,
    product_fields,
    resolve_gold,
    score_question,
)
from yaksa.evaluation.suite import is_held_out


def test_question_file_covers_what_people_ask() -> None:
    qs = load_questions()
    assert len(qs) >= 200
    kinds = Counter(q.kind for q in qs)
    assert all(kinds[k] >= 10 for k in ("product", "ingredient", "brand", "symptom"))
    assert set(Counter(q.intent for q in qs)) == {"efficacy", "usage", "precautions", "interactions",
                                                   "side_effects", "storage"}
    held = sum(is_held_out(q.qid) for q in qs)
    assert 0.35 < held / len(qs) < 0.65
    assert any("?" in q.question for q in qs) and any("?" not in q.question for q in qs)


def test_every_gold_resolves_from_document_fields(mfds_documents: list[Document]) -> None:
    products = product_fields(mfds_documents)
    empty = [q.qid for q in load_questions() if not resolve_gold(q, products)]
    assert empty == ["nko-231", "nko-232", "nko-233"]  # the abstain questions: no product in the data


def test_gold_per_target_kind(mfds_documents: list[Document]) -> None:
    products = product_fields(mfds_documents)
    bru = resolve_gold(NaturalQuestion("x", "부루펜 시럽", "product", ("부루펜",), "usage"), products)
    assert {products[s].name for s in bru} == {"부루펜정200밀리그램", "부루펜정400밀리그램", "어린이부루펜시럽"}
    tylenol = resolve_gold(NaturalQuestion("x", "타이레놀", "brand", ("타이레놀",), "usage"), products)
    assert tylenol and all("아세트아미노펜" in products[s].name + products[s].ingredient for s in tylenol)
    headache = resolve_gold(NaturalQuestion("x", "머리", "symptom", ("두통",), "efficacy"), products)
    assert headache and all("두통" in products[s].efficacy for s in headache)


def test_scoring() -> None:
    q = NaturalQuestion("x", "q", "symptom", ("두통",), "usage")
    hits = [Hit("1", "usage"), Hit("2", "efficacy"), Hit("9", "usage"), Hit("1", "efficacy"), Hit("2", "usage")]
    row = score_question(q, frozenset({"1", "2"}), hits, k=5)
    assert row == {"first_ok": 1.0, "share": 0.8, "intent_ok": 1.0, "p@5": 0.8}
    assert score_question(q, frozenset(), [], k=5) == {"abstain_ok": 1.0}
    assert score_question(q, frozenset(), hits, k=5) == {"abstain_ok": 0.0}


def test_evaluate_natural_reports_both_halves(mfds_documents: list[Document]) -> None:
    qs = load_questions()[:40]
    first = next(d for d in mfds_documents if d.metadata["section_key"] == "usage")

    def search(_q: str) -> list[Hit]:
        return [Hit(first.metadata["item_seq"], "usage")] * 5

    report = evaluate_natural(search, mfds_documents, is_held_out, k=5, questions=qs)
    assert report.held_out["n"] + report.tuning["n"] == 40
    assert 0.0 <= report.held_out["first_ok"] < 0.5
    assert "natural-ko (held-out)" in markdown(report)
    with pytest.raises(ValueError, match="k must be"):
        evaluate_natural(search, mfds_documents, is_held_out, k=3, questions=qs)


def test_malformed_file_names_the_line(tmp_path: Path) -> None:
    bad = tmp_path / "q.jsonl"
    bad.write_text('{"qid": "a", "question": "q", "target": {"drug": "x"}, "intent": "usage"}\n', "utf-8")
    with pytest.raises(GoldsetError, match=":1:"):
        load_questions(bad)
