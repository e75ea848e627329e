"""Offline validation of retrieved internal cases: are they useful for critiquing this patient's case?

Why: retrieval ranks by surface similarity, so a Crohn disease note can come back for a post-operative
chest pain patient because both mention "pain" and "discharged". A case is only worth showing when it
(1) shares a diagnosis with the patient — a stated diagnosis or the one a high-risk pattern says should
have been considered — by concept id, not symptoms alone; (2) carries an actionable lesson
(complications, adverse events, errors, missed or delayed diagnoses, management decisions, outcomes);
and (3) is nothing misleading (a veterinary text, a stub). Every keep/drop comes with its reason.

Confidence (documented so the threshold means something):
    strength(case)  = 0.5 * diagnosis_match + 0.5 * actionable
        diagnosis_match = 1.0 when a diagnosis id is shared, 0.7 when only a stated diagnosis name without
                          a concept id appears in the case text
        actionable      = min(1, 0.35 * lesson categories + 0.2 * management/outcome categories)
    confidence      = mean(strength of kept cases) * (0.5 + 0.5 * kept / candidates), 0 when none kept
so one strong case among five still passes (0.9 * 0.6 = 0.54), a weak lone case does not.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from yaksa.corpus.case import Case
from yaksa.critique.analysis import (
    ClinicalAnalysis,
    ConceptIndex,
    Rules,
    affirmed,
    analyse_case,
    load_rules,
    mentioned_diagnoses,
    phrase_regex,
)

PASS_CONFIDENCE = 0.5
MIN_CASE_WORDS = 20
ID_MATCH, NAME_MATCH = 1.0, 0.7
LESSON_WEIGHT, CONTEXT_WEIGHT = 0.35, 0.2

# Actionable content. Lessons (what went wrong or could) are negation-checked: "no complications" is
# not a complication. Management/outcome categories only show the case follows the patient through.
_LESSONS: dict[str, tuple[str, ...]] = {
    "complications": (r"\bcomplicat\w*|\bperforat\w*|\babscess\w*|\bperitonitis\b", r"합병증|천공"),
    "adverse events": (r"\badverse (?:events?|reactions?|drug reactions?|effects?)\b|\bside[- ]effects?\b",
                       r"\b(?:drug|medication)-(?:induced|related)\b|\biatrogenic\b|\btoxicity\b|\boverdose\b",
                       r"부작용|이상반응"),
    "errors": (r"\b(?:medication |diagnostic |prescribing )?errors?\b|\bmistakes?\b|\bnear[- ]miss\w*", r"오류|실수"),
    "missed or delayed diagnosis": (r"\bmissed\b|\bdelay(?:s|ed)?\b|\boverlooked\b|\bmisdiagnos\w*",
                                    r"\bnot (?:been )?(?:considered|suspected|recogni[sz]ed)\b",
                                    r"\bfinal(?: diagnosis)?\s*:",  # "Initial: X. Final: Y." — a revised diagnosis
                                    r"오진|진단[^.]{0,4}지연"),
    "failed treatment or process": (r"\bfailed\b|\bfailure to\b|\bunsuccessful\b", r"실패"),
    "readmission": (r"\breadmi\w*|\bre-?presented\b|\breturned to the (?:ED|emergency)|\breturned \d+ (?:hours|days) later",
                    r"재입원|재내원"),
    "death": (r"\b(?:died|death|deceased|fatal\w*|mortality|autopsy|post-?mortem|cardiac arrest)\b", r"사망"),
}
_CONTEXT: dict[str, tuple[str, ...]] = {
    "management": (r"\bmanag(?:ed|ement)\b|\btreated (?:with|by)\b|\btreatment\b|\bstarted on\b|\bunderwent\b",
                   r"\btherapy\b|\banticoagula\w*|\bsurgery\b|\bintervention\b|\bthromboly\w*", r"치료|투여|수술"),
    "outcome": (r"\boutcomes?\b|\bdischarged\b|\brecover\w*|\bresolved\b|\bfollow-?up\b|\bprognosis\b", r"퇴원|회복|예후"),
}
_NON_HUMAN = re.compile(r"\b(feline|canine|bovine|porcine|equine|murine|avian|veterinar\w*|cats?|kittens?|dogs?|"
                        r"pupp(?:y|ies)|mice|rats?|cattle|pigs?|horses?|in vitro|cell lines?)\b", re.IGNORECASE)
_HUMAN = re.compile(r"\b(?:patients?|year-old|yo|man|woman|boy|girl|infant|child|he|she)\b|환자|남성|여성", re.IGNORECASE)


def _compile(table: Mapping[str, tuple[str, ...]]) -> dict[str, tuple[re.Pattern[str], ...]]:
    return {name: tuple(re.compile(rx, re.IGNORECASE) for rx in rxs) for name, rxs in table.items()}


_LESSON_RX, _CONTEXT_RX = _compile(_LESSONS), _compile(_CONTEXT)


@dataclass(frozen=True)
class CandidateCase:
    """A retrieved internal case (a document of the case collection) to validate."""

    doc_id: str
    score: float
    title: str
    text: str


@dataclass(frozen=True)
class ValidationVerdict:
    is_valid: bool
    confidence: float
    reason: str
    kept: list[CandidateCase] = field(default_factory=list)
    per_case: list[dict[str, Any]] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return self.is_valid and self.confidence >= PASS_CONFIDENCE and len(self.kept) >= 1

    def to_dict(self) -> dict[str, Any]:
        return {"is_valid": self.is_valid, "confidence": self.confidence, "reason": self.reason,
                "passed": self.passed, "kept": [c.doc_id for c in self.kept], "per_case": self.per_case}


def actionable_content(text: str) -> tuple[list[str], list[str]]:
    """(lesson categories, management/outcome categories) the text gives evidence of."""
    lessons = [name for name, rxs in _LESSON_RX.items() if any(affirmed(rx, text) for rx in rxs)]
    context = [name for name, rxs in _CONTEXT_RX.items() if any(rx.search(text) for rx in rxs)]
    return lessons, context


def misleading_flags(text: str) -> list[str]:
    """Reasons the text would mislead a critique of a human patient's case."""
    flags = []
    if len(text.split()) < MIN_CASE_WORDS:
        flags.append(f"too little text to judge (< {MIN_CASE_WORDS} words)")
    animals = sorted({m.group(1).casefold() for m in _NON_HUMAN.finditer(text)})
    if len(animals) >= 2 or (animals and not _HUMAN.search(text)):
        flags.append(f"non-human subject ({', '.join(animals)})")
    return flags


