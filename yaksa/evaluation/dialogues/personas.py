"""Personas: what a Synthea patient would tell a pharmacist, read from their FHIR R4 bundle.

The multi-turn evaluation measures whether the agent keeps and uses what a patient said, so the
patient's facts must be real (not invented per test) and stable: age, sex and pregnancy from the
Patient and a pregnancy Condition, active conditions, active prescriptions, allergies, and the most
recent vitals and labs. Everything is dated at the bundle's latest encounter, never at today's date,
so the same bundles give the same personas on any day.

Conditions, medications and allergies are put into Korean patient wording through
`mapping_ko.yaml`: a reviewable table keyed by SNOMED/RxNorm code (or English name). A fact the table
does not know is skipped and counted as unmapped; codes the table lists under `ignore` (social and
administrative findings such as "Full-time employment") are skipped on purpose and counted apart.
"""

from __future__ import annotations

import logging
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any, NamedTuple

import yaml

from yaksa.corpus.rawio import list_files, one_line, read_json

logger = logging.getLogger(__name__)

MAPPING_PATH = Path(__file__).with_name("mapping_ko.yaml")
KINDS: tuple[str, ...] = ("conditions", "medications", "allergies")
SLOTS: tuple[str, ...] = ("conditions", "symptoms")   # where a condition's fact is filed in the profile
ROUTES: tuple[str, ...] = ("oral", "topical", "inhaled", "injection", "patch", "carried")

# LOINC code → (vitals | labs, slot name). The blood-pressure panel is read from its components.
OBSERVATIONS: dict[str, tuple[str, str]] = {
    "39156-5": ("vitals", "bmi"),
    "29463-7": ("vitals", "weight"),
    "8867-4": ("vitals", "heart_rate"),
    "2339-0": ("labs", "glucose"),
    "2345-7": ("labs", "glucose"),
    "4548-4": ("labs", "hba1c"),
    "2093-3": ("labs", "total_cholesterol"),
    "18262-6": ("labs", "ldl_cholesterol"),
    "33914-3": ("labs", "egfr"),
}
BP_PANEL, SYSTOLIC, DIASTOLIC = "85354-9", "8480-6", "8462-4"
_ACTIVE_CONDITION = {"active", "recurrence", "relapse"}
_REFUTED = {"refuted", "entered-in-error"}
_DROP_OBSERVATION = {"entered-in-error", "cancelled"}


class MappingError(ValueError):
    """The Korean mapping table is missing or malformed (the message names the entry)."""


class Coded(NamedTuple):
    """A coded fact as the persona states it: (SNOMED/RxNorm code, English display, Korean wording)."""

    code: str
    english: str
    korean: str


class Allergy(NamedTuple):
    """An active allergy; `category` is FHIR's ("medication", "food", "environment", ...)."""

    code: str
    english: str
    korean: str
    category: str


@dataclass(frozen=True)
class Entry:
    """One row of the mapping table: how a patient says a coded fact, and what it implies.

    `concept` is the project lexicon's concept id when the same idea is there (for matching the
    agent's profile), `slot` where the profile files it, `caution` regexes that find a caution
    about it in MFDS 주의사항/상호작용 text, `say` a whole sentence for facts that do not fit
    "X이 있어요" (a history: "예전에 심근경색을 앓은 적이 있어요"), `route` how a medication is taken.
    """

    korean: str
    english: str = ""
    concept: str | None = None
    slot: str = "conditions"
    caution: tuple[str, ...] = ()
    say: str | None = None
    route: str = "oral"


@dataclass(frozen=True)
class KoMapping:
    """The parsed table: entries per kind (keyed by code and by lower-cased English name)."""

    conditions: dict[str, Entry]
    medications: dict[str, Entry]
    allergies: dict[str, Entry]
    ignore: dict[str, frozenset[str]]          # kind → codes and lower-cased English names
    pregnancy: frozenset[str]                  # Condition codes meaning "pregnant now" while active

    def entry(self, kind: str, code: str, english: str) -> Entry | None:
        table: dict[str, Entry] = getattr(self, kind)
        return table.get(code) or table.get(english.strip().lower())

    def ignored(self, kind: str, code: str, english: str) -> bool:
        names = self.ignore.get(kind, frozenset())
        return code in names or english.strip().lower() in names


