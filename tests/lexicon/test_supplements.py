"""Supplements named by the names people use (`yaksa.lexicon.supplements`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from yaksa.lexicon.supplements import asks_about_a_supplement, named_supplements

SCOPE_QUESTIONS = Path(__file__).parents[2] / "yaksa" / "scope" / "questions"


@pytest.mark.parametrize(("text", "names"), [
    ("오메가3 먹어도 되나요?", ("오메가3",)),
    ("오메가-3랑 루테인 같이 먹어도 돼요?", ("오메가3", "루테인")),
    ("오메가 3 하루에 몇 알", ("오메가3",)),
    ("밀크시슬 간 수치 낮춰줘요?", ("밀크씨슬",)),
    ("프로틴 먹으면 신장에 안 좋나요?", ("단백질 보충제",)),
    ("단백질 파우더 공복에 먹어도 돼요?", ("단백질 보충제",)),
    ("코큐텐 혈압약이랑 먹어도 되나요", ("코엔자임Q10",)),
    ("타이레놀 먹어도 되나요?", ()),
    ("프로트린정 부작용", ()),          # naproxen's product, not 프로틴
    ("아이가 노니까 열이 나요", ()),    # 놀다, not noni
])
def test_names_as_people_write_them(text: str, names: tuple[str, ...]) -> None:
    assert named_supplements(text) == names


def test_asking_about_taking_one_by_name() -> None:
    assert asks_about_a_supplement("오메가3 먹어도 되나요?")
    assert asks_about_a_supplement("밀크씨슬 간에 좋나요?")
    assert asks_about_a_supplement("루테인 눈 건강에 진짜 효과 있나")
    assert not asks_about_a_supplement("홍삼 선물 세트 예쁜 거 추천")     # no taking, no effect
    assert not asks_about_a_supplement("화분 영양제 얼마나 자주 줘야 해?")  # 영양제 alone: plants' too


def test_none_of_our_out_of_scope_questions_asks_about_one() -> None:
    """Our own out-of-scope set (decoys naming 영양제 and 보충제 among them) never meets the scope rule."""
    texts = [json.loads(line)["text"] for path in sorted(SCOPE_QUESTIONS.glob("*.jsonl"))
             for line in path.read_text(encoding="utf-8").splitlines()
             if line.strip() and json.loads(line)["id"].startswith("oos:")]
    assert len(texts) > 300
    assert [t for t in texts if asks_about_a_supplement(t)] == []
