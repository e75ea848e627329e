"""Offline clinical analysis of an M&M case: stated diagnoses, matched high-risk patterns and the
diagnosis that should have been considered.

Why offline rules: the critique must work without a model and must be checkable. A "missed diagnosis"
claim is only made when a high-risk pattern from `rules/high_risk.yaml` fires (e.g. post-operative
pleuritic chest pain + hypoxia + tachycardia → Wells criteria → pulmonary embolism) and the case never
stated or worked up that diagnosis; every pattern cites the decision rule or guideline it comes from.
Concept ids from the project's concept table (`data/processed/concepts/concepts.csv`, built by
`yaksa/extraction/`) make diagnoses comparable across cases (validation compares ids, not words);
without the table, pattern diagnoses get `rule:<pattern id>` ids and stated diagnoses `text:<name>` ids.

    analysis = analyse_case(case, load_concept_names(Path("data/processed/concepts")))
    analysis.should_consider   # ("pulmonary embolism",)
"""

from __future__ import annotations

import csv
import functools
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Protocol

import yaml

RULES_PATH = Path(__file__).with_name("rules") / "high_risk.yaml"
# Same file name as `yaksa.extraction.build.CONCEPTS_CSV` (not imported: that module loads MedCAT).
CONCEPTS_FILE = "concepts.csv"
MIN_NAME_CHARS = 4  # Latin-script concept names shorter than this ("Gas", "Flu") are not matched
MIN_HANGUL_NAME_CHARS = 2  # Korean clinical names are short (두통, 폐렴); 4 would drop nearly all
MAX_SEARCH_TERMS = 8
CONDITION, SYMPTOM = "condition", "symptom"
PARTS_BEFORE_OUTCOME = ("summary", "timeline", "findings", "diagnoses", "management")

_HANGUL = re.compile(r"[가-힣]")
_TOKEN = re.compile(r"[0-9a-z]+|[가-힣]+")
_POSSESSIVE = re.compile(r"['’]s\b")  # "Crohn's disease" and "Crohn disease" are one name
_PARTICLES = frozenset({"이", "가", "은", "는", "을", "를", "과", "와", "도", "에", "의", "로", "으로", "에서", "이나", "까지", "만"})
# Negation: a cue earlier in the same clause ("no calf swelling", "denies chest pain"), or a Korean
# negation right after the match ("흉통은 없었다"). The clause ends at sentence punctuation or a contrast.
_NEG_WINDOW = 60
_CLAUSE_BREAK = re.compile(r"[.;!?\n]|\b(?:but|however|although|though|presented with|now)\b", re.IGNORECASE)
_NEG_BEFORE = re.compile(r"\b(?:no|not|denie[sd]|denying|without|negative for|absence of|free of|ruled out|never|rather than|instead of)\b", re.IGNORECASE)
_NEG_AFTER_KO = re.compile(r"^[^.\n]{0,6}?(?:없|아니|음성|부인)")
# A mention of the diagnosis counts as "considered" when the clause shows a work-up, unless it says
# the diagnosis was missed.
_MISSED = re.compile(r"\b(?:not (?:been )?(?:considered|suspected|investigated|recogni[sz]ed)|missed|overlooked|"
                     r"failed to (?:consider|diagnose|recogni[sz]e|suspect)|misdiagnos\w*)\b|놓친|오진", re.IGNORECASE)
_WORKED_UP = re.compile(r"\b(?:ruled? out|r/o|excluded?|negative for|no evidence of|differential|considered|"
                        r"suspect(?:ed|ing)?|concern for|work-?up for|worked up)\b|감별|의심|배제", re.IGNORECASE)
_LATER = re.compile(r"\b(?:returned|re-?presented|readmitted|later|subsequently|autopsy|post-?mortem)\b|재입원|사망 후", re.IGNORECASE)
_DX_PHRASE = re.compile(
    r"(?:\bdiagnosed (?:with|as)(?: having)?|\bdiagnosis (?:of|was)|\bimpression(?: was)?:?|\bassessment:|"
    r"\b(?:final |discharge |working )?diagnos[ie]s?:|\battributed to|\bthought to be)\s+([^.;\n]{3,160})", re.IGNORECASE)