@dataclass(frozen=True)
class Persona:
    """A simulated patient. Lists keep the bundle's order (oldest onset first), without duplicates."""

    pid: str
    age: int                                   # whole years at the bundle's latest encounter
    sex: str                                   # "male" | "female" (FHIR administrative gender)
    pregnant: bool
    conditions: tuple[Coded, ...]
    medications: tuple[Coded, ...]
    allergies: tuple[Allergy, ...]
    vitals: dict[str, tuple[float | str, str]] = field(default_factory=dict)
    labs: dict[str, tuple[float | str, str]] = field(default_factory=dict)
    as_of: str = ""                            # ISO date of the latest encounter


@dataclass
class PersonaStats:
    """What `load_personas` read and skipped: `unmapped` counts facts (one per patient and code)."""

    files: int = 0
    personas: int = 0
    skipped_files: list[str] = field(default_factory=list)
    unmapped: Counter[tuple[str, str, str]] = field(default_factory=Counter)   # (kind, code, english)
    ignored: Counter[str] = field(default_factory=Counter)                      # kind → facts

    @property
    def unmapped_facts(self) -> int:
        return sum(self.unmapped.values())

    def summary(self) -> dict[str, Any]:
        return {
            "files": self.files, "personas": self.personas, "skipped_files": len(self.skipped_files),
            "unmapped_facts": self.unmapped_facts, "unmapped_codes": len(self.unmapped),
            "ignored_facts": dict(self.ignored),
        }


# ----------------------------------------------------------------------------------------- mapping

def _entry(kind: str, key: str, raw: Any) -> Entry:
    where = f"mapping {kind}[{key!r}]"
    if not isinstance(raw, dict) or not isinstance(raw.get("korean"), str) or not raw["korean"].strip():
        raise MappingError(f"{where}: needs a non-empty 'korean' string")
    unknown = set(raw) - {"korean", "english", "concept", "slot", "caution", "say", "route"}
    if unknown:
        raise MappingError(f"{where}: unknown field(s) {sorted(unknown)}")
    caution = raw.get("caution") or []
    if not isinstance(caution, list) or not all(isinstance(c, str) and c for c in caution):
        raise MappingError(f"{where}: 'caution' must be a list of regex strings")
    entry = Entry(
        korean=raw["korean"].strip(), english=str(raw.get("english") or ""), concept=raw.get("concept"),
        slot=raw.get("slot", "conditions"), caution=tuple(caution), say=raw.get("say"),
        route=raw.get("route", "oral"),
    )
    if entry.slot not in SLOTS:
        raise MappingError(f"{where}: slot must be one of {SLOTS}, got {entry.slot!r}")
    if entry.route not in ROUTES:
        raise MappingError(f"{where}: route must be one of {ROUTES}, got {entry.route!r}")
    return entry


