"""Load test of a running server over loopback: /v1/search and offline /v1/chat at several concurrencies.

    YAKSA_RATE_PER_SEC=0 yaksa serve &          # rate limiting off, or the benchmark measures the limiter
    python benchmarks/serve.py --url http://127.0.0.1:8000 [--duration 10] [--max-requests 3000]

Each (endpoint, concurrency) run keeps `concurrency` clients busy for `--duration` seconds or until
`--max-requests` requests were sent, whichever comes first. Chat turns are streamed (SSE) with web
references off, and a turn only counts as a success when its stream ends with `done`. Reports
throughput and p50/p95/p99 latency per run, checks the targets (/v1/search >= 100 req/s at c=8,
/v1/chat p95 <= 1 s at c=8) and writes benchmarks/results/serve.json. Exit code 1 on any error.
With API keys configured, pass one bound to "*" (or to --user-id) in YAKSA_BENCH_KEY.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from collections import Counter
from dataclasses import asdict, dataclass
from pathlib import Path

import httpx
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from yaksa.atomicio import write_json

QUESTIONS = [
    "두통에 먹는 약 알려줘", "타이레놀 복용법", "감기약 부작용", "임산부가 먹어도 되는 진통제",
    "위장약 복용 시 주의사항", "소화제 추천", "알레르기 약 졸림", "What are the symptoms of diabetes?",
    "How is high blood pressure treated?", "어린이 해열제 용량",
]
TARGETS = {("search", 8): ("throughput_rps", ">=", 100.0), ("chat", 8): ("p95_ms", "<=", 1000.0)}


@dataclass
class RunReport:
    endpoint: str
    concurrency: int
    requests: int
    errors: int
    error_kinds: dict[str, int]
    seconds: float
    throughput_rps: float
    p50_ms: float
    p95_ms: float
    p99_ms: float


async def _search(client: httpx.AsyncClient, i: int, _user: str) -> str | None:
    r = await client.get("/v1/search", params={"q": QUESTIONS[i % len(QUESTIONS)]})
    return None if r.status_code == 200 else f"http {r.status_code}"


async def _chat(client: httpx.AsyncClient, i: int, user: str) -> str | None:
    body = {"question": QUESTIONS[i % len(QUESTIONS)], "user_id": user, "stream": True, "web": False}
    async with client.stream("POST", "/v1/chat", json=body) as r:
        if r.status_code != 200:
            return f"http {r.status_code}"
        last = None
        async for line in r.aiter_lines():
            if line.startswith("event: "):
                last = line[7:]
        return None if last == "done" else f"stream ended with {last}"


async def run(url: str, endpoint: str, concurrency: int, duration: float, max_requests: int,
              headers: dict[str, str], user: str) -> RunReport:
    call = {"search": _search, "chat": _chat}[endpoint]
    latencies: list[float] = []
    errors: Counter[str] = Counter()
    sent = 0
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    async with httpx.AsyncClient(base_url=url, headers=headers, timeout=60.0, limits=limits) as client:
        start = time.perf_counter()
        deadline = start + duration

        async def worker() -> None:
            nonlocal sent
            while time.perf_counter() < deadline and sent < max_requests:
                i, sent = sent, sent + 1
                t = time.perf_counter()
                try:
                    error = await call(client, i, user)
                except httpx.HTTPError as exc:
                    error = type(exc).__name__
                latencies.append((time.perf_counter() - t) * 1000)
                if error:
                    errors[error] += 1

        await asyncio.gather(*(worker() for _ in range(concurrency)))
        seconds = time.perf_counter() - start
    p50, p95, p99 = np.percentile(latencies, [50, 95, 99]) if latencies else (0.0, 0.0, 0.0)
    return RunReport(endpoint, concurrency, len(latencies), sum(errors.values()), dict(errors), round(seconds, 3),
                     round(len(latencies) / seconds, 1), round(float(p50), 1), round(float(p95), 1),
                     round(float(p99), 1))


def check_targets(reports: list[RunReport]) -> list[str]:
    """One line per target: measured value and PASS/FAIL."""
    lines = []
    for r in reports:
        target = TARGETS.get((r.endpoint, r.concurrency))
        if target:
            field, op, bound = target
            value = getattr(r, field)
            ok = value >= bound if op == ">=" else value <= bound
            lines.append(f"{'PASS' if ok else 'FAIL'} {r.endpoint} c={r.concurrency}: {field} {value} {op} {bound}")
    return lines


async def main_async(args: argparse.Namespace) -> int:
    headers = {"Authorization": f"Bearer {args.api_key}"} if args.api_key else {}
    try:
        async with httpx.AsyncClient(base_url=args.url, timeout=10.0) as probe:
            ready = await probe.get("/readyz")
    except httpx.HTTPError as exc:
        print(f"no server at {args.url}: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    if ready.status_code != 200:
        print(f"server not ready: {ready.status_code} {ready.text}", file=sys.stderr)
        return 1
    version = ready.json()["version"]
    reports = []
    for endpoint in args.endpoints:
        for c in args.concurrency:
            report = await run(args.url, endpoint, c, args.duration, args.max_requests, headers, args.user_id)
            reports.append(report)
            print(f"{endpoint:6s} c={c:<3d} {report.requests:6d} req {report.throughput_rps:8.1f} req/s  "
                  f"p50 {report.p50_ms:7.1f}  p95 {report.p95_ms:7.1f}  p99 {report.p99_ms:7.1f} ms  "
                  f"errors {report.errors} {report.error_kinds or ''}", flush=True)
    targets = check_targets(reports)
    print("\n".join(targets))
    if any("http 429" in r.error_kinds for r in reports):
        print("429s: restart the server with YAKSA_RATE_PER_SEC=0 to measure it, not the rate limiter",
              file=sys.stderr)
    write_json(args.out, {"url": args.url, "bundle_version": version, "duration_s": args.duration,
                          "max_requests": args.max_requests, "runs": [asdict(r) for r in reports],
                          "targets": targets})
    print(f"wrote {args.out}")
    return 1 if any(r.errors for r in reports) else 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--url", default="http://127.0.0.1:8000")
    parser.add_argument("--duration", type=float, default=10.0, help="seconds per (endpoint, concurrency) run")
    parser.add_argument("--max-requests", type=int, default=3000, help="request cap per run")
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 8, 32])
    parser.add_argument("--endpoints", nargs="+", choices=["search", "chat"], default=["search", "chat"])
    parser.add_argument("--api-key", default=os.environ.get("YAKSA_BENCH_KEY", ""))
    parser.add_argument("--user-id", default="bench-user")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "serve.json")
    args = parser.parse_args()
    if args.duration <= 0 or args.max_requests < 1 or min(args.concurrency) < 1:
        parser.error("--duration, --max-requests and --concurrency must be positive")
    sys.exit(asyncio.run(main_async(args)))


if __name__ == "__main__":
    main()
