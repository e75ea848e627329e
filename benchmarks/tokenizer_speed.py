"""Tokenizer throughput on the real corpus, side by side in one process.

    python benchmarks/tokenizer_speed.py          # needs data/processed/documents.parquet (`yaksa build ingest`)

Compares, on the same documents:
- `yaksa` — `KiwiTokenizer.tokenize_many` (Kiwi for Korean, the plain-text rule for text without Hangul),
- `kiwi-only` — the baseline: every document through Kiwi's batch analyser plus the same filters,
- `mecab` — the optional python-mecab-ko backend.
Reports docs/s per collection and the speed ratio against the baseline.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from yaksa.host import configure_offline_env

configure_offline_env()

from yaksa.config import load_settings
from yaksa.corpus.ingest import read_documents
from yaksa.text.kiwi import KiwiTokenizer
from yaksa.text.mecab import MecabTokenizer


def kiwi_only(tok: KiwiTokenizer, texts: list[str]) -> list[list[str]]:
    return [tok._terms(t, r) for t, r in zip(texts, tok._kiwi.tokenize(texts), strict=True)]


def rate(fn, texts: list[str]) -> float:
    start = time.perf_counter()
    fn(texts)
    return len(texts) / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--params", type=Path, default=ROOT / "params.yaml")
    parser.add_argument("--per-collection", type=int, default=3000, help="documents per collection")
    args = parser.parse_args()
    s = load_settings(args.params)
    docs = read_documents(s.paths.documents)
    groups: dict[str, list[str]] = defaultdict(list)
    for d in docs:
        if len(groups[d.collection]) < args.per_collection:
            groups[d.collection].append(d.index_text)
    userdict = s.paths.userdict if s.paths.userdict.exists() else None
    kiwi = KiwiTokenizer(s.tokenizer.pos_filter, userdict)
    mecab = MecabTokenizer(s.tokenizer.pos_filter, userdict)
    kiwi.tokenize_many(groups["drugs"][:50])  # warm up thread pools
    print("| collection | docs | yaksa docs/s | kiwi-only docs/s | mecab docs/s | yaksa / kiwi-only |")
    print("|---|---:|---:|---:|---:|---:|")
    totals = defaultdict(float)
    for name, texts in sorted(groups.items()):
        ours = rate(kiwi.tokenize_many, texts)
        base = rate(lambda t: kiwi_only(kiwi, t), texts)
        mec = rate(mecab.tokenize_many, texts)
        for key, r in (("ours", ours), ("base", base), ("mecab", mec)):
            totals[key] += len(texts) / r
        print(f"| {name} | {len(texts)} | {ours:,.0f} | {base:,.0f} | {mec:,.0f} | {ours / base:.1f}× |")
    n = sum(len(t) for t in groups.values())
    print(f"| **all** | {n} | {n / totals['ours']:,.0f} | {n / totals['base']:,.0f} | "
          f"{n / totals['mecab']:,.0f} | {totals['base'] / totals['ours']:.1f}× |")


if __name__ == "__main__":
    main()
