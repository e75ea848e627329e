"""Load test of a running server over loopback: /v1/search and offline /v1/chat at several concurrencies.

    YAKSA_RATE_PER_SEC=0 yaksa serve &          # rate limiting off, or the benchmark measures the limiter
    python benchmarks/serve.py --url http://127.0.0.1:8000 [--duration 10] [--max-requests 3000]

Each (endpoint, concurrency) run keeps `concurrency` clients busy for `--duration` seconds or until
`--max-requests` requests were sent, whichever comes first. Chat turns are streamed (SSE) with web
references off, and a turn only counts as a success when its stream ends with `done`. Reports
throughput and p50/p95/p99 latency per run, checks the targets (/v1/search >= 100 req/s at c=8,
/v1/chat p95 <= 1 s at c=8) and writes benchmarks/results/serve.json. Exit code 1 on any error.
With API keys configured, pass one bound to "*" (or to --user-id) in YAKSA_BENCH_KEY.

    python benchmarks/serve.py --compare [--workers 1 2] [--baseline-rev REV]

starts the servers itself, one after another on a free loopback port with rate limiting off: today's
code and the code of `--baseline-rev` (default: the revision before the cheaper turn, extracted with
`git archive` into a temporary directory and run from there), each with 1 and 2 uvicorn workers, on
the same published bundle, each with its own empty profile store and response cache. The baseline
also runs without the packages that became dependencies after it (`BASELINE_WITHOUT`: uvicorn then
fell back to h11 and the asyncio loop), so "before" is that revision as it was installed. Every
server gets the same runs (default concurrency 1 and 8), reported side by side and written to
benchmarks/results/serve-compare.json.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import os
import signal
import socket
import subprocess
import sys
import tarfile
import tempfile
import time
from collections import Counter
from dataclasses import asdict, dataclass
from pathlib import Path

import httpx
import numpy as np
import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

sys.path.insert(0, str(ROOT / "benchmarks"))

from baseline_code import BASELINE_REV

from yaksa.atomicio import write_json
from yaksa.config import MOVED_PATHS, PATH_DEFAULTS, load_settings

QUESTIONS = [
    "두통에 먹는 약 알려줘", "타이레놀 복용법", "감기약 부작용", "임산부가 먹어도 되는 진통제",
    "위장약 복용 시 주의사항", "소화제 추천", "알레르기 약 졸림", "What are the symptoms of diabetes?",
    "How is high blood pressure treated?", "어린이 해열제 용량",
]
# added as dependencies after BASELINE_REV; uvicorn picks them up when they import
BASELINE_WITHOUT = ("uvloop", "httptools")
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


def user_ids(user: str, users: int) -> list[str]:
    """The user ids the clients ask as: `user` alone, or `user-0` .. `user-{users-1}` (client k asks as
    id k mod users). Why more than one: a turn's profile and history writes are serialised per user
    (SQLite: one writer; PostgreSQL: a per-user advisory lock), so eight clients sharing one id measure
    one person sending eight messages at once, not eight people."""
    if users < 1:
        raise ValueError(f"--users must be >= 1, got {users}")
    return [user] if users == 1 else [f"{user}-{k}" for k in range(users)]


async def run(url: str, endpoint: str, concurrency: int, duration: float, max_requests: int,
              headers: dict[str, str], user: str, users: int = 1) -> RunReport:
    call = {"search": _search, "chat": _chat}[endpoint]
    latencies: list[float] = []
    errors: Counter[str] = Counter()
    sent = 0
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    async with httpx.AsyncClient(base_url=url, headers=headers, timeout=60.0, limits=limits) as client:
        start = time.perf_counter()
        deadline = start + duration

        ids = user_ids(user, users)

        async def worker(k: int) -> None:
            nonlocal sent
            while time.perf_counter() < deadline and sent < max_requests:
                i, sent = sent, sent + 1
                t = time.perf_counter()
                try:
                    error = await call(client, i, ids[k % len(ids)])
                except httpx.HTTPError as exc:
                    error = type(exc).__name__
                latencies.append((time.perf_counter() - t) * 1000)
                if error:
                    errors[error] += 1

        await asyncio.gather(*(worker(k) for k in range(concurrency)))
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
            report = await run(args.url, endpoint, c, args.duration, args.max_requests, headers, args.user_id,
                               args.users)
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


READY_PROBES = 20
READY_TIMEOUT_S = 600.0


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def private_params(params: Path, folder: Path) -> Path:
    """params.yaml with absolute paths and a fresh profile store and response cache in `folder`.

    The agent's old keys (`MOVED_PATHS`) say the same: a baseline revision from before the paths moved
    under `paths:` reads those, today's code accepts both when they agree."""
    data = yaml.safe_load(params.read_text(encoding="utf-8")) or {}
    paths = load_settings(params).with_state_in(folder).paths
    data["paths"] = {key: str(getattr(paths, key)) for key in PATH_DEFAULTS}
    for section, old in MOVED_PATHS:
        (data.get(section) or {}).pop(old, None)
    agent = data.setdefault("agent", {})
    agent["memory_path"], agent["cache_path"] = data["paths"]["memory"], data["paths"]["response_cache"]
    out = folder / "params.yaml"
    out.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return out


