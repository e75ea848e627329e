"""The critique benchmark: MedQA-USMLE vignettes presented as cases whose management was a wrong option.

Why this benchmark: there is no gold M&M critique to compare against, but a USMLE item knows the right
answer. Present the vignette as a case where the clinicians chose a wrong option (as the working
diagnosis when the item asks for a diagnosis or cause, else as the management) and ask whether the
critique (1) retrieved evidence about the correct answer among its top-5 external items and (2) names
the correct answer anywhere in its sections. Counts per retrieval mode and latency come with it.

The wrong option is chosen deterministically (the first option letter that is not the answer), so two
runs over the same bundle present the same cases. Items split into a tuning and a held-out half by
`is_held_out("medqa:<qid>")` (the split of the chat dev sets); choices such as the offline literature
query were made on the tuning half, and both halves are reported. "About the answer" is lexical: the answer phrase, or
at least `MIN_WORD_SHARE` of its content words, occur in one evidence item (or in the critique text).
"""

from __future__ import annotations

import json
import re
import statistics
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from yaksa.corpus.case import Case
from yaksa.critique.agent import MODES, CritiqueAgent, CritiqueResult
from yaksa.scope.exemplars import is_held_out

MIN_WORD_SHARE = 0.6
EVIDENCE_TOP = 5
_ASKS_DIAGNOSIS = re.compile(r"\b(?:most likely|probable) (?:diagnosis|cause|explanation|underlying)|\bdiagnosis\b",
                             re.IGNORECASE)
_LAST_QUESTION = re.compile(r"[^.?!]*\?\s*$")
_WORD = re.compile(r"[a-z][a-z0-9-]{2,}")
_STOP = frozenset(["the", "and", "with", "for", "from", "that", "this", "which", "into", "onto", "than", "then", "are", "was", "were", "has", "have", "had", "not", "its", "his", "her", "their", "of", "in", "on", "at", "to", "by", "an", "a", "or"])


@dataclass(frozen=True)
class Vignette:
    qid: str
    question: str
    options: dict[str, str]
    answer: str
    answer_idx: str


def load_vignettes(path: Path, limit: int = 0) -> list[Vignette]:
    """MedQA test items in file order; ValueError naming the line when one is malformed."""
    out: list[Vignette] = []
    with path.open(encoding="utf-8") as fh:
        for n, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                raw = json.loads(line)
                options = {str(k): str(v) for k, v in raw["options"].items()}
                item = Vignette(str(raw.get("realidx", n)), str(raw["question"]), options, str(raw["answer"]),
                                str(raw["answer_idx"]))
            except (ValueError, KeyError, TypeError, AttributeError) as exc:
                raise ValueError(f"{path.name} line {n}: not a MedQA item ({exc})") from None
            if item.answer_idx not in options or len(options) < 2:
                raise ValueError(f"{path.name} line {n}: answer_idx {item.answer_idx!r} is not one of the options")
            out.append(item)
            if limit and len(out) >= limit:
                break
    return out


def as_case(item: Vignette) -> tuple[Case, str]:
    """(the case, the wrong option shown as what was done)."""
    wrong_key = next(k for k in sorted(item.options) if k != item.answer_idx)
    wrong = item.options[wrong_key]
    ask = _LAST_QUESTION.search(item.question)
    stem = item.question[: ask.start()].strip() if ask and ask.start() > 0 else item.question
    if ask and _ASKS_DIAGNOSIS.search(ask.group(0)):
        return Case(summary=stem, diagnoses=wrong), wrong
    return Case(summary=stem, management=wrong), wrong


def _content_words(text: str) -> list[str]:
    return [w for w in _WORD.findall(text.lower()) if w not in _STOP]


def mentions(answer: str, text: str) -> bool:
    """Does `text` talk about `answer` (the phrase, or most of its content words)?"""
    low = text.lower()
    if answer.lower().strip() and answer.lower().strip() in low:
        return True
    words = set(_content_words(answer))
    if not words:
        return False
    present = set(_WORD.findall(low))
    return sum(w in present for w in words) / len(words) >= MIN_WORD_SHARE


def critique_text(result: CritiqueResult) -> str:
    return "\n".join(c.text for claims in result.critique.values() for c in claims)


def run_benchmark(agent: CritiqueAgent, items: list[Vignette],
                  progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Critique every vignette; the summary the CLI prints (and its last JSON line)."""
    rows = list(_rows(agent, items, progress))
    n = len(rows)
    latencies = [r["ms"] for r in rows]
    modes = Counter(r["mode"] for r in rows)
    per_mode = {m: {"n": modes.get(m, 0),
                    "evidence_about_answer": _share([r["evidence"] for r in rows if r["mode"] == m]),
                    "critique_names_answer": _share([r["named"] for r in rows if r["mode"] == m])} for m in MODES}
    return {
        "n": n,
        "evidence_about_answer_top5": _share([r["evidence"] for r in rows]),
        "critique_names_answer": _share([r["named"] for r in rows]),
        "critique_names_wrong_option": _share([r["named_wrong"] for r in rows]),
        "verification_pass": _share([r["verified"] for r in rows]),
        "halves": {half: {"n": sum(r["held_out"] == (half == "held_out") for r in rows),
                          "evidence_about_answer_top5": _share([r["evidence"] for r in rows
                                                                if r["held_out"] == (half == "held_out")]),
                          "critique_names_answer": _share([r["named"] for r in rows
                                                           if r["held_out"] == (half == "held_out")])}
                   for half in ("tuning", "held_out")},
        "modes": per_mode,
        "latency_ms": {"p50": round(statistics.median(latencies), 1) if latencies else None,
                       "p95": round(_quantile(latencies, 0.95), 1) if latencies else None},
        "examples": rows[:3],
    }


def _rows(agent: CritiqueAgent, items: list[Vignette], progress: Callable[[str], None] | None) -> Iterator[dict[str, Any]]:
    for i, item in enumerate(items, start=1):
        case, wrong = as_case(item)
        start = time.perf_counter()
        result = agent.run(case)
        ms = (time.perf_counter() - start) * 1000
        evidence = result.external[:EVIDENCE_TOP]
        text = critique_text(result)
        yield {"qid": item.qid, "held_out": is_held_out(f"medqa:{item.qid}"), "mode": result.retrieval_mode, "ms": round(ms, 1), "answer": item.answer,
               "wrong": wrong, "evidence": any(mentions(item.answer, f"{e.title} {e.text}") for e in evidence),
               "named": mentions(item.answer, text), "named_wrong": mentions(wrong, text),
               "verified": result.verification["verdict"] == "PASS"}
        if progress and i % 50 == 0:
            progress(f"{i}/{len(items)} vignettes")


def _share(flags: list[bool]) -> float | None:
    return round(sum(flags) / len(flags), 4) if flags else None


def _quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]