def parse_mapping(data: Any, origin: str = "mapping_ko.yaml") -> KoMapping:
    """Validate the YAML structure; entries are indexed by their key and their English name."""
    if not isinstance(data, dict):
        raise MappingError(f"{origin}: top level must be a mapping")
    tables: dict[str, dict[str, Entry]] = {}
    for kind in KINDS:
        raw = data.get(kind) or {}
        if not isinstance(raw, dict):
            raise MappingError(f"{origin}: '{kind}' must be a mapping of code → entry")
        table: dict[str, Entry] = {}
        for key, value in raw.items():
            entry = _entry(kind, str(key), value)
            table[str(key).strip().lower() if not str(key).isdigit() else str(key)] = entry
            if entry.english:
                table.setdefault(entry.english.strip().lower(), entry)
        tables[kind] = table
    ignore_raw = data.get("ignore") or {}
    if not isinstance(ignore_raw, dict):
        raise MappingError(f"{origin}: 'ignore' must map a kind to code → English name")
    ignore: dict[str, frozenset[str]] = {}
    for kind, raw in ignore_raw.items():
        if kind not in KINDS or not isinstance(raw, dict):
            raise MappingError(f"{origin}: ignore.{kind} must be one of {KINDS}, mapping code → name")
        ignore[kind] = frozenset({str(k) for k in raw} | {str(v).strip().lower() for v in raw.values() if v})
    pregnancy = data.get("pregnancy") or []
    if not isinstance(pregnancy, list):
        raise MappingError(f"{origin}: 'pregnancy' must be a list of Condition codes")
    return KoMapping(tables["conditions"], tables["medications"], tables["allergies"], ignore,
                     frozenset(str(c) for c in pregnancy))


def load_mapping(path: Path | None = None) -> KoMapping:
    """The packaged table, or the one at `path`."""
    path = Path(path) if path is not None else MAPPING_PATH
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise MappingError(f"{path}: cannot read the mapping table: {exc}") from exc
    except yaml.YAMLError as exc:
        raise MappingError(f"{path}: not valid YAML: {exc}") from exc
    return parse_mapping(data, str(path))


# ------------------------------------------------------------------------------------ FHIR reading

def _date(value: Any) -> date | None:
    """The calendar date of a FHIR date or dateTime string (the bundle's own offset, no conversion)."""
    if not isinstance(value, str) or len(value) < 10:
        return None
    try:
        return date.fromisoformat(value[:10])
    except ValueError:
        return None


def _when(value: Any) -> datetime:
    """A sortable instant (naive values read as UTC, never the machine's zone); unparseable values sort
    first so a real date always wins."""
    if isinstance(value, str):
        try:
            parsed = datetime.fromisoformat(value)
            return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)
        except ValueError:
            pass
    return datetime.min.replace(tzinfo=UTC)


def _status(resource: dict[str, Any], key: str) -> str:
    coding = ((resource.get(key) or {}).get("coding") or [{}])[0]
    return str(coding.get("code") or "")


def _coding(concept: Any) -> tuple[str, str]:
    """(code, display) of a CodeableConcept's first coding, falling back to its text."""
    concept = concept if isinstance(concept, dict) else {}
    coding = (concept.get("coding") or [{}])[0]
    return one_line(coding.get("code")), one_line(coding.get("display") or concept.get("text"))


def _age(birth: date, at: date) -> int:
    return at.year - birth.year - ((at.month, at.day) < (birth.month, birth.day))


def _latest_encounter(resources: list[dict[str, Any]]) -> date | None:
    dates = [_date((r.get("period") or {}).get("start")) for r in resources if r.get("resourceType") == "Encounter"]
    dates = [d for d in dates if d is not None]
    return max(dates) if dates else None


def _quantity(value: Any) -> tuple[float, str] | None:
    if isinstance(value, dict) and isinstance(value.get("value"), (int, float)):
        return float(value["value"]), str(value.get("unit") or value.get("code") or "")
    return None


