from __future__ import annotations

import pytest

from yaksa.agent.strategies import BasicRAG, CorrectiveRAG, jaccard, make_strategy
from yaksa.config import AgentParams

CRAG = CorrectiveRAG(quality_threshold=0.5, max_iterations=3, duplicate_jaccard=0.8, min_improvement=0.05)


def test_quality_reached_stops_first() -> None:
    assert CRAG.stop_reason([0.62], [["a", "b"]]) == "quality"


def test_low_score_after_one_round_retries() -> None:
    assert CRAG.stop_reason([0.3], [["a", "b"]]) is None


def test_duplicate_documents_stop() -> None:
    # 4 shared of 5 distinct ids: Jaccard 0.8
    assert jaccard(["a", "b", "c", "d"], ["a", "b", "c", "d", "e"]) == 0.8
    assert CRAG.stop_reason([0.3, 0.45], [["a", "b", "c", "d"], ["a", "b", "c", "d", "e"]]) == "duplicate_docs"


def test_small_improvement_stops() -> None:
    assert CRAG.stop_reason([0.30, 0.34], [["a"], ["b"]]) == "no_improvement"


def test_max_iterations_stops() -> None:
    assert CRAG.stop_reason([0.1, 0.2, 0.3], [["a"], ["b"], ["c"]]) == "max_iterations"
    assert CRAG.stop_reason([0.1, 0.2], [["a"], ["b"]]) is None


def test_basic_is_one_pass_and_factory_checks_names() -> None:
    assert BasicRAG().stop_reason([0.1], [["a"]]) == "single_pass"
    params = AgentParams()
    assert make_strategy("crag", params).max_iterations == params.max_iterations
    with pytest.raises(ValueError, match="unknown refine_strategy"):
        make_strategy("magic", params)
