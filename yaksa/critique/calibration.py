"""Calibrate `critique.internal_threshold`: the cosine at which an internal case becomes a candidate.

Why calibrate, and how: the design's 0.7 was for its embedder; cosines in ours (`cases` embedding) sit
on another scale. The threshold is a *recall* gate: validation judges usefulness afterwards (similarity
is not usefulness), so the threshold must let the record that shares the patient's diagnosis through,
and only then be as high as possible so that unrelated records rarely cost a validation.

The calibration set (`data/calibration_cases.jsonl`) is 16 patient cases written for this purpose,
each naming the internal M&M records (`mm:<id>`, `data/raw/mm-cases`) that share its diagnosis. The
usual split (`yaksa.split`, id prefix `critique:`) tunes on one half and reports the other:

    threshold = (lowest best-relevant cosine over the tuning cases) - MARGIN, to 2 decimals

Reported per half: the share of cases whose best relevant record reaches the threshold (candidate
recall), the share whose relevant record is among the hybrid top-k *and* above it (what the agent
really sees), and irrelevant records above the threshold per case (validation load). A background
figure comes from clinical vignettes with no matching internal case (MedQA), when given.
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from yaksa.corpus.case import Case, parse_case
from yaksa.critique.agent import CASES, MAX_CASE_QUERY_CHARS, CritiqueAgent
from yaksa.split import is_held_out

MARGIN = 0.02
SPLIT_PREFIX = "critique:"


@dataclass(frozen=True)
class CalibrationCase:
    case_id: str
    relevant: tuple[str, ...]   # doc ids of the internal records sharing the case's diagnosis
    case: Case

    @property
    def held_out(self) -> bool:
        return is_held_out(SPLIT_PREFIX + self.case_id)


def load_calibration_cases(path: Path | None = None) -> list[CalibrationCase]:
    """The committed calibration cases (or those in `path`); ValueError naming the line when malformed."""
    text = (path.read_text("utf-8") if path is not None else
            resources.files("yaksa.critique").joinpath("data/calibration_cases.jsonl").read_text("utf-8"))
    out = []
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            raw = json.loads(line)
            out.append(CalibrationCase(str(raw["id"]), tuple(raw["relevant"]), parse_case(raw["case"])))
        except (ValueError, KeyError, TypeError) as exc:
            raise ValueError(f"calibration cases line {n}: {exc}") from None
    return out


def case_similarities(agent: CritiqueAgent, item: CalibrationCase) -> dict[str, Any]:
    """Cosines of one case to its relevant records, and the agent's own top-k candidates."""
    col = agent.loaded.bundle.collections[CASES]
    vector = np.asarray(agent.searcher.query_vector(CASES, item.case.text[:MAX_CASE_QUERY_CHARS]), dtype=np.float32)
    relevant: dict[str, float] = {}
    for doc_id in item.relevant:
        row = col.docs.row_of(doc_id)
        if row is None:
            raise ValueError(f"calibration case {item.case_id}: {doc_id} is not in the bundle's cases")
        relevant[doc_id] = round(float(col.dense.reconstruct(row) @ vector), 4)
    candidates = agent.internal_candidates(item.case)
    return {"case_id": item.case_id, "held_out": item.held_out, "relevant": relevant,
            "best_relevant": max(relevant.values()),
            "candidates": [(c.doc_id, c.score) for c in candidates]}


def _half_report(rows: Sequence[dict[str, Any]], threshold: float) -> dict[str, Any]:
    if not rows:
        return {"cases": 0}
    reach = [r["best_relevant"] >= threshold for r in rows]
    seen = [any(d in r["relevant"] and s >= threshold for d, s in r["candidates"]) for r in rows]
    noise = [sum(d not in r["relevant"] and s >= threshold for d, s in r["candidates"]) for r in rows]
    return {"cases": len(rows), "candidate_recall": round(sum(reach) / len(rows), 4),
            "in_top_k_and_above": round(sum(seen) / len(rows), 4),
            "irrelevant_above_per_case": round(statistics.fmean(noise), 3),
            "min_best_relevant": round(min(r["best_relevant"] for r in rows), 4)}


def calibrate(agent: CritiqueAgent, cases: Sequence[CalibrationCase],
              background: Sequence[Case] = ()) -> dict[str, Any]:
    """Choose the threshold on the tuning half; report both halves and the background rate."""
    rows = [case_similarities(agent, c) for c in cases]
    tune = [r for r in rows if not r["held_out"]]
    held = [r for r in rows if r["held_out"]]
    if not tune:
        raise ValueError("no tuning cases: the calibration set needs cases in both halves")
    threshold = round(min(r["best_relevant"] for r in tune) - MARGIN, 2)
    report: dict[str, Any] = {"threshold": threshold, "margin": MARGIN, "embedder": agent.loaded.embedders[CASES].id,
                              "tuning": _half_report(tune, threshold), "held_out": _half_report(held, threshold)}
    if background:
        above = [sum(c.score >= threshold for c in agent.internal_candidates(case)) for case in background]
        report["background"] = {"cases": len(above), "with_candidate": round(sum(a > 0 for a in above) / len(above), 4),
                                "candidates_per_case": round(statistics.fmean(above), 3)}
    report["per_case"] = rows
    return report
