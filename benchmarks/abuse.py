"""Can one API key stall the service for another? (issue 22, finding 3)

    python benchmarks/abuse.py --params PROJECT/params.yaml [--duration 30] [--compare REV]
    python benchmarks/abuse.py --url http://127.0.0.1:8000 --abuser-key K1 --victim-key K2

Two keys. The abuser sends its worst allowed requests over and over at its in-flight limit
(`--abuser-concurrency`, default 4 = YAKSA_MAX_INFLIGHT_PER_KEY): streamed chat turns with 2,000-
character questions (the service's limit), each one new (so no cached query vector helps), every
`--abandon-every`-th abandoned after its first event; with `--kinds` also 500-character searches
and 20,000-character critiques. Meanwhile the victim asks short new questions one after another
(stream=false, a fresh user each, so no answer cache helps) and its latency is timed, first with
the server idle, then under the abuse. Prints JSON: the victim's p50/p95/max per phase, the
abuser's statuses (200s, 429s from the in-flight limit, the `error` events of stopped turns). The
target: the victim's p95 under abuse <= 1 s (`TARGET_MS`).

Without --url it starts `yaksa serve` itself (one worker, on a free loopback port, the project's
bundle from --params, a private profile store and response cache as `benchmarks/serve.py` does,
offline: no LLM or web search environment passed on) with the two keys; with `--compare REV` it
runs the same against the code of git revision REV too (extracted with `git archive`, like
`serve.py --compare`), one server after the other. Writes benchmarks/results/abuse.json.

`--build-tiny DIR` first builds the tests' tiny project (tests/conftest.py) in DIR and uses it.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from serve import extract_revision, free_port, private_params, stop_server, wait_ready

from yaksa.atomicio import write_json

TARGET_MS = 1000.0
ABUSER_KEY, VICTIM_KEY = "abuse-bench-abuser", "abuse-bench-victim"
# never passed to the server: the benchmark is offline (no LLM calls, no web search)
OFFLINE_DROP = ("YAKSA_LLM_BASE_URL", "YAKSA_LLM_API_KEY", "TAVILY_API_KEY", "YAKSA_WEB_SEARCH",
                "YAKSA_PUBMED_BASE_URL", "NCBI_EMAIL")
POST = ("어제 저녁부터 머리가 지끈지끈 아프고 열이 조금 있어서 걱정이 됩니다. 회사 일이 많아서 며칠째 잠을 제대로 "
        "못 잤고 어깨와 목도 뻐근합니다. 평소에 위가 약한 편이라 진통제를 먹으면 속이 쓰린 적이 있었어요. "
        "집에 타이레놀과 이부프로펜이 있는데 어떤 것을 먹는 게 나은지, 하루에 몇 번까지 먹어도 되는지, "
        "공복에 먹어도 괜찮은지 궁금합니다. ")
DRUGS = ("타이레놀", "이부프로펜", "판콜에스", "게보린", "베아제", "훼스탈", "지르텍", "아스피린", "부루펜", "판피린")
TEMPLATES = ("{} 하루에 몇 번 먹어요?", "{} 부작용 알려줘", "{} 임산부가 먹어도 되나요?", "{} 먹고 술 마셔도 돼요?",
             "{} 공복에 먹어도 되나요?", "{} 어린이도 먹을 수 있나요?")
CASE_PARTS = ("summary", "timeline", "findings", "diagnoses", "management", "outcome")
CASE_TEXT = ("68-year-old man three days after total hip replacement with sudden pleuritic chest pain, "
             "tachycardia and hypoxia; left calf swollen; treated as anxiety and discharged. ")


def long_question(i: int, chars: int) -> str:
    """A new in-scope question of exactly `chars` characters (its head differs each time)."""
    head = f"질문 {i}번입니다. "
    return (head + POST * (chars // len(POST) + 2))[:chars]


def victim_questions() -> list[str]:
    """Short questions, none asked twice (no query-vector or answer cache helps the victim)."""
    import random

    questions = [t.format(d) for d in DRUGS for t in TEMPLATES]
    random.Random(22).shuffle(questions)
    return questions


def percentiles(values: list[float]) -> dict[str, Any]:
    if not values:
        return {"n": 0}
    p50, p95 = np.percentile(values, [50, 95])
    return {"n": len(values), "p50_ms": round(float(p50), 1), "p95_ms": round(float(p95), 1),
            "max_ms": round(max(values), 1)}


async def victim(client: httpx.AsyncClient, questions: list[str], until: float, pause_s: float,
                 tag: str) -> tuple[list[float], Counter[str], dict[str, float]]:
    """The victim's latencies, statuses, and the median time of each agent node (from the traces)."""
    latencies: list[float] = []
    statuses: Counter[str] = Counter()
    nodes: dict[str, list[float]] = {}
    i = 0
    while time.monotonic() < until and i < len(questions):
        body = {"question": questions[i], "user_id": f"victim-{tag}-{i}", "stream": False, "web": False}
        i += 1
        t = time.perf_counter()
        try:
            r = await client.post("/v1/chat", json=body)
            statuses[str(r.status_code)] += 1
            for node, ms in ((r.json().get("trace") or {}).get("timings_ms") or {}).items():
                nodes.setdefault(node, []).append(ms)
        except httpx.HTTPError as exc:
            statuses[type(exc).__name__] += 1
        latencies.append((time.perf_counter() - t) * 1000)
        await asyncio.sleep(pause_s)
    return latencies, statuses, {n: round(float(np.median(v)), 1) for n, v in nodes.items()}