def _observations(resources: list[dict[str, Any]]) -> tuple[dict[str, tuple[Any, str]], dict[str, tuple[Any, str]]]:
    """The most recent value per slot name: blood pressure as "138/74" mmHg, the rest as numbers."""
    latest: dict[tuple[str, str], tuple[datetime, Any, str]] = {}

    def keep(group: str, name: str, when: datetime, value: Any, unit: str) -> None:
        if (group, name) not in latest or when >= latest[(group, name)][0]:
            latest[(group, name)] = (when, value, unit)

    systolic: dict[str, float] = {}
    diastolic: dict[str, float] = {}
    for r in resources:
        if r.get("resourceType") != "Observation" or r.get("status") in _DROP_OBSERVATION:
            continue
        code, _ = _coding(r.get("code"))
        when_raw = r.get("effectiveDateTime") or (r.get("effectivePeriod") or {}).get("start")
        when = _when(when_raw)
        if code == BP_PANEL:
            parts = {_coding(c.get("code"))[0]: _quantity(c.get("valueQuantity")) for c in r.get("component") or []}
            if parts.get(SYSTOLIC) and parts.get(DIASTOLIC):
                s, d = round(parts[SYSTOLIC][0]), round(parts[DIASTOLIC][0])
                keep("vitals", "blood_pressure", when, f"{s}/{d}", "mmHg")
        elif code in (SYSTOLIC, DIASTOLIC) and (q := _quantity(r.get("valueQuantity"))):
            (systolic if code == SYSTOLIC else diastolic)[str(when_raw)] = q[0]
        elif code in OBSERVATIONS and (q := _quantity(r.get("valueQuantity"))):
            group, name = OBSERVATIONS[code]
            keep(group, name, when, round(q[0], 1), q[1])
    for when_raw in systolic.keys() & diastolic.keys():  # stand-alone pairs taken at the same instant
        keep("vitals", "blood_pressure", _when(when_raw),
             f"{round(systolic[when_raw])}/{round(diastolic[when_raw])}", "mmHg")
    vitals = {name: (v, u) for (g, name), (_, v, u) in sorted(latest.items()) if g == "vitals"}
    labs = {name: (v, u) for (g, name), (_, v, u) in sorted(latest.items()) if g == "labs"}
    return vitals, labs


def _medication_concept(r: dict[str, Any], by_url: dict[str, dict[str, Any]]) -> Any:
    if r.get("medicationCodeableConcept"):
        return r["medicationCodeableConcept"]
    ref = str((r.get("medicationReference") or {}).get("reference") or "")
    target = by_url.get(ref) or by_url.get(ref.rsplit("/", 1)[-1].removeprefix("urn:uuid:"))
    return (target or {}).get("code")


class _Reader:
    """Maps one bundle's coded facts, counting unmapped and ignored ones into `stats`."""

    def __init__(self, mapping: KoMapping, stats: PersonaStats) -> None:
        self.mapping, self.stats = mapping, stats
        self.seen: set[tuple[str, str]] = set()

    def map(self, kind: str, code: str, english: str) -> Entry | None:
        """The entry for a fact, or None; a code repeated in one bundle is looked up (and counted) once."""
        if (kind, code or english) in self.seen:
            return None
        self.seen.add((kind, code or english))
        entry = self.mapping.entry(kind, code, english)
        if entry is None:
            if self.mapping.ignored(kind, code, english):
                self.stats.ignored[kind] += 1
            else:
                self.stats.unmapped[(kind, code, english)] += 1
        return entry