_DX_PHRASE_KO = re.compile(r"([가-힣A-Za-z0-9 ]{2,30}?)\s*(?:으로|로)\s*진단")
_DX_SPLIT = re.compile(r"\s*(?:[,/;\n]|\band\b|\bor\b|\bversus\b|\bvs\.?)\s*", re.IGNORECASE)
_DX_LEAD = re.compile(r"^(?:\d+[.)]\s*|[-*•]\s*|(?:a|an|the|possible|probable|likely|presumed|suspected|acute on)\s+)+", re.IGNORECASE)
_NOT_DX = re.compile(r"^(?:was |were |is |he |she |they )?(?:discharged|sent|given|started|treated|admitted|"
                     r"prescribed|advised|told|reassured|referred|returned|home|follow)", re.IGNORECASE)
_DX_TAIL = re.compile(r"\s+(?:was|were|is|which|that|but|because|after|before|when|and (?:was|he|she))\b", re.IGNORECASE)
_MAX_DX_WORDS = 6


class RulesError(ValueError):
    """The high-risk rules file is malformed (the message names the entry and the field)."""


class CaseLike(Protocol):
    """What the analysis reads from a case (`yaksa.corpus.case.Case` or any object like it)."""

    @property
    def summary(self) -> str: ...
    @property
    def timeline(self) -> str: ...
    @property
    def findings(self) -> str: ...
    @property
    def diagnoses(self) -> str: ...
    @property
    def management(self) -> str: ...
    @property
    def outcome(self) -> str: ...
    @property
    def text(self) -> str: ...


# ---------------------------------------------------------------------------------------------- rules


@dataclass(frozen=True)
class Criterion:
    name: str
    patterns: tuple[re.Pattern[str], ...]


@dataclass(frozen=True)
class RiskPattern:
    """One high-risk diagnosis pattern from the rules file."""

    id: str
    diagnosis: str
    synonyms: tuple[str, ...]
    criteria: tuple[Criterion, ...]
    required: tuple[str, ...]
    min_criteria: int
    priorities: tuple[str, ...]
    source: str


@dataclass(frozen=True)
class Rules:
    patterns: tuple[RiskPattern, ...]
    finding_names: tuple[re.Pattern[str], ...]
    ignore_names: tuple[re.Pattern[str], ...]


_PATTERN_KEYS = {"diagnosis", "criteria", "required", "min_criteria", "priorities", "source"}


def _strings(value: Any, where: str, *, allow_empty: bool = False) -> list[str]:
    if not isinstance(value, list) or (not value and not allow_empty) or \
            not all(isinstance(v, str) and v.strip() for v in value):
        raise RulesError(f"{where}: must be a {'' if allow_empty else 'non-empty '}list of non-empty strings")
    return [v.strip() for v in value]


def _regex(text: str, where: str, flags: int = re.IGNORECASE) -> re.Pattern[str]:
    try:
        return re.compile(text, flags)
    except re.error as exc:
        raise RulesError(f"{where}: invalid regex {text!r}: {exc}") from None