async def abuser(client: httpx.AsyncClient, worker: int, kinds: list[str], until: float, abandon_every: int,
                 counter: list[int], statuses: Counter[str], chars: int) -> None:
    while time.monotonic() < until:
        n = counter[0]
        counter[0] += 1
        kind = kinds[n % len(kinds)]
        abandon = abandon_every > 0 and n % abandon_every == abandon_every - 1
        try:
            if kind == "search":
                r = await client.get("/v1/search", params={"q": long_question(n, 500)})
                statuses[f"search {r.status_code}"] += 1
                continue
            if kind == "critique":  # six parts of 3,300 characters (the case limit is 20,000), each new
                case = {part: f"{n} " + (CASE_TEXT * 40)[:3300 - len(str(n)) - 1] for part in CASE_PARTS}
                path, body = "/v1/critique", {"case": case, "stream": True}
            else:
                path, body = "/v1/chat", {"question": long_question(n, chars), "user_id": f"abuser-{worker}",
                                          "stream": True, "web": False}
            async with client.stream("POST", path, json=body) as r:
                if r.status_code != 200:
                    await r.aread()
                    statuses[f"{kind} {r.status_code}"] += 1
                    if r.status_code == 429:
                        await asyncio.sleep(float(r.headers.get("retry-after", "1")))
                    continue
                last, outcome = None, None
                async for line in r.aiter_lines():
                    if line.startswith("event: "):
                        last = line[7:]
                        if abandon:
                            outcome = "abandoned"
                            break
                    elif last == "error" and line.startswith("data: "):
                        outcome = f"error {json.loads(line[6:]).get('status_code')}"
                statuses[f"{kind} {outcome or f'200 {last}'}"] += 1
        except httpx.HTTPError as exc:
            statuses[f"{kind} {type(exc).__name__}"] += 1


