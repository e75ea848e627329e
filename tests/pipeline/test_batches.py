"""Batch planning and the driver's ledger: what a runner is given, and what the driver will merge."""

from __future__ import annotations

import pytest

from yaksa.pipeline.batches import BatchLedger, BatchResultError, TextBatch, plan_batches


def test_plan_skips_done_texts_dedupes_hashes_and_keeps_input_order() -> None:
    hashes = ["a", "b", "a", "c", "d", "e", "b"]
    texts = ["A", "B", "A", "C", "D", "E", "B"]
    batches = plan_batches("tok", hashes, texts, done={"c"}, size=2)
    assert [b.hashes for b in batches] == [("a", "b"), ("d", "e")]
    assert [b.texts for b in batches] == [("A", "B"), ("D", "E")]
    assert [b.label for b in batches] == ["tok-0000", "tok-0001"]


def test_plan_is_a_function_of_its_inputs_and_empty_when_all_done() -> None:
    hashes = [f"h{i}" for i in range(10)]
    texts = [f"t{i}" for i in range(10)]
    assert plan_batches("x", hashes, texts, set(), 3) == plan_batches("x", hashes, texts, set(), 3)
    assert [len(b.hashes) for b in plan_batches("x", hashes, texts, set(), 3)] == [3, 3, 3, 1]
    assert plan_batches("x", hashes, texts, set(hashes), 3) == []


@pytest.mark.parametrize(
    "hashes, texts, size, message",
    [(["a"], [], 1, "1 hashes but 0 texts"), (["a"], ["A"], 0, "size must be >= 1")],
)
def test_bad_plans_are_refused(hashes: list[str], texts: list[str], size: int, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        plan_batches("x", hashes, texts, set(), size)


def test_ledger_accepts_each_planned_batch_once_and_then_is_complete() -> None:
    b0, b1 = plan_batches("e", ["a", "b", "c"], ["A", "B", "C"], set(), 2)
    ledger = BatchLedger([("model@1", b0), ("model@1", b1)])
    ledger.settle(b1.label, "model@1", b1.hashes)
    with pytest.raises(BatchResultError, match="never came back"):
        ledger.check_complete()
    ledger.settle(b0.label, "model@1", b0.hashes)
    ledger.check_complete()
    with pytest.raises(BatchResultError, match="came back twice"):
        ledger.settle(b0.label, "model@1", b0.hashes)


@pytest.mark.parametrize(
    "label, identity, hashes, message",
    [
        ("e-0000", "model@2", ("a", "b"), "computed by 'model@2', the driver expects 'model@1'"),
        ("e-0000", "model@1", ("a", "x"), "other documents"),
        ("e-0007", "model@1", ("a", "b"), "not planned"),
    ],
)
def test_ledger_refuses_what_a_worker_must_not_slip_in(
    label: str, identity: str, hashes: tuple[str, ...], message: str
) -> None:
    ledger = BatchLedger([("model@1", TextBatch("e-0000", ("a", "b"), ("A", "B")))])
    with pytest.raises(BatchResultError, match=message):
        ledger.settle(label, identity, hashes)


def test_a_batch_needs_one_text_per_hash() -> None:
    with pytest.raises(ValueError, match="2 hashes for 1 texts"):
        TextBatch("x", ("a", "b"), ("A",))
