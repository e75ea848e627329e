from __future__ import annotations

import re
from collections import Counter

from yaksa.memory.style import SAFETY_SENTENCE, vary_style

ANSWER = (
    "타이레놀(아세트아미노펜)은 1회 500 mg, 하루 4,000 mg을 넘지 않게 복용합니다 [문서 1]. "
    "또한 음주 후에는 간 손상 위험이 커집니다 [문서 2]. 따라서 술과 함께 드시지 마세요. "
    "하지만 일반적으로 4~6시간 간격이면 괜찮습니다 [문서 1]. 특히 게보린과 같이 드시면 성분이 겹칠 수 있습니다. "
    "예를 들어 그리고정처럼 이름에 접속사가 든 약도 바뀌면 안 됩니다. " + SAFETY_SENTENCE + "."
)
DRUGS = ["타이레놀", "아세트아미노펜", "게보린", "그리고정"]


def invariants(text: str) -> tuple[list[str], list[str], Counter[str], int]:
    return (re.findall(r"\d[\d.,~]*", text), re.findall(r"\[문서 \d+\]", text),
            Counter({d: text.count(d) for d in DRUGS}), text.count(SAFETY_SENTENCE))


def test_numbers_citations_drug_names_and_safety_sentence_never_change() -> None:
    outputs = {vary_style(ANSWER, seed=f"질문 {i}", protected=DRUGS) for i in range(40)}
    assert len(outputs) > 1                          # it does reword
    for out in outputs:
        assert invariants(out) == invariants(ANSWER)


def test_same_seed_same_output_and_only_connectives_change() -> None:
    a = vary_style(ANSWER, seed="타이레놀 먹어도 돼요?", protected=DRUGS)
    assert a == vary_style(ANSWER, seed="타이레놀 먹어도 돼요?", protected=DRUGS)
    changed = {w for w in set(ANSWER.split()) ^ set(a.split())}
    allowed = {"또한", "그리고", "따라서", "그러므로", "하지만", "그러나", "예를", "들어", "예컨대",
               "일반적으로", "보통", "특히", "무엇보다"}
    assert changed <= allowed


def test_connectives_inside_words_are_left_alone() -> None:
    text = "복용하지만 보통의 경우 그리고정은 괜찮습니다."
    for i in range(20):
        out = vary_style(text, seed=str(i), protected=["그리고정"])
        assert "복용하지만" in out and "보통의" in out and "그리고정" in out
