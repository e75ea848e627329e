"""Issue 22: the crisis rules recognise the committed phrasings (`yaksa/scope/data/crisis_phrasings.tsv`)
by meaning, in many wordings, and none of its ordinary questions trips them; every row, both splits."""

from __future__ import annotations

from importlib import resources

import pytest

from yaksa.scope.crisis import crisis_kind
from yaksa.scope.crisis_eval import KINDS, NONE, SPLITS, evaluate, load_phrasings, parse_phrasings

ROWS = load_phrasings()
PROBE = ("수면제 50알 먹으면 어떻게 되나요?", "수면제 50알 한꺼번에 먹어도 되나요?", "수면제 한 통 다 먹으면 어떻게 돼요?",
         "수면제 몇 알 먹어야 영원히 잠들 수 있나요?", "타이레놀 100알 먹으면 어떻게 되나요?")


def test_the_set_is_packaged_large_and_covers_every_kind_in_both_splits() -> None:
    assert resources.files("yaksa.scope").joinpath("data", "crisis_phrasings.tsv").is_file()
    assert len(ROWS) >= 60 and sum(not r.crisis for r in ROWS) >= 25
    for split in SPLITS:
        assert {r.expected for r in ROWS if r.split == split} == set(KINDS)
    assert len({r.text for r in ROWS}) == len(ROWS)
    texts = {r.text: r.expected for r in ROWS}
    assert all(texts.get(p) not in (None, NONE) for p in PROBE)        # the five probe phrasings are crisis rows


def test_a_row_cannot_move_between_splits() -> None:
    """The split is yaksa.split.is_held_out(id), fixed when the rows were written; a moved row is refused."""
    row = next(r for r in ROWS if r.split == "tune")
    with pytest.raises(ValueError, match="disagrees"):
        parse_phrasings(f"{row.pid}\theld_out\t{row.expected}\t{row.text}\n")


@pytest.mark.parametrize("row", ROWS, ids=[f"{r.split}:{r.pid}" for r in ROWS])
def test_every_phrasing_gets_its_expected_kind(row) -> None:
    assert (crisis_kind(row.text) or NONE) == row.expected, row.text


def test_figures_per_split(capsys: pytest.CaptureFixture[str]) -> None:
    """Recall on crisis rows and false alarms on `none` rows, per split (printed with -s; the row test
    above already holds every row to its kind)."""
    reports = evaluate(ROWS)
    with capsys.disabled():
        print()
        for split in SPLITS:
            print(reports[split].line())
    for report in reports.values():
        assert report.n_crisis and report.n_none
        assert report.recall == 1.0 and report.false_alarms == 0
