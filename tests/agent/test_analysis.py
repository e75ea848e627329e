"""One analysis per turn: the slot extractor and the focus run once for a question, whatever reads them."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator

import pytest

import yaksa.lexicon.focus as focus_module
from yaksa.agent.runner import AgentRunner
from yaksa.extraction.extractor import SlotExtractor
from yaksa.retrieval.searcher import Searcher


@pytest.fixture()
def calls(monkeypatch: pytest.MonkeyPatch) -> Iterator[Counter[str]]:
    """Counts of SlotExtractor.extract, Searcher.focus_of and the focus analysis itself, by text."""
    counts: Counter[str] = Counter()
    extract, focus_of, analyse = SlotExtractor.extract, Searcher.focus_of, focus_module.analyse

    def counting_extract(self: SlotExtractor, text: str):
        counts[f"extract:{text}"] += 1
        return extract(self, text)

    def counting_focus_of(self: Searcher, query: str):
        counts[f"focus_of:{query}"] += 1
        return focus_of(self, query)

    def counting_analyse(query: str, *args, **kwargs):
        counts[f"analyse:{query}"] += 1
        return analyse(query, *args, **kwargs)

    monkeypatch.setattr(SlotExtractor, "extract", counting_extract)
    monkeypatch.setattr(Searcher, "focus_of", counting_focus_of)
    monkeypatch.setattr(focus_module, "analyse", counting_analyse)
    import yaksa.retrieval.searcher as searcher_module
    monkeypatch.setattr(searcher_module, "analyse", counting_analyse)
    yield counts


QUESTION = "두통이 있는데 타이레놀 먹어도 되나요?"


def test_a_question_is_extracted_and_focused_once(make_runner: Callable[..., AgentRunner],
                                                 calls: Counter[str]) -> None:
    result = make_runner().run(QUESTION, "analysis-user")
    assert not result.blocked and result.citations
    assert result.trace["cache"] == {"hit": False}   # the cache was looked up (and stored): it read the entities
    assert calls[f"extract:{QUESTION}"] == 1, calls
    assert calls[f"focus_of:{QUESTION}"] == 1, calls
    assert calls[f"analyse:{QUESTION}"] == 1, calls


def test_a_greeting_extracts_nothing(make_runner: Callable[..., AgentRunner], calls: Counter[str]) -> None:
    make_runner().run("안녕하세요", "analysis-user")
    assert not any(key.startswith(("extract:", "focus_of:", "analyse:")) for key in calls), calls
