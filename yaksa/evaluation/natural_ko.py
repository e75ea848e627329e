"""Natural Korean questions: does retrieval answer about what was asked?

Why a second Korean set: MFDS-ko is templated from the documents ("타치온정은 어디에 쓰는 약인가요?"),
so it never asks by a brand missing from the data, by everyday symptom words, or for a child. These
questions (`natural_ko.jsonl`, written as people ask them) name a target and an intent, not documents:

  {"qid", "question", "target": {"product": "부루펜"} | {"ingredient": "아세트아미노펜"}
                               | {"brand": "타이레놀"} | {"symptom": ["두통"]}, "intent": "usage"}

Gold products are resolved from the bundle's document fields at evaluation time, independently of
the linker: product → products whose product_name contains the name; ingredient → products whose
metadata ingredient or name contains it; brand → its principal ingredient (`rules/brands_ko.yaml`),
then as ingredient; symptom → products whose 효능효과 text names one of the terms. A target with no
product in the data is an *abstain* question: the right answer is an empty result with a reason.

Metrics per question at depth k (the configured retrieval.k): `first_ok` (first hit about the target),
`share` (hits about the target / k), `intent_ok` (a hit of one of the intent's primary sections),
`p@5` for symptom questions (share in the top 5), `abstain_ok` for abstain questions. Reported on the
held-out half (`is_held_out` of the qid); the other half is for tuning rules and weights.
"""

from __future__ import annotations

import json
import math
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from yaksa.corpus.document import Document
from yaksa.evaluation.goldsets import GoldsetError
from yaksa.lexicon.linking import load_brand_rules, names_term, without_spaces
from yaksa.lexicon.section_intent import KO_SECTIONS

QUESTIONS_FILE = Path(__file__).with_name("natural_ko.jsonl")
TARGET_KINDS: tuple[str, ...] = ("product", "ingredient", "brand", "symptom")
TARGETS = {"first_ok": 0.90, "share": 0.80, "intent_ok": 0.85, "p@5": 0.80}


@dataclass(frozen=True)
class NaturalQuestion:
    qid: str
    question: str
    kind: str                     # product | ingredient | brand | symptom
    target: tuple[str, ...]       # the name(s) the gold is resolved from
    intent: str                   # a key of KO_SECTIONS


@dataclass(frozen=True)
class Hit:
    item_seq: str
    section_key: str