def extract_revision(rev: str, folder: Path) -> Path:
    """The `yaksa` and `serving` packages at `rev`, unpacked into `folder` (the checkout is untouched)."""
    archive = subprocess.run(["git", "archive", "--format=tar", rev, "yaksa", "serving"], cwd=ROOT,
                             capture_output=True, check=True).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(folder, filter="data")
    return folder


def hide_modules(folder: Path, names: tuple[str, ...]) -> Path:
    """A folder that, first on PYTHONPATH, makes `import <name>` fail for each of `names` (as it did
    before they were installed), so uvicorn's "auto" choices fall back the way they did then."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in names:
        (folder / f"{name}.py").write_text(f"raise ImportError('{name} is hidden from the benchmark baseline')\n")
    return folder


def start_server(src: Path, params: Path, port: int, workers: int, log: Path,
                 hidden: Path | None = None, options: tuple[str, ...] = ()) -> subprocess.Popen:
    """`yaksa serve` of the code in `src`, rate limiting off, in its own process group; modules in
    `hidden` (see `hide_modules`) shadow the installed ones; `options`: more `yaksa serve` options."""
    path = os.pathsep.join(str(p) for p in (hidden, src) if p is not None)
    env = {**os.environ, "YAKSA_RATE_PER_SEC": "0", "PYTHONPATH": path}
    env.pop("YAKSA_API_KEYS", None)
    with open(log, "wb") as out:
        return subprocess.Popen(
            [sys.executable, "-c", "from yaksa_cli import main; main()", "serve", "--port", str(port),
             "--workers", str(workers), "--params", str(params), *options],
            cwd=src, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)


def stop_server(server: subprocess.Popen) -> None:
    """SIGTERM to the server's own process group (it and its workers), SIGKILL after 60 s."""
    os.killpg(server.pid, signal.SIGTERM)
    try:
        server.wait(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(server.pid, signal.SIGKILL)
        server.wait()


async def wait_ready(url: str, server: subprocess.Popen) -> str:
    """The served version once every worker is ready: `/readyz` answers per worker, so it must say 200
    on READY_PROBES fresh connections in a row (each may land on another worker). Measuring while one
    of two workers still loads its bundle would time the load, not the service."""
    deadline = time.monotonic() + READY_TIMEOUT_S
    in_a_row, version = 0, ""
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit(f"server exited with {server.returncode} before it was ready")
        try:
            async with httpx.AsyncClient(base_url=url, timeout=5.0) as client:   # a new connection
                r = await client.get("/readyz", headers={"Connection": "close"})
            ok = r.status_code == 200
            version = r.json()["version"] if ok else version
        except httpx.HTTPError:
            ok = False
        in_a_row = in_a_row + 1 if ok else 0
        if in_a_row >= READY_PROBES:
            return version
        await asyncio.sleep(0.2 if ok else 1.0)
    raise SystemExit(f"server at {url} not ready after {READY_TIMEOUT_S:.0f} s")


async def compare(args: argparse.Namespace) -> int:
    """Before and now, 1 and 2 workers (module doc)."""
    rows: list[dict] = []
    with tempfile.TemporaryDirectory(prefix="serve-compare-") as tmp:
        code = {"before": extract_revision(args.baseline_rev, Path(tmp) / "before-src"), "now": ROOT}
        hidden = {"before": (hide_modules(Path(tmp) / "before-hidden", args.baseline_without)
                             if args.baseline_without else None), "now": None}
        for workers in args.workers:
            for name, src in code.items():
                folder = Path(tmp) / f"{name}-{workers}"
                folder.mkdir()
                params = private_params(Path(args.params), folder)
                port = free_port()
                server = start_server(src, params, port, workers, folder / "server.log", hidden[name])
                url = f"http://127.0.0.1:{port}"
                try:
                    try:
                        version = await wait_ready(url, server)
                    except SystemExit:
                        print((folder / "server.log").read_text(errors="replace")[-4000:], file=sys.stderr)
                        raise
                    for endpoint in args.endpoints:
                        for c in args.concurrency:
                            r = await run(url, endpoint, c, args.duration, args.max_requests, {}, args.user_id, args.users)
                            rows.append({"code": name, "workers": workers, "bundle_version": version, **asdict(r)})
                            print(f"{name:6s} workers={workers} {endpoint:6s} c={c:<3d} {r.requests:6d} req "
                                  f"{r.throughput_rps:8.1f} req/s  p50 {r.p50_ms:7.1f}  p95 {r.p95_ms:7.1f} ms  "
                                  f"errors {r.errors} {r.error_kinds or ''}", flush=True)
                finally:
                    stop_server(server)
    without = f" without {', '.join(args.baseline_without)}" if args.baseline_without else ""
    print(f"\nbefore = {args.baseline_rev}{without}, now = this checkout; "
          f"{args.duration:g} s per run\n")
    print("| endpoint | concurrency | workers | before req/s | now req/s | now / before | before p95 ms | "
          "now p95 ms | errors (before/now) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for endpoint in args.endpoints:
        for c in args.concurrency:
            for workers in args.workers:
                pair = {r["code"]: r for r in rows
                        if (r["endpoint"], r["concurrency"], r["workers"]) == (endpoint, c, workers)}
                b, n = pair["before"], pair["now"]
                print(f"| /v1/{endpoint} | {c} | {workers} | {b['throughput_rps']:.1f} | {n['throughput_rps']:.1f} | "
                      f"{n['throughput_rps'] / b['throughput_rps']:.1f}× | {b['p95_ms']:.1f} | {n['p95_ms']:.1f} | "
                      f"{b['errors']}/{n['errors']} |")
    write_json(args.out, {"baseline_rev": args.baseline_rev, "baseline_without": list(args.baseline_without),
                          "duration_s": args.duration,
                          "max_requests": args.max_requests, "runs": rows})
    print(f"wrote {args.out}")
    return 1 if any(r["errors"] for r in rows) else 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--url", default="http://127.0.0.1:8000")
    parser.add_argument("--duration", type=float, default=10.0, help="seconds per (endpoint, concurrency) run")
    parser.add_argument("--max-requests", type=int, default=3000, help="request cap per run")
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 8, 32])
    parser.add_argument("--endpoints", nargs="+", choices=["search", "chat"], default=["search", "chat"])
    parser.add_argument("--api-key", default=os.environ.get("YAKSA_BENCH_KEY", ""))
    parser.add_argument("--user-id", default="bench-user")
    parser.add_argument("--users", type=int, default=1,
                        help="spread the clients over this many user ids (`user_ids`); 1: all ask as --user-id")
    parser.add_argument("--out", type=Path, default=None,
                        help="JSON report (default benchmarks/results/serve.json, serve-compare.json with --compare)")
    parser.add_argument("--compare", action="store_true", help="start the before and now servers (module doc)")
    parser.add_argument("--baseline-rev", default=BASELINE_REV, help="git revision of the 'before' code")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2], help="uvicorn workers (--compare)")
    parser.add_argument("--baseline-without", nargs="*", default=list(BASELINE_WITHOUT),
                        help="modules hidden from the baseline (--compare; default: those BASELINE_REV lacked; "
                             "give none for a revision that had them)")
    parser.add_argument("--params", default=str(ROOT / "params.yaml"), help="project params (--compare)")
    args = parser.parse_args()
    if args.duration <= 0 or args.max_requests < 1 or min(args.concurrency) < 1 or min(args.workers) < 1:
        parser.error("--duration, --max-requests, --concurrency and --workers must be positive")
    results = ROOT / "benchmarks" / "results"
    args.out = args.out or results / ("serve-compare.json" if args.compare else "serve.json")
    if args.compare and "--concurrency" not in sys.argv:
        args.concurrency = [1, 8]
    sys.exit(asyncio.run(compare(args) if args.compare else main_async(args)))


if __name__ == "__main__":
    main()
