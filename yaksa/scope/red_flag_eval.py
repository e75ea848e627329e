"""How the red-flag rules (`yaksa.scope.red_flags`) do, per split and per source: the committed
phrasings, and real consumer posts labelled by hand.

Two sources:

- `data/red_flag_phrasings.tsv` (id, split, expected, text): wordings the team wrote, expected = a rule
  id or `none`; many `none` rows share the words of a red flag ("열은 없어요", an adult's fever, chest
  tightness with no breathlessness).
- `data/red_flag_post_labels.tsv` (post_id, label, note): real posts from the shared development pool
  (`real-questions/posts_ko.jsonl`), labelled by reading them; label = the rule the post meets or
  `none`. The posts have no content licence, so only their ids, the labels and a note that does not
  quote the post are committed; the text is joined in at run time from the shared folder
  (`data/raw/real-questions/posts_ko.jsonl` when `yaksa link-data` linked it, else
  `$YAKSA_SHARED_DATA/real-questions/`, else `../shared/data/real-questions/`). Without it the posts
  are skipped with a message.

The split of both is `yaksa.split.is_held_out(id)`: the rules are tuned on the tune half, the
held-out half is reported. What is scored is what the agent does first (`triage`): the crisis stage
(`yaksa.scope.crisis`, which runs before the red flags and answers thoughts of suicide), else the
red-flag rules. Figures: recall (red-flag rows that get urgent advice first), rule agreement (the
labelled rule; the crisis stage agrees with `suicidal_thoughts`), and the false-alarm rate (`none`
rows that get it).

Usage:
    python -m yaksa.scope.red_flag_eval                      # both sources, both splits
    python -m yaksa.scope.red_flag_eval --split tune --failures
    python -m yaksa.scope.red_flag_eval --unlabelled         # ids of unlabelled posts the rules flag
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from yaksa import environment
from yaksa.scope.crisis import crisis_kind
from yaksa.scope.phrasing_rows import SPLITS, check_split_and_id, tsv_rows
from yaksa.scope.red_flags import red_flag, rule_ids
from yaksa.split import is_held_out

PHRASINGS_FILE = "red_flag_phrasings.tsv"
POST_LABELS_FILE = "red_flag_post_labels.tsv"
POSTS_RELATIVE = Path("real-questions") / "posts_ko.jsonl"
NONE = "none"
CRISIS = "crisis:"          # what the triage reports when the crisis stage (which runs first) takes the message
SUICIDAL = "suicidal_thoughts"
ORIGINS = ("random", "keyword", "flagged")
BEFORE_RULES = ("random", "keyword")     # labelled before any rule was written: recall is read here
PHRASING_HEADER = ("id", "split", "expected", "text")
LABEL_HEADER = ("post_id", "label", "note")


@dataclass(frozen=True)
class Labelled:
    rid: str
    split: str
    expected: str     # a rule id or NONE
    text: str
    note: str = ""    # posts: the labeller's note (never the post's words), "<origin>: ..."
    group: str = ""   # posts: the crawl topic

    @property
    def origin(self) -> str:
        """How a labelled post was drawn: random, keyword (both labelled before the rules) or flagged."""
        head, sep, _ = self.note.partition(":")
        return head if sep and head in ORIGINS else ""

    @property
    def flagged(self) -> bool:
        return self.expected != NONE


@dataclass
class SplitReport:
    name: str
    n_flag: int = 0
    caught: int = 0           # red-flag rows that raised any flag
    rule_right: int = 0       # ... the labelled rule
    n_none: int = 0
    false_alarms: int = 0     # none rows that raised a flag
    failures: list[tuple[Labelled, str | None]] = field(default_factory=list)

    def count(self, row: Labelled, got: str | None) -> None:
        """Tally one row against what the rules (`got`) said."""
        if row.flagged:
            self.n_flag += 1
            self.caught += got is not None
            self.rule_right += _agrees(got, row.expected)
        else:
            self.n_none += 1
            self.false_alarms += got is not None

    @property
    def recall(self) -> float:
        return self.caught / self.n_flag if self.n_flag else 0.0

    @property
    def false_alarm_rate(self) -> float:
        return self.false_alarms / self.n_none if self.n_none else 0.0

    def line(self) -> str:
        agree = self.rule_right / self.n_flag if self.n_flag else 0.0
        return (f"{self.name:24s} recall {self.caught}/{self.n_flag} = {self.recall:.1%}  "
                f"rule {self.rule_right}/{self.n_flag} = {agree:.1%}  "
                f"false alarms {self.false_alarms}/{self.n_none} = {self.false_alarm_rate:.1%}")


def _check_label(label: str, source: str, n: int) -> None:
    if label != NONE and label not in rule_ids():
        raise ValueError(f"{source}:{n}: {label!r} is neither {NONE!r} nor a rule id of the table")


def parse_phrasings(text: str, source: str = PHRASINGS_FILE) -> list[Labelled]:
    rows: list[Labelled] = []
    seen: set[str] = set()
    for n, (pid, split, expected, phrase) in tsv_rows(text, source, PHRASING_HEADER):
        _check_label(expected, source, n)
        if split not in SPLITS:
            raise ValueError(f"{source}:{n}: split must be one of {SPLITS}")
        check_split_and_id(pid, split, seen, source, n)
        rows.append(Labelled(pid, split, expected, phrase))
    return rows


@dataclass(frozen=True)
class PostLabel:
    post_id: str
    label: str
    note: str

    @property
    def split(self) -> str:
        return "held_out" if is_held_out(self.post_id) else "tune"


def parse_post_labels(text: str, source: str = POST_LABELS_FILE) -> list[PostLabel]:
    labels: list[PostLabel] = []
    seen: set[str] = set()
    for n, (post_id, label, note) in tsv_rows(text, source, LABEL_HEADER):
        _check_label(label, source, n)
        if post_id in seen:
            raise ValueError(f"{source}:{n}: duplicate post id {post_id!r}")
        seen.add(post_id)
        labels.append(PostLabel(post_id, label, note))
    return labels


def _packaged(name: str) -> str:
    return resources.files("yaksa.scope").joinpath("data", name).read_text(encoding="utf-8")


def load_phrasings() -> list[Labelled]:
    return parse_phrasings(_packaged(PHRASINGS_FILE))


def load_post_labels() -> list[PostLabel]:
    return parse_post_labels(_packaged(POST_LABELS_FILE))


def posts_file(root: Path | None = None) -> Path | None:
    """Where the shared posts are: linked into data/raw, $YAKSA_SHARED_DATA, or ../shared/data; None if absent."""
    root = root or Path.cwd()
    candidates = [root / "data" / "raw" / POSTS_RELATIVE]
    candidates.append(environment.shared_data_dir(root) / POSTS_RELATIVE)
    return next((p for p in candidates if p.is_file()), None)


def load_posts(path: Path) -> dict[str, dict]:
    posts: dict[str, dict] = {}
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                post = json.loads(line)
                posts[post["id"]] = post
    return posts


def labelled_posts(labels: Sequence[PostLabel], posts: dict[str, dict]) -> tuple[list[Labelled], list[str]]:
    """The labels joined with their posts' text; and the ids not found in the posts file."""
    rows: list[Labelled] = []
    missing: list[str] = []
    for lab in labels:
        post = posts.get(lab.post_id)
        if post is None:
            missing.append(lab.post_id)
            continue
        rows.append(Labelled(lab.post_id, lab.split, lab.label, post["question"], lab.note, post.get("topic", "")))
    return rows, missing


