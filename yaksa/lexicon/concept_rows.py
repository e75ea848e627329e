"""The rows of the curated concept lexicon (`data/lexicon_ko.csv`), read once.

Why one loader: the conditions a message names (`conditions`), the prescription classes it names
(`prescription_classes`) and the scope vocabulary (`scope_vocabulary`) each filter the same rows; each had
its own copy of reading and parsing the file.
"""

from __future__ import annotations

import csv
import io
from functools import cache
from importlib import resources


@cache
def lexicon_rows() -> tuple[dict[str, str], ...]:
    """Every row of `data/lexicon_ko.csv` (concept_id, type, preferred, names "a|b|c", source), in file order."""
    text = resources.files("yaksa.lexicon").joinpath("data", "lexicon_ko.csv").read_text(encoding="utf-8")
    return tuple(csv.DictReader(io.StringIO(text)))
