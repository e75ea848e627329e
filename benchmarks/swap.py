"""Swap lag and memory per worker: `yaksa serve --workers N` on the published bundle, under load,
across a publish and a rollback.

    .venv/bin/python benchmarks/swap.py --params params.yaml --out benchmarks/measured/swap.json

Publishes a copy of the current version (same files under a new version name: a swap depends only on
what CURRENT names), measures for each worker the seconds from the switch until it answered from the
new version, rolls back and measures again, and reads each worker's memory (RSS, and PSS: the pages
it shares with the other workers counted once between them) before the publish and after the
rollback. Clients on /v1/search and /v1/chat run throughout; any failed request is reported. The
copy is removed and CURRENT restored at the end. The machine's load is recorded: a swap is CPU work,
and other work on the cores lengthens it.

Why two runs (`--reuse both`, the default): the copy has the same content, so the tables a swap
reuses by content (`yaksa.retrieval.loader`: drug catalog, section tables, the scope stage's lexical
reading) would all be reused, which a real new bundle with other documents would not get. The run
labelled `reuse_off` starts the server with `YAKSA_REUSE_CONTENT=0`, so every such table is rebuilt
as for a new bundle: that is the figure for a real publish; `reuse_on` is a republish or rollback of
unchanged content.

A third run, `new_words` (`--reuse new_words`, or `all`): the copy's user dictionary gains one word
(`add_user_word`: what a new product's brand stem does), so the analyser differs and the swap builds a
new Kiwi besides every table (reuse off): the figure for a bundle whose new drug labels add words.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import psutil

from tests.serving.conftest import add_user_word, copy_version
from tests.serving.test_workers import Load, ready_workers, yaksa_serve
from yaksa.config import load_settings
from yaksa.index.layout import current_version
from yaksa.index.publish import publish
from yaksa.retrieval.loader import CONTENT_REUSE_ENV

REUSE_MODES: dict[str, dict[str, str]] = {"reuse_off": {CONTENT_REUSE_ENV: "0"}, "reuse_on": {CONTENT_REUSE_ENV: "1"},
                                          "new_words": {CONTENT_REUSE_ENV: "0"}}



def worker_memory(url_port: int) -> dict[str, dict[str, float]]:
    """MB of RSS and PSS of each process listening on the server's port (the uvicorn workers)."""
    out: dict[str, dict[str, float]] = {}
    for proc in psutil.process_iter(["pid", "cmdline"]):
        try:
            if "multiprocessing" not in " ".join(proc.info["cmdline"] or []) and \
                    "yaksa" not in " ".join(proc.info["cmdline"] or []):
                continue
            if not any(c.laddr and c.laddr.port == url_port for c in proc.net_connections(kind="tcp")):
                continue
            mem = proc.memory_full_info()
            out[str(proc.pid)] = {"rss_mb": round(mem.rss / 2**20, 1), "pss_mb": round(mem.pss / 2**20, 1)}
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            continue
    return out


def measure(params: Path, indexes: Path, first: str, second: str, workers: int, clients: int,
            env: dict[str, str], log: Path) -> dict[str, Any]:
    """One server run: start, publish `second`, roll back to `first`; lag and memory per worker."""
    report: dict[str, Any] = {"env": env}
    with yaksa_serve(params, log, workers=workers, extra_env=env) as url:
        started = time.monotonic()
        ready = ready_workers(url, first, workers)
        report["start_seconds"] = round(time.monotonic() - started, 1)
        port = int(url.rsplit(":", 1)[1])
        with Load(url, clients=clients) as load:
            time.sleep(3)
            report["memory_before"] = worker_memory(port)
            report["load_average_before"] = os.getloadavg()
            publish(indexes, second)
            switched = time.monotonic()
            report["publish_lag_s"] = load.swap_lag(ready, second, switched)
            time.sleep(2)
            publish(indexes, first)
            switched = time.monotonic()
            report["rollback_lag_s"] = load.swap_lag(ready, first, switched)
            time.sleep(3)
            report["memory_after"] = worker_memory(port)
            report["load_average_after"] = os.getloadavg()
        report["answered"] = dict(load.counts)
        report["failures"] = load.failures[:10]
        report["failed"] = len(load.failures)
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--params", default=str(ROOT / "params.yaml"))
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--reuse", choices=[*REUSE_MODES, "both", "all"], default="both",
                        help="reuse of content-derived tables across bundles; both: reuse_off and reuse_on; "
                             "all: and new_words (module doc)")
    parser.add_argument("--out", default="")
    args = parser.parse_args()

    params = Path(args.params).resolve()
    indexes = load_settings(params).paths.indexes
    first = current_version(indexes)
    if first is None:
        parser.error(f"{indexes}: nothing published")
    modes = {"both": ["reuse_off", "reuse_on"], "all": list(REUSE_MODES)}.get(args.reuse, [args.reuse])
    second = copy_version(indexes, first, f"{first}-swapcopy")
    worded = ""
    if "new_words" in modes:
        worded = copy_version(indexes, first, f"{first}-swapwords")
        add_user_word(indexes, worded)
    report: dict[str, Any] = {"bundle": first, "workers": args.workers, "cores": os.cpu_count(),
                              "clients": args.clients}
    log = Path(ROOT / "reports" / "swap-serve.log")
    log.parent.mkdir(parents=True, exist_ok=True)
    try:
        for mode in modes:
            report[mode] = measure(params, indexes, first, worded if mode == "new_words" else second,
                                   args.workers, args.clients, REUSE_MODES[mode], log)
    finally:
        if current_version(indexes) != first:
            publish(indexes, first)
        for copy in (second, worded):
            if copy:
                shutil.rmtree(indexes / copy, ignore_errors=True)
    text = json.dumps(report, indent=2)
    print(text)
    if args.out:
        Path(args.out).write_text(text + "\n", "utf-8")


if __name__ == "__main__":
    main()