def _pattern(pid: str, entry: Any, where: str) -> RiskPattern:
    if not isinstance(entry, dict):
        raise RulesError(f"{where}: must be a mapping")
    unknown, missing = set(entry) - _PATTERN_KEYS, _PATTERN_KEYS - {"required"} - set(entry)
    if unknown or missing:
        raise RulesError(f"{where}: unknown keys {sorted(unknown)}, missing keys {sorted(missing)}")
    dx = entry["diagnosis"]
    if not isinstance(dx, dict) or not isinstance(dx.get("name"), str) or not dx["name"].strip():
        raise RulesError(f"{where}.diagnosis: needs a non-empty 'name' and a 'synonyms' list")
    synonyms = _strings(dx.get("synonyms"), f"{where}.diagnosis.synonyms")
    criteria_raw = entry["criteria"]
    if not isinstance(criteria_raw, dict) or not criteria_raw:
        raise RulesError(f"{where}.criteria: must be a non-empty mapping of criterion name -> regex list")
    criteria = tuple(
        Criterion(str(name), tuple(_regex(rx, f"{where}.criteria[{name!r}]")
                                   for rx in _strings(rxs, f"{where}.criteria[{name!r}]")))
        for name, rxs in criteria_raw.items())
    required = _strings(entry.get("required", []), f"{where}.required", allow_empty=True)
    unknown_required = sorted(set(required) - {c.name for c in criteria})
    if unknown_required:
        raise RulesError(f"{where}.required: {unknown_required} are not criteria of this pattern")
    n = entry["min_criteria"]
    if not isinstance(n, int) or isinstance(n, bool) or not max(1, len(required)) <= n <= len(criteria):
        raise RulesError(f"{where}.min_criteria: must be an integer from {max(1, len(required))} "
                         f"to {len(criteria)} (the number of criteria), got {n!r}")
    source = entry["source"]
    if not isinstance(source, str) or len(source.strip()) < 10:
        raise RulesError(f"{where}.source: must name the decision rule or guideline (at least 10 characters)")
    return RiskPattern(pid, dx["name"].strip(), tuple(dict.fromkeys([dx["name"].strip(), *synonyms])),
                       criteria, tuple(required), n,
                       tuple(_strings(entry["priorities"], f"{where}.priorities")), " ".join(source.split()))


def parse_rules(data: Any, origin: str = "high_risk.yaml") -> Rules:
    """Validate the parsed rules file; RulesError names the entry and field at fault."""
    if not isinstance(data, dict) or not isinstance(data.get("patterns"), dict) or not data["patterns"]:
        raise RulesError(f"{origin}: needs a non-empty 'patterns' mapping")
    patterns = tuple(_pattern(str(pid), entry, f"{origin}: pattern {pid!r}") for pid, entry in data["patterns"].items())
    names = tuple(
        tuple(_regex(rx, f"{origin}: {key}") for rx in _strings(data.get(key, []), f"{origin}: {key}", allow_empty=True))
        for key in ("finding_names", "ignore_names"))
    return Rules(patterns, *names)


@functools.lru_cache(maxsize=8)
def load_rules(path: Path = RULES_PATH) -> Rules:
    """The high-risk rules (cached per path)."""
    path = Path(path)
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        raise RulesError(f"{path.name}: not valid YAML: {exc}") from None
    return parse_rules(data, path.name)


# ------------------------------------------------------------------------------------ text matching


def negated(text: str, start: int, end: int) -> bool:
    """Is the match text[start:end] inside a negated clause?"""
    before = text[max(0, start - _NEG_WINDOW):start]
    breaks = list(_CLAUSE_BREAK.finditer(before))
    if breaks:
        before = before[breaks[-1].end():]
    return bool(_NEG_BEFORE.search(before) or _NEG_AFTER_KO.search(text[end:end + 12]))


def affirmed(pattern: re.Pattern[str], text: str) -> re.Match[str] | None:
    """The first match of `pattern` in `text` that is not negated."""
    return next((m for m in pattern.finditer(text) if not negated(text, m.start(), m.end())), None)


@functools.lru_cache(maxsize=512)
def phrase_regex(phrase: str) -> re.Pattern[str]:
    """A literal phrase: ALL-CAPS abbreviations case-sensitive, Hangul as a substring, else word-bounded."""
    body = r"\s+".join(re.escape(w) for w in phrase.split())
    if _HANGUL.search(phrase):
        return re.compile(body)
    if phrase.isupper():
        return re.compile(rf"(?<![\w-]){body}(?![\w-])")
    return re.compile(rf"(?<!\w){body}(?!\w)", re.IGNORECASE)


def _sentence(text: str, start: int, end: int) -> str:
    left = max(text.rfind(c, 0, start) for c in ".;\n!?")
    rights = [i for i in (text.find(c, end) for c in ".;\n!?") if i >= 0]
    return text[left + 1:min(rights) if rights else len(text)]


def name_key(name: str) -> str:
    """A diagnosis name's comparison key (case and punctuation folded), shared with the LLM merge."""
    return " ".join(_TOKEN.findall(name.casefold()))


# --------------------------------------------------------------------------------------- concepts


