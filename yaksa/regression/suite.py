"""The regression suite: which conversations the nightly run replays, and what each one is judged by.

Why one item type for everything: natural questions, multi-turn scripts, English dev questions,
out-of-scope questions and safety sequences all run through the same agent the same way (each item is
a list of user turns, the last one scored), so the metrics and the gate treat them alike and pair them
across runs by `item_id`. Gold is resolved from the bundle's own documents at load time (product
item_seqs for the Korean drug questions, doc ids for MedQuAD / PubMedQA), never from the answers.

The suite is versioned in the repo (`suite.yaml`, `conversations.jsonl`, `safety.jsonl`, plus the
committed natural and scope question sets); the English dev questions are drawn from `data/raw` with
the fixed seed of `suite.yaml`. `suite_hash` changes whenever any of that changes.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from yaksa.corpus.document import Document
from yaksa.evaluation.goldsets import GoldsetError, medquad_dev, pubmedqa_dev, restrict_to_corpus
from yaksa.evaluation.natural_ko import (
    NaturalQuestion,
    ProductFields,
    load_questions,
    product_fields,
    resolve_gold,
)
from yaksa.lexicon.section_intent import KO_SECTIONS
from yaksa.regression.shared_items import shared_items
from yaksa.scope.exemplars import load_questions as load_scope_questions
from yaksa.split import is_held_out

SUITE_DIR = Path(__file__).parent
SUITE_FILE = SUITE_DIR / "suite.yaml"
CATEGORIES = ("natural_ko", "conversation", "safety", "medquad", "pubmedqa", "out_of_scope", "in_scope",
              "real_post", "exam", "research")
# read from ../shared at run time, never committed (yaksa.regression.shared_items)
SHARED_CATEGORIES = ("real_post", "exam", "research")
EXPECTS = ("answer", "refuse")
CHECKS = ("not_cached", "forget_erases", "crisis_help")
REFERENCE_CONTEXTS = 3  # gold passages given to NonLLMContextRecall per item


@dataclass(frozen=True)
class SuiteItem:
    item_id: str
    category: str
    turns: tuple[str, ...]  # the user's messages in order; the last one is scored
    expect: str = "answer"  # "answer" | "refuse"
    gold_ids: frozenset[str] = frozenset()  # item_seqs (Korean drug items) or doc ids (English)
    gold_kind: str = ""  # "item_seq" | "doc_id" | "" (no retrieval gold)
    intent: str | None = None  # a KO_SECTIONS key for the Korean drug items
    target_kind: str = ""  # product | ingredient | brand | symptom (natural and conversations)
    reference_contexts: tuple[str, ...] = ()  # gold passages (NonLLMContextRecall)
    checks: tuple[str, ...] = ()  # safety checks run after the turns
    lang: str = "ko"
    red_flag: bool = False  # a real post that needs urgent advice first (real_post items)

    @property
    def question(self) -> str:
        return self.turns[-1]

    def to_json(self) -> dict[str, Any]:
        return {
            "item_id": self.item_id,
            "category": self.category,
            "turns": list(self.turns),
            "expect": self.expect,
            "gold_ids": sorted(self.gold_ids),
            "gold_kind": self.gold_kind,
            "intent": self.intent,
            "target_kind": self.target_kind,
            "checks": list(self.checks),
            "red_flag": self.red_flag,
        }


@dataclass(frozen=True)
class Suite:
    items: list[SuiteItem]
    suite_hash: str
    skipped: list[str] = field(default_factory=list)  # sources that were not available, with why

    def by_category(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for item in self.items:
            counts[item.category] = counts.get(item.category, 0) + 1
        return counts


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    rows = []
    for line_no, line in enumerate(path.read_text("utf-8").splitlines(), start=1):
        if line.strip():
            try:
                rows.append(json.loads(line))
            except ValueError as exc:
                raise GoldsetError(f"{path.name}:{line_no}: not JSON ({exc})") from None
    return rows


def _turns(row: dict[str, Any], where: str) -> tuple[str, ...]:
    turns = row.get("turns")
    if not isinstance(turns, list) or not turns or not all(isinstance(t, str) and t.strip() for t in turns):
        raise GoldsetError(f"{where}: 'turns' must be a non-empty list of non-empty strings")
    return tuple(t.strip() for t in turns)


def _drug_reference(
    gold: frozenset[str], intent: str, sections: dict[tuple[str, str], str]
) -> tuple[str, ...]:
    """Gold products' texts of the intent's primary section, a few at most (sorted: deterministic)."""
    primary = KO_SECTIONS[intent][0]
    texts = [sections[(seq, key)] for seq in sorted(gold) for key in primary if (seq, key) in sections]
    return tuple(texts[:REFERENCE_CONTEXTS])


def _targeted(
    item_id: str,
    category: str,
    turns: tuple[str, ...],
    q: NaturalQuestion,
    products: dict[str, ProductFields],
    sections: dict[tuple[str, str], str],
) -> SuiteItem:
    gold = resolve_gold(q, products)
    return SuiteItem(
        item_id,
        category,
        turns,
        "answer",
        gold,
        "item_seq",
        q.intent,
        q.kind,
        _drug_reference(gold, q.intent, sections),
    )


def _conversation(row: dict[str, Any], where: str) -> NaturalQuestion:
    ((kind, value),) = row["target"].items()
    values = tuple(value) if isinstance(value, list) else (str(value),)
    if row.get("intent") not in KO_SECTIONS:
        raise GoldsetError(f"{where}: unknown intent {row.get('intent')!r}")
    return NaturalQuestion(str(row["id"]), "", kind, values, str(row["intent"]))


def _english(
    name: str, questions: Sequence[Any], n: int, seed: int, texts: dict[str, str]
) -> list[SuiteItem]:
    rng = random.Random(f"{seed}:{name}")
    picked = sorted(rng.sample(list(questions), min(n, len(questions))), key=lambda q: q.qid)
    return [
        SuiteItem(
            f"{name}:{q.qid}",
            name,
            (q.question,),
            "answer",
            frozenset(q.gold),
            "doc_id",
            None,
            "",
            tuple(texts[g] for g in sorted(q.gold) if g in texts)[:REFERENCE_CONTEXTS],
            (),
            "en",
        )
        for q in picked
    ]


def load_suite(documents: Sequence[Document], raw_dir: Path, suite_file: Path = SUITE_FILE,
               shared_dir: Path | None = None) -> Suite:
    """Every suite item with its gold resolved against `documents` (the bundle's input documents); the
    real-post, exam and research items are read from `shared_dir` (../shared/data), skipped without it."""
    spec = yaml.safe_load(suite_file.read_text("utf-8")) or {}
    seed = int(spec.get("seed", 0))
    items: list[SuiteItem] = []
    skipped: list[str] = []
    drugs = [d for d in documents if d.collection == "drugs"]
    products = product_fields(drugs)
    sections = {(str(d.metadata.get("item_seq")), str(d.metadata.get("section_key"))): d.text for d in drugs}
    if products:
        questions = load_questions()
        if spec.get("natural_ko") != "all":
            questions = [q for q in questions if is_held_out(q.qid)]
        items += [
            _targeted(f"natural_ko:{q.qid}", "natural_ko", (q.question,), q, products, sections)
            for q in questions
        ]
        conv_file = suite_file.parent / spec.get("conversations", "conversations.jsonl")
        for i, row in enumerate(_read_jsonl(conv_file), start=1):
            where = f"{conv_file.name}:{i}"
            items.append(
                _targeted(
                    f"conversation:{row['id']}",
                    "conversation",
                    _turns(row, where),
                    _conversation(row, where),
                    products,
                    sections,
                )
            )
    else:
        skipped.append("natural_ko, conversation: no MFDS drug documents in this bundle")
    safety_file = suite_file.parent / spec.get("safety", "safety.jsonl")
    for i, row in enumerate(_read_jsonl(safety_file), start=1):
        where = f"{safety_file.name}:{i}"
        expect, checks = row.get("expect"), tuple(row.get("checks") or ())
        if expect not in EXPECTS or any(c not in CHECKS for c in checks):
            raise GoldsetError(f"{where}: expect must be one of {EXPECTS}, checks of {CHECKS}")
        items.append(SuiteItem(f"safety:{row['id']}", "safety", _turns(row, where), expect, checks=checks))
    texts = {d.doc_id: d.text for d in documents if d.collection in ("health", "literature")}
    ids = {d.doc_id for d in documents}
    for name in ("medquad", "pubmedqa"):
        path = raw_dir / name / "dev_questions.jsonl"
        n = int(spec.get(name, 0))
        if n and path.exists():
            dev = (
                medquad_dev(path, passages=raw_dir / name / "passages.jsonl")
                if name == "medquad"
                else pubmedqa_dev(path)
            )
            found = restrict_to_corpus(dev, ids)
            items += _english(name, found, n, seed, texts)
        elif n:
            skipped.append(f"{name}: {path.name} not found")
    scope = load_scope_questions()
    oos = [q for q in scope if not q.in_scope and is_held_out(q.qid)]
    items += [
        SuiteItem(f"out_of_scope:{q.qid}", "out_of_scope", (q.text,), "refuse", lang=q.lang) for q in oos
    ]
    n_in = int(spec.get("in_scope", 0))
    pool = [q for q in scope if q.in_scope and is_held_out(q.qid)]
    rng = random.Random(f"{seed}:in_scope")
    items += [
        SuiteItem(f"in_scope:{q.qid}", "in_scope", (q.text,), "answer", lang=q.lang)
        for q in sorted(rng.sample(pool, min(n_in, len(pool))), key=lambda q: q.qid)
    ]
    taken = {i.item_id.rsplit(":", 1)[-1] for i in items if i.category == "pubmedqa"}
    shared = shared_items(spec, seed, shared_dir, taken)
    items += [SuiteItem(q.item_id, q.category, (q.text,), "answer", lang=q.lang, red_flag=q.red_flag)
              for q in shared.items]
    skipped += shared.skipped
    digest = hashlib.sha256(json.dumps([i.to_json() for i in items], ensure_ascii=False).encode()).hexdigest()
    return Suite(items, digest[:12], skipped)


def limit_suite(suite: Suite, per_category: int) -> Suite:
    """The first `per_category` items of each category (quick runs and tests); 0 keeps everything."""
    if per_category <= 0:
        return suite
    seen: dict[str, int] = {}
    kept = []
    for item in suite.items:
        seen[item.category] = seen.get(item.category, 0) + 1
        if seen[item.category] <= per_category:
            kept.append(item)
    return Suite(kept, suite.suite_hash, suite.skipped)
