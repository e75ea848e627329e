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


def test_a_childs_age_is_read_once_for_the_search_and_the_answer(make_runner: Callable[..., AgentRunner],
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """The retrieve node reads the child's age (`age_limits.conversation_months`) and hands it to the answer: the
    offline answer and the LLM prompt do not read it again."""
    import yaksa.llm.offline.age_limits as age_limits_module

    reads: list[str] = []
    real = age_limits_module.conversation_months

    def counting(question: str, *args, **kwargs):
        reads.append(question)
        return real(question, *args, **kwargs)

    # every reader goes through `ChildAge.of_turn`, which reads it only when none was handed down
    monkeypatch.setattr(age_limits_module, "conversation_months", counting)
    result = make_runner().run("5살 아이가 열이 나요 해열제 얼마나 먹여요?", "age-once-user")
    assert not result.blocked and result.citations
    assert len(reads) == 1, reads


def test_a_resolved_follow_up_keeps_the_messages_watch_signs() -> None:
    """A follow-up resolved to a standalone question is judged, for the red flag and the watch signs, by what the
    user wrote: the rewrite may carry the last turn's fever."""
    from yaksa.agent.analysis import TurnAnalysis

    message = TurnAnalysis("하루에 몇 번까지 돼요?", None, None)  # type: ignore[arg-type]
    resolved = message.for_question("4개월 아기가 열이 38.5도예요 해열제 하루에 몇 번까지 돼요?")
    assert message.watch_rules is None and resolved.watch_rules is None
    feverish = TurnAnalysis("4개월 아기가 열이 38.5도예요 해열제 먹여도 되나요?", None, None)  # type: ignore[arg-type]
    assert feverish.watch_rules and feverish.for_question("해열제 먹여도 되나요?").watch_rules == feverish.watch_rules
