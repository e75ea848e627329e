"""How evenly `yaksa serve --workers N` spreads connections and requests over its workers.

    python benchmarks/worker_spread.py [--workers 2] [--clients 8] [--requests 200] [--rounds 3]

Starts the server twice on the published bundle (rate limiting off, a private profile store and
cache), one after the other on a free loopback port: with one SO_REUSEPORT socket per worker (today's
default, `serving/reuseport.py`) and with `--shared-socket` (uvicorn's one socket for all workers, the
baseline). Each round opens `--clients` keep-alive connections at once (as a load balancer or a
benchmark does) and sends `--requests` `/v1/search` requests (or offline `/v1/chat` turns, `--endpoint
chat`) over each; the `X-Yaksa-Worker` header says
which worker answered. Reports, per mode, the connections and requests per worker, the busiest worker's
share of the requests (1/N is even, 1.0 is all on one) and requests/s, averaged over rounds, and
writes benchmarks/results/worker-spread.json. Run it on an idle machine: it measures placement, and
throughput only as a side effect.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from serve import QUESTIONS, free_port, private_params, start_server, stop_server, wait_ready

from yaksa.atomicio import write_json

WORKER_HEADER = "X-Yaksa-Worker"
MODES = {"per_worker_socket": (), "shared_socket": ("--shared-socket",)}


async def _request(client: httpx.AsyncClient, endpoint: str, i: int, user: str) -> httpx.Response:
    question = QUESTIONS[i % len(QUESTIONS)]
    if endpoint == "chat":   # an offline turn, answered whole
        return await client.post("/v1/chat", json={"question": question, "user_id": user, "stream": False,
                                                   "web": False})
    return await client.get("/v1/search", params={"q": question, "k": 3})


async def _client(url: str, endpoint: str, requests: int, user: str, start: asyncio.Event) -> list[str]:
    """One keep-alive connection: which worker answered each of its requests."""
    async with httpx.AsyncClient(base_url=url, timeout=30.0,
                                 limits=httpx.Limits(max_connections=1, max_keepalive_connections=1)) as client:
        await start.wait()
        workers = []
        for i in range(requests):
            r = await _request(client, endpoint, i, user)
            r.raise_for_status()
            workers.append(r.headers[WORKER_HEADER])
        return workers


async def one_round(url: str, endpoint: str, clients: int, requests: int) -> dict:
    start = asyncio.Event()
    tasks = [asyncio.create_task(_client(url, endpoint, requests, f"spread-{n}", start)) for n in range(clients)]
    await asyncio.sleep(0)
    began = time.perf_counter()
    start.set()
    answers = await asyncio.gather(*tasks)
    seconds = time.perf_counter() - began
    per_request = Counter(w for conn in answers for w in conn)
    per_connection = Counter(Counter(conn).most_common(1)[0][0] for conn in answers)
    total = sum(per_request.values())
    return {"requests_per_worker": sorted(per_request.values(), reverse=True),
            "connections_per_worker": sorted(per_connection.values(), reverse=True),
            "busiest_share": round(max(per_request.values()) / total, 3),
            "requests_per_s": round(total / seconds, 1)}


async def measure(mode: str, args: argparse.Namespace, params: Path, folder: Path) -> dict:
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    server = start_server(ROOT, params, port, args.workers, folder / f"{mode}.log", options=MODES[mode])
    try:
        await wait_ready(url, server)
        rounds = [await one_round(url, args.endpoint, args.clients, args.requests) for _ in range(args.rounds)]
    finally:
        stop_server(server)
    return {"rounds": rounds,
            "busiest_share_mean": round(sum(r["busiest_share"] for r in rounds) / len(rounds), 3),
            "requests_per_s_mean": round(sum(r["requests_per_s"] for r in rounds) / len(rounds), 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--params", type=Path, default=ROOT / "params.yaml")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--requests", type=int, default=200, help="requests per connection and round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--endpoint", choices=("search", "chat"), default="search")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "worker-spread.json")
    args = parser.parse_args()
    report: dict = {"workers": args.workers, "clients": args.clients, "requests": args.requests,
                    "endpoint": args.endpoint}
    with tempfile.TemporaryDirectory(prefix="yaksa-spread-") as tmp:
        folder = Path(tmp)
        params = private_params(args.params, folder)
        for mode in MODES:
            report[mode] = asyncio.run(measure(mode, args, params, folder))
            print(f"{mode}: busiest worker's share {report[mode]['busiest_share_mean']:.3f} (even = "
                  f"{1 / args.workers:.3f}), {report[mode]['requests_per_s_mean']:.1f} req/s; per round "
                  + "; ".join(f"requests {r['requests_per_worker']} connections {r['connections_per_worker']}"
                              for r in report[mode]["rounds"]), flush=True)
    write_json(args.out, report)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
