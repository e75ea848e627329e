"""Gold sets: real dev subsets resolve to existing documents, the Korean set reads naturally, the
out-of-scope set has no gold, and frozen sets round-trip with clear errors on bad lines."""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest

from yaksa.corpus import pubmedqa
from yaksa.corpus.document import Document
from yaksa.corpus.medquad import doc_id_for
from yaksa.corpus.rawio import iter_jsonl
from yaksa.corpus.rejects import RejectLog
from yaksa.evaluation.goldsets import (
    GoldQuestion,
    GoldsetError,
    load_goldset,
    medquad_dev,
    pubmedqa_dev,
    restrict_to_corpus,
    save_goldset,
)
from yaksa.evaluation.korean import brand_name, has_batchim, is_oral, josa, mfds_korean, section_question
from yaksa.evaluation.oos import out_of_scope_ko_en


def _write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    return path


# --- English dev sets --------------------------------------------------------------------------

def test_medquad_dev_golds_exist_in_passages(shared_data: Callable[[str], Path]) -> None:
    passages = shared_data("medquad/passages.jsonl")
    ids = {doc_id_for(rec["qid"], rec["focus"]) for _n, rec, _e in iter_jsonl(passages) if rec}
    questions = medquad_dev(shared_data("medquad/dev_questions.jsonl"), limit=400, passages=passages)
    assert len(questions) == 400
    assert all(q.gold and q.gold <= ids for q in questions)
    assert len({q.qid for q in questions}) == 400
    first = questions[0]
    assert first.gold == {"medquad:0000001_1-1:Adult-Acute-Lymphoblastic-Leukemia"}
    assert (first.lang, first.kind) == ("en", "medquad")
    # 0000006_5-2's listed duplicate 0000006_9-2 is filed under another focus: not a twin
    glioma = next(q for q in questions if q.qid.startswith("medquad:0000006_5-2:"))
    assert glioma.gold == {doc_id_for("0000006_5-2", "Childhood Brain Stem Glioma")}


def test_medquad_twins_need_same_focus_and_text(tmp_path: Path) -> None:
    passages = _write_jsonl(tmp_path / "passages.jsonl", [
        {"qid": "A", "focus": "Flu", "answer": "same text"},
        {"qid": "B", "focus": "Flu", "answer": "same  text\u00a0"},  # equal after normalisation: a twin
        {"qid": "C", "focus": "Cold", "answer": "same text"},  # same text, other topic
        {"qid": "D", "focus": "Flu", "answer": "other text"},  # same focus, other text
    ])
    dev = _write_jsonl(tmp_path / "dev.jsonl", [
        {"qid": "A", "question": "What is flu?", "gold_doc": "A", "focus": "Flu", "gold_docs": ["A", "C", "D"]},
        {"qid": "Z", "question": "Who gets flu?", "gold_doc": "Z", "focus": "Flu", "gold_docs": ["Z"]},
    ])
    with pytest.raises(GoldsetError, match=r"dev\.jsonl:2: gold passage \(Z, Flu\) not in"):
        medquad_dev(dev, passages=passages)
    (q,) = medquad_dev(dev, limit=1, passages=passages)
    assert q.gold == {"medquad:A:Flu", "medquad:B:Flu"}
    (q,) = medquad_dev(dev, limit=1)  # without passages only gold_doc is used
    assert q.gold == {"medquad:A:Flu"}
    # against a de-duplicated corpus that kept B only, the gold is B alone
    (kept,) = restrict_to_corpus(medquad_dev(dev, limit=1, passages=passages), {"medquad:B:Flu", "x"})
    assert kept.gold == {"medquad:B:Flu"}
    oos = GoldQuestion(qid="o", question="hi", gold=frozenset(), lang="en", kind="oos")
    assert restrict_to_corpus([q, oos], {"x"}) == [oos]  # no gold left → dropped; OOS kept


def test_medquad_full_dev_reaches_the_built_corpus(shared_data: Callable[[str], Path]) -> None:
    """With twins, every dev question has exactly one gold in a corpus built by the ingest stage."""
    import pyarrow.parquet as pq

    built = Path(__file__).resolve().parents[2] / "data" / "processed" / "documents.parquet"
    if not built.is_file():
        pytest.skip(f"full build not available: {built}")
    ids = pq.read_table(built, columns=["doc_id"]).column(0).to_pylist()
    questions = medquad_dev(shared_data("medquad/dev_questions.jsonl"),
                            passages=shared_data("medquad/passages.jsonl"))
    restricted = restrict_to_corpus(questions, ids)
    assert len(restricted) == len(questions) == 3000
    assert all(len(q.gold) == 1 for q in restricted)