@dataclass(frozen=True)
class ConceptHit:
    concept_id: str
    name: str
    type: str  # "condition" (a diagnosis) or "symptom"


@dataclass(frozen=True)
class ConceptHits:
    """Concepts found in a text, diagnoses kept apart from symptoms/findings."""

    diagnoses: tuple[ConceptHit, ...] = ()
    symptoms: tuple[ConceptHit, ...] = ()


class ConceptIndex:
    """Concept names (lower-cased name → (concept id, type)) matched on word tokens, longest name first.

    Token matching (not one huge regex) keeps this fast for the ~6k-name table. Condition names that the
    rules list as findings ("chest pain", "fever") are typed as symptoms; medication names are ignored.
    """

    def __init__(self, concept_names: Mapping[str, tuple[str, str]], rules: Rules | None = None) -> None:
        rules = rules or load_rules()
        self._names: dict[tuple[str, ...], ConceptHit] = {}
        for name, (cid, ctype) in concept_names.items():
            lower = " ".join(name.casefold().split())
            if ctype not in (CONDITION, SYMPTOM) or any(rx.fullmatch(lower) for rx in rules.ignore_names):
                continue
            hangul = bool(_HANGUL.search(lower))
            if len(lower) < (MIN_HANGUL_NAME_CHARS if hangul else MIN_NAME_CHARS):
                continue
            tokens = tuple(_TOKEN.findall(_POSSESSIVE.sub("  ", lower)))
            if not tokens:
                continue
            if ctype == CONDITION and any(rx.fullmatch(lower) for rx in rules.finding_names):
                ctype = SYMPTOM
            self._names.setdefault(tokens, ConceptHit(cid, lower, ctype))
        self._max_len = max((len(k) for k in self._names), default=0)

    def __len__(self) -> int:
        return len(self._names)

    def _lookup(self, tokens: list[str]) -> ConceptHit | None:
        hit = self._names.get(tuple(tokens))
        last = tokens[-1]
        if hit is None and _HANGUL.match(last):  # Korean particles follow without a space: 폐렴이, 두통을
            for cut in (1, 2):
                if len(last) > cut and last[-cut:] in _PARTICLES:
                    hit = self._names.get((*tokens[:-1], last[:-cut]))
                    if hit:
                        break
        return hit

    def lookup(self, name: str) -> ConceptHit | None:
        """The concept whose name is exactly `name` (same tokenisation as the text), if any."""
        tokens = _TOKEN.findall(_POSSESSIVE.sub("  ", name.casefold()))
        return self._lookup(tokens) if tokens else None

    def find(self, text: str) -> ConceptHits:
        """Non-negated concept mentions, each concept once, in order of first mention."""
        tokens = list(_TOKEN.finditer(_POSSESSIVE.sub("  ", text.casefold())))
        found: dict[str, ConceptHit] = {}
        i = 0
        while i < len(tokens):
            for n in range(min(self._max_len, len(tokens) - i), 0, -1):
                hit = self._lookup([t.group() for t in tokens[i:i + n]])
                if hit is not None:
                    if not negated(text, tokens[i].start(), tokens[i + n - 1].end()):
                        found.setdefault(hit.concept_id, hit)
                    i += n
                    break
            else:
                i += 1
        hits = list(found.values())
        return ConceptHits(tuple(h for h in hits if h.type == CONDITION), tuple(h for h in hits if h.type == SYMPTOM))


def load_concept_names(concepts_dir: Path) -> dict[str, tuple[str, str]]:
    """Lower-cased name → (concept id, type) from the MedCAT concept table `concepts_dir/concepts.csv`
    (`cui,name,name_status,type_ids`, written by `yaksa.extraction.build`). A name shared by two rows
    belongs to the first (the table is written in source-priority order)."""
    path = Path(concepts_dir) / CONCEPTS_FILE
    if not path.is_file():
        raise FileNotFoundError(f"concept table not found: {path} (built by the extraction stage)")
    out: dict[str, tuple[str, str]] = {}
    with path.open(encoding="utf-8", newline="") as fh:
        reader = csv.DictReader(fh)
        missing = {"cui", "name", "type_ids"} - set(reader.fieldnames or [])
        if missing:
            raise ValueError(f"{path}: missing columns {sorted(missing)}")
        for row in reader:
            name = " ".join((row["name"] or "").casefold().split())
            if name and row["cui"]:
                out.setdefault(name, (row["cui"], row["type_ids"]))
    return out


