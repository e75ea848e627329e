"""Rows of the committed, hash-split TSV files the scope rules are tuned and reported on.

Why one reader: the crisis phrasings and the red-flag phrasings and post labels are the same kind of
file ('#' comments, a header, tab-separated non-empty columns, a split fixed by `yaksa.split`), and a
row moved between splits after tuning would quietly make a held-out figure a tuning one.
"""

from __future__ import annotations

from collections.abc import Iterator

from yaksa.split import is_held_out

SPLITS = ("tune", "held_out")


def tsv_rows(text: str, source: str, header: tuple[str, ...]) -> Iterator[tuple[int, list[str]]]:
    """(line number, stripped columns) of each data row; ValueError naming the line on a bad one."""
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.startswith("#"):
            continue
        cols = [c.strip() for c in line.split("\t")]
        if tuple(cols) == header:
            continue
        if len(cols) != len(header) or not all(cols):
            raise ValueError(f"{source}:{n}: need {len(header)} tab-separated non-empty columns {header}")
        yield n, cols


def check_split_and_id(pid: str, split: str, seen: set[str], source: str, n: int) -> None:
    """The row's split is the one its id hashes to, and its id is new (added to `seen`)."""
    if split != ("held_out" if is_held_out(pid) else "tune"):
        raise ValueError(f"{source}:{n}: split {split!r} disagrees with yaksa.split.is_held_out({pid!r})")
    if pid in seen:
        raise ValueError(f"{source}:{n}: duplicate id {pid!r}")
    seen.add(pid)