def _persona(bundle: Any, mapping: KoMapping, stats: PersonaStats) -> tuple[Persona | None, str]:
    entries = bundle.get("entry") if isinstance(bundle, dict) else None
    if not isinstance(entries, list):
        return None, "not a FHIR bundle: no entry list"
    resources = [e["resource"] for e in entries if isinstance(e, dict) and isinstance(e.get("resource"), dict)]
    by_url = {str(e.get("fullUrl") or ""): e["resource"] for e in entries
              if isinstance(e, dict) and isinstance(e.get("resource"), dict)}
    by_url |= {str(r.get("id")): r for r in resources if r.get("id")}
    patient = next((r for r in resources if r.get("resourceType") == "Patient"), None)
    if patient is None or not patient.get("id"):
        return None, "no Patient resource with an id"
    birth, as_of = _date(patient.get("birthDate")), _latest_encounter(resources)
    if birth is None or as_of is None:
        return None, "no birthDate or no Encounter to date the persona"
    sex = str(patient.get("gender") or "")
    reader = _Reader(mapping, stats)

    conditions: dict[str, tuple[datetime, Coded]] = {}
    pregnant = False
    for r in sorted((r for r in resources if r.get("resourceType") == "Condition"),
                    key=lambda r: (_when(r.get("onsetDateTime")), _coding(r.get("code"))[0])):
        if (_status(r, "clinicalStatus") not in _ACTIVE_CONDITION or r.get("abatementDateTime")
                or _status(r, "verificationStatus") in _REFUTED):
            continue
        code, english = _coding(r.get("code"))
        onset = _date(r.get("onsetDateTime"))
        if onset is not None and onset > as_of:
            continue
        if code in mapping.pregnancy:
            pregnant = pregnant or sex == "female"
            continue
        entry = reader.map("conditions", code, english)
        if entry is not None and not any(c.korean == entry.korean for _, c in conditions.values()):
            conditions[code] = (_when(r.get("onsetDateTime")), Coded(code, english, entry.korean))

    medications: list[Coded] = []
    for r in sorted((r for r in resources if r.get("resourceType") == "MedicationRequest"),
                    key=lambda r: (_when(r.get("authoredOn")), str(r.get("id")))):
        if r.get("status") != "active":
            continue
        code, english = _coding(_medication_concept(r, by_url))
        entry = reader.map("medications", code, english)
        if entry is not None and all(m.korean != entry.korean for m in medications):
            medications.append(Coded(code, english, entry.korean))

    allergies: list[Allergy] = []
    for r in resources:
        if r.get("resourceType") != "AllergyIntolerance":
            continue
        if _status(r, "clinicalStatus") not in ("", "active") or _status(r, "verificationStatus") in _REFUTED:
            continue
        code, english = _coding(r.get("code"))
        entry = reader.map("allergies", code, english)
        if entry is not None:
            allergies.append(Allergy(code, english, entry.korean, str((r.get("category") or [""])[0])))

    vitals, labs = _observations(resources)
    return Persona(
        pid=str(patient["id"]), age=_age(birth, as_of), sex=sex, pregnant=pregnant,
        conditions=tuple(c for _, c in conditions.values()), medications=tuple(medications),
        allergies=tuple(allergies), vitals=vitals, labs=labs, as_of=as_of.isoformat(),
    ), ""


def load_personas_with_stats(
    fhir_dir: Path, mapping: KoMapping | Path | None = None, limit: int = 0
) -> tuple[list[Persona], PersonaStats]:
    """Personas from every `*.json` bundle in `fhir_dir` (sorted by file name), plus what was skipped.

    `limit` > 0 reads only that many files. `mapping` is the parsed table, a path to one, or None for
    the packaged `mapping_ko.yaml`.
    """
    if not isinstance(mapping, KoMapping):
        mapping = load_mapping(mapping)
    stats = PersonaStats()
    files = list_files(Path(fhir_dir), ("*.json",))
    if limit:
        files = files[:limit]
    personas: list[Persona] = []
    for file in files:
        stats.files += 1
        bundle, error = read_json(file)
        persona, reason = (None, error) if error else _persona(bundle, mapping, stats)
        if persona is None:
            stats.skipped_files.append(f"{file.name}: {reason}")
            continue
        personas.append(persona)
    stats.personas = len(personas)
    return personas, stats


def load_personas(fhir_dir: Path, mapping: KoMapping | Path | None = None, limit: int = 0) -> list[Persona]:
    """Personas from the bundles in `fhir_dir`; logs how many facts the mapping table did not know."""
    personas, stats = load_personas_with_stats(fhir_dir, mapping, limit)
    summary = stats.summary()
    logger.info("personas: %s", summary)
    if stats.unmapped:
        top = ", ".join(f"{kind}:{english or code} ×{n}" for (kind, code, english), n in stats.unmapped.most_common(5))
        logger.warning("%d fact(s) of %d code(s) not in the Korean mapping were skipped (most frequent: %s)",
                       stats.unmapped_facts, len(stats.unmapped), top)
    for skipped in stats.skipped_files:
        logger.warning("persona skipped: %s", skipped)
    return personas
