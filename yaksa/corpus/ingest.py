"""The ingest stage: every raw source → one `documents.parquet`, plus `rejects.parquet` and a summary.

This is where the corpus is judged as a whole: ids must be unique across sources, the same text must
not be indexed twice in one collection, and a build that throws away too much of its input fails
loudly (after writing the rejects, so the reason can be inspected) instead of shipping a thin index.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from yaksa.atomicio import atomic_write
from yaksa.config import Settings
from yaksa.corpus import case_records, medquad, mfds_easy_drug, mfds_pill, mtsamples, pubmedqa, synthea
from yaksa.corpus.document import COLLECTIONS, Document
from yaksa.corpus.rawio import LoadResult, SourceFormatError
from yaksa.corpus.rejects import RejectLog

# mfds_pill first: the drug adapter joins its appearance table.
SOURCES: tuple[str, ...] = ("mfds_pill", "mfds_easy_drug", "medquad", "pubmedqa", "case_records", "mtsamples",
                           "synthea")
DOCUMENT_COLUMNS: tuple[str, ...] = tuple(f.name for f in fields(Document))
DOCUMENT_SCHEMA = pa.schema([(name, pa.string()) for name in DOCUMENT_COLUMNS])
REJECT_SCHEMA = pa.schema([("source", pa.string()), ("file", pa.string()), ("row", pa.int64()),
                           ("reason", pa.string())])


class IngestError(RuntimeError):
    """The build must stop: too many rejects, no documents, an unreadable source or documents file."""


@dataclass
class SourceSummary:
    path: str  # relative to the project root
    records: int = 0  # input records read
    documents: int = 0  # documents kept after de-duplication
    rejects: int = 0

    @property
    def reject_rate(self) -> float:
        return self.rejects / self.records if self.records else 0.0


@dataclass
class IngestSummary:
    sources: dict[str, SourceSummary] = field(default_factory=dict)
    skipped: list[str] = field(default_factory=list)  # sources whose path does not exist
    collections: dict[str, int] = field(default_factory=dict)
    empty_sections_skipped: int = 0  # MFDS sections with no text (not rejects)
    pill_matches: int = 0  # MFDS products that got 낱알식별 appearance metadata
    reject_reasons: list[tuple[str, int]] = field(default_factory=list)  # top 5 kinds
    max_reject_rate: float = 0.0

    @property
    def total_records(self) -> int:
        return sum(s.records for s in self.sources.values())

    @property
    def total_documents(self) -> int:
        return sum(s.documents for s in self.sources.values())

    @property
    def total_rejects(self) -> int:
        return sum(s.rejects for s in self.sources.values())

    @property
    def reject_rate(self) -> float:
        return self.total_rejects / self.total_records if self.total_records else 0.0

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        for name, src in self.sources.items():
            out["sources"][name]["reject_rate"] = round(src.reject_rate, 6)
        out["reject_reasons"] = [{"reason": r, "count": n} for r, n in self.reject_reasons]
        out.update(total_records=self.total_records, total_documents=self.total_documents,
                   total_rejects=self.total_rejects, reject_rate=round(self.reject_rate, 6))
        return out


def _reason_kind(reason: str) -> str:
    """Reasons read "<kind>: <detail>"; the exact-duplicate reason is "duplicate of <doc_id>"."""
    return "duplicate of (same content)" if reason.startswith("duplicate of ") else reason.split(":", 1)[0]


def _rel(path: Path | str, base: Path, fallback: Path) -> str:
    """`path` relative to `base` when it lies under it, else relative to `fallback`: never absolute."""
    p = Path(path)
    if not p.is_absolute():
        return p.as_posix()
    if p.is_relative_to(base):
        return p.relative_to(base).as_posix()
    return Path(os.path.relpath(p, fallback)).as_posix()


def _load_sources(settings: Settings, rejects: RejectLog, progress: bool,
                  summary: IngestSummary) -> dict[str, LoadResult]:
    unknown = sorted(set(settings.sources) - set(SOURCES))
    if unknown:
        raise IngestError(f"unknown source(s) in params.yaml: {', '.join(unknown)}; known: {', '.join(SOURCES)}")
    limit = settings.ingest.limit_per_source
    pills: dict[str, dict] | None = None
    results: dict[str, LoadResult] = {}
    for name in SOURCES:
        path = settings.source_path(name)
        if path is None:
            continue
        shown = _rel(path, settings.paths.root, settings.paths.root)
        if not path.exists():
            print(f"{name}: {shown} not found — skipped")
            summary.skipped.append(name)
            continue
        summary.sources[name] = SourceSummary(path=shown)
        try:
            if name == "mfds_pill":
                pills, records = mfds_pill.load_with_stats(path, rejects, limit)
                results[name] = LoadResult(records=records)
            elif name == "mfds_easy_drug":
                results[name] = mfds_easy_drug.load_with_stats(path, rejects, limit, pills=pills)
            else:
                adapter = {"medquad": medquad, "pubmedqa": pubmedqa, "case_records": case_records, "mtsamples": mtsamples,
                           "synthea": synthea}[name]
                large = {"progress": progress} if name in ("medquad", "synthea") else {}  # bars only where slow
                results[name] = adapter.load_with_stats(path, rejects, limit, **large)
        except (SourceFormatError, OSError) as exc:
            raise IngestError(f"{name}: cannot read {shown}: {exc}") from exc
    return results


def _deduplicate(results: dict[str, LoadResult], rejects: RejectLog) -> list[Document]:
    """Keep the first of each doc_id and of each (collection, content_hash); reject the rest."""
    kept: list[Document] = []
    by_id: dict[str, tuple[str, int]] = {}
    by_hash: dict[tuple[str, str], str] = {}
    for name, result in results.items():
        for doc, (file, row) in zip(result.documents, result.origins, strict=True):
            if doc.doc_id in by_id:
                f0, r0 = by_id[doc.doc_id]
                rejects.add(name, file, row, f"duplicate doc_id: {doc.doc_id} (kept {Path(f0).name} row {r0})")
                continue
            by_id[doc.doc_id] = (file, row)
            key = (doc.collection, doc.content_hash)
            if key in by_hash:
                rejects.add(name, file, row, f"duplicate of {by_hash[key]}")
                continue
            by_hash[key] = doc.doc_id
            kept.append(doc)
    return sorted(kept, key=lambda d: COLLECTIONS.index(d.collection))  # stable: input order kept


def _print_summary(summary: IngestSummary, settings: Settings) -> None:
    print(f"{'source':<16}{'records':>9}{'documents':>11}{'rejects':>9}{'rate':>8}")
    for name, s in summary.sources.items():
        print(f"{name:<16}{s.records:>9}{s.documents:>11}{s.rejects:>9}{s.reject_rate:>8.2%}")
    print(f"{'total':<16}{summary.total_records:>9}{summary.total_documents:>11}"
          f"{summary.total_rejects:>9}{summary.reject_rate:>8.2%}")
    print("collections: " + ", ".join(f"{c} {n}" for c, n in summary.collections.items()))
    if "mfds_easy_drug" in summary.sources:
        print(f"empty sections skipped: {summary.empty_sections_skipped}; "
              f"products with pill appearance: {summary.pill_matches}")
    if summary.reject_reasons:
        print("top reject reasons: " + "; ".join(f"{r} ×{n}" for r, n in summary.reject_reasons))
    print(f"rejects written to {_rel(settings.paths.rejects, settings.paths.root, settings.paths.root)}")


def run_ingest(settings: Settings, progress: bool = True) -> IngestSummary:
    """Read every configured source, de-duplicate, write documents/rejects/summary, and judge the
    reject rate. Raises `IngestError` (after writing rejects and summary) when too much was rejected
    or nothing was left."""
    rejects = RejectLog()
    summary = IngestSummary(max_reject_rate=settings.ingest.max_reject_rate)
    results = _load_sources(settings, rejects, progress, summary)
    documents = _deduplicate(results, rejects)

    for name, result in results.items():
        summary.sources[name].records = result.records
        summary.sources[name].rejects = rejects.count(name)
    for doc in documents:
        summary.sources[doc.source].documents += 1
    summary.collections = {c: n for c in COLLECTIONS if (n := sum(d.collection == c for d in documents))}
    drug_stats = results["mfds_easy_drug"].stats if "mfds_easy_drug" in results else {}
    summary.empty_sections_skipped = drug_stats.get("empty_sections", 0)
    summary.pill_matches = drug_stats.get("pill_matches", 0)
    summary.reject_reasons = Counter(_reason_kind(r.reason) for r in rejects.items).most_common(5)

    paths = settings.paths
    reject_rows = [{"source": r.source, "file": _rel(r.file, paths.raw, paths.root), "row": r.row,
                    "reason": r.reason} for r in rejects.items]
    atomic_write(paths.rejects, lambda p: pq.write_table(pa.Table.from_pylist(reject_rows, REJECT_SCHEMA), p))

    error = None
    if summary.reject_rate > settings.ingest.max_reject_rate:
        error = (f"reject rate {summary.reject_rate:.2%} ({summary.total_rejects} of {summary.total_records} "
                 f"input records) exceeds ingest.max_reject_rate {settings.ingest.max_reject_rate:.2%}; "
                 f"see {_rel(paths.rejects, paths.root, paths.root)}")
    elif not documents:
        error = "no documents: every configured source was missing, empty or rejected"
    summary_json = {**summary.to_dict(), "error": error}
    atomic_write(paths.ingest_summary, lambda p: p.write_text(
        json.dumps(summary_json, ensure_ascii=False, indent=2) + "\n", encoding="utf-8"))
    _print_summary(summary, settings)
    if error:
        raise IngestError(error)
    rows = [doc.to_row() for doc in documents]
    atomic_write(paths.documents, lambda p: pq.write_table(pa.Table.from_pylist(rows, DOCUMENT_SCHEMA), p))
    return summary


def read_documents(path: Path) -> list[Document]:
    """The documents written by `run_ingest`, in their written order."""
    if not Path(path).is_file():
        raise IngestError(f"{path}: documents file not found; run the ingest stage first")
    try:
        table = pq.read_table(path)
    except (pa.ArrowException, OSError) as exc:
        raise IngestError(f"{path}: not a readable Parquet file: {exc}") from exc
    missing = [c for c in DOCUMENT_COLUMNS if c not in table.column_names]
    if missing:
        raise IngestError(f"{path}: missing column(s) {', '.join(missing)}; not a documents file")
    docs = []
    for i, row in enumerate(table.select(list(DOCUMENT_COLUMNS)).to_pylist()):
        try:
            docs.append(Document.from_row(row))
        except (ValueError, TypeError) as exc:  # bad metadata JSON, unknown collection, nulls
            raise IngestError(f"{path}: row {i}: invalid document: {exc}") from exc
    return docs
