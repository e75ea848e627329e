"""Write docs/results.md: tables of the figures held in metrics/*.json.

The metrics files are what the last `dvc repro` (or an evaluation run) wrote and committed; this page
shows them as they are, each table naming the file it came from, so the docs never hold a copied
figure that the metrics no longer say. Run by the mkdocs hook (docs/hooks.py) before every build, or by
hand: `python scripts/docs_results.py [--check]`. Only the standard library is needed.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
METRICS = ROOT / "metrics"
OUT = ROOT / "docs" / "results.md"


def _load(name: str) -> dict[str, Any] | None:
    path = METRICS / name
    if not path.is_file():
        return None
    return json.loads(path.read_text(encoding="utf-8"))


def _num(value: Any, pct: bool = False) -> str:
    if value is None:
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (int, float)):
        if pct:
            return f"{value * 100:.1f}%"
        if float(value).is_integer():
            return f"{int(value):,}"
        if abs(value) >= 1000:
            return f"{value:,.1f}"
        return f"{value:.4f}".rstrip("0").rstrip(".")
    return str(value).replace("|", "\\|")


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    align = ["---"] + ["---:"] * (len(header) - 1)
    return ["| " + " | ".join(header) + " |", "| " + " | ".join(align) + " |",
            *("| " + " | ".join(r) + " |" for r in rows), ""]


def _source(name: str, data: dict[str, Any], *keys: str) -> str:
    parts = [f"From `metrics/{name}`"]
    for key in keys:
        if data.get(key) is not None:
            parts.append(f"{key.replace('_', ' ')} `{data[key]}`")
    return ", ".join(parts) + "."


def answers_section(data: dict[str, Any] | None) -> list[str]:
    lines = ["## Answer quality (nightly regression)", ""]
    if data is None:
        return lines + ["`metrics/answers.json` is absent.", ""]
    lines += [_source("answers.json", data, "run_id", "bundle_version"),
              (f"Gate passed: **{_num(data.get('passed'))}**; {_num(data.get('n_items'))} items. "
              "See [Evaluation](evaluation.md#answer-quality-nightly-regression) for what each metric means."), ""]
    skip = {"run_id", "bundle_version", "passed", "n_items"}
    rows = [[f"`{k}`", _num(v)] for k, v in sorted(data.items()) if k not in skip]
    return lines + _table(["metric", "value"], rows)


RATES = ["refused", "red_flag_first", "false_alarm", "product_first", "person_ok"]


def _rate(cell: Any) -> str:
    if not isinstance(cell, dict):
        return _num(cell)
    if cell.get("rate") is None:
        return f"– of {_num(cell.get('n'))}"
    return f"{_num(cell['rate'], pct=True)} of {_num(cell.get('n'))}"


def posts_section(data: dict[str, Any] | None) -> list[str]:
    lines = ["## Real posts (`yaksa eval posts`)", ""]
    if data is None:
        return lines + ["`metrics/posts.json` is absent.", ""]
    lines += [_source("posts.json", data, "bundle_version", "labels_file")
              + f" {_num(data.get('n_labels'))} labelled posts (ids only). See [Scope](scope.md#real-posts-yaksa-eval-posts).", ""]
    splits = data.get("splits") or {}
    rows = []
    for split, s in splits.items():
        rows.append([split, _num(s.get("n"))] + [_rate(s.get(r)) for r in RATES]
                    + [_num(s.get("refused_red_flag")),
                       f"{_num(s.get('latency_p50_ms'))} / {_num(s.get('latency_p95_ms'))}"])
    lines += _table(["split", "posts", *RATES, "red-flag posts refused", "latency p50 / p95 ms"], rows)
    per_topic = (splits.get("all") or {}).get("per_topic") or {}
    if per_topic:
        lines += ["Per crawl topic, all splits:", ""]
        rows = [[topic, _num(t.get("n"))] + [_rate(t.get(r)) for r in RATES] for topic, t in per_topic.items()]
        lines += _table(["topic", "posts", *RATES], rows)
    targets = data.get("targets")
    if targets:
        lines += ["Targets: " + ", ".join(f"`{k}` {_num(v)}" for k, v in targets.items()) + ".", ""]
    misses = data.get("misses") or []
    if misses:
        by_rule: dict[str, int] = {}
        for m in misses:
            by_rule[m.get("rule", "?")] = by_rule.get(m.get("rule", "?"), 0) + 1
        lines += [f"Misses listed in the file: {len(misses)} ("
                  + ", ".join(f"{rule} {n}" for rule, n in sorted(by_rule.items())) + ").", ""]
    return lines


def retrieval_section(data: dict[str, Any] | None) -> list[str]:
    lines = ["## Retrieval (`yaksa eval retrieval`)", ""]
    if data is None:
        return lines + ["`metrics/retrieval.json` is absent.", ""]
    lines += [("From `metrics/retrieval.json` (the DVC `evaluate` stage). "
              "See [Evaluation](evaluation.md#retrieval-evaluation)."), ""]
    modes = ["bm25", "dense", "weighted", "rrf", "configured"]
    sets = sorted({k.split("/")[0] for k in data if k.split("/")[1:] and k.split("/")[1] in modes
                   and "mrr@10" in data[k]})
    for metric in ("mrr@10", "recall@1", "recall@10", "ndcg@10"):
        rows = []
        for s in sets:
            n = next((data[f"{s}/{m}"].get("n") for m in modes if f"{s}/{m}" in data), None)
            rows.append([s, _num(n)] + [_num(data.get(f"{s}/{m}", {}).get(metric)) for m in modes])
        lines += [f"**{metric}** by fusion mode:", ""] + _table(["set", "n", *modes], rows)
    nat = data.get("natural_ko/configured")
    if nat:
        keys = ["first_ok", "share", "intent_ok", "p@5", "abstain_ok", "n", "n_abstain"]
        lines += ["**Natural Korean questions** (configured):", ""]
        lines += _table(["half", *keys], [
            ["held-out", *(_num(nat.get(k)) for k in keys)],
            ["tuning", *(_num(nat.get(f"tuning.{k}")) for k in keys)],
        ])
    oos = data.get("oos/configured")
    if oos:
        lines += ["**Scope stage on the retrieval sets** (`oos/configured`):", ""]
        lines += _table(["metric", "value"], [[f"`{k}`", _num(v)] for k, v in sorted(oos.items())])
    return lines


def scope_section(data: dict[str, Any] | None) -> list[str]:
    lines = ["## Scope (`yaksa eval scope`)", ""]
    if data is None:
        return lines + ["`metrics/scope.json` is absent.", ""]
    lines += [_source("scope.json", data, "version", "model")
              + f" Threshold {_num(data.get('threshold'))}; tuning: {(data.get('tuning') or {}).get('method', '–')}."
              " See [Scope](scope.md).", ""]
    held = data.get("held_out") or {}
    if held:
        lines += ["**Held-out half:**", ""]
        lines += _table(["metric", "value"], [[f"`{k}`", _num(v, pct=k.endswith("rate"))] for k, v in sorted(held.items())])
    dev = data.get("dev_false_block") or {}
    if dev:
        lines += ["**Dev questions refused** (false blocks):", ""]
        lines += _table(["set", "n", "refused"], [[k, _num(v.get("n")), _num(v.get("false_block_rate"), pct=True)]
                                                 for k, v in sorted(dev.items())])
    per_source = data.get("per_source") or {}
    if per_source:
        lines += [("**Per source** (refused: through the deciding stage, held-out half; left out: the model "
                  "alone, leave-one-source-out; left out, stage: the whole stage at the left-out model's "
                  "probability, tuning half; held-out fit: the fitted model on the held-out half):"), ""]
        rows = [[k, str(v.get("category", "")), _num(v.get("in_scope")), _num(v.get("n")),
                 _num(v.get("refused"), pct=True), _num(v.get("loso_refused"), pct=True),
                 _num(v.get("loso_stage_refused"), pct=True), _num(v.get("loso_stage_n")),
                 _num(v.get("fit_held_out_refused"), pct=True)] for k, v in sorted(per_source.items())]
        lines += _table(["source", "kind", "in scope", "n", "refused", "left out", "left out, stage", "n (stage)",
                         "held-out fit"], rows)
    per_domain = data.get("per_domain") or {}
    if per_domain:
        lines += ["**Per domain** of our own question sets (held-out half; `in:` false blocks, `out:` blocks):", ""]
        lines += _table(["domain", "n", "rate"], [[k, _num(v.get("n")), _num(v.get("rate"), pct=True)]
                                                  for k, v in sorted(per_domain.items())])
    weights = data.get("weights") or {}
    if weights:
        lines += ["**Model weights:**", ""]
        lines += _table(["feature", "weight"], [[f"`{k}`", _num(v)] for k, v in sorted(weights.items())])
    return lines


def render() -> str:
    lines = [
        "# Results",
        "",
        "<!-- generated by scripts/docs_results.py from metrics/*.json; do not edit by hand -->",
        "",
        "The figures the committed metrics files hold, as they are: each section names its file and the bundle",
        "or run it was measured on. They are what the last evaluation run wrote, which may be older than a",
        "figure measured later and quoted, with its bundle and date, on the topic pages.",
        "",
    ]
    lines += answers_section(_load("answers.json"))
    lines += posts_section(_load("posts.json"))
    lines += retrieval_section(_load("retrieval.json"))
    lines += scope_section(_load("scope.json"))
    return "\n".join(lines).rstrip() + "\n"


def write(out: Path = OUT) -> bool:
    """Write the page; True when its content changed."""
    text = render()
    if out.is_file() and out.read_text(encoding="utf-8") == text:
        return False
    out.write_text(text, encoding="utf-8")
    return True


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="exit 1 when docs/results.md is not up to date")
    args = ap.parse_args(argv)
    if args.check:
        current = OUT.read_text(encoding="utf-8") if OUT.is_file() else ""
        if current != render():
            print("docs/results.md is out of date: run python scripts/docs_results.py", file=sys.stderr)
            return 1
        return 0
    print("docs/results.md", "written" if write() else "unchanged")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