def test_pubmedqa_dev_golds_exist_in_abstracts(shared_data: Callable[[str], Path]) -> None:
    docs = pubmedqa.load(shared_data("pubmedqa/abstracts.jsonl"), RejectLog())
    ids = {d.doc_id for d in docs}
    questions = pubmedqa_dev(shared_data("pubmedqa/dev_questions.jsonl"), limit=100)
    assert len(questions) == 100
    assert all(len(q.gold) == 1 and q.gold <= ids for q in questions)
    assert questions[0].gold == {f"pubmed:{questions[0].qid.split(':')[1]}"}


def test_dev_file_errors_name_file_and_line(tmp_path: Path) -> None:
    dev = tmp_path / "dev.jsonl"
    dev.write_text('{"pmid": "1", "question": "q?"}\n{"pmid": "2"}\n', "utf-8")
    with pytest.raises(GoldsetError, match=r"dev\.jsonl:2: missing or empty field 'question'"):
        pubmedqa_dev(dev)
    with pytest.raises(GoldsetError, match="file not found"):
        medquad_dev(tmp_path / "nope.jsonl")


# --- Korean particles and templates -------------------------------------------------------------

@pytest.mark.parametrize(("word", "closed"), [
    ("펜잘정", True), ("타이레놀", True), ("게보린", True), ("활명수", False), ("베아제", False),
    ("비타500", True), ("비타B", False), ("콜대원L", True),
])
def test_has_batchim(word: str, closed: bool) -> None:
    assert has_batchim(word) is closed


def test_josa() -> None:
    assert josa("펜잘정", "은/는") == "펜잘정은"
    assert josa("활명수", "은/는") == "활명수는"
    assert josa("활명수", "이/가") == "활명수가"
    assert josa("게보린", "이랑/랑") == "게보린이랑"
    assert josa("베아제", "을/를") == "베아제를"
    with pytest.raises(ValueError, match="empty word"):
        josa("", "은/는")


def test_brand_name_and_form() -> None:
    assert brand_name("타이레놀정500밀리그람") == "타이레놀정"
    assert brand_name("우루사100밀리그램연질캡슐") == "우루사연질캡슐"
    assert brand_name("오라메디연고{수출명:오라메디파스타(ORAMEDYPASTE)}") == "오라메디연고"
    assert brand_name("비타500") == "비타500"
    assert is_oral("겔포스현탁액") and is_oral("펜잘정") and is_oral("활명수")
    assert not is_oral("세나서트질정") and not is_oral("신신티눈고") and not is_oral("후시딘연고")
    # the form comes before the strength in most names
    assert is_oral("부루펜정200밀리그램") and is_oral("리나치올시럽5%") and is_oral("우루사100밀리그램연질캡슐")
    assert not is_oral("후시딘연고10그램") and not is_oral("케토톱플라스타 30mg")
    assert section_question("후시딘연고", "usage") == "후시딘연고는 어떻게 사용해야 하나요?"
    with pytest.raises(ValueError, match="no question template"):
        section_question("펜잘정", "price")


def test_mfds_korean_on_hand_made_documents(tiny_drugs: list[Document]) -> None:
    questions = {q.qid: q for q in mfds_korean(tiny_drugs)}
    assert questions["mfds-ko:1:efficacy"].question == "펜잘정은 어디에 쓰는 약인가요?"
    assert questions["mfds-ko:2:interactions"].question == "둘코락스에스장용정이랑 같이 먹으면 안 되는 약이 있나요?"
    assert questions["mfds-ko:1:storage"].gold == {"mfds:1:storage"}
    # two strengths share "타이레놀정", so the full product name keeps the question unambiguous
    assert questions["mfds-ko:3:efficacy"].question == "타이레놀정500밀리그람은 어디에 쓰는 약인가요?"
    assert "mfds-ko:1:interactions" not in questions  # 펜잘정 has no interactions section
    symptoms = {q.question: q.gold for q in questions.values() if q.kind == "symptom"}
    assert symptoms["두통에 먹는 약 추천해 주세요"] == {"mfds:1:efficacy", "mfds:3:efficacy"}  # not pubmed:1
    assert symptoms["변비가 있을 때 먹는 약 추천해 주세요"] == {"mfds:2:efficacy"}
    assert not any("멀미" in text for text in symptoms)  # no gold → skipped
    with pytest.raises(ValueError, match="no MFDS"):
        mfds_korean(tiny_drugs[-1:])


