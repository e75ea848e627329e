"""Suite items read from the shared data folder at run time: real patients' posts, licensing-exam stems
and PubMedQA research questions (issue 23: "the nightly regression suite gains real-post, exam and
research categories").

Why at run time and by id: the hidoc / Naver posts have no content licence and KorMedMCQA is CC BY-NC,
so neither may be copied into the repo; the suite names them by id (the posts through the hand labels
of `yaksa/evaluation/data/post_labels.tsv`) and reads the text from `../shared/data` when the night
runs. Without that folder the categories are skipped, with a notice in the run's summary.

What is drawn (seeded by `suite.yaml`'s seed, so every night replays the same items):
- real_post: posts of the labels' held-out half, up to `RED_FLAG_SHARE` of them red-flag posts (each item
  knows whether its post needs urgent advice first);
- exam: stems of `real-questions/med_ko.jsonl`, doctor and pharmacist exams alike;
- research: questions of `pubmedqa/dev_questions.jsonl` that the `pubmedqa` category did not draw.
"""

from __future__ import annotations

import random
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from yaksa.corpus.rawio import iter_jsonl
from yaksa.evaluation.posts_eval import POSTS_PATH, load_labels, posts_file, read_posts

EXAM_PATH = ("real-questions", "med_ko.jsonl")
RESEARCH_PATH = ("pubmedqa", "dev_questions.jsonl")
RED_FLAG_SHARE = 0.4   # of the real-post items: red-flag posts, so the urgent-advice check has a sample


@dataclass(frozen=True)
class SharedQuestion:
    """One item's id, category and text; `yaksa.regression.suite` makes it a `SuiteItem`."""

    item_id: str
    category: str
    text: str
    red_flag: bool = False   # a real post that needs urgent advice first (the post labels)
    lang: str = "ko"


@dataclass
class SharedItems:
    items: list[SharedQuestion] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)


def _jsonl(path: Path) -> list[dict[str, Any]]:
    """Every object of a JSONL file (line ends only at \\n: texts may hold other line separators)."""
    rows = []
    for line_no, row, error in iter_jsonl(path):
        if row is None:
            raise ValueError(f"{path.name}:{line_no}: {error}")
        rows.append(row)
    return rows


def real_post_items(n: int, seed: int, shared_dir: Path) -> list[SharedQuestion]:
    """`n` labelled held-out posts, about RED_FLAG_SHARE of them red-flag ones, text from the shared pool."""
    held = [lb for lb in load_labels() if lb.split == "held_out"]
    rng = random.Random(f"{seed}:real_post")
    red = [lb for lb in held if lb.red_flag]
    other = [lb for lb in held if not lb.red_flag]
    n_red = min(len(red), round(n * RED_FLAG_SHARE))
    picked = rng.sample(red, n_red) + rng.sample(other, min(len(other), n - n_red))
    posts = read_posts(posts_file(shared_dir), [lb.id for lb in picked])
    return [SharedQuestion(f"real_post:{lb.id}", "real_post", posts[lb.id][0], lb.red_flag)
            for lb in sorted(picked, key=lambda lb: lb.id) if lb.id in posts]


def exam_items(n: int, seed: int, shared_dir: Path) -> list[SharedQuestion]:
    """`n` licensing-exam stems (KorMedMCQA, by id; the text stays in the shared folder)."""
    rows = _jsonl(shared_dir.joinpath(*EXAM_PATH))
    picked = random.Random(f"{seed}:exam").sample(rows, min(n, len(rows)))
    return [SharedQuestion(f"exam:{r['id']}", "exam", str(r["question"]).strip())
            for r in sorted(picked, key=lambda r: str(r["id"]))]


def research_items(n: int, seed: int, shared_dir: Path, taken: Collection[str] = ()) -> list[SharedQuestion]:
    """`n` PubMedQA dev questions whose pmid is not in `taken` (the pubmedqa category's own draw)."""
    excluded = set(taken)
    rows = [r for r in _jsonl(shared_dir.joinpath(*RESEARCH_PATH)) if str(r["pmid"]) not in excluded]
    picked = random.Random(f"{seed}:research").sample(rows, min(n, len(rows)))
    return [SharedQuestion(f"research:pubmed:{r['pmid']}", "research", str(r["question"]).strip(), lang="en")
            for r in sorted(picked, key=lambda r: str(r["pmid"]))]


def shared_items(spec: dict[str, Any], seed: int, shared_dir: Path | None,
                 taken_pmids: Collection[str] = ()) -> SharedItems:
    """The three categories as `suite.yaml` sizes them (`real_posts`, `exam`, `research`); each one
    whose file is missing is skipped with a notice instead."""
    out = SharedItems()
    wanted = {"real_post": int(spec.get("real_posts", 0)), "exam": int(spec.get("exam", 0)),
              "research": int(spec.get("research", 0))}
    paths = {"real_post": POSTS_PATH, "exam": EXAM_PATH, "research": RESEARCH_PATH}
    for name, n in wanted.items():
        if not n:
            continue
        path = shared_dir.joinpath(*paths[name]) if shared_dir is not None else None
        if path is None or not path.is_file():
            out.skipped.append(f"{name}: {'/'.join(paths[name])} not found in the shared data folder "
                               f"({shared_dir or 'none given'}); these items are read from there at run time, "
                               "never committed")
            continue
        if name == "real_post":
            out.items += real_post_items(n, seed, shared_dir)
        elif name == "exam":
            out.items += exam_items(n, seed, shared_dir)
        else:
            out.items += research_items(n, seed, shared_dir, taken_pmids)
    return out
