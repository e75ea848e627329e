"""Offline agent turn latency per ablation variant, side by side in one process.

    python benchmarks/agent.py                # needs a published bundle and data/processed/concepts
    python benchmarks/agent.py --rounds 3

Every variant of `agent.variants` answers the same conversations (profile statements, drug
questions, a greeting, an out-of-scope question) with its memory and cache in a temporary folder,
after one warm-up turn (first-load costs are excluded, as a running service has paid them). Reports
p50/p95 turn latency per variant, the mean time per graph node for each variant, and each
mechanism's cost as the p50 difference from the variant before it in the ablation order — unless the
two variants answered every turn identically (same answers and citations): offline some mechanisms
only act with an LLM, and a latency difference between identical runs is noise, not a cost, so the
column says "identical". A second pass of the same questions by new users shows the response cache's
effect.

Then the same conversations and questions with everything on (the default variant), turn by turn
alternately through today's code and through the code of `--baseline-rev` (default: the revision
before the cheaper turn), loaded from git into the same process (`benchmarks/baseline_code.py`):
its DuckDB profile store, single-file response cache, DuckDB document fetch and un-memoised
extractor, wired the way the agent wires them. Reports turn p50/p95 for both, the per-operation
p50 of profile reads and writes and cache lookups and stores, and the mean time per node.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import replace
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from yaksa.host import configure_offline_env

configure_offline_env()

from baseline_code import BASELINE_REV, load_baseline

from yaksa.agent.factory import build_runner
from yaksa.agent.nodes.similarity import cache_entities
from yaksa.agent.runner import AgentRunner
from yaksa.config import Settings, load_settings
from yaksa.extraction.build import PACK_DIR
from yaksa.retrieval.loader import LoadedBundle, load_published

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


BASELINE_MODULES = ("yaksa/memory/history.py", "yaksa/memory/profile_store.py", "yaksa/memory/response_cache.py",
                    "yaksa/index/docstore.py", "yaksa/extraction/extractor.py")
TIMED_OPS = {"profiles": ("view", "add", "add_turn"), "cache": ("lookup", "store")}
OP_LABELS = {"profiles.view": "profile read (view)", "profiles.add": "profile write (add)",
             "profiles.add_turn": "history write (add_turn)", "cache.lookup": "cache lookup",
             "cache.store": "cache store"}


def pct(values: list[float]) -> tuple[float, float]:
    return float(np.percentile(values, 50)), float(np.percentile(values, 95))


class Timed:
    """Delegates to `target`, recording the milliseconds of each call of the named methods."""

    def __init__(self, target: object, prefix: str, names: tuple[str, ...], sink: dict[str, list[float]]) -> None:
        self._target, self._prefix, self._names, self._sink = target, prefix, names, sink

    def __getattr__(self, name: str):
        attr = getattr(self._target, name)
        if name not in self._names:
            return attr

        def timed(*args, **kwargs):
            t = time.perf_counter()
            try:
                return attr(*args, **kwargs)
            finally:
                self._sink[f"{self._prefix}.{name}"].append((time.perf_counter() - t) * 1000)
        return timed


class _OldProfiles:
    """A profile store of `rev` under today's graph, whose writes carry the erasure epoch (issue 22)
    that the old store did not have: the epoch is dropped, the write goes through as it did then."""

    def __init__(self, inner: object) -> None:
        self._inner = inner

    def __getattr__(self, name: str) -> object:
        return getattr(self._inner, name)

    def erasure_epoch(self, _user_id: str) -> int:
        return 0

    def add(self, user_id: str, items: list, at: object = None, epoch: int | None = None) -> int:
        return self._inner.add(user_id, items, at)

    def add_turn(self, user_id: str, question: str, answer: str, at: object = None, epoch: int | None = None) -> None:
        return self._inner.add_turn(user_id, question, answer, at)


class _OldCache:
    """A response cache of `rev`; today's store passes `still_current` (the erasure check), dropped here."""

    def __init__(self, inner: object) -> None:
        self._inner = inner

    def __getattr__(self, name: str) -> object:
        return getattr(self._inner, name)

    def store(self, *args: object, still_current: object = None, **kwargs: object) -> bool:
        return self._inner.store(*args, **kwargs)


def baseline_runner(loaded: LoadedBundle, settings: Settings, rev: str) -> AgentRunner:
    """The agent as `yaksa.agent.factory.build_runner` wires it, with the memory, cache, document
    store and extractor classes of revision `rev` (its graph and nodes are today's: they did not change)."""
    old = load_baseline(rev, BASELINE_MODULES)
    collections = {n: replace(c, docs=old["yaksa.index.docstore"].DocStore(c.docs.path))
                   for n, c in loaded.bundle.collections.items()}
    old_loaded = replace(loaded, bundle=replace(loaded.bundle, collections=collections))
    runner = build_runner(old_loaded, settings, enforce_safety=False)
    deps, params = runner.deps, settings.agent
    pack = settings.paths.concepts / PACK_DIR
    extractor = old["yaksa.extraction.extractor"].SlotExtractor
    deps.extractor = extractor(pack if pack.is_dir() else None, medcat_enabled=pack.is_dir())
    deps.regex_extractor = extractor(None, medcat_enabled=False)
    deps.profiles = _OldProfiles(
        old["yaksa.memory.profile_store"].ProfileStore(settings.paths.memory.with_name("before.duckdb")))
    searcher = deps.searcher
    collection = "drugs" if "drugs" in loaded.embedders else next(iter(loaded.embedders))
    deps.cache = _OldCache(old["yaksa.memory.response_cache"].ResponseCache(
        settings.paths.response_cache.with_name("before-responses.npz"), lambda text: searcher.query_vector(collection, text),
        lambda text: cache_entities(deps, text), threshold=params.cache_threshold, max_size=params.cache_max_size,
        style_variation=any(f.cache_style_variation for f in params.variants.values())))
    deps.cache.set_bundle_version(loaded.version)
    return runner


