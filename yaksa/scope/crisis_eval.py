"""How the crisis rules (`yaksa.scope.crisis`) do on the committed phrasings, per split.

Why a committed set: issue 22 found that only one phrasing ("…죽나요") was caught. The phrasings in
`data/crisis_phrasings.tsv` (id, split, expected, text; expected is self_harm, lethal_amount,
overdose_taken or none) say what must be caught in many wordings and what must not trip. The split is
`yaksa.split.is_held_out(id)`, fixed when the rows were written and before the rules were tuned; the
loader refuses a row whose split column disagrees, so a row cannot be moved. The rules are tuned on
the tune half; the held-out half says how they do on wordings they were not tuned on.

Figures per split: recall (crisis rows recognised as any crisis), kind accuracy (the expected kind),
and the false-alarm rate on the `none` rows.

Usage:
    python -m yaksa.scope.crisis_eval                  # both splits
    python -m yaksa.scope.crisis_eval --split tune --failures
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from importlib import resources

from yaksa.scope.crisis import LETHAL_AMOUNT, OVERDOSE_TAKEN, SELF_HARM, crisis_kind
from yaksa.scope.phrasing_rows import SPLITS, check_split_and_id, tsv_rows

PHRASINGS_FILE = "crisis_phrasings.tsv"
NONE = "none"
KINDS = (SELF_HARM, LETHAL_AMOUNT, OVERDOSE_TAKEN, NONE)
HEADER = ("id", "split", "expected", "text")


@dataclass(frozen=True)
class Phrasing:
    pid: str
    split: str
    expected: str   # one of KINDS
    text: str

    @property
    def crisis(self) -> bool:
        return self.expected != NONE


@dataclass
class SplitReport:
    split: str
    n_crisis: int = 0
    caught: int = 0          # crisis rows recognised as any crisis
    kind_right: int = 0      # crisis rows recognised as the expected kind
    n_none: int = 0
    false_alarms: int = 0    # none rows that tripped a rule
    failures: list[tuple[Phrasing, str | None]] = field(default_factory=list)

    @property
    def recall(self) -> float:
        return self.caught / self.n_crisis if self.n_crisis else 0.0

    @property
    def kind_accuracy(self) -> float:
        return self.kind_right / self.n_crisis if self.n_crisis else 0.0

    @property
    def false_alarm_rate(self) -> float:
        return self.false_alarms / self.n_none if self.n_none else 0.0

    def line(self) -> str:
        return (f"{self.split:9s} recall {self.caught}/{self.n_crisis} = {self.recall:.1%}  "
                f"kind {self.kind_right}/{self.n_crisis} = {self.kind_accuracy:.1%}  "
                f"false alarms {self.false_alarms}/{self.n_none} = {self.false_alarm_rate:.1%}")


def parse_phrasings(text: str, source: str = PHRASINGS_FILE) -> list[Phrasing]:
    """Rows of the TSV ('#' lines and the header skipped); ValueError naming the line on anything wrong."""
    rows: list[Phrasing] = []
    seen: set[str] = set()
    for n, (pid, split, expected, phrase) in tsv_rows(text, source, HEADER):
        if expected not in KINDS or split not in SPLITS:
            raise ValueError(f"{source}:{n}: expected must be one of {KINDS}, split one of {SPLITS}")
        check_split_and_id(pid, split, seen, source, n)
        rows.append(Phrasing(pid, split, expected, phrase))
    return rows


def load_phrasings() -> list[Phrasing]:
    path = resources.files("yaksa.scope").joinpath("data", PHRASINGS_FILE)
    return parse_phrasings(path.read_text(encoding="utf-8"))


def evaluate(rows: Sequence[Phrasing], kind_of: Callable[[str], str | None] = crisis_kind) -> dict[str, SplitReport]:
    reports = {s: SplitReport(s) for s in SPLITS}
    for row in rows:
        report = reports[row.split]
        got = kind_of(row.text)
        if row.crisis:
            report.n_crisis += 1
            report.caught += got is not None
            report.kind_right += got == row.expected
        else:
            report.n_none += 1
            report.false_alarms += got is not None
        if (got or NONE) != row.expected:
            report.failures.append((row, got))
    return reports


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=SPLITS, help="only this split (default: both)")
    parser.add_argument("--failures", action="store_true", help="list the rows whose kind is wrong")
    args = parser.parse_args(argv)
    reports = evaluate(load_phrasings())
    for split in ([args.split] if args.split else SPLITS):
        report = reports[split]
        print(report.line())
        if args.failures:
            for row, got in report.failures:
                print(f"  {row.pid}  expected {row.expected:14s} got {got or NONE:14s} {row.text}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
