"""Offline agent turn latency per ablation profile, side by side in one process.

    python benchmarks/agent.py                # needs a published bundle and data/processed/concepts
    python benchmarks/agent.py --rounds 3

Every profile of `agent.profiles` answers the same conversations (profile statements, drug
questions, a greeting, an out-of-scope question) with its memory and cache in a temporary folder,
after one warm-up turn (first-load costs are excluded, as a running service has paid them). Reports
p50/p95 turn latency per profile, the mean time per graph node for each profile, and each
mechanism's cost as the p50 difference from the profile before it in the ablation order — unless the
two profiles answered every turn identically (same answers and citations): offline some mechanisms
only act with an LLM, and a latency difference between identical runs is noise, not a cost, so the
column says "identical". A second pass of the same questions by new users shows the response cache's
effect.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from collections import defaultdict
from dataclasses import replace
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from yaksa.runtime import configure_offline_env

configure_offline_env()

from yaksa.agent.runtime import build_runner
from yaksa.config import load_settings
from yaksa.retrieval.loader import load_published

CONVERSATION = (
    "65세 남성이고 당뇨가 있어요",
    "혈압이 150/95예요",
    "두통이 있는데 뭐 먹어도 돼요?",
    "고마워요",
    "그 약 부작용은 뭐가 있어요?",
)
QUESTIONS = (
    "두통이 있는데 타이레놀 먹어도 되나요?", "소화가 안 될 때 먹는 약 알려줘", "감기약 먹고 술 마셔도 되나요?",
    "변비약 추천해 주세요", "게보린 부작용", "속쓰림에 좋은 약", "눈이 침침해요", "삼성전자 주가 알려줘",
)


def pct(values: list[float]) -> tuple[float, float]:
    return float(np.percentile(values, 50)), float(np.percentile(values, 95))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--params", default=str(ROOT / "params.yaml"))
    ap.add_argument("--rounds", type=int, default=2, help="conversations per profile")
    args = ap.parse_args()
    settings = load_settings(args.params)
    loaded = load_published(settings.paths.indexes)
    profiles = list(settings.agent.profiles)
    rows = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name in profiles:
            agent = replace(settings.agent, profile=name, memory_path=f"{tmp}/{name}.duckdb",
                            cache_path=f"{tmp}/{name}.npz")
            runner = build_runner(loaded, replace(settings, agent=agent), enforce_safety=False)  # ablations
            runner.run("두통약 알려줘", "warm-up")
            miss, hit, seen = [], [], []
            nodes: dict[str, list[float]] = defaultdict(list)
            for r in range(args.rounds):
                for turn in CONVERSATION:
                    res = runner.run(turn, f"conv-{r}")
                    miss.append(res.trace["timings_ms"]["total"])
                    seen.append((res.answer, tuple(c.doc_id for c in res.citations)))
                for q in QUESTIONS:
                    res = runner.run(q, f"first-{r}-{q}")
                    (hit if res.trace["cache_hit"] else miss).append(res.trace["timings_ms"]["total"])
                    seen.append((res.answer, tuple(c.doc_id for c in res.citations)))
                    for node, ms in res.trace["timings_ms"].items():
                        if node != "total":
                            nodes[node].append(ms)
                for q in QUESTIONS:  # the same questions by new users: the cache's turn
                    res = runner.run(q, f"again-{r}-{q}")
                    (hit if res.trace["cache_hit"] else miss).append(res.trace["timings_ms"]["total"])
            rows[name] = {"miss": miss, "hit": hit, "answers": seen, "nodes": {n: statistics.mean(v) for n, v in nodes.items()}}
    loaded.close()
    print(f"\nbundle {loaded.version}; offline (no LLM endpoint); {args.rounds} rounds per profile\n")
    print("| profile | turns | p50 ms | p95 ms | cache hits | hit p50 ms | p50 vs previous profile |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    prev = prev_name = None
    for name in profiles:
        row = rows[name]
        p50, p95 = pct(row["miss"])
        hit50 = f"{pct(row['hit'])[0]:.1f}" if row["hit"] else "-"
        if prev is None:
            delta = "-"
        elif row["answers"] == rows[prev_name]["answers"]:
            delta = f"identical to {prev_name} ({p50 - prev:+.1f} is noise)"
        else:
            delta = f"{p50 - prev:+.1f}"
        print(f"| {name} | {len(row['miss']) + len(row['hit'])} | {p50:.1f} | {p95:.1f} | {len(row['hit'])} | "
              f"{hit50} | {delta} |")
        prev, prev_name = p50, name
    all_nodes = sorted({n for r in rows.values() for n in r["nodes"]})
    print("\nmean ms per node (single questions)\n")
    print("| node | " + " | ".join(profiles) + " |")
    print("|---|" + "---:|" * len(profiles))
    for node in all_nodes:
        cells = [f"{rows[p]['nodes'][node]:.1f}" if node in rows[p]["nodes"] else "-" for p in profiles]
        print(f"| {node} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