async def measure(url: str, args: argparse.Namespace) -> dict[str, Any]:
    victim_headers = {"Authorization": f"Bearer {args.victim_key}"}
    abuser_headers = {"Authorization": f"Bearer {args.abuser_key}"}
    questions = victim_questions()
    idle_n = min(12, len(questions) // 4)
    async with httpx.AsyncClient(base_url=url, headers=victim_headers, timeout=120.0) as v:
        ready = (await v.get("/readyz")).json()
        await v.post("/v1/chat", json={"question": "두통약 알려줘", "user_id": "victim-warm", "stream": False,
                                       "web": False})  # warm-up
        idle, idle_status, idle_nodes = await victim(v, questions[:idle_n], time.monotonic() + args.duration, 0.1,
                                                     "idle")
        statuses: Counter[str] = Counter()
        counter = [0]
        limits = httpx.Limits(max_connections=args.abuser_concurrency + 2)
        async with httpx.AsyncClient(base_url=url, headers=abuser_headers, timeout=120.0, limits=limits) as a:
            start = time.monotonic()
            until = start + args.duration
            workers = [asyncio.create_task(abuser(a, w, args.kinds, until, args.abandon_every, counter, statuses,
                                                  args.question_chars))
                       for w in range(args.abuser_concurrency)]
            await asyncio.sleep(args.ramp_s)  # the abuser's requests are in flight before the first probe
            busy, busy_status, busy_nodes = await victim(v, questions[idle_n:], until, args.pause_s, "busy")
            await asyncio.gather(*workers)
    under = percentiles(busy)
    return {
        "url": url,
        "bundle_version": ready.get("version"),
        "victim": {"idle": {**percentiles(idle), "statuses": dict(idle_status), "node_p50_ms": idle_nodes},
                   "under_abuse": {**under, "statuses": dict(busy_status), "node_p50_ms": busy_nodes}},
        "abuser": {"concurrency": args.abuser_concurrency, "kinds": args.kinds, "requests": counter[0],
                   "question_chars": args.question_chars, "abandon_every": args.abandon_every,
                   "statuses": dict(sorted(statuses.items()))},
        "target": f"{'PASS' if under.get('p95_ms', 1e9) <= TARGET_MS else 'FAIL'} victim p95 under abuse "
                  f"{under.get('p95_ms')} ms <= {TARGET_MS:g} ms",
    }


def start_keyed_server(src: Path, params: Path, port: int, log: Path, env_extra: dict[str, str]) -> subprocess.Popen:
    """`yaksa serve` of the code in `src` with the two benchmark keys, in its own process group."""
    env = {k: v for k, v in os.environ.items() if k not in OFFLINE_DROP}
    env.update({"YAKSA_API_KEYS": f"{ABUSER_KEY}=*;{VICTIM_KEY}=*", "PYTHONPATH": str(src), **env_extra})
    env.pop("YAKSA_RATE_FILE", None)
    with open(log, "wb") as out:
        return subprocess.Popen(
            [sys.executable, "-c", "from yaksa_cli import main; main()", "serve", "--port", str(port),
             "--workers", "1", "--params", str(params)],
            cwd=src, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)


async def run_started(args: argparse.Namespace, name: str, src: Path, folder: Path) -> dict[str, Any]:
    folder.mkdir(parents=True, exist_ok=True)
    params = private_params(Path(args.params), folder)
    port = free_port()
    env_extra = {k: v for k, v in (("YAKSA_RATE_PER_SEC", args.rate_per_sec),) if v is not None}
    server = start_keyed_server(src, params, port, folder / "server.log", env_extra)
    url = f"http://127.0.0.1:{port}"
    try:
        try:
            await wait_ready(url, server)
        except SystemExit:
            print((folder / "server.log").read_text(errors="replace")[-4000:], file=sys.stderr)
            raise
        args.abuser_key, args.victim_key = ABUSER_KEY, VICTIM_KEY
        return {"code": name, **await measure(url, args)}
    finally:
        stop_server(server)


def build_tiny(folder: Path) -> Path:
    """The tests' tiny project (every stage run for real) in `folder`; returns its params.yaml."""
    from tests.conftest import make_tiny_project
    from yaksa.config import load_settings
    from yaksa.pipeline.stages import STAGES, run_stage

    params = folder / "params.yaml"
    if (folder / "indexes" / "CURRENT").exists():
        return params
    params = make_tiny_project(folder)
    settings = load_settings(params)
    for stage in STAGES:
        run_stage(stage, settings, progress=False)
    return params


async def main_async(args: argparse.Namespace) -> int:
    machine = {"platform": platform.platform(), "python": platform.python_version(), "cpus": os.cpu_count()}
    if args.url:
        if not (args.abuser_key and args.victim_key):
            print("--url needs --abuser-key and --victim-key (two different keys)", file=sys.stderr)
            return 2
        runs = [{"code": "target", **await measure(args.url, args)}]
    else:
        runs = []
        with tempfile.TemporaryDirectory(prefix="abuse-") as tmp:
            code = {"now": ROOT}
            if args.compare:
                code = {"before": extract_revision(args.compare, Path(tmp) / "before-src"), **code}
            for name, src in code.items():
                runs.append(await run_started(args, name, src, Path(tmp) / name))
    report = {"machine": machine, "duration_s": args.duration, "runs": runs}
    print(json.dumps(report, ensure_ascii=False, indent=2))
    write_json(args.out, report)
    return 0 if all(r["target"].startswith("PASS") for r in runs if r["code"] != "before") else 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--url", default=None, help="a running server (else one is started)")
    parser.add_argument("--abuser-key", default=os.environ.get("YAKSA_ABUSE_KEY", ""))
    parser.add_argument("--victim-key", default=os.environ.get("YAKSA_BENCH_KEY", ""))
    parser.add_argument("--params", default=str(ROOT / "params.yaml"), help="project whose bundle is served")
    parser.add_argument("--build-tiny", type=Path, default=None, help="build the tests' tiny project here and serve it")
    parser.add_argument("--compare", default=None, metavar="REV", help="also run the code of git revision REV")
    parser.add_argument("--duration", type=float, default=30.0, help="seconds of abuse (and at most of the idle phase)")
    parser.add_argument("--ramp-s", type=float, default=2.0, help="abuse before the first victim request")
    parser.add_argument("--pause-s", type=float, default=0.2, help="victim's pause between questions")
    parser.add_argument("--abuser-concurrency", type=int, default=4)
    parser.add_argument("--kinds", nargs="+", choices=["chat", "search", "critique"], default=["chat"])
    parser.add_argument("--question-chars", type=int, default=2000)
    parser.add_argument("--abandon-every", type=int, default=3, help="abandon every n-th abuser request (0: none)")
    parser.add_argument("--rate-per-sec", default=None, help="YAKSA_RATE_PER_SEC for a started server")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "abuse.json")
    args = parser.parse_args()
    if args.build_tiny is not None:
        args.params = str(build_tiny(args.build_tiny.resolve()))
    sys.exit(asyncio.run(main_async(args)))


if __name__ == "__main__":
    main()