def load_questions(path: Path = QUESTIONS_FILE) -> list[NaturalQuestion]:
    """Parse the question file; a malformed line is an error naming the line."""
    if not Path(path).is_file():
        raise GoldsetError(f"{path}: file not found")
    out: list[NaturalQuestion] = []
    seen: set[str] = set()
    for line_no, line in enumerate(Path(path).read_text("utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
            target = rec["target"]
            (kind, value), = target.items()
            qid, question, intent = str(rec["qid"]), str(rec["question"]).strip(), str(rec["intent"])
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise GoldsetError(f"{path}:{line_no}: malformed question record ({exc})") from None
        values = tuple(value) if isinstance(value, list) else (str(value),)
        if kind not in TARGET_KINDS or not values or not all(values):
            raise GoldsetError(f"{path}:{line_no}: target must be one of {TARGET_KINDS} with a name")
        if intent not in KO_SECTIONS:
            raise GoldsetError(f"{path}:{line_no}: unknown intent {intent!r}; expected one of {list(KO_SECTIONS)}")
        if qid in seen or not question:
            raise GoldsetError(f"{path}:{line_no}: duplicate qid {qid!r} or empty question")
        seen.add(qid)
        out.append(NaturalQuestion(qid, question, kind, values, intent))
    return out


@dataclass(frozen=True)
class ProductFields:
    name: str
    ingredient: str
    efficacy: str


def product_fields(documents: Sequence[Document]) -> dict[str, ProductFields]:
    """item_seq → (product name, ingredient field, 효능효과 text) from MFDS section documents."""
    names: dict[str, str] = {}
    ingredients: dict[str, str] = {}
    efficacy: dict[str, str] = defaultdict(str)
    for d in documents:
        seq = d.metadata.get("item_seq")
        if d.source != "mfds_easy_drug" or not seq:
            continue
        names.setdefault(seq, str(d.metadata.get("product_name") or d.title))
        ingredients.setdefault(seq, str(d.metadata.get("ingredient") or ""))
        if d.metadata.get("section_key") == "efficacy":
            efficacy[seq] = d.text
    return {s: ProductFields(n, ingredients[s], efficacy[s]) for s, n in names.items()}


def resolve_gold(q: NaturalQuestion, products: dict[str, ProductFields]) -> frozenset[str]:
    """The item_seqs that answer `q`'s target (module doc); empty for an abstain question."""
    if q.kind == "product":
        names = [without_spaces(t) for t in q.target]
        return frozenset(s for s, p in products.items() if any(n in without_spaces(p.name) for n in names))
    if q.kind == "symptom":
        return frozenset(s for s, p in products.items() if any(names_term(p.efficacy, t) for t in q.target))
    ingredients = list(q.target)
    if q.kind == "brand":
        rule = load_brand_rules().brands.get(q.target[0])
        if rule is None:
            raise GoldsetError(f"{q.qid}: brand {q.target[0]!r} is not in rules/brands_ko.yaml")
        ingredients = [rule.ingredients[0]]
    return frozenset(s for s, p in products.items()
                     if any(i in without_spaces(p.ingredient) or i in without_spaces(p.name) for i in ingredients))


def score_question(q: NaturalQuestion, gold: frozenset[str], hits: Sequence[Hit], k: int) -> dict[str, float]:
    """Per-question metrics (module doc); abstain questions get only `abstain_ok`."""
    if not gold:
        return {"abstain_ok": float(not hits)}
    top = list(hits)[:k]
    about = [h.item_seq in gold for h in top]
    primary = KO_SECTIONS[q.intent][0]
    row = {
        "first_ok": float(bool(about) and about[0]),
        "share": sum(about) / k,
        "intent_ok": float(any(h.section_key in primary for h in top)),
    }
    if q.kind == "symptom":
        row["p@5"] = sum(h.item_seq in gold for h in list(hits)[:5]) / 5
    return row


@dataclass(frozen=True)
class NaturalReport:
    held_out: dict[str, float]      # metric -> mean on the held-out half (plus n, n_abstain)
    tuning: dict[str, float]
    by_kind: dict[str, dict[str, float]]  # held-out means per target kind
    failures: list[dict[str, Any]]  # questions with first_ok == 0, with their half (read the tuning ones)


def _means(rows: Sequence[dict[str, float]]) -> dict[str, float]:
    sums: dict[str, list[float]] = defaultdict(list)
    for row in rows:
        for key, value in row.items():
            sums[key].append(value)
    out = {key: math.fsum(v) / len(v) for key, v in sums.items()}
    out["n"] = float(sum(1 for r in rows if "first_ok" in r))
    out["n_abstain"] = float(sum(1 for r in rows if "abstain_ok" in r))
    return out


def evaluate_natural(search: Callable[[str], list[Hit]], documents: Sequence[Document],
                     held_out: Callable[[str], bool], k: int = 5,
                     questions: Sequence[NaturalQuestion] | None = None) -> NaturalReport:
    """Run every question through `search` and report both halves (module doc)."""
    if k < 5:
        raise ValueError(f"k must be >= 5 (p@5 is reported), got {k}")
    questions = list(questions) if questions is not None else load_questions()
    products = product_fields(documents)
    if not products:
        raise ValueError("no MFDS documents given: cannot resolve the natural questions' gold")
    rows: dict[str, list[dict[str, float]]] = {"held_out": [], "tuning": []}
    by_kind: dict[str, list[dict[str, float]]] = defaultdict(list)
    failures: list[dict[str, Any]] = []
    for q in questions:
        gold = resolve_gold(q, products)
        hits = search(q.question)
        row = score_question(q, gold, hits, k)
        half = "held_out" if held_out(q.qid) else "tuning"
        rows[half].append(row)
        if half == "held_out":
            by_kind[q.kind].append(row)
        if row.get("first_ok", 1.0) == 0.0 or row.get("abstain_ok", 1.0) == 0.0:
            failures.append({"qid": q.qid, "half": half, "question": q.question, "kind": q.kind,
                                 "first": (f"{products[hits[0].item_seq].name} {hits[0].section_key}"
                                           if hits and hits[0].item_seq in products else None)})
    return NaturalReport(_means(rows["held_out"]), _means(rows["tuning"]),
                         {kind: _means(r) for kind, r in sorted(by_kind.items())}, failures)


def markdown(report: NaturalReport) -> str:
    """The held-out table for the README, with the targets."""
    header = ("| natural-ko (held-out) | n | first result about the target | share of top-k | intent section "
              "in top-k | symptom P@5 | abstains correct |")
    lines = [header, "|---|---:|---:|---:|---:|---:|---:|"]

    def cell(m: dict[str, float], key: str) -> str:
        return f"{m[key]:.1%}" if key in m else "–"

    for name, m in [("all", report.held_out), *report.by_kind.items()]:
        lines.append(f"| {name} | {int(m['n'])} | {cell(m, 'first_ok')} | {cell(m, 'share')} | "
                     f"{cell(m, 'intent_ok')} | {cell(m, 'p@5')} | {cell(m, 'abstain_ok')} |")
    lines.append("targets: " + ", ".join(f"{k} ≥ {v:.0%}" for k, v in TARGETS.items()))
    return "\n".join(lines)
