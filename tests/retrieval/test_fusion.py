from __future__ import annotations

import pytest

from yaksa.retrieval.fusion import rrf, weighted_fusion


def test_rrf_hand_computed_example() -> None:
    # k = 60, ranks 1-based:
    #   A: bm25 rank 1, dense rank 2 -> 1/61 + 1/62 = 0.016393 + 0.016129 = 0.032522
    #   C: bm25 rank 3, dense rank 1 -> 1/63 + 1/61 = 0.015873 + 0.016393 = 0.032266
    #   B: bm25 rank 2               -> 1/62        = 0.016129
    #   D: dense rank 3              -> 1/63        = 0.015873
    fused = rrf({"bm25": ["A", "B", "C"], "dense": ["C", "A", "D"]}, k=60)
    assert [key for key, _ in fused] == ["A", "C", "B", "D"]
    expected = {"A": 1 / 61 + 1 / 62, "C": 1 / 63 + 1 / 61, "B": 1 / 62, "D": 1 / 63}
    for key, score in fused:
        assert score == pytest.approx(expected[key])
    assert fused[0][1] == pytest.approx(0.03252, abs=1e-5)
    assert fused[1][1] == pytest.approx(0.03227, abs=1e-5)


def test_rrf_weights_change_the_order() -> None:
    # bm25 weight 0 -> only dense counts: C (1/61) > A (1/62) > D (1/63); B gets 0 but is kept
    fused = rrf({"bm25": ["A", "B", "C"], "dense": ["C", "A", "D"]}, weights={"bm25": 0.0, "dense": 1.0})
    assert [key for key, _ in fused] == ["C", "A", "D", "B"]
    assert fused[-1][1] == 0.0


def test_rrf_ties_break_by_first_appearance_and_duplicates_count_once() -> None:
    # X and Y both score 1/61 + 1/62; X appeared first (bm25 rank 1)
    fused = rrf({"bm25": ["X", "Y"], "dense": ["Y", "X"]})
    assert [key for key, _ in fused] == ["X", "Y"]
    assert fused[0][1] == fused[1][1]
    assert rrf({"bm25": ["A", "A", "B"]}) == [("A", pytest.approx(1 / 61)), ("B", pytest.approx(1 / 63))]


def test_rrf_keys_can_be_tuples_and_empty_input_gives_empty_list() -> None:
    assert rrf({"bm25": [("drugs", 3)], "dense": [("drugs", 3)]})[0][0] == ("drugs", 3)
    assert rrf({}) == []
    assert rrf({"bm25": [], "dense": []}) == []


def test_weighted_fusion_hand_computed() -> None:
    # bm25 scores 10, 6, 2 -> minmax (s - 2) / 8 -> A 1.0, B 0.5, C 0.0
    # dense scores 0.9, 0.5 -> minmax           -> C 1.0, D 0.0
    # fused with 0.8 / 0.2:
    #   A = 0.8·1.0           = 0.80
    #   B = 0.8·0.5           = 0.40
    #   C = 0.8·0.0 + 0.2·1.0 = 0.20
    #   D = 0.2·0.0           = 0.00
    fused = weighted_fusion(
        {"bm25": [("A", 10.0), ("B", 6.0), ("C", 2.0)], "dense": [("C", 0.9), ("D", 0.5)]},
        weights={"bm25": 0.8, "dense": 0.2},
    )
    assert [key for key, _ in fused] == ["A", "B", "C", "D"]
    assert [s for _, s in fused] == pytest.approx([0.8, 0.4, 0.2, 0.0])


def test_weighted_fusion_single_or_equal_scores_normalise_to_one() -> None:
    fused = weighted_fusion({"bm25": [("A", 3.2)], "dense": [("B", 0.4), ("C", 0.4)]},
                            weights={"bm25": 0.8, "dense": 0.2})
    assert fused == [("A", pytest.approx(0.8)), ("B", pytest.approx(0.2)), ("C", pytest.approx(0.2))]


def test_weighted_fusion_handles_negative_scores() -> None:
    # scores -1, -3 -> minmax: X 1.0, Y 0.0
    assert weighted_fusion({"s": [("Y", -3.0), ("X", -1.0)]}, {"s": 1.0}) == [("X", 1.0), ("Y", 0.0)]


@pytest.mark.parametrize("weights", [{"bm25": -0.1, "dense": 1.0}, {"bm25": 0.0, "dense": 0.0},
                                     {"bm25": float("nan"), "dense": 1.0}, {"sparse": 1.0}])
def test_bad_weights_are_refused(weights: dict[str, float]) -> None:
    scored = {"bm25": [("A", 1.0)], "dense": [("A", 0.5)]}
    with pytest.raises(ValueError, match="weights"):
        weighted_fusion(scored, weights)
    with pytest.raises(ValueError, match="weights"):
        rrf({name: [key for key, _ in pairs] for name, pairs in scored.items()}, weights=weights)


def test_bad_parameters_are_refused() -> None:
    with pytest.raises(ValueError, match="normalize"):
        weighted_fusion({"bm25": [("A", 1.0)]}, {"bm25": 1.0}, normalize="zscore")
    with pytest.raises(ValueError, match="k must be"):
        rrf({"bm25": ["A"]}, k=-1)
    with pytest.raises(ValueError, match="non-finite"):
        weighted_fusion({"bm25": [("A", float("inf"))]}, {"bm25": 1.0})
