"""Same answers before and after a change: the regression suite through two revisions of the code.

Why: a redesign that only moves code (issue 26) must not change a single answer. The nightly gate
compares metrics within a tolerance; this compares the text itself. Each revision runs in its own
process (the earlier one from a `git worktree` of `--rev`, on PYTHONPATH), on the same published bundle,
params and suite, each with fresh memory and cache; then every item's answer, cited documents and
refusal are compared, and the turn latencies are reported side by side (p50, p95). A revision from before
the settings were renamed (`yaksa.config.RENAMED_KEYS`) reads the same params under its old key names.

    python benchmarks/same_answers.py --rev b26ee89 --per-category 0 --out benchmarks/measured/same_answers.json

Exit code 1 when any answer, citation list or refusal differs.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def record(params: Path, per_category: int, out: Path) -> None:
    """Run the suite with whatever `yaksa` is importable; one JSON line per item."""
    try:
        from yaksa.agent.factory import build_runner
    except ImportError:   # a revision from before issue 26 named the module runtime
        from yaksa.agent.runtime import build_runner
    from yaksa.config import load_settings
    from yaksa.corpus.ingest import read_documents
    from yaksa.pipeline.rawdata import default_shared_dir
    from yaksa.regression.suite import limit_suite, load_suite
    from yaksa.retrieval.loader import load_published

    settings = load_settings(params)
    loaded = load_published(settings.paths.indexes)
    suite = limit_suite(load_suite(read_documents(settings.paths.documents), settings.paths.raw,
                                   shared_dir=default_shared_dir(settings.paths.root)), per_category)
    with tempfile.TemporaryDirectory(prefix="yaksa-same-") as scratch, out.open("w", encoding="utf-8") as fh:
        runner = build_runner(loaded, _private(settings, Path(scratch)))
        for index, item in enumerate(suite.items):
            user = f"same-{index}"
            try:
                for turn in item.turns[:-1]:
                    runner.run(turn, user)
                start = time.perf_counter()
                result = runner.run(item.question, user)
                row = {"item_id": item.item_id, "answer": result.answer, "blocked": result.blocked,
                       "citations": [c.doc_id for c in result.citations],
                       "ms": round((time.perf_counter() - start) * 1000, 3)}
            except Exception as exc:  # noqa: BLE001 - an item that fails is compared like any other outcome
                row = {"item_id": item.item_id, "error": f"{type(exc).__name__}: {exc}"}
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    loaded.close()


def _private(settings: Any, scratch: Path) -> Any:
    """`settings` with a fresh profile store and response cache in `scratch`, as the importable revision
    spells it: `Settings.with_state_in` since the paths moved under `paths:`, the agent's own paths before."""
    if hasattr(settings, "with_state_in"):
        return settings.with_state_in(scratch)
    return replace(settings, agent=replace(settings.agent, memory_path=str(scratch / "profiles.sqlite"),
                                           cache_path=str(scratch / "responses.npz")))


def _renames_known_to(config_source: str) -> dict[str, str]:
    """The `RENAMED_KEYS` of a revision's yaksa/config.py (empty before there was one)."""
    import ast

    found = re.search(r"^RENAMED_KEYS = (\{.*?\})", config_source, re.MULTILINE | re.DOTALL)
    return ast.literal_eval(found.group(1)) if found else {}


def _params_for(rev: str, params: Path, scratch: Path) -> Path:
    """`params` as `rev` reads it: under the old key names of the renames `rev` does not know."""
    from yaksa.config import RENAMED_KEYS

    config_then = subprocess.run(["git", "show", f"{rev}:yaksa/config.py"], cwd=ROOT, capture_output=True,
                                 text=True, check=True).stdout
    known = _renames_known_to(config_then)
    undo = {old: new for old, new in RENAMED_KEYS.items() if old not in known}
    if not undo:
        return params
    text = params.read_text(encoding="utf-8")
    for old, new in undo.items():
        text = re.sub(rf"\b{new}:", f"{old}:", text) if new != "scope" else re.sub(
            r"(\{[^}]*?)\bscope:", rf"\g<1>{old}:", text)   # only the variant flag, not the `scope:` section
    out = ROOT / f".same-answers-{scratch.name}.yaml"   # beside params.yaml: its paths resolve the same
    out.write_text(text, encoding="utf-8")
    return out


def _run(python_path: str | None, params: Path, per_category: int, out: Path) -> None:
    env = {**os.environ}
    if python_path is not None:
        env["PYTHONPATH"] = python_path
    cmd = [sys.executable, str(Path(__file__).resolve()), "--record", str(out), "--params", str(params),
           "--per-category", str(per_category)]
    subprocess.run(cmd, cwd=ROOT, env=env, check=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rev", default="b26ee89", help="the earlier revision (default: before issue 26)")
    ap.add_argument("--params", type=Path, default=Path("params.yaml"))
    ap.add_argument("--per-category", type=int, default=0, help="items per category (0 = the whole suite)")
    ap.add_argument("--out", type=Path, default=None, help="write the comparison as JSON here")
    ap.add_argument("--record", type=Path, default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.record is not None:
        record(args.params, args.per_category, args.record)
        return
    with tempfile.TemporaryDirectory(prefix="yaksa-same-answers-") as tmp:
        old_tree = Path(tmp) / "old"
        subprocess.run(["git", "worktree", "add", "--detach", "-q", str(old_tree), args.rev], cwd=ROOT, check=True)
        try:
            old_out, new_out = Path(tmp) / "old.jsonl", Path(tmp) / "new.jsonl"
            old_params = _params_for(args.rev, args.params, Path(tmp))
            try:
                _run(str(old_tree), old_params, args.per_category, old_out)
            finally:
                if old_params != args.params:
                    old_params.unlink(missing_ok=True)
            _run(None, args.params, args.per_category, new_out)
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(old_tree)], cwd=ROOT, check=False)
        old = [json.loads(line) for line in old_out.read_text("utf-8").splitlines()]
        new = [json.loads(line) for line in new_out.read_text("utf-8").splitlines()]
    from yaksa.evaluation.metrics import percentile  # the comparison runs on this checkout's yaksa

    fields = ("answer", "citations", "blocked", "error")
    differ = [o["item_id"] for o, n in zip(old, new, strict=True)
              if o["item_id"] != n["item_id"] or any(o.get(f) != n.get(f) for f in fields)]
    ms_old = [o["ms"] for o in old if "ms" in o]
    ms_new = [n["ms"] for n in new if "ms" in n]
    report = {"rev": args.rev, "items": len(new), "identical": len(new) - len(differ), "differ": differ,
              "errors": sum("error" in n for n in new),
              "turn_ms": {"before": {"p50": percentile(ms_old, 50), "p95": percentile(ms_old, 95)},
                          "after": {"p50": percentile(ms_new, 50), "p95": percentile(ms_new, 95)}}}
    text = json.dumps(report, ensure_ascii=False, indent=2)
    print(text)
    if args.out is not None:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text + "\n", encoding="utf-8")
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
