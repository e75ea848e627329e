"""MedQuAD answers → `health` documents (English consumer-health evidence, one per QA answer).

The converted file's `qid` is NOT unique: MedQuAD numbers questions per XML document, several
subsets reuse the same numbers, and some CancerGov documents hold several topics (16,407 records,
12,133 distinct qids). `(qid, focus)` is unique, and the dev questions carry both, so the doc_id is
built from the pair by `doc_id_for`, which evaluation code must use to map gold answers.
"""

from __future__ import annotations

import re
from pathlib import Path

from tqdm import tqdm

from yaksa.corpus.document import Document, normalize_text
from yaksa.corpus.rawio import LoadResult, iter_jsonl, list_files, one_line
from yaksa.corpus.rejects import RejectLog

SOURCE = "medquad"


def doc_id_for(qid: str, focus: str) -> str:
    """"0000013_2-1" + "Polycythemia Vera" → "medquad:0000013_2-1:Polycythemia-Vera".

    Case is kept: GHR's "fragile X syndrome" and MedlinePlus's "Fragile X Syndrome" share a qid."""
    slug = re.sub(r"[^0-9A-Za-z]+", "-", one_line(focus)).strip("-")
    return f"medquad:{one_line(qid)}:{slug or 'no-focus'}"


def load_with_stats(path: Path, rejects: RejectLog, limit: int = 0, progress: bool = False) -> LoadResult:
    """Documents plus `records` = JSONL lines read (`limit` counts lines across files)."""
    result = LoadResult()
    for file in list_files(path, ("*.jsonl",)):
        lines = iter_jsonl(file, limit - result.records if limit else 0)
        for line_no, rec, error in tqdm(lines, desc=SOURCE, unit=" lines", disable=not progress):
            result.records += 1
            if rec is None:
                rejects.add(SOURCE, str(file), line_no, error)
                continue
            qid = one_line(rec.get("qid"))
            text = normalize_text(str(rec.get("answer") or ""))
            if not qid:
                rejects.add(SOURCE, str(file), line_no, "missing id: empty qid")
                continue
            if not text:
                rejects.add(SOURCE, str(file), line_no, f"empty text: qid {qid} has no answer")
                continue
            focus = one_line(rec.get("focus"))
            qtype = one_line(rec.get("qtype"))
            doc = Document(
                doc_id=doc_id_for(qid, focus), collection="health", source=SOURCE,
                title=focus, section=qtype, text=text, lang="en",
                metadata={
                    "qid": qid,
                    "qtype": qtype,
                    "focus": focus,
                    "cuis": list(rec.get("cuis") or []),
                    "semantic_group": rec.get("semantic_group"),
                    "subset": rec.get("subset"),
                    "url": rec.get("url"),
                },
            )
            result.add(doc, str(file), line_no)
        if limit and result.records >= limit:
            break
    return result


def load(path: Path, rejects: RejectLog, limit: int = 0, progress: bool = False) -> list[Document]:
    """One `health` document per MedQuAD answer from a passages.jsonl file (or a directory of them)."""
    return load_with_stats(path, rejects, limit, progress).documents