def _names(ids: Mapping[str, str], limit: int = 3) -> str:
    names = list(dict.fromkeys(ids.values()))
    return ", ".join(names[:limit]) + (" …" if len(names) > limit else "") if names else "no recognised diagnosis"


def _judge(analysis: ClinicalAnalysis, case: CandidateCase, index: ConceptIndex | None, rules: Rules) -> dict[str, Any]:
    text = f"{case.title}\n{case.text}" if case.title else case.text
    own = analyse_case(Case(summary=text), index, rules)
    case_dx = {**own.stated_ids, **{m.diagnosis_id: m.diagnosis for m in own.risk_patterns},
               **mentioned_diagnoses(text, index, rules)}
    missed_ids, stated_ids = analysis.should_consider_ids, analysis.stated_ids
    shared = {i: n for i, n in {**missed_ids, **stated_ids}.items() if i in case_dx}
    by_name = {i: n for i, n in stated_ids.items()
               if i.startswith("text:") and i not in shared and phrase_regex(n).search(text)}
    patient_symptoms = {h.concept_id: h.name for h in analysis.concepts.symptoms}
    case_symptoms = {h.concept_id for h in own.concepts.symptoms}
    shared_symptoms = {i: n for i, n in patient_symptoms.items() if i in case_symptoms}
    lessons, context = actionable_content(text)
    flags = misleading_flags(text)
    dx_match = ID_MATCH if shared else NAME_MATCH if by_name else 0.0
    actionable = min(1.0, LESSON_WEIGHT * len(lessons) + CONTEXT_WEIGHT * len(context))
    all_shared = {**shared, **by_name}
    if flags:
        keep, reason = False, f"{'; '.join(flags)}: misleading for this patient"
    elif not all_shared:
        patient = _names({**missed_ids, **stated_ids})
        theirs = _names(case_dx) if case_dx else f"no recognised diagnosis in {case.title or case.doc_id!r}"
        reason = f"no shared diagnosis ({theirs} vs {patient}): surface similarity only"
        if shared_symptoms:
            reason += f"; shares only symptoms ({_names(shared_symptoms)})"
        keep = False
    elif not lessons and not context:
        keep, reason = False, (f"shares diagnosis {_names(all_shared)} but has no actionable content "
                               "(no complications, errors, management or outcome)")
    else:
        keep = True
        named = [f"{n} (the diagnosis that should have been considered)" for i, n in shared.items() if i in missed_ids]
        named += [n for i, n in shared.items() if i not in missed_ids] + [f"{n} (by name)" for n in by_name.values()]
        reason = f"shares diagnosis {', '.join(dict.fromkeys(named))}; describes {', '.join(lessons + context)}"
    return {"doc_id": case.doc_id, "title": case.title, "score": case.score, "keep": keep, "reason": reason,
            "shared_diagnoses": sorted(set(all_shared.values())), "shared_symptoms": sorted(set(shared_symptoms.values())),
            "case_diagnoses": list(dict.fromkeys(case_dx.values())), "actionable": lessons + context,
            "flags": flags, "strength": round(0.5 * dx_match + 0.5 * actionable, 3) if keep else 0.0}


def validate_cases(analysis: ClinicalAnalysis, cases: Sequence[CandidateCase],
                   concept_names: Mapping[str, tuple[str, str]] | ConceptIndex | None = None,
                   rules: Rules | None = None) -> ValidationVerdict:
    """Keep the candidates that share a diagnosis with the patient and carry an actionable lesson.

    Pass the same `concept_names` the patient's analysis used, so both sides use the same concept ids.
    """
    rules = rules or load_rules()
    index = concept_names if concept_names is None or isinstance(concept_names, ConceptIndex) \
        else ConceptIndex(concept_names, rules)
    per_case = [_judge(analysis, c, index, rules) for c in cases]
    kept = [c for c, v in zip(cases, per_case) if v["keep"]]
    if not cases:
        return ValidationVerdict(False, 0.0, "no candidate cases to validate", [], [])
    if not kept:
        reason = f"none of {len(cases)} cases is useful: " + "; ".join(f"{v['doc_id']}: {v['reason']}" for v in per_case)
        return ValidationVerdict(False, 0.0, reason, [], per_case)
    strengths = [v["strength"] for v in per_case if v["keep"]]
    confidence = round(sum(strengths) / len(strengths) * (0.5 + 0.5 * len(kept) / len(cases)), 3)
    shared = sorted({n for v in per_case if v["keep"] for n in v["shared_diagnoses"]})
    dropped = [f"{v['doc_id']}: {v['reason']}" for v in per_case if not v["keep"]]
    reason = f"{len(kept)} of {len(cases)} cases kept (shared diagnoses: {', '.join(shared)})"
    if dropped:
        reason += "; dropped " + "; ".join(dropped)
    return ValidationVerdict(True, confidence, reason, kept, per_case)