_PARTICLE = re.compile(r"^(.+?)(은|는|이랑|랑|을|를) ")


def test_mfds_korean_on_real_documents(mfds_documents: list[Document]) -> None:
    questions = mfds_korean(mfds_documents, seed=13, per_kind=40)
    by_id = {d.doc_id: d for d in mfds_documents}
    kinds = Counter(q.kind for q in questions)
    assert all(kinds[k] == 40 for k in ("efficacy", "usage", "precautions", "side_effects", "storage"))
    assert kinds["symptom"] >= 20
    assert len({q.qid for q in questions}) == len(questions)
    for q in questions:
        assert q.gold and q.gold <= by_id.keys() and q.lang == "ko"
        if q.kind == "symptom":
            assert all(by_id[g].metadata["section_key"] == "efficacy" for g in q.gold)
            continue
        (gold,) = q.gold
        assert by_id[gold].metadata["section_key"] == q.kind
        assert brand_name(by_id[gold].metadata["product_name"]) in q.question or \
            by_id[gold].metadata["product_name"] in q.question
        assert "None" not in q.question and "{" not in q.question and q.question.endswith("?")
        match = _PARTICLE.match(q.question)
        if match:  # the particle agrees with the name's final sound
            name, particle = match.groups()
            assert particle in (("은", "이랑", "을") if has_batchim(name) else ("는", "랑", "를")), q.question
    assert mfds_korean(mfds_documents, seed=13) == questions  # deterministic
    assert mfds_korean(mfds_documents, seed=14) != questions


# --- out of scope and persistence ---------------------------------------------------------------

def test_out_of_scope_set() -> None:
    questions = out_of_scope_ko_en()
    assert len(questions) >= 40
    assert all(q.gold == frozenset() and q.kind == "oos" for q in questions)
    assert sum(q.lang == "en" for q in questions) >= 10
    assert len({q.qid for q in questions}) == len({q.question for q in questions}) == len(questions)
    texts = {q.question for q in questions}
    assert {"삼성전자 주가 알려줘", "파이썬 리스트 정렬 방법", "ㅋㅋㅋ", "MRI 예약은 어떻게 하나요"} <= texts


def test_goldset_round_trip(tmp_path: Path, tiny_drugs: list[Document]) -> None:
    questions = mfds_korean(tiny_drugs) + out_of_scope_ko_en()
    path = tmp_path / "goldsets" / "ko.jsonl"
    save_goldset(path, questions)
    assert load_goldset(path) == questions
    assert "펜잘정은" in path.read_text("utf-8")  # Korean stays readable in the frozen file
    with pytest.raises(GoldsetError, match="duplicate qid"):
        save_goldset(path, questions[:1] * 2)


@pytest.mark.parametrize(("line", "message"), [
    ("{not json", "malformed JSON"),
    ('{"qid": "q", "question": "x", "gold": "d1", "lang": "ko", "kind": "efficacy"}', "'gold' must be a list"),
    ('{"qid": "q", "question": "x", "gold": [], "lang": "ko", "kind": "efficacy"}', "empty gold"),
    ('{"qid": "q", "gold": ["d"], "lang": "ko", "kind": "efficacy"}', "field 'question'"),
])
def test_load_goldset_names_the_bad_line(tmp_path: Path, line: str, message: str) -> None:
    path = tmp_path / "set.jsonl"
    good = GoldQuestion(qid="ok", question="q", gold=frozenset({"d"}), lang="en", kind="t")
    save_goldset(path, [good])
    path.write_text(path.read_text("utf-8") + "\n" + line + "\n", "utf-8")
    with pytest.raises(GoldsetError, match=rf"set\.jsonl:3: .*{re.escape(message)}"):
        load_goldset(path)
