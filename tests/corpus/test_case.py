"""Reading a case: JSON with named parts or plain text; clear errors otherwise."""

from __future__ import annotations

import pytest

from yaksa.corpus.case import Case, CaseError, parse_case


def test_json_and_plain_text_cases() -> None:
    case = parse_case('{"summary": "68M, POD 3 after hip replacement", "diagnoses": ["anxiety"], '
                      '"outcome": "readmitted"}')
    assert case == Case(summary="68M, POD 3 after hip replacement", diagnoses="anxiety", outcome="readmitted")
    assert case.text.splitlines() == ["Summary: 68M, POD 3 after hip replacement", "Diagnoses: anxiety",
                                      "Outcome: readmitted"]
    assert parse_case("  A 23-year-old woman with chest pain.  ").summary == "A 23-year-old woman with chest pain."


@pytest.mark.parametrize(("raw", "message"), [
    ("", "empty"),
    ('{"summary": ""}', "summary is required"),
    ('{"summary": "x", "plan": "y"}', "unknown case field"),
    ('{"summary": 3}', "must be a string"),
    ('{"summary": "x",', "not valid JSON"),
    ("x" * 20_001, "limit"),
])
def test_bad_cases_are_clear_errors(raw: str, message: str) -> None:
    with pytest.raises(CaseError, match=message):
        parse_case(raw)


def test_a_decoded_non_object_is_refused() -> None:
    with pytest.raises(CaseError, match="JSON object or plain text"):
        parse_case([1, 2])  # type: ignore[arg-type]
