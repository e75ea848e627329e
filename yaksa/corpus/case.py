"""A clinical case as the critique reads it: a summary plus optional timeline, findings, diagnoses,
management and outcome.

Why one small type: the CLI reads a case from a file, the service from a request body, the benchmark
from a MedQA vignette; the analysis and validation only need the parts and their joined text. A case is
JSON (an object with those keys, `summary` required) or plain text (the whole text is the summary).

    parse_case('{"summary": "68M, POD 3 after hip replacement, pleuritic chest pain", "diagnoses": "anxiety"}')
    parse_case("68-year-old man, three days after hip replacement ...")
"""

from __future__ import annotations

import json
from dataclasses import dataclass, fields
from typing import Any

PARTS = ("summary", "timeline", "findings", "diagnoses", "management", "outcome")
MAX_CASE_CHARS = 20_000

LESSONS_MARK = "Lessons:"  # an M&M record's lessons follow its case text after this mark


class CaseError(ValueError):
    """The case cannot be read (the message says which part and why)."""


@dataclass(frozen=True)
class Case:
    summary: str
    timeline: str = ""
    findings: str = ""
    diagnoses: str = ""
    management: str = ""
    outcome: str = ""

    @property
    def text(self) -> str:
        """Every non-empty part, labelled, in order (what searches and the analysis read)."""
        return "\n".join(f"{f.name.capitalize()}: {getattr(self, f.name)}" for f in fields(self)
                         if getattr(self, f.name))

    def to_json(self) -> dict[str, str]:
        return {name: getattr(self, name) for name in PARTS}


def _part(data: dict[str, Any], name: str) -> str:
    value = data.get(name, "")
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        value = "\n".join(value)
    if not isinstance(value, str):
        raise CaseError(f"case.{name} must be a string (or a list of strings), got {type(value).__name__}")
    return value.strip()


def parse_case(raw: str | dict[str, Any]) -> Case:
    """A `Case` from a JSON object (or its text) or from plain text; CaseError on anything else."""
    data: Any = raw
    if isinstance(raw, str):
        text = raw.strip()
        if not text:
            raise CaseError("the case is empty")
        if len(text) > MAX_CASE_CHARS:
            raise CaseError(f"the case is {len(text)} characters; the limit is {MAX_CASE_CHARS}")
        if not text.startswith("{"):
            return Case(summary=text)
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise CaseError(f"the case looks like JSON but is not valid JSON: {exc}") from None
        except RecursionError:  # a case is flat: JSON nested thousands deep is an attack, not a case
            raise CaseError("the case's JSON is nested too deeply") from None
    if not isinstance(data, dict):
        raise CaseError(f"a case is a JSON object or plain text, got {type(data).__name__}")
    unknown = sorted(set(data) - set(PARTS))
    if unknown:
        raise CaseError(f"unknown case field(s) {unknown}; expected some of {list(PARTS)}")
    parts = {name: _part(data, name) for name in PARTS}
    if not parts["summary"]:
        raise CaseError("case.summary is required")
    if sum(len(v) for v in parts.values()) > MAX_CASE_CHARS:
        raise CaseError(f"the case is longer than {MAX_CASE_CHARS} characters")
    return Case(**parts)
