"""PubMedQA abstracts → `literature` documents, one per abstract (`pubmed:{pmid}`).

The whole abstract is one document, with each section prefixed by its label ("METHODS: ..."), because
the gold questions point at an abstract, not a section, and the labels help a reader of the citation
find the result.
"""

from __future__ import annotations

from pathlib import Path

from yaksa.corpus.document import Document, normalize_text
from yaksa.corpus.rawio import LoadResult, iter_jsonl, list_files, one_line
from yaksa.corpus.rejects import RejectLog

SOURCE = "pubmedqa"


def _abstract_text(contexts: list, labels: list) -> str:
    parts = []
    for i, context in enumerate(contexts):
        body = normalize_text(str(context or ""))
        if not body:
            continue
        label = one_line(labels[i]) if i < len(labels) else ""
        parts.append(f"{label}: {body}" if label else body)
    return "\n\n".join(parts)


def load_with_stats(path: Path, rejects: RejectLog, limit: int = 0) -> LoadResult:
    """Documents plus `records` = JSONL lines read (`limit` counts lines across files)."""
    result = LoadResult()
    for file in list_files(path, ("*.jsonl",)):
        for line_no, rec, error in iter_jsonl(file, limit - result.records if limit else 0):
            result.records += 1
            if rec is None:
                rejects.add(SOURCE, str(file), line_no, error)
                continue
            pmid = one_line(rec.get("pmid"))
            contexts, labels = rec.get("contexts"), rec.get("labels") or []
            if not pmid:
                rejects.add(SOURCE, str(file), line_no, "missing id: empty pmid")
                continue
            if not isinstance(contexts, list) or not isinstance(labels, list):
                rejects.add(SOURCE, str(file), line_no, f"malformed record: pmid {pmid} contexts and labels must be lists")
                continue
            text = _abstract_text(contexts, labels)
            if not text:
                rejects.add(SOURCE, str(file), line_no, f"empty text: pmid {pmid} has no abstract sections")
                continue
            doc = Document(
                doc_id=f"pubmed:{pmid}", collection="literature", source=SOURCE,
                title="", section="abstract", text=text, lang="en",
                metadata={
                    "pmid": pmid,
                    "labels": [one_line(x) for x in labels],
                    "meshes": [one_line(x) for x in rec.get("meshes") or []],
                    "year": one_line(rec.get("year")) or None,
                },
            )
            result.add(doc, str(file), line_no)
        if limit and result.records >= limit:
            break
    return result


def load(path: Path, rejects: RejectLog, limit: int = 0) -> list[Document]:
    """One `literature` document per abstract from abstracts.jsonl (or a directory of them)."""
    return load_with_stats(path, rejects, limit).documents
