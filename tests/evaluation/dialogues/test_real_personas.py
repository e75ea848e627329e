"""The real build: ≥ 80 Synthea personas → 400 turns over the 500 MFDS products (skipped when the bundles
or the CSV are not on this machine)."""

from __future__ import annotations

from pathlib import Path

import pytest

from yaksa.evaluation.dialogues.personas import load_personas_with_stats
from yaksa.evaluation.dialogues.script import FIELD_LABELS, TURN_KINDS, generate, load_drugs, summary

REPO = Path(__file__).resolve().parents[3]
FHIR = REPO / "data" / "raw" / "synthea" / "fhir"
DRUGS = REPO / "data" / "raw" / "mfds-easy-drug-500" / "drug500_data.csv"


def test_the_real_bundles_give_80_personas_and_400_turns() -> None:
    if not FHIR.is_dir() or not any(FHIR.glob("*.json")):
        pytest.skip(f"no Synthea bundles in {FHIR.relative_to(REPO)} (run the build)")
    if not DRUGS.is_file():
        pytest.skip(f"no MFDS CSV at {DRUGS.relative_to(REPO)}")
    personas, stats = load_personas_with_stats(FHIR)
    drugs = load_drugs(DRUGS)
    dialogues = generate(personas, drugs, seed=13)
    counts = summary(dialogues)
    assert len(personas) >= 80 and counts["turns"] == 5 * len(personas) >= 400
    assert stats.unmapped_facts <= 0.1 * sum(len(p.conditions) + len(p.medications) for p in personas)
    rows = {d.item_seq: d for d in drugs}
    for turns in dialogues:
        assert tuple(t.kind for t in turns) == TURN_KINDS
        t4, t5 = turns[3], turns[4]
        assert t5.expects["referent"] == t4.expects["product"] and t4.expects["product"] not in t5.text
        if t4.expects["reason"]:
            field = {v: k for k, v in FIELD_LABELS.items()}[t4.expects["field"]]
            assert t4.expects["keyword"] in t4.expects["sentence"] in getattr(rows[t4.expects["item_seq"]], field)
    # most personas get a product that cautions for something they said
    assert counts["caution_reasons"].get("None", 0) <= 0.3 * len(personas)
