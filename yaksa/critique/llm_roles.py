"""The LLM paths of the M&M critique: the analyst, validator and critic roles.

Why each is a thin, strict layer over the offline path: the offline analysis, validation and extractive
critique always work and can be checked, so a model may only add to them and is held to the same
contract. Every function raises `LLMUnavailable` (no answer) or `LLMOutputError` (an answer the step
cannot use: bad JSON, wrong types, a case id the validator invented, a critique with no valid citation),
and the agent then falls back to the offline step. What the model says is merged, not trusted:

  analysis    the model's stated diagnoses, should-consider diagnoses and search terms; the offline
              rule matches, concept hits and ids are kept (a rule-backed should-consider diagnosis is
              never dropped); the model's own risk patterns are added as `RiskMatch(source="llm")`.
  validation  the candidates the model kept, with its reasons; same `ValidationVerdict` and pass rule
              (`PASS_CONFIDENCE`) as the offline validation.
  critique    claims citing only the numbered sources; a claim with no ref, an unknown ref, or a dose /
              number found neither in its cited sources nor (outside `prevention`) in the case is
              dropped — the same checks `CritiqueAgent.verify` applies afterwards.

Prompts live in `rules/llm_prompts.yaml` (reviewable without reading code); long texts are cut to the
token budgets below (`yaksa.llm.tokens`).

    analysis = llm_analysis(client, case, analyse_case(case, concepts), ledger)
    verdict = llm_validate(client, analysis, candidates, ledger)
    critique = llm_critique(client, case, analysis, verdict.kept, evidence, ledger)
"""

from __future__ import annotations

import functools
import logging
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import yaml

from yaksa.corpus.case import Case
from yaksa.critique.analysis import (
    MAX_SEARCH_TERMS,
    ClinicalAnalysis,
    RiskMatch,
    load_rules,
    name_key,
    phrase_regex,
)
from yaksa.critique.evidence import Claim, Evidence
from yaksa.critique.validation import CandidateCase, ValidationVerdict
from yaksa.llm.client import LLMClient
from yaksa.llm.errors import LLMOutputError
from yaksa.llm.safety import unsupported_doses
from yaksa.llm.tokens import truncate_to_tokens
from yaksa.llm.usage import UsageLedger

log = logging.getLogger(__name__)
T = TypeVar("T")

PROMPTS_PATH = Path(__file__).with_name("rules") / "llm_prompts.yaml"
ROLES = ("analyst", "validator", "critic")
SECTIONS = ("diagnostic_errors", "treatment_errors", "what_went_well", "prevention")
LLM_SOURCE = "llm"
CASE_PREFIX = "case:"

# Prompt budgets, in estimated tokens (`yaksa.llm.tokens.estimate_tokens`). Lists of texts share a total,
# each item getting at least the minimum (so many candidates make a longer prompt, never an empty one).
CASE_TOKENS = 2000
CANDIDATES_TOKENS = 3000
SOURCES_TOKENS = 4000
MIN_ITEM_TOKENS = 150
# Reply bounds: an item longer than this is not a diagnosis or a search phrase, but a malformed reply.
MAX_LIST_ITEMS = 12
MAX_ITEM_CHARS = 200
MAX_REASON_CHARS = 1000
MAX_CLAIMS_PER_SECTION = 8
MAX_CLAIM_CHARS = 800

_REF_SPACE = re.compile(r"\s+")


class PromptsError(ValueError):
    """The prompts file is malformed (the message names the role)."""


@functools.cache
def load_prompts(path: Path = PROMPTS_PATH) -> dict[str, str]:
    """Role → system prompt, from the prompts file (read once per path)."""
    try:
        data = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        raise PromptsError(f"{Path(path).name}: not valid YAML: {exc}") from None
    if not isinstance(data, dict):
        raise PromptsError(f"{Path(path).name}: must be a mapping of role -> {{system: ...}}")
    prompts = {}
    for role in ROLES:
        entry = data.get(role)
        system = entry.get("system") if isinstance(entry, dict) else None
        if not isinstance(system, str) or not system.strip():
            raise PromptsError(f"{Path(path).name}: role {role!r} needs a non-empty 'system' prompt")
        prompts[role] = system.strip()
    return prompts