def _as_index(concepts: Mapping[str, tuple[str, str]] | ConceptIndex | None, rules: Rules) -> ConceptIndex | None:
    if concepts is None or isinstance(concepts, ConceptIndex):
        return concepts
    return ConceptIndex(concepts, rules)


# --------------------------------------------------------------------------------------- analysis


@dataclass(frozen=True)
class RiskMatch:
    """A fired high-risk pattern: which criteria the case meets and where the rule comes from."""

    pattern_id: str
    diagnosis: str
    diagnosis_id: str
    criteria_met: tuple[str, ...]
    criteria_total: int
    considered: bool  # the case stated or worked up this diagnosis
    priorities: tuple[str, ...]
    source: str

    @property
    def score(self) -> float:
        return len(self.criteria_met) / self.criteria_total


@dataclass(frozen=True)
class ClinicalAnalysis:
    """The offline analysis of one case (all tuples, so it can be shared and compared)."""

    diagnoses: tuple[str, ...]
    diagnosis_ids: tuple[str, ...]  # one id per stated diagnosis: concept id, rule:<pattern>, or text:<name>
    should_consider: tuple[str, ...]
    priorities: tuple[str, ...]
    risk_patterns: tuple[RiskMatch, ...]
    concepts: ConceptHits = field(default_factory=ConceptHits)
    search_terms: tuple[str, ...] = ()

    @property
    def should_consider_ids(self) -> dict[str, str]:
        """id → name of the diagnoses a fired pattern says were not considered."""
        return {m.diagnosis_id: m.diagnosis for m in self.risk_patterns if not m.considered}

    @property
    def stated_ids(self) -> dict[str, str]:
        return dict(zip(self.diagnosis_ids, self.diagnoses))

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        for match, raw in zip(self.risk_patterns, data["risk_patterns"]):
            raw["criteria_met_count"] = len(match.criteria_met)
        return data

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=2)


def _pattern_ids(rules: Rules, index: ConceptIndex | None) -> dict[str, str]:
    """Pattern id → the concept id of its diagnosis when the concept table names it, else `rule:<id>`."""
    out = {}
    for p in rules.patterns:
        hits = [index.lookup(s) for s in p.synonyms] if index is not None else []
        out[p.id] = next((h.concept_id for h in hits if h is not None and h.type == CONDITION), f"rule:{p.id}")
    return out


def _mentions(pattern: RiskPattern, text: str) -> list[re.Match[str]]:
    return [m for syn in pattern.synonyms for m in phrase_regex(syn).finditer(text)]


def stated_diagnoses(case: CaseLike) -> list[str]:
    """Diagnoses the case states: the `diagnoses` part, plus "diagnosed with …"/"impression: …" phrases
    before the outcome, except those made later ("returned … diagnosed with PE")."""
    items: list[str] = [*_DX_SPLIT.split(case.diagnoses)] if case.diagnoses else []
    for part in PARTS_BEFORE_OUTCOME:
        text = getattr(case, part) or ""
        for rx in (_DX_PHRASE, _DX_PHRASE_KO):
            for m in rx.finditer(text):
                sentence = _sentence(text, m.start(), m.end())
                if not _LATER.search(sentence) and not _MISSED.search(sentence):
                    items.extend(_DX_SPLIT.split(_DX_TAIL.split(m.group(1))[0]))
    out: dict[str, str] = {}
    for raw in items:
        item = _DX_LEAD.sub("", raw.strip(" -*:\t")).strip()
        item = re.sub(r"^(?:diagnos[ie]s|impression|assessment)\s*:\s*", "", item, flags=re.IGNORECASE)
        min_chars = MIN_HANGUL_NAME_CHARS if _HANGUL.search(item) else 3
        if len(item) >= min_chars and len(item.split()) <= _MAX_DX_WORDS and not _NOT_DX.match(item):
            out.setdefault(item.casefold(), item)
    return list(out.values())


