"""The token-budget batcher: every text once, longest first, within the budget."""

from __future__ import annotations

import numpy as np
import pytest

from yaksa.embed.batching import padded_tokens, plan_token_batches, presort_chunks, text_bytes


def test_batches_cover_every_position_once_longest_first() -> None:
    rng = np.random.default_rng(0)
    lengths = rng.integers(1, 300, size=500)
    batches = plan_token_batches(lengths, 2_000)
    flat = np.concatenate(batches)
    assert sorted(flat.tolist()) == list(range(500))
    assert (np.diff(lengths[flat]) <= 0).all()  # sorted by length, longest first


def test_every_batch_respects_the_budget_and_row_cap() -> None:
    rng = np.random.default_rng(1)
    lengths = rng.integers(1, 512, size=1_000)
    for budget, cap in ((4_096, None), (65_536, 64), (600, 3)):
        for b in plan_token_batches(lengths, budget, max_rows=cap):
            assert len(b) * lengths[b].max() <= budget
            assert cap is None or len(b) <= cap


def test_budget_is_filled_not_just_respected() -> None:
    batches = plan_token_batches([10] * 100, 250)
    assert [len(b) for b in batches] == [25, 25, 25, 25]


def test_text_longer_than_the_budget_gets_its_own_batch() -> None:
    batches = plan_token_batches([5, 900, 5, 5], 100)
    assert batches[0].tolist() == [1]
    assert sorted(np.concatenate(batches[1:]).tolist()) == [0, 2, 3]


def test_ties_keep_input_order_and_zero_lengths_are_allowed() -> None:
    (batch,) = plan_token_batches([3, 3, 0, 3], 100)
    assert batch.tolist() == [0, 1, 3, 2]
    assert plan_token_batches([], 100) == []


def test_padded_tokens_counts_rows_times_longest() -> None:
    lengths = np.array([10, 2, 7, 7])
    assert padded_tokens(lengths, [np.array([0, 1]), np.array([2, 3])]) == 2 * 10 + 2 * 7
    # sorting first pads less than batching in input order
    in_order = padded_tokens(lengths, [np.array([0, 1]), np.array([2, 3])])
    assert padded_tokens(lengths, plan_token_batches(lengths, 20)) <= in_order


@pytest.mark.parametrize(("budget", "rows"), [(0, None), (-5, None), (1.5, None), (True, None), (10, 0)])
def test_bad_limits_are_refused(budget: object, rows: object) -> None:
    with pytest.raises(ValueError, match="token_budget|max_rows"):
        plan_token_batches([1, 2], budget, rows)  # type: ignore[arg-type]


def test_bad_lengths_are_refused() -> None:
    with pytest.raises(ValueError, match="non-negative"):
        plan_token_batches([3, -1], 10)
    with pytest.raises(ValueError, match="1-D"):
        plan_token_batches([[1, 2]], 10)


def test_presort_chunks_grow_and_cover_longest_first() -> None:
    keys = np.arange(3_000)
    chunks = presort_chunks(keys, chunk=1_000, first=100)
    assert [len(c) for c in chunks] == [100, 200, 400, 800, 1000, 500]
    flat = np.concatenate(chunks)
    assert flat.tolist() == list(range(2_999, -1, -1))


def test_text_bytes_is_the_utf8_size() -> None:
    assert text_bytes(["abc", "두통", ""]).tolist() == [3, 6, 0]
