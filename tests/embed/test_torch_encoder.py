"""The shared torch loop on CPU with a tiny random model: order, budget, pooling, the query path."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from yaksa.embed.torch_encoder import PooledModel, TokenBudgetEncoder, fast_tokenizer, prefetch

torch = pytest.importorskip("torch")

TEXTS = ["short", "a much longer text about aspirin, headache and the dose for adults " * 3, "두통에는 아세트아미노펜",
         "x " * 200, "fever", "tablet taken after meals", "", "medium length text about a drug"]


class _Recording:
    """A Forward that records each batch's shape and returns the mean of its ids (position-dependent)."""

    accepts_no_mask = True

    def __init__(self, inner: Any) -> None:
        self.inner, self.shapes = inner, []

    def __call__(self, ids: Any, mask: Any) -> Any:
        self.shapes.append(tuple(ids.shape))
        return self.inner(ids, mask)


def _encoder(model_tok: tuple[Any, Any], **kwargs: Any) -> TokenBudgetEncoder:
    model, tok = model_tok
    forward = kwargs.pop("forward", None) or PooledModel(model, kwargs.pop("pooling", "mean"))
    return TokenBudgetEncoder(tok, forward, pad_id=0, max_length=kwargs.pop("max_length", 64), device="cpu", **kwargs)


def test_results_come_back_in_input_order(tiny_bert: tuple[Any, Any]) -> None:
    enc = _encoder(tiny_bert, token_budget=128, chunk_texts=3)
    batched = enc.encode(TEXTS)
    one_by_one = np.stack([enc.encode_one(t) for t in TEXTS])
    assert batched.shape == (len(TEXTS), 16) and batched.dtype == np.float32
    np.testing.assert_allclose(batched, one_by_one, atol=1e-5)
    assert enc.last_run is not None and enc.last_run.texts == len(TEXTS) and enc.last_run.batches > 1


def test_every_forward_pass_respects_the_token_budget(tiny_bert: tuple[Any, Any]) -> None:
    model, _ = tiny_bert
    rec = _Recording(PooledModel(model, "mean"))
    enc = _encoder(tiny_bert, forward=rec, token_budget=100, max_rows=3)
    enc.encode(TEXTS * 3)
    assert rec.shapes and all(rows * longest <= 100 or rows == 1 for rows, longest in rec.shapes)
    assert all(rows <= 3 for rows, _ in rec.shapes)
    assert sum(rows for rows, _ in rec.shapes) == len(TEXTS) * 3
    stats = enc.last_run
    assert stats is not None and stats.padded_tokens == sum(r * n for r, n in rec.shapes)
    assert 0 <= stats.padding_overhead < 1


def test_truncation_and_prefix(tiny_bert: tuple[Any, Any]) -> None:
    enc = _encoder(tiny_bert, max_length=10, prefix="query: ")
    long, short = enc.token_ids(["x " * 50, "hi"])
    (empty,) = enc.token_ids([""])  # [CLS] query : [SEP]
    assert len(long) == 10
    assert short[: len(empty) - 1] == empty[:-1] and len(short) == len(empty) + 1


def test_cls_and_mean_pooling(tiny_bert: tuple[Any, Any]) -> None:
    model, tok = tiny_bert
    ids = torch.tensor([tok.encode("hello world").ids])
    with torch.inference_mode():
        hidden = model(input_ids=ids).last_hidden_state
        np.testing.assert_allclose(PooledModel(model, "cls")(ids, None).numpy(), hidden[:, 0].numpy(), atol=1e-6)
        np.testing.assert_allclose(PooledModel(model, "mean")(ids, torch.ones_like(ids)).numpy(),
                                   hidden.mean(dim=1).numpy(), atol=1e-6)  # fmt: skip
    with pytest.raises(ValueError, match="unknown pooling 'max'"):
        PooledModel(model, "max")


def test_padding_does_not_change_a_vector(tiny_bert: tuple[Any, Any]) -> None:
    """A text batched with a much longer one (padded) gets the vector it gets alone."""
    enc = _encoder(tiny_bert, token_budget=10_000)
    both = enc.encode(["fever", "x " * 60])
    np.testing.assert_allclose(both[0], enc.encode_one("fever"), atol=1e-5)


def test_cuda_graphs_stay_off_without_cuda(tiny_bert: tuple[Any, Any]) -> None:
    enc = _encoder(tiny_bert, cuda_graphs=True)
    assert enc.cuda_graphs is False
    assert enc.encode_one("fever").shape == (16,)


def test_bad_arguments(tiny_bert: tuple[Any, Any]) -> None:
    with pytest.raises(ValueError, match="token_budget"):
        _encoder(tiny_bert, token_budget=0)
    with pytest.raises(ValueError, match="max_length"):
        fast_tokenizer(tiny_bert[1], 1)
    with pytest.raises(TypeError, match="no fast"):
        fast_tokenizer(object(), 16)
    with pytest.raises(ValueError, match="at least one text"):
        _encoder(tiny_bert).encode([])


def test_fast_tokenizer_copy_never_pads_and_leaves_the_original(tiny_bert: tuple[Any, Any]) -> None:
    _, tok = tiny_bert
    before = tok.to_str()
    copy = fast_tokenizer(tok, 8)
    assert len(copy.encode("hi").ids) == 3 and len(copy.encode("a b c d e f g h i j").ids) == 8
    assert tok.to_str() == before


def test_prefetch_keeps_order_and_surfaces_errors() -> None:
    assert list(prefetch(iter(range(50)), depth=2)) == list(range(50))

    def failing() -> Any:
        yield 1
        raise RuntimeError("tokenizer broke")

    got = []
    with pytest.raises(RuntimeError, match="tokenizer broke"):
        for item in prefetch(failing()):
            got.append(item)  # noqa: PERF402 - the items before the error must arrive
    assert got == [1]


def test_prefetch_stops_when_the_consumer_leaves() -> None:
    made = []

    def endless() -> Any:
        i = 0
        while True:
            made.append(i)
            yield i
            i += 1

    gen = prefetch(endless(), depth=2)
    assert next(gen) == 0
    gen.close()  # joins the thread: it must have stopped
    assert len(made) < 10