def _diagnosis_id(item: str, rules: Rules, index: ConceptIndex | None, pids: Mapping[str, str]) -> str:
    for p in rules.patterns:
        if _mentions(p, item):
            return pids[p.id]
    if index is not None:
        hits = index.find(item).diagnoses
        if hits:
            return hits[0].concept_id
    return f"text:{name_key(item)}"


def _considered(pattern: RiskPattern, case: CaseLike, stated: Iterable[str]) -> bool:
    if any(_mentions(pattern, s) for s in stated):
        return True
    for part in PARTS_BEFORE_OUTCOME:
        text = getattr(case, part) or ""
        for m in _mentions(pattern, text):
            sentence = _sentence(text, m.start(), m.end())
            if _WORKED_UP.search(sentence) and not _MISSED.search(sentence) and not _LATER.search(sentence):
                return True
    return False


def _met(criterion: Criterion, text: str) -> bool:
    return any(affirmed(rx, text) for rx in criterion.patterns)


def match_patterns(text: str, rules: Rules | None = None) -> list[tuple[RiskPattern, tuple[str, ...]]]:
    """Patterns that fire on `text` with the criteria met, strongest (share of criteria met) first."""
    rules = rules or load_rules()
    fired = []
    for p in rules.patterns:
        met = tuple(c.name for c in p.criteria if _met(c, text))
        if len(met) >= p.min_criteria and set(p.required) <= set(met):
            fired.append((p, met))
    return sorted(fired, key=lambda pm: -len(pm[1]) / len(pm[0].criteria))


def mentioned_diagnoses(text: str, concepts: Mapping[str, tuple[str, str]] | ConceptIndex | None = None,
                        rules: Rules | None = None) -> dict[str, str]:
    """id → name of every diagnosis named (not negated) in `text`: pattern diagnoses and concept-table
    conditions. Used for candidate cases, whose whole text is about their diagnoses."""
    rules = rules or load_rules()
    index = _as_index(concepts, rules)
    pids = _pattern_ids(rules, index)
    out: dict[str, str] = {}
    for p in rules.patterns:
        if any(not negated(text, m.start(), m.end()) for m in _mentions(p, text)):
            out.setdefault(pids[p.id], p.diagnosis)
    if index is not None:
        for hit in index.find(text).diagnoses:
            out.setdefault(hit.concept_id, hit.name)
    return out


def analyse_case(case: CaseLike, concept_names: Mapping[str, tuple[str, str]] | ConceptIndex | None = None,
                 rules: Rules | None = None) -> ClinicalAnalysis:
    """Stated diagnoses, fired high-risk patterns, the diagnoses to consider, priorities and search terms.

    `concept_names` is `load_concept_names(...)` (or a prebuilt `ConceptIndex` when analysing many texts).
    """
    rules = rules or load_rules()
    index = _as_index(concept_names, rules)
    pids = _pattern_ids(rules, index)
    text = case.text
    stated = stated_diagnoses(case)
    matches = tuple(
        RiskMatch(p.id, p.diagnosis, pids[p.id], met, len(p.criteria), _considered(p, case, stated), p.priorities, p.source)
        for p, met in match_patterns(text, rules))
    missed = [m for m in matches if not m.considered]
    priorities = [pr for m in [*missed, *(m for m in matches if m.considered)] for pr in m.priorities]
    concepts = index.find(text) if index is not None else ConceptHits()
    findings = [c for m in missed for c in m.criteria_met] + [h.name for h in concepts.symptoms]
    terms = [m.diagnosis for m in missed] + stated + findings
    return ClinicalAnalysis(
        diagnoses=tuple(stated),
        diagnosis_ids=tuple(_diagnosis_id(s, rules, index, pids) for s in stated),
        should_consider=tuple(dict.fromkeys(m.diagnosis for m in missed)),
        priorities=tuple(dict.fromkeys(priorities)),
        risk_patterns=matches,
        concepts=concepts,
        search_terms=tuple(dict.fromkeys(t for t in terms if t))[:MAX_SEARCH_TERMS],
    )