def timed_runner(runner: AgentRunner, sink: dict[str, list[float]]) -> AgentRunner:
    for attr, names in TIMED_OPS.items():
        setattr(runner.deps, attr, Timed(getattr(runner.deps, attr), attr, names, sink))
    return runner


def compare(loaded: LoadedBundle, settings: Settings, rev: str, rounds: int, tmp: str) -> None:
    """Everything on, before (`rev`) and now, alternating turn by turn (module doc)."""
    ops: dict[str, dict[str, list[float]]] = {"before": defaultdict(list), "now": defaultdict(list)}
    runners = {"before": timed_runner(baseline_runner(loaded, settings.with_state_in(Path(tmp), "b"), rev),
                                      ops["before"]),
               "now": timed_runner(build_runner(loaded, settings.with_state_in(Path(tmp), "now"),
                                                enforce_safety=False), ops["now"])}
    turns: dict[str, dict[str, list[float]]] = {n: defaultdict(list) for n in runners}
    nodes: dict[str, dict[str, list[float]]] = {n: defaultdict(list) for n in runners}
    answers: dict[str, list] = {n: [] for n in runners}
    for runner in runners.values():
        runner.run("두통약 알려줘", "warm-up")
    for sink in ops.values():
        sink.clear()
    script = [(turn, lambda r, i=i: f"conv-{r}") for i, turn in enumerate(CONVERSATION)]
    script += [(q, lambda r, q=q: f"first-{r}-{q}") for q in QUESTIONS]
    script += [(q, lambda r, q=q: f"again-{r}-{q}") for q in QUESTIONS]
    for r in range(rounds):
        for i, (question, user) in enumerate(script):
            order = list(runners) if (r + i) % 2 == 0 else list(reversed(runners))
            for name in order:
                res = runners[name].run(question, user(r))
                t = res.trace["timings_ms"]
                turns[name]["hit" if res.trace["cache_hit"] else "miss"].append(t["total"])
                answers[name].append((res.answer, tuple(c.doc_id for c in res.citations)))
                for node, ms in t.items():
                    if node != "total":
                        nodes[name][node].append(ms)
    variant = settings.agent.variant
    same = "identical answers and citations" if answers["before"] == answers["now"] else "ANSWERS DIFFER"
    print(f"\nbundle {loaded.version}, variant {variant}, before = {rev}, now = this checkout; {rounds} rounds alternating turn by turn; "
          f"{same}\n")
    print("| ms | before p50 | before p95 | now p50 | now p95 | before / now (p50) |")
    print("|---|---:|---:|---:|---:|---:|")
    rows = [("turn (cache miss)", turns["before"]["miss"], turns["now"]["miss"]),
            ("turn (cache hit)", turns["before"]["hit"], turns["now"]["hit"])]
    rows += [(OP_LABELS[k], ops["before"][k], ops["now"][k]) for k in OP_LABELS]
    for label, before, now in rows:
        if not before or not now:
            print(f"| {label} | - | - | - | - | - |")
            continue
        (b50, b95), (n50, n95) = pct(before), pct(now)
        print(f"| {label} | {b50:.2f} | {b95:.2f} | {n50:.2f} | {n95:.2f} | {b50 / n50:.1f}× |")
    print("\nmean ms per node\n")
    print("| node | before | now |")
    print("|---|---:|---:|")
    for node in sorted(set(nodes["before"]) | set(nodes["now"])):
        cells = [f"{statistics.mean(nodes[n][node]):.2f}" if nodes[n][node] else "-" for n in runners]
        print(f"| {node} | " + " | ".join(cells) + " |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--params", default=str(ROOT / "params.yaml"))
    ap.add_argument("--rounds", type=int, default=2, help="conversations per variant")
    ap.add_argument("--baseline-rev", default=BASELINE_REV, help="git revision of the 'before' code")
    ap.add_argument("--compare-only", action="store_true", help="skip the per-variant ablation table")
    args = ap.parse_args()
    settings = load_settings(args.params)
    loaded = load_published(settings.paths.indexes)
    variants = [] if args.compare_only else list(settings.agent.variants)
    rows = {}
    with tempfile.TemporaryDirectory() as tmp:
        compare(loaded, settings, args.baseline_rev, args.rounds, tmp)
        for name in variants:
            private = replace(settings.with_state_in(Path(tmp), name), agent=replace(settings.agent, variant=name))
            runner = build_runner(loaded, private, enforce_safety=False)  # ablations
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
    if not variants:
        return
    print(f"\nbundle {loaded.version}; offline (no LLM endpoint); {args.rounds} rounds per variant\n")
    print("| variant | turns | p50 ms | p95 ms | cache hits | hit p50 ms | p50 vs previous variant |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    prev = prev_name = None
    for name in variants:
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
    print("| node | " + " | ".join(variants) + " |")
    print("|---|" + "---:|" * len(variants))
    for node in all_nodes:
        cells = [f"{rows[p]['nodes'][node]:.1f}" if node in rows[p]["nodes"] else "-" for p in variants]
        print(f"| {node} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
