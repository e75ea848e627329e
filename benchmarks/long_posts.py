"""Long real posts answered for their writer: first cited product, the person, and latency (issue 23.4).

    python benchmarks/long_posts.py --select            # list the sampled post ids (for labelling)
    python benchmarks/long_posts.py --labels L.json     # measure; L.json maps post id -> population

Reads the real consumer posts from the shared data folder at run time (`../shared/data/real-questions/
posts_ko.jsonl` beside the repository; their text has no licence to be copied, so only ids appear here
and in the labels file). The sample: posts that name a product of the published bundle
(`DrugCatalog.link`), a seeded draw of `--n`. For each post one offline turn (memory and cache off, so
every run answers the same way) and three checks:

  first_named   the first citation is a product the post named, or holds one of its ingredients
  person_ok     the answer is for the person the labels say the post is about:
                adult (or unknown): the first cited product is not a children's product (its 용법용량
                doses children only, or its name says 어린이/소아/유아/키즈);
                child / infant: the answer gives a child's dose (소아, 개월, "N세 미만" ...);
                pregnant / breastfeeding: the answer's opening paragraph speaks of 임부/임신 (수유)
  latency       turn p50/p95 for the long posts, and for a fixed list of short questions

The labels are a hand reading of each sampled post (who it is about), kept outside the repository.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from yaksa.host import configure_offline_env

configure_offline_env()

from yaksa.agent.factory import build_runner
from yaksa.config import load_settings
from yaksa.retrieval.loader import load_published

POSTS = ROOT / ".." / "shared" / "data" / "real-questions" / "posts_ko.jsonl"
SHORT_QUESTIONS = (
    "두통이 있는데 타이레놀 먹어도 되나요?", "소화가 안 될 때 먹는 약 알려줘", "감기약 먹고 술 마셔도 되나요?",
    "변비약 추천해 주세요", "게보린 부작용", "속쓰림에 좋은 약", "부루펜 하루 몇 번 먹어요?",
    "아이 해열제 용량 알려주세요", "임신 중인데 타이레놀 먹어도 돼요?", "판콜에스 먹고 운전해도 되나요?",
    "콧물이 계속 나요", "생리통에 먹는 약", "무좀약 바르는 법", "멀미약은 언제 먹어요?",
    "베아제 먹어도 되나요", "기침이 심한데 약 추천해주세요",
)
CHILD_PRODUCT = re.compile(r"어린이|소아|유아|키즈")
ADULT_DOSE = re.compile(r"성인|(만\s*)?1[2-9]\s*세\s*이상|15세이상")
CHILD_DOSE = re.compile(r"소아|어린이|유아|영아|신생아|개월|\d+\s*[~∼-]\s*\d+\s*세|\d+\s*세\s*(미만|이하)|\d+\s*kg")
PREGNANCY = re.compile(r"임부|임신|임산부")
NURSING = re.compile(r"수유")


def load_posts() -> list[dict]:
    if not POSTS.is_file():
        raise SystemExit(f"posts not found at {POSTS} (the shared data folder beside the repository)")
    with POSTS.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def sample(posts: list[dict], catalog, n: int, seed: str) -> list[dict]:
    """Posts that name a product of the bundle, in a seeded order, the first `n`."""
    naming = [p for p in posts if catalog.link(p["question"]).products]
    naming.sort(key=lambda p: hashlib.sha256(f"{seed}:{p['id']}".encode()).hexdigest())
    return naming[:n]


def first_named(catalog, post: str, citations) -> bool:
    linking = catalog.link(post)
    seqs = {p.item_seq for p in linking.products}
    ingredients = {i for s in seqs for i in catalog.products[s].ingredients} | set(linking.ingredients)
    if not citations:
        return False
    seq = str(citations[0].metadata.get("item_seq", ""))
    product = catalog.products.get(seq)
    return seq in seqs or (product is not None and bool(set(product.ingredients) & ingredients))


def children_product(catalog, citation) -> bool:
    product = catalog.products.get(str(citation.metadata.get("item_seq", "")))
    if product is None:
        return False
    if CHILD_PRODUCT.search(product.name):
        return True
    return bool(CHILD_DOSE.search(product.usage)) and not ADULT_DOSE.search(product.usage)


def person_ok(catalog, population: str, answer: str, citations) -> bool:
    opening = answer.split("[문서", 1)[0]
    if population == "pregnant":
        return bool(PREGNANCY.search(opening))
    if population == "breastfeeding":
        return bool(NURSING.search(opening))
    if population in ("child", "infant"):
        return bool(CHILD_DOSE.search(answer))
    return not (citations and children_product(catalog, citations[0]))


def pct(values: list[float]) -> tuple[float, float]:
    return float(np.percentile(values, 50)), float(np.percentile(values, 95))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=60)
    ap.add_argument("--seed", default="issue23-4")
    ap.add_argument("--select", action="store_true", help="print the sampled ids and exit")
    ap.add_argument("--labels", type=Path, help="JSON: post id -> adult|child|infant|pregnant|breastfeeding|elderly")
    ap.add_argument("--out", type=Path, help="write per-post results (ids, checks, cited titles) here")
    args = ap.parse_args()
    settings = load_settings(ROOT / "params.yaml")
    loaded = load_published(settings.paths.indexes)
    runner = build_runner(loaded, settings)
    catalog = runner.deps.searcher.catalog
    posts = sample(load_posts(), catalog, args.n, args.seed)
    labels = json.loads(args.labels.read_text(encoding="utf-8")) if args.labels else {}
    excluded = [p["id"] for p in posts if labels.get(p["id"], "").startswith("exclude")]
    posts = [p for p in posts if p["id"] not in excluded]
    if args.select:
        for p in posts:
            print(p["id"])
        return
    runner.run("타이레놀 먹어도 되나요?", "warmup", remember=False)  # first-load costs excluded
    rows, long_ms = [], []
    for i, p in enumerate(posts):
        start = time.perf_counter()
        result = runner.run(p["question"], f"lp{i}", remember=False)
        long_ms.append((time.perf_counter() - start) * 1000)
        population = labels.get(p["id"], "adult")
        rows.append({"id": p["id"], "population": population, "chars": len(p["question"]),
                     "first_named": first_named(catalog, p["question"], result.citations),
                     "person_ok": person_ok(catalog, population, result.answer, result.citations),
                     "first_cited": result.citations[0].title if result.citations else None,
                     "ms": round(long_ms[-1], 1)})
    short_ms = []
    for i, q in enumerate(SHORT_QUESTIONS):
        start = time.perf_counter()
        runner.run(q, f"sq{i}", remember=False)
        short_ms.append((time.perf_counter() - start) * 1000)
    n = len(rows)
    named = sum(r["first_named"] for r in rows)
    person = sum(r["person_ok"] for r in rows)
    by_pop: dict[str, list[bool]] = {}
    for r in rows:
        by_pop.setdefault(r["population"], []).append(r["person_ok"])
    lp50, lp95 = pct(long_ms)
    sp50, sp95 = pct(short_ms)
    print(f"bundle {runner.bundle_version}; {n} posts naming a product (seed {args.seed}; "
          f"{len(excluded)} excluded by the labels as linker false hits)")
    print(f"first cited = named product or its ingredient: {named}/{n} = {named / n:.3f}")
    print(f"answer for the person: {person}/{n} = {person / n:.3f}  "
          + ", ".join(f"{k} {sum(v)}/{len(v)}" for k, v in sorted(by_pop.items())))
    print(f"long posts (mean {statistics.mean(r['chars'] for r in rows):.0f} chars): turn p50 {lp50:.1f} ms, "
          f"p95 {lp95:.1f} ms")
    print(f"short questions ({len(short_ms)}): turn p50 {sp50:.1f} ms, p95 {sp95:.1f} ms")
    if args.out:
        args.out.write_text(json.dumps(rows, ensure_ascii=False, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