def _messages(role: str, user: str) -> list[dict[str, str]]:
    return [{"role": "system", "content": load_prompts()[role]}, {"role": "user", "content": user}]


def _share(total: int, n: int) -> int:
    return max(MIN_ITEM_TOKENS, total // max(1, n))


def _unique(items: Iterable[T], key: Callable[[T], str]) -> list[T]:
    """`items` in order, each key's first item only."""
    out: dict[str, T] = {}
    for item in items:
        out.setdefault(key(item), item)
    return list(out.values())


# ------------------------------------------------------------------------------------ reply checks


def _text(value: Any, where: str, limit: int = MAX_ITEM_CHARS) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{where} must be a non-empty string, got {value!r}")
    text = " ".join(value.split())
    if len(text) > limit:
        raise ValueError(f"{where} is {len(text)} characters; the limit is {limit}")
    return text


def _texts(value: Any, where: str, *, allow_empty: bool = True) -> list[str]:
    """A list of short non-empty strings, duplicates (ignoring case) removed."""
    if not isinstance(value, list):
        raise TypeError(f"{where} must be a list of strings, got {type(value).__name__}")
    if len(value) > MAX_LIST_ITEMS:
        raise ValueError(f"{where} has {len(value)} items; the limit is {MAX_LIST_ITEMS}")
    if not value and not allow_empty:
        raise ValueError(f"{where} must not be empty")
    items = [_text(v, f"{where}[{i}]") for i, v in enumerate(value)]
    return _unique(items, str.casefold)


def _flag(value: Any, where: str) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"{where} must be true or false, got {value!r}")
    return value


