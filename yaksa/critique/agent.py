"""The M&M critique of one case: analysis → internal cases → validation → evidence → cited critique.

Why this order (the design's lesson: similarity is not usefulness): internal cases above the
similarity threshold are only candidates; the validation keeps those that share a *diagnosis* with the
patient and carry an actionable lesson, and decides the retrieval mode:

  external_only                   no internal case reached the threshold
  hybrid                          validated internal cases + external literature (always both)
  external_only_after_validation  candidates existed, none was useful

Validation and the external search run concurrently. External evidence comes from PubMed E-utilities
when configured (`PubMedConfig.from_env`: YAKSA_PUBMED_BASE_URL or NCBI_EMAIL), else, offline, from the
same search over the bundle's `literature` (real PMIDs) and `health` collections. Internal similarity is
the cosine of the case and the record in the `cases` collection's own embedding (the design's 0.7 was
for its embedder; ours is `critique.internal_threshold` in params.yaml).

With an LLM endpoint (`client_from_env`), the analyst, validator and critic roles
(`yaksa.critique.llm_roles`) replace the offline steps; any LLM fault falls back to the offline step
for that role alone, and the trace lists every call and fallback (the chat turn's `UsageLedger`).

The offline critique is extractive and structured: every line cites an internal case `[case:<id>]` or
an article/passage `[PMID:<id>]` / `[doc:<id>]`, and every line's numbers must occur in what it cites
(the chat answers' dose rule, `yaksa.llm.safety.unsupported_doses`).
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from yaksa.config import CritiqueParams
from yaksa.corpus.case import LESSONS_MARK, Case
from yaksa.critique.analysis import ClinicalAnalysis, ConceptIndex, analyse_case
from yaksa.critique.evidence import Claim, Evidence
from yaksa.critique.llm_roles import llm_analysis, llm_critique, llm_validate
from yaksa.critique.pubmed import PubMedClient, mm_query
from yaksa.critique.validation import CandidateCase, ValidationVerdict, validate_cases
from yaksa.llm.client import LLMClient
from yaksa.llm.errors import LLMError
from yaksa.llm.safety import unsupported_doses
from yaksa.llm.usage import UsageLedger
from yaksa.retrieval.loader import LoadedBundle
from yaksa.retrieval.searcher import Searcher

CASES = "cases"
EXTERNAL_COLLECTIONS = ("literature", "health")
MODES = ("external_only", "hybrid", "external_only_after_validation")
SENTENCE_BREAK = re.compile(r"(?<=[.!?])\s+|\n")  # never inside "0.9%": a break needs the space after
PREVENTION = re.compile(r"prevent|prophyla|risk|diagnos|screen|early|delay|missed|guideline|recommend|assess",
                        re.IGNORECASE)
LESSON = re.compile(r"complicat|adverse|error|missed|delay|fail|readmi|died|death|management|treated|outcome",
                    re.IGNORECASE)
MAX_CASE_QUERY_CHARS = 2000
OFFLINE_QUERY_TAIL_CHARS = 400
MIN_SHARED_WORDS = 2
WORD = re.compile(r"[a-z][a-z0-9-]{2,}")
STOPWORDS = frozenset(["the", "and", "with", "for", "from", "that", "this", "which", "into", "than", "then", "are", "was", "were", "has", "have", "had", "not", "its", "his", "her", "their", "patient", "patients", "who", "after", "before", "there", "these", "those", "been", "also", "more", "most"])
OFFLINE = "offline"

StepCallback = Callable[[str, dict[str, Any]], None]


@dataclass
class CritiqueResult:
    retrieval_mode: str
    analysis: ClinicalAnalysis
    internal: list[dict[str, Any]]          # candidates with score, kept or not, and why
    validation: ValidationVerdict | None
    external: list[Evidence]
    critique: dict[str, list[Claim]]
    verification: dict[str, Any]
    trace: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "retrieval_mode": self.retrieval_mode,
            "analysis": self.analysis.to_dict(),
            "internal": self.internal,
            "validation": self.validation.to_dict() if self.validation else None,
            "external": [asdict(e) for e in self.external],
            "critique": {name: [{"text": c.text, "refs": list(c.refs)} for c in claims]
                         for name, claims in self.critique.items()},
            "verification": self.verification,
            "trace": self.trace,
        }


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in SENTENCE_BREAK.split(text) if len(s.strip()) > 30]


def _words(text: str) -> set[str]:
    return {w for w in WORD.findall(text.lower()) if w not in STOPWORDS}


def offline_query(analysis: ClinicalAnalysis, case: Case) -> str:
    """The offline literature query: the analysis' search terms and the end of the summary.

    Why the end: a presentation ends with the latest findings and results (the first lines are age,
    sex and history, which every case shares). Measured on the tuning half of the MedQA benchmark
    (100 items; README: Case critique): evidence about the answer in the top 5 was 5% with the terms
    alone, 3% with the first 300 characters added, 8% with the last 400."""
    terms = " ".join(analysis.search_terms[:3])
    return f"{terms} {case.summary[-OFFLINE_QUERY_TAIL_CHARS:]}".strip()


def _evidence_sentence(evidence: Evidence, focus: Sequence[str], case_words: set[str]) -> str | None:
    """The sentence of `evidence` that best bears on this case: it names a focus diagnosis (+2), speaks of
    prevention or diagnosis (+1), and shares the most content words with the case. Quoted only when it
    names a focus diagnosis, or speaks of prevention/diagnosis and shares at least `MIN_SHARED_WORDS`
    words with the case (a passage merely retrieved is not quoted)."""
    best: tuple[float, str] | None = None
    for sentence in _sentences(evidence.text):
        low = sentence.lower()
        named = any(f and f in low for f in focus)
        shared = len(_words(sentence) & case_words)
        if not named and (shared < MIN_SHARED_WORDS or not PREVENTION.search(sentence)):
            continue
        score = 2 * named + bool(PREVENTION.search(sentence)) + shared / 10
        if best is None or score > best[0]:
            best = (score, sentence)
    return best[1] if best else None


class CritiqueAgent:
    def __init__(self, loaded: LoadedBundle, searcher: Searcher, params: CritiqueParams,
                 concepts: ConceptIndex | None = None, pubmed: PubMedClient | None = None,
                 llm: LLMClient | None = None) -> None:
        self.loaded, self.searcher, self.params = loaded, searcher, params
        self.concepts, self.pubmed, self.llm = concepts, pubmed, llm

    def _role(self, role: str, usage: UsageLedger, with_llm: Callable[[LLMClient], Any],
              offline: Callable[[], Any]) -> Any:
        """`with_llm(client)` when an endpoint is configured and answers usably, else `offline()`."""
        error: str | None = None
        if self.llm is not None:
            try:
                return with_llm(self.llm)
            except LLMError as exc:
                error = str(exc)
        usage.mark_fallback(role, OFFLINE, error)
        return offline()

    # -- steps (LLM or offline) -------------------------------------------------------------------
    def analyse(self, case: Case, usage: UsageLedger) -> ClinicalAnalysis:
        offline = analyse_case(case, self.concepts)
        return self._role("analyst", usage, lambda c: llm_analysis(c, case, offline, usage), lambda: offline)

    def validate(self, analysis: ClinicalAnalysis, above: Sequence[CandidateCase],
                 usage: UsageLedger) -> ValidationVerdict:
        return self._role("validator", usage, lambda c: llm_validate(c, analysis, above, usage),
                          lambda: validate_cases(analysis, above, self.concepts))

    def critique(self, case: Case, analysis: ClinicalAnalysis, kept: Sequence[CandidateCase],
                 evidence: Sequence[Evidence], usage: UsageLedger) -> dict[str, list[Claim]]:
        return self._role("critic", usage, lambda c: llm_critique(c, case, analysis, kept, evidence, usage),
                          lambda: self.write_critique(case, analysis, kept, evidence))

    # -- steps --------------------------------------------------------------------------------------
    def internal_candidates(self, case: Case) -> list[CandidateCase]:
        """The top internal cases by hybrid rank (BM25 + dense, the `cases` fusion in params), each with
        its own cosine to the case: the threshold is judged on the cosine, never on a fused score
        (which is not a similarity). Empty when the bundle has no `cases` collection."""
        col = self.loaded.bundle.collections.get(CASES)
        if col is None:
            return []
        query = case.text[:MAX_CASE_QUERY_CHARS]
        ranked = self.searcher.rank(query, CASES, self.params.internal_top_k)
        if not ranked:
            return []
        vector = np.asarray(self.searcher.query_vector(CASES, query), dtype=np.float32)
        rows = [row for row, _ in ranked]
        cosines = [float(col.dense.reconstruct(row) @ vector) for row in rows]
        docs = col.documents(rows)
        return [CandidateCase(d.doc_id, round(c, 4), d.title, d.text) for d, c in zip(docs, cosines)]

    def external_evidence(self, analysis: ClinicalAnalysis, case: Case) -> tuple[list[Evidence], dict[str, Any]]:
        terms = list(analysis.search_terms) or [case.summary[:200]]
        if self.pubmed is not None:
            query, broader = mm_query(terms[:3])
            found = self.pubmed.search_articles(query, broader, max_results=self.params.external_k)
            return ([Evidence(f"PMID:{a.pmid}", a.title, a.abstract, 1.0, "pubmed") for a in found.articles],
                    {"source": "pubmed", "query": found.query_used, "queries_tried": list(found.queries_tried),
                     **found.stats})
        available = [c for c in EXTERNAL_COLLECTIONS if c in self.loaded.bundle.collections]
        if not available:
            return [], {"source": "none"}
        query = offline_query(analysis, case)
        result = self.searcher.search(query, k=self.params.external_k, collections=available)
        evidence = [Evidence(f"PMID:{h.doc_id.split(':', 1)[1]}" if h.doc_id.startswith("pubmed:") else f"doc:{h.doc_id}",
                             h.title, h.text, round(h.score, 4), h.collection) for h in result.hits]
        return evidence, {"source": "offline", "query": query, "collections": available}

    # -- the critique ---------------------------------------------------------------------------------
    def _cite(self, evidence: Sequence[Evidence], term: str) -> Evidence | None:
        term = term.lower()
        return next((e for e in evidence if term and term in f"{e.title} {e.text}".lower()), None)

    def write_critique(self, case: Case, analysis: ClinicalAnalysis, kept: Sequence[CandidateCase],
                       evidence: Sequence[Evidence]) -> dict[str, list[Claim]]:
        sections: dict[str, list[Claim]] = {"diagnostic_errors": [], "treatment_errors": [],
                                            "what_went_well": [], "prevention": []}
        management = f"{case.management} {case.timeline}".lower()
        fallback = evidence[0] if evidence else None
        for match in analysis.risk_patterns:
            cite = self._cite(evidence, match.diagnosis) or fallback
            refs = (cite.ref,) if cite else ()
            criteria = ", ".join(match.criteria_met)
            if not match.considered:
                sections["diagnostic_errors"].append(Claim(
                    "diagnostic_errors", f"{match.diagnosis} should have been considered: {criteria} "
                    f"({len(match.criteria_met)} of {match.criteria_total} criteria; {match.source}).", refs))
            for priority in match.priorities:
                words = [w for w in re.findall(r"[a-z]{4,}", priority.lower())]
                done = bool(words) and any(w in management for w in words)
                section = "what_went_well" if done else "treatment_errors"
                text = f"{'Done' if done else 'Not documented'}: {priority} (for {match.diagnosis})."
                sections[section].append(Claim(section, text, refs))
        for cand in kept:  # a record's own "Lessons:" first, else its first sentence about a lesson
            lessons = cand.text.split(LESSONS_MARK, 1)[1] if LESSONS_MARK in cand.text else ""
            lesson = next((s for s in [*_sentences(lessons), *_sentences(cand.text)] if LESSON.search(s)
                           or s in lessons), None)
            if lesson:
                sections["prevention"].append(Claim("prevention", f"Similar internal case: {lesson}",
                                                    (f"case:{cand.doc_id}",)))
        focus = [m.diagnosis.lower() for m in analysis.risk_patterns] or [t.lower() for t in analysis.search_terms[:2]]
        case_words = _words(case.text)
        for e in evidence:
            sentence = _evidence_sentence(e, focus, case_words)
            if sentence:
                sections["prevention"].append(Claim("prevention", sentence, (e.ref,)))
            if len(sections["prevention"]) >= self.params.max_prevention_claims:
                break
        return sections

    def verify(self, critique: dict[str, list[Claim]], sources: dict[str, str]) -> dict[str, Any]:
        """Every claim cites a known source, and its numbers occur in what it cites."""
        problems: list[str] = []
        for claims in critique.values():
            for c in claims:
                unknown = [r for r in c.refs if r not in sources]
                if not c.refs or unknown:
                    problems.append(f"uncited or unknown source: {c.text[:60]}")
                    continue
                cited = "\n".join(sources[r] for r in c.refs)
                missing = unsupported_doses(c.text, cited)
                if missing and c.section == "prevention":  # analysis lines quote the case, not a source
                    problems.append(f"numbers {missing} not in the cited source: {c.text[:60]}")
        return {"verdict": "PASS" if not problems else "FAIL", "problems": problems}

    # -- one run ----------------------------------------------------------------------------------------
    def run(self, case: Case, on_step: StepCallback | None = None) -> CritiqueResult:
        """Critique `case`; `on_step(name, payload)` is told as each step ends (the service's SSE)."""
        emit = on_step or (lambda name, payload: None)
        usage = UsageLedger()
        timings: dict[str, float] = {}
        start = time.perf_counter()
        analysis = self.analyse(case, usage)
        timings["analysis"] = (time.perf_counter() - start) * 1000
        emit("analysis", analysis.to_dict())
        t = time.perf_counter()
        candidates = self.internal_candidates(case)
        above = [c for c in candidates if c.score >= self.params.internal_threshold]
        timings["internal_search"] = (time.perf_counter() - t) * 1000
        emit("internal_search", {"candidates": [{"doc_id": c.doc_id, "title": c.title, "score": c.score}
                                                for c in candidates],
                                 "above_threshold": len(above), "threshold": self.params.internal_threshold})
        t = time.perf_counter()
        verdict: ValidationVerdict | None = None
        with ThreadPoolExecutor(max_workers=2) as pool:  # validation and the external search at once
            external_future = pool.submit(self.external_evidence, analysis, case)
            if above:
                verdict = self.validate(analysis, above, usage)
                emit("validation", verdict.to_dict())
            evidence, external_trace = external_future.result()
        emit("external_search", {"articles": [{"ref": e.ref, "title": e.title} for e in evidence],
                                 **{k: v for k, v in external_trace.items() if k in ("source", "query")}})
        timings["validation_and_external"] = (time.perf_counter() - t) * 1000
        if not above:
            mode, kept = "external_only", []
        elif verdict is not None and verdict.passed:
            mode, kept = "hybrid", list(verdict.kept)
        else:
            mode, kept = "external_only_after_validation", []
        kept_ids = {c.doc_id for c in kept}
        per_case = {p.get("doc_id"): p for p in (verdict.per_case if verdict else [])}
        internal = [{"doc_id": c.doc_id, "title": c.title, "score": c.score,
                     "above_threshold": c.score >= self.params.internal_threshold, "kept": c.doc_id in kept_ids,
                     "reason": per_case.get(c.doc_id, {}).get("reason", "below the similarity threshold")}
                    for c in candidates]
        t = time.perf_counter()
        critique = self.critique(case, analysis, kept, evidence, usage)
        sources = {e.ref: f"{e.title} {e.text}" for e in evidence} | {f"case:{c.doc_id}": c.text for c in kept}
        verification = self.verify(critique, sources)
        timings["critique"] = (time.perf_counter() - t) * 1000
        timings["total"] = (time.perf_counter() - start) * 1000
        emit("critique", {"retrieval_mode": mode, "verdict": verification["verdict"]})
        trace = {"steps": ["analysis", "internal_search", "quality_evaluation",
                           *(["validation"] if above else []), "external_search", "critique", "verification"],
                 "timings_ms": {k: round(v, 2) for k, v in timings.items()}, "external": external_trace,
                 "threshold": self.params.internal_threshold, "llm": usage.to_json(),
                 "llm_calls": usage.totals()["calls"]}
        return CritiqueResult(mode, analysis, internal, verdict, evidence, critique, verification, trace)
