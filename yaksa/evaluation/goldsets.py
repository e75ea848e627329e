"""Gold question sets: which documents answer which question, frozen as JSONL for repeatable runs.

The English sets come from the datasets' own dev splits (their test splits stay held out). Gold ids
are built with the same functions the corpus adapters use, so a gold id names a document that the
ingest stage can actually produce.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from yaksa.atomicio import atomic_write_text
from yaksa.corpus.document import normalize_text
from yaksa.corpus.medquad import doc_id_for
from yaksa.corpus.rawio import iter_jsonl, one_line


class GoldsetError(ValueError):
    """A gold-set or dev-question file is missing or malformed (the message names file and line)."""


@dataclass(frozen=True)
class GoldQuestion:
    qid: str
    question: str
    gold: frozenset[str]  # empty for out-of-scope questions
    lang: str
    kind: str  # e.g. "medquad", "pubmedqa", an MFDS section key, "symptom", "oos"


def _records(path: Path, limit: int) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) per JSONL line; the first malformed line stops the load."""
    if not Path(path).is_file():
        raise GoldsetError(f"{path}: file not found")
    for line_no, rec, error in iter_jsonl(Path(path), limit):
        if rec is None:
            raise GoldsetError(f"{path}:{line_no}: {error}")
        yield line_no, rec


def _field(rec: dict[str, Any], name: str, path: Path, line_no: int) -> str:
    value = one_line(rec.get(name))
    if not value:
        raise GoldsetError(f"{path}:{line_no}: missing or empty field {name!r}")
    return value


def _twin_index(passages: Path) -> tuple[dict[tuple[str, str], str], dict[tuple[str, str], list[str]]]:
    """(qid, focus) → normalised answer, and (focus, normalised answer) → every qid holding it."""
    text_of: dict[tuple[str, str], str] = {}
    qids_of: dict[tuple[str, str], list[str]] = defaultdict(list)
    for _line_no, rec in _records(passages, 0):
        qid, focus = one_line(rec.get("qid")), one_line(rec.get("focus"))
        text = normalize_text(str(rec.get("answer") or ""))
        text_of[(qid, focus)] = text
        qids_of[(focus, text)].append(qid)
    return text_of, qids_of


def medquad_dev(path: Path, limit: int = 0, passages: Path | None = None) -> list[GoldQuestion]:
    """MedQuAD dev questions; gold = `doc_id_for(gold_doc, focus)`, plus its twins when `passages`
    is given.

    A twin is a passage under the same focus whose answer is the gold text after the corpus's own
    normalisation. Twins matter because ingest keeps only the first copy of identical content (its
    hash covers the focus), so without them a question whose gold copy was dropped can never be hit
    (13 of the 3,000 dev questions in the full build). The file's `gold_docs` list is not used: its
    bare qids are ambiguous (qids repeat across subsets), it misses copies that differ only in
    whitespace, and it includes copies filed under other topics, which a question about
    "Acromegaly" should not count as answered.
    """
    text_of, qids_of = _twin_index(passages) if passages is not None else ({}, {})
    out = []
    for line_no, rec in _records(path, limit):
        qid, focus = _field(rec, "qid", path, line_no), _field(rec, "focus", path, line_no)
        gold_qid = _field(rec, "gold_doc", path, line_no)
        gold_text = text_of.get((gold_qid, focus))
        if passages is not None and gold_text is None:
            raise GoldsetError(f"{path}:{line_no}: gold passage ({gold_qid}, {focus}) not in {passages}")
        twins = qids_of.get((focus, gold_text), []) if gold_text else []
        gold = {doc_id_for(q, focus) for q in [gold_qid, *twins]}
        out.append(GoldQuestion(
            qid=f"medquad:{qid}:{focus}", question=_field(rec, "question", path, line_no),
            gold=frozenset(gold), lang="en", kind="medquad",
        ))
    return out


def pubmedqa_dev(path: Path, limit: int = 0) -> list[GoldQuestion]:
    """PubMedQA dev questions; the gold is the question's own abstract, `pubmed:{pmid}`."""
    out = []
    for line_no, rec in _records(path, limit):
        pmid = _field(rec, "pmid", path, line_no)
        out.append(GoldQuestion(
            qid=f"pubmed:{pmid}", question=_field(rec, "question", path, line_no),
            gold=frozenset({f"pubmed:{pmid}"}), lang="en", kind="pubmedqa",
        ))
    return out


def restrict_to_corpus(questions: Sequence[GoldQuestion], doc_ids: Collection[str]) -> list[GoldQuestion]:
    """Each question's gold cut down to the documents the index actually holds; questions left with
    no gold are dropped (compare lengths to see how many). Scoring against ids the de-duplication
    removed would cap recall and nDCG below 1 for a perfect ranking. Out-of-scope questions pass
    through unchanged."""
    indexed = frozenset(doc_ids)
    out = []
    for q in questions:
        if not q.gold:
            out.append(q)
        elif kept := q.gold & indexed:
            out.append(replace(q, gold=kept))
    return out


def save_goldset(path: Path, questions: Sequence[GoldQuestion]) -> None:
    """Write one JSON object per line (gold sorted, so a re-frozen set diffs cleanly), atomically."""
    seen: set[str] = set()
    lines = []
    for q in questions:
        if q.qid in seen:
            raise GoldsetError(f"{path}: duplicate qid {q.qid!r}; qids key the per-question results")
        seen.add(q.qid)
        row = {"qid": q.qid, "question": q.question, "gold": sorted(q.gold), "lang": q.lang, "kind": q.kind}
        lines.append(json.dumps(row, ensure_ascii=False))
    atomic_write_text(path, "".join(line + "\n" for line in lines))


def load_goldset(path: Path) -> list[GoldQuestion]:
    """Read a set written by `save_goldset`; any malformed line is an error naming its line number."""
    out = []
    for line_no, rec in _records(path, 0):
        gold = rec.get("gold")
        if not isinstance(gold, list) or not all(isinstance(g, str) and g for g in gold):
            raise GoldsetError(f"{path}:{line_no}: 'gold' must be a list of non-empty doc id strings")
        kind = _field(rec, "kind", path, line_no)
        if not gold and kind != "oos":
            raise GoldsetError(f"{path}:{line_no}: empty gold is only allowed for kind 'oos', got {kind!r}")
        out.append(GoldQuestion(
            qid=_field(rec, "qid", path, line_no), question=_field(rec, "question", path, line_no),
            gold=frozenset(gold), lang=_field(rec, "lang", path, line_no), kind=kind,
        ))
    return out