def triage(text: str) -> str | None:
    """What the agent does first with a message: the crisis stage ("crisis:<kind>"), else the red-flag rule id."""
    kind = crisis_kind(text)
    if kind is not None:
        return f"{CRISIS}{kind}"
    flag = red_flag(text)
    return flag.rule_id if flag and flag.is_urgent else None   # "see a doctor soon" is no red flag


def _agrees(got: str | None, expected: str) -> bool:
    """The labelled rule, or (for thoughts of suicide) the crisis stage, which answers them first."""
    if got is not None and got.startswith(CRISIS):
        return expected == SUICIDAL or (expected == "overdose_impaired" and got.endswith("overdose_taken"))
    return got == expected


def evaluate(rows: Sequence[Labelled], rule_of: Callable[[str], str | None] = triage,
             prefix: str = "") -> dict[str, SplitReport]:
    """Reports per split (`prefix` + split name)."""
    reports = {s: SplitReport(f"{prefix}{s}") for s in SPLITS}
    for row in rows:
        report = reports[row.split]
        got = rule_of(row.text)
        report.count(row, got)
        if not (_agrees(got, row.expected) or (got is None and row.expected == NONE)):
            report.failures.append((row, got))
    return reports


def by_group(rows: Sequence[Labelled], key: Callable[[Labelled], str],
             rule_of: Callable[[str], str | None] = triage) -> dict[str, SplitReport]:
    """Reports per group (topic, labelled rule), the chosen splits together."""
    groups: dict[str, SplitReport] = {}
    for row in rows:
        name = key(row)
        groups.setdefault(name, SplitReport(name)).count(row, rule_of(row.text))
    return dict(sorted(groups.items()))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=SPLITS, help="only this split (default: both)")
    parser.add_argument("--failures", action="store_true",
                        help="list the rows the rules get wrong (posts: id and note, never the post's text)")
    parser.add_argument("--posts", type=Path, help="the posts file (default: found as described above)")
    parser.add_argument("--unlabelled", action="store_true", help="ids and rules of unlabelled posts that raise a flag")
    args = parser.parse_args(argv)
    splits = [args.split] if args.split else list(SPLITS)

    print("phrasings (data/red_flag_phrasings.tsv)")
    reports = evaluate(load_phrasings(), prefix="phrasings/")
    for split in splits:
        print("  " + reports[split].line())
        if args.failures:
            for row, got in reports[split].failures:
                print(f"    {row.rid}  expected {row.expected:26s} got {got or NONE:26s} {row.text}")

    path = args.posts or posts_file()
    labels = load_post_labels()
    if path is None or not path.is_file():
        print(f"posts: skipped, {POSTS_RELATIVE} not found (run `yaksa link-data`, set YAKSA_SHARED_DATA, "
              f"or pass --posts); {len(labels)} labels committed")
        return 0
    posts = load_posts(path)
    rows, missing = labelled_posts(labels, posts)
    print(f"posts ({len(rows)} labelled by hand, {sum(r.flagged for r in rows)} with a red flag)")
    if missing:
        print(f"  {len(missing)} labelled ids are not in {path.name}: {', '.join(missing[:5])} ...")
    post_reports = evaluate(rows, prefix="posts/all/")
    before = evaluate([r for r in rows if r.origin in BEFORE_RULES], prefix="posts/before-rules/")
    sample = evaluate([r for r in rows if r.origin == "random"], prefix="posts/random/")
    for split in splits:
        print("  " + post_reports[split].line())
        print("  " + before[split].line())
        print("  " + sample[split].line())
        if args.failures:
            for row, got in post_reports[split].failures:
                print(f"    {row.rid}  expected {row.expected:26s} got {got or NONE:26s} ({row.note})")
    chosen = [r for r in rows if r.split in splits]
    print("  per origin (recall on random + keyword rows, the pool's false-alarm rate on random rows):")
    for report in by_group(chosen, lambda r: f"origin {r.origin or '?'}").values():
        print("    " + report.line())
    print("  per topic:")
    for report in by_group(chosen, lambda r: f"topic {r.group}").values():
        print("    " + report.line())
    print("  per labelled rule (recall):")
    for report in by_group([r for r in chosen if r.flagged], lambda r: r.expected).values():
        print("    " + report.line())
    if args.unlabelled:
        known = {lab.post_id for lab in labels}
        hits = [(pid, rule) for pid, post in posts.items()
                if pid not in known and (rule := triage(post["question"])) is not None]
        print(f"  unlabelled posts that raise a flag: {len(hits)} of {len(posts) - len(known)}")
        for pid, rule in hits:
            print(f"    {pid}\t{rule}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
