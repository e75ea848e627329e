import json
from pathlib import Path

import pytest

from yaksa.scope.training_data import FAMILIES, SOURCES, family, load_training_texts


def _write(path: Path, rows: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n", "utf-8")


def _raw(tmp_path: Path) -> Path:
    rq = tmp_path / "real-questions"
    _write(rq / "oos_ko.jsonl", [
        {"id": f"o{i}", "question": f"체스에서 캐슬링 규칙 {i}번은?", "source": "KorQuAD 1.0 dev (x)"} for i in range(6)])
    _write(rq / "med_ko.jsonl", [
        {"id": "d1", "question": "항문압 측정 검사에서 증가하는 경우는?", "subject": "doctor", "source": "K", "answer": "a"}])
    _write(rq / "posts_ko.jsonl", [
        {"id": "hidoc-1", "question": "아이가 열이 나요 해열제 먹여도 되나요", "source": "hidoc.co.kr crawl", "title": ""}])
    return tmp_path


def test_sources_labels_and_split(tmp_path: Path) -> None:
    texts = load_training_texts(_raw(tmp_path))
    by_source = {t.source for t in texts}
    assert {"korquad", "kormedmcqa_doctor", "hidoc", "yaksa_in", "yaksa_out"} <= by_source
    assert all(t.source in SOURCES for t in texts)
    assert not any(t.in_scope for t in texts if t.source == "korquad")
    assert all(t.in_scope for t in texts if t.source in ("hidoc", "kormedmcqa_doctor"))
    assert {t.held_out for t in texts} == {True, False}


def test_limit_is_per_source_and_half(tmp_path: Path) -> None:
    texts = load_training_texts(_raw(tmp_path), limit_per_source=1, seed=3)
    for source in {t.source for t in texts}:
        for half in (True, False):
            assert sum(t.source == source and t.held_out == half for t in texts) <= 1
    assert texts == load_training_texts(_raw(tmp_path), limit_per_source=1, seed=3)  # seeded


@pytest.mark.parametrize(("row", "message"), [
    ({"id": "x", "question": "간호 문제", "subject": "nurse", "source": "K", "answer": "a"}, "reserved"),
    ({"id": "x", "question": "", "subject": "doctor", "source": "K", "answer": "a"}, "question"),
])
def test_reserved_and_malformed_rows_name_the_line(tmp_path: Path, row: dict, message: str) -> None:
    _write(tmp_path / "real-questions" / "med_ko.jsonl", [row])
    with pytest.raises(ValueError, match=rf"med_ko.jsonl:1: .*{message}"):
        load_training_texts(tmp_path)


def test_reserved_source_names_are_refused(tmp_path: Path) -> None:
    _write(tmp_path / "real-questions" / "oos_ko.jsonl",
           [{"id": "k", "question": "질문?", "source": "KoBEST BoolQ copy"}])
    with pytest.raises(ValueError, match="reserved"):
        load_training_texts(tmp_path)


def test_families_name_known_sources_and_default_to_the_source() -> None:
    assert family("question_pair") == family("chatbot_data") == "chatbot_data"
    assert family("3i4k") == "3i4k" and family("hidoc") == "hidoc"
    assert all(s in SOURCES and f in SOURCES and SOURCES[s] == SOURCES[f] for s, f in FAMILIES.items())