def _reason(value: Any, where: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{where} must be a non-empty string")
    return " ".join(value.split())[:MAX_REASON_CHARS]


def _object(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise TypeError(f"{where} must be an object, got {type(value).__name__}")
    return value


# ------------------------------------------------------------------------------------------ analyst


@dataclass(frozen=True)
class AnalystReply:
    diagnoses: list[str]
    should_consider: list[str]
    priorities: list[str]
    risk_patterns: list[tuple[str, list[str], bool]]  # (diagnosis, criteria met, considered)
    search_terms: list[str]


def parse_analysis(data: dict[str, Any]) -> AnalystReply:
    """The analyst's JSON, strictly typed; ValueError names the field at fault."""
    patterns = data["risk_patterns"]
    if not isinstance(patterns, list) or len(patterns) > MAX_LIST_ITEMS:
        raise ValueError(f"risk_patterns must be a list of at most {MAX_LIST_ITEMS} objects")
    parsed = []
    for i, raw in enumerate(patterns):
        entry = _object(raw, f"risk_patterns[{i}]")
        where = f"risk_patterns[{i}]"
        parsed.append((_text(entry.get("diagnosis"), f"{where}.diagnosis"),
                       _texts(entry.get("criteria_met"), f"{where}.criteria_met", allow_empty=False),
                       _flag(entry.get("considered"), f"{where}.considered")))
    lists = {name: _texts(data[name], name)
             for name in ("diagnoses", "should_consider", "priorities", "search_terms")}
    return AnalystReply(lists["diagnoses"], lists["should_consider"], lists["priorities"], parsed,
                        lists["search_terms"])


def _id_finder(offline: ClinicalAnalysis) -> Callable[[str], str]:
    """Name → the id the offline analysis uses for it, so offline validation can still compare ids:
    an offline diagnosis, rule match or concept hit of the same name; else a high-risk pattern the name
    mentions (its offline id when it fired, `rule:<id>` otherwise); else a concept hit the name
    mentions; else `text:<name>`. (Without the concept table a pattern that did not fire offline keeps
    `rule:<id>` even where the offline path would have found a concept id.)"""
    known = {name_key(h.name): h.concept_id for h in offline.concepts.diagnoses}
    known |= {name_key(m.diagnosis): m.diagnosis_id for m in offline.risk_patterns}
    known |= {name_key(n): i for n, i in zip(offline.diagnoses, offline.diagnosis_ids)}
    fired = {m.pattern_id: m.diagnosis_id for m in offline.risk_patterns}
    rules = load_rules()

    def find(name: str) -> str:
        key = name_key(name)
        if key in known:
            return known[key]
        for p in rules.patterns:
            if any(phrase_regex(s).search(name) for s in p.synonyms):
                return fired.get(p.id, f"rule:{p.id}")
        hit = next((h for h in offline.concepts.diagnoses if phrase_regex(h.name).search(name)), None)
        return hit.concept_id if hit else f"text:{key}"

    return find


def _analyst_prompt(case: Case, offline: ClinicalAnalysis) -> str:
    screen = [f"- {m.diagnosis}: {', '.join(m.criteria_met)} ({len(m.criteria_met)} of {m.criteria_total} "
              f"criteria; {'considered' if m.considered else 'NOT considered'} by the clinicians; {m.source})"
              for m in offline.risk_patterns]
    return (f"## Case\n{truncate_to_tokens(case.text, CASE_TOKENS)}\n\n"
            f"## Rule-based screen\n{chr(10).join(screen) or '(no high-risk pattern fired)'}\n"
            f"Diagnoses the rules read as stated: {', '.join(offline.diagnoses) or '(none)'}")


def merge_analysis(offline: ClinicalAnalysis, reply: AnalystReply) -> ClinicalAnalysis:
    """The offline analysis with the model's diagnoses, should-consider diagnoses and search terms."""
    find_id = _id_finder(offline)
    diagnoses = reply.diagnoses or list(offline.diagnoses)
    covered = {m.diagnosis_id for m in offline.risk_patterns}
    added: list[RiskMatch] = []
    for name, met, considered in reply.risk_patterns:
        did = find_id(name)
        if did not in covered:  # the checkable rule match wins over the model's view of the same diagnosis
            covered.add(did)
            added.append(RiskMatch(f"{LLM_SOURCE}:{name_key(name).replace(' ', '_')}", name, did, tuple(met),
                                   len(met), considered, (), LLM_SOURCE))
    consider = [*reply.should_consider, *(m.diagnosis for m in added if not m.considered),
                *offline.should_consider]
    return ClinicalAnalysis(
        diagnoses=tuple(diagnoses),
        diagnosis_ids=tuple(find_id(d) for d in diagnoses),
        should_consider=tuple(_unique(consider, find_id)),  # synonyms of one rule diagnosis once
        priorities=tuple(dict.fromkeys([*reply.priorities, *offline.priorities])),
        risk_patterns=(*offline.risk_patterns, *added),
        concepts=offline.concepts,
        search_terms=tuple(dict.fromkeys([*reply.search_terms, *offline.search_terms]))[:MAX_SEARCH_TERMS],
    )


def llm_analysis(client: LLMClient, case: Case, offline: ClinicalAnalysis,
                 usage: UsageLedger) -> ClinicalAnalysis:
    """The analyst role's reading of `case`, merged into the offline analysis."""
    reply = client.chat_json("analyst", _messages("analyst", _analyst_prompt(case, offline)), parse_analysis,
                             usage=usage)
    return merge_analysis(offline, reply)


# ---------------------------------------------------------------------------------------- validator


def _analysis_summary(analysis: ClinicalAnalysis) -> str:
    patterns = [f"- {m.diagnosis}: {', '.join(m.criteria_met)} "
                f"({'considered' if m.considered else 'not considered'})" for m in analysis.risk_patterns]
    return (f"Stated diagnoses: {', '.join(analysis.diagnoses) or '(none)'}\n"
            f"Should have been considered: {', '.join(analysis.should_consider) or '(none)'}\n"
            f"Priorities: {'; '.join(analysis.priorities) or '(none)'}\n"
            f"High-risk patterns:\n{chr(10).join(patterns) or '(none)'}")


def _validator_prompt(analysis: ClinicalAnalysis, candidates: Sequence[CandidateCase]) -> str:
    budget = _share(CANDIDATES_TOKENS, len(candidates))
    blocks = [f"[{i}] doc_id: {c.doc_id} | title: {c.title or '(untitled)'} | similarity {c.score:.3f}\n"
              f"{truncate_to_tokens(c.text, budget)}" for i, c in enumerate(candidates, 1)]
    return (f"## Patient analysis\n{_analysis_summary(analysis)}\n\n## Candidate internal cases\n"
            + "\n\n".join(blocks))


def parse_validation(data: dict[str, Any], candidates: Sequence[CandidateCase]) -> ValidationVerdict:
    """The validator's JSON as a verdict on `candidates`; a doc_id not among them is a ValueError."""
    confidence = data["confidence"]
    if isinstance(confidence, bool) or not isinstance(confidence, int | float) or not 0 <= confidence <= 1:
        raise ValueError(f"confidence must be a number in [0, 1], got {confidence!r}")
    is_valid, reason = _flag(data["is_valid"], "is_valid"), _reason(data["reason"], "reason")
    cases = data["cases"]
    if not isinstance(cases, list):
        raise TypeError("cases must be a list of objects")
    by_id = {c.doc_id: c for c in candidates}
    judged: dict[str, tuple[bool, str]] = {}
    for i, raw in enumerate(cases):
        entry = _object(raw, f"cases[{i}]")
        doc_id = entry.get("doc_id")
        if doc_id not in by_id:
            raise ValueError(f"cases[{i}].doc_id {doc_id!r} is not one of the candidates {sorted(by_id)}")
        if doc_id in judged:
            raise ValueError(f"cases[{i}].doc_id {doc_id!r} is judged twice")
        judged[doc_id] = (_flag(entry.get("keep"), f"cases[{i}].keep"),
                          _reason(entry.get("reason"), f"cases[{i}].reason"))
    per_case = []
    for c in candidates:
        keep, why = judged.get(c.doc_id, (False, "not judged by the validator"))
        per_case.append({"doc_id": c.doc_id, "title": c.title, "score": c.score, "keep": keep, "reason": why,
                         "source": LLM_SOURCE})
    kept = [c for c, v in zip(candidates, per_case) if v["keep"]]
    return ValidationVerdict(is_valid and bool(kept), round(float(confidence), 3), reason, kept, per_case)


def llm_validate(client: LLMClient, analysis: ClinicalAnalysis, candidates: Sequence[CandidateCase],
                 usage: UsageLedger) -> ValidationVerdict:
    """The validator role's verdict on the candidate internal cases (no call when there are none)."""
    if not candidates:
        return ValidationVerdict(False, 0.0, "no candidate cases to validate", [], [])
    return client.chat_json("validator", _messages("validator", _validator_prompt(analysis, candidates)),
                            lambda data: parse_validation(data, candidates), usage=usage)


# -------------------------------------------------------------------------------------------- critic


@dataclass(frozen=True)
class Source:
    """One numbered source of the critic's prompt (the prompt shows `text` cut to a budget; claims are
    checked against all of it)."""

    ref: str
    kind: str
    title: str
    text: str


def critique_sources(kept: Sequence[CandidateCase], evidence: Sequence[Evidence]) -> list[Source]:
    """Kept internal cases (`case:<doc_id>`), then the literature, each ref once."""
    sources = [Source(f"{CASE_PREFIX}{c.doc_id}", "internal case", c.title, c.text) for c in kept]
    sources += [Source(e.ref, e.source, e.title, e.text) for e in evidence]
    return _unique(sources, lambda s: s.ref)


def _ref_key(ref: str) -> str:
    return _REF_SPACE.sub("", ref.strip().strip("[]")).casefold()


def _ref_table(sources: Sequence[Source]) -> dict[str, str]:
    """Every spelling the model may use for a source's ref → the ref: as given, its number in the
    prompt, and (for internal cases) the bare doc_id."""
    table: dict[str, str] = {}
    for n, s in enumerate(sources, 1):
        table[str(n)] = s.ref
        if s.ref.startswith(CASE_PREFIX):
            table.setdefault(_ref_key(s.ref[len(CASE_PREFIX):]), s.ref)
    return table | {_ref_key(s.ref): s.ref for s in sources}


def _critic_prompt(case: Case, analysis: ClinicalAnalysis, sources: Sequence[Source]) -> str:
    budget = _share(SOURCES_TOKENS, len(sources))
    blocks = [f"[{n}] {s.ref} ({s.kind}) — {s.title or '(untitled)'}\n{truncate_to_tokens(s.text, budget)}"
              for n, s in enumerate(sources, 1)]
    return (f"## Case\n{truncate_to_tokens(case.text, CASE_TOKENS)}\n\n## Clinical analysis\n"
            f"{_analysis_summary(analysis)}\n\n## Sources (cite by ref)\n" + "\n\n".join(blocks))


def _claim(raw: Any, section: str, refs_by_key: dict[str, str], full: dict[str, str],
           case_text: str) -> Claim | str:
    """A valid claim, or why it is dropped."""
    if not isinstance(raw, dict) or not isinstance(raw.get("text"), str) or not raw["text"].strip():
        return "not an object with a text"
    text = " ".join(raw["text"].split())
    if len(text) > MAX_CLAIM_CHARS:
        return f"longer than {MAX_CLAIM_CHARS} characters"
    refs_raw = raw.get("refs")
    if isinstance(refs_raw, str):  # one ref given bare
        refs_raw = [refs_raw]
    if not isinstance(refs_raw, list) or not refs_raw:
        return "cites no source"
    refs = [refs_by_key.get(_ref_key(str(r))) if isinstance(r, str | int) and not isinstance(r, bool)
            else None for r in refs_raw]
    if None in refs:
        return f"cites unknown source(s) {[r for r, k in zip(refs_raw, refs) if k is None]}"
    cites = tuple(dict.fromkeys(r for r in refs if r is not None))
    support = "\n".join(full[r] for r in cites) + ("" if section == "prevention" else f"\n{case_text}")
    missing = unsupported_doses(text, support)
    if missing:
        where = "the cited sources" if section == "prevention" else "the cited sources or the case"
        return f"numbers {missing} are not in {where}"
    return Claim(section, text, cites)


def parse_critique(data: dict[str, Any], sources: Sequence[Source],
                   case_text: str = "") -> tuple[dict[str, list[Claim]], list[str]]:
    """(section → valid claims, why each dropped claim was dropped); ValueError when no claim is valid.

    A missing section is empty; a section that is not a list is a ValueError."""
    refs_by_key = _ref_table(sources)
    full = {s.ref: f"{s.title} {s.text}" for s in sources}
    sections: dict[str, list[Claim]] = {name: [] for name in SECTIONS}
    dropped: list[str] = []
    for name in SECTIONS:
        items = data.get(name, [])
        if not isinstance(items, list):
            raise TypeError(f"{name} must be a list of claims, got {type(items).__name__}")
        for i, raw in enumerate(items[:MAX_CLAIMS_PER_SECTION]):
            claim = _claim(raw, name, refs_by_key, full, case_text)
            if isinstance(claim, Claim):
                sections[name].append(claim)
            else:
                dropped.append(f"{name}[{i}]: {claim}")
    if not any(sections.values()):
        raise ValueError("no valid cited claim" + (f" ({'; '.join(dropped)})" if dropped else ""))
    return sections, dropped


def llm_critique(client: LLMClient, case: Case, analysis: ClinicalAnalysis, kept: Sequence[CandidateCase],
                 evidence: Sequence[Evidence], usage: UsageLedger) -> dict[str, list[Claim]]:
    """The critic role's four sections, every claim citing the kept cases or the evidence.

    With no source at all nothing could be cited, so this raises `LLMOutputError` without a call."""
    sources = critique_sources(kept, evidence)
    if not sources:
        raise LLMOutputError("no sources to cite: the critique needs kept internal cases or evidence")
    sections, dropped = client.chat_json(
        "critic", _messages("critic", _critic_prompt(case, analysis, sources)),
        lambda data: parse_critique(data, sources, case.text), usage=usage)
    if dropped:
        log.info("critic: dropped %d claim(s): %s", len(dropped), "; ".join(dropped))
    return sections
