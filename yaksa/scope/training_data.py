"""The labelled texts the learned scope model is fitted on, one source at a time.

Why sources and not one pool: the model must learn the boundary of medicine, not one writer's
style, so every text carries the source it came from and the threshold is chosen by leaving whole
sources out (`learned.py`). The data card (`docs/scope-data-card.md`) lists every source, its
licence, counts and sampling; this module is its executable half.

Where the texts come from (folders under `paths.raw`, linked from `../shared/data` by setup):
  real-questions/oos_ko.jsonl    real Korean non-medical questions: KorQuAD 1.0, 3i4K, Chatbot_data,
                                 Question_pair (one source each)
  real-questions/med_ko.jsonl    Korean licensing-exam stems (KorMedMCQA doctor, pharm)
  real-questions/posts_ko.jsonl  real consumer health posts (hidoc.co.kr, Naver KiN)
  medquad/dev_questions.jsonl    English consumer health questions (MedQuAD)
  pubmedqa/dev_questions.jsonl   English research questions (PubMedQA, outside the official test split)
  medmcqa-test/test.jsonl        English medical exam questions (MedMCQA)
  yaksa/scope/questions/*.jsonl  our own committed in- and out-of-scope questions (two sources)

Licences: the posts (no content licence) and KorMedMCQA (CC BY-NC) are read here at build time only;
no text of theirs is stored in the fitted model (weights, counts and ids only) or committed. A build
without the shared folder fits on the committed questions alone and says so in its report.

Every source is split by the project's one hash split (`yaksa.split.is_held_out`): the model is
fitted and its threshold chosen on the tuning halves; the held-out halves are only reported.
Sources the team reserved for the independent test (KoBEST, ParaKQC, KQMA, the nurse and dentist
subjects of KorMedMCQA) are never read: `RESERVED` names them and `load_training_texts` refuses a
row from them.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from yaksa.corpus.rawio import iter_jsonl
from yaksa.scope.exemplars import load_questions
from yaksa.split import is_held_out

# source key -> category; categories carry the refusal targets (`learned.CATEGORY_TARGETS`)
NON_MEDICAL = "non_medical"
POSTS = "posts"
EXAM = "exam"
RESEARCH = "research"
CONSUMER = "consumer"
OWN = "own"   # our own committed in-scope questions: reported on their held-out half, not a LOSO target
IN_SCOPE_CATEGORIES = (POSTS, EXAM, RESEARCH, CONSUMER, OWN)

SOURCES: dict[str, str] = {
    "korquad": NON_MEDICAL, "3i4k": NON_MEDICAL, "chatbot_data": NON_MEDICAL, "question_pair": NON_MEDICAL,
    "yaksa_out": NON_MEDICAL,
    "hidoc": POSTS, "kin": POSTS,
    "kormedmcqa_doctor": EXAM, "kormedmcqa_pharm": EXAM, "medmcqa": EXAM,
    "pubmedqa": RESEARCH,
    "medquad": CONSUMER, "yaksa_in": OWN,
}
# sources written by one hand: Question_pair and Chatbot_data are the same author's sets of the same
# kind of question, so leaving one out while its twin stays would not be leaving the writer out
FAMILIES: dict[str, str] = {"question_pair": "chatbot_data"}
RESERVED = ("kobest", "parakqc", "kqma", "korean-mental-health", "nurse", "dentist")

# the shared files' `source` strings start with these (real-questions/SOURCE.md)
_OOS_PREFIXES = {"KorQuAD": "korquad", "3i4K": "3i4k", "Chatbot_data": "chatbot_data",
                 "Question_pair": "question_pair"}
_POST_PREFIXES = {"hidoc": "hidoc", "Naver KiN": "kin"}


def family(source: str) -> str:
    """The writer a source belongs to (`FAMILIES`); the source itself when it stands alone."""
    return FAMILIES.get(source, source)


@dataclass(frozen=True)
class LabelledText:
    qid: str
    text: str
    source: str        # a key of SOURCES
    in_scope: bool
    held_out: bool     # the reporting half of the one hash split

    @property
    def category(self) -> str:
        return SOURCES[self.source]


def _jsonl(path: Path) -> Iterator[tuple[int, dict]]:
    """(line number, object) per line of `path` (the project's one JSONL reader); ValueError naming the line."""
    for n, row, error in iter_jsonl(path):
        if row is None:
            raise ValueError(f"{path}:{n}: {error}")
        yield n, row


def _field(path: Path, n: int, row: dict, name: str) -> str:
    value = row.get(name)
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{path}:{n}: missing or empty string field {name!r}")
    return value.strip()


def _source_key(path: Path, n: int, value: str, prefixes: dict[str, str]) -> str:
    lowered = value.lower()
    if any(word in lowered for word in RESERVED):
        raise ValueError(f"{path}:{n}: source {value!r} is reserved for the independent test")
    for prefix, key in prefixes.items():
        if value.startswith(prefix):
            return key
    raise ValueError(f"{path}:{n}: unknown source {value!r} (known: {', '.join(prefixes)})")


def _real_questions(folder: Path) -> Iterator[LabelledText]:
    oos, med, posts = folder / "oos_ko.jsonl", folder / "med_ko.jsonl", folder / "posts_ko.jsonl"
    if oos.is_file():
        for n, row in _jsonl(oos):
            qid = _field(oos, n, row, "id")
            key = _source_key(oos, n, _field(oos, n, row, "source"), _OOS_PREFIXES)
            yield LabelledText(qid, _field(oos, n, row, "question"), key, False, is_held_out(qid))
    if med.is_file():
        for n, row in _jsonl(med):
            qid, subject = _field(med, n, row, "id"), _field(med, n, row, "subject")
            if subject not in ("doctor", "pharm"):
                raise ValueError(f"{med}:{n}: subject {subject!r} is not used (doctor and pharm only; "
                                 "nurse and dentist are reserved)")
            yield LabelledText(qid, _field(med, n, row, "question"), f"kormedmcqa_{subject}", True,
                               is_held_out(qid))
    if posts.is_file():
        for n, row in _jsonl(posts):
            qid = _field(posts, n, row, "id")
            key = _source_key(posts, n, _field(posts, n, row, "source"), _POST_PREFIXES)
            yield LabelledText(qid, _field(posts, n, row, "question"), key, True, is_held_out(qid))


def _english(raw: Path) -> Iterator[LabelledText]:
    medquad, pubmedqa = raw / "medquad" / "dev_questions.jsonl", raw / "pubmedqa" / "dev_questions.jsonl"
    medmcqa = raw / "medmcqa-test" / "test.jsonl"
    if medquad.is_file():
        for n, row in _jsonl(medquad):
            qid = "medquad-" + _field(medquad, n, row, "qid")
            yield LabelledText(qid, _field(medquad, n, row, "question"), "medquad", True, is_held_out(qid))
    if pubmedqa.is_file():
        for n, row in _jsonl(pubmedqa):
            qid = "pubmedqa-" + str(row.get("pmid", ""))
            yield LabelledText(qid, _field(pubmedqa, n, row, "question"), "pubmedqa", True, is_held_out(qid))
    if medmcqa.is_file():
        for n, row in _jsonl(medmcqa):
            qid = "medmcqa-" + _field(medmcqa, n, row, "realidx")
            yield LabelledText(qid, _field(medmcqa, n, row, "question"), "medmcqa", True, is_held_out(qid))


def _ours() -> Iterator[LabelledText]:
    for q in load_questions():
        yield LabelledText(f"yaksa-{q.qid}", q.text, "yaksa_in" if q.in_scope else "yaksa_out", q.in_scope,
                           is_held_out(q.qid))


def load_training_texts(raw: Path, limit_per_source: int = 0, seed: int = 0) -> list[LabelledText]:
    """Every labelled text, in a stable order; at most `limit_per_source` per source and half (0: all).

    The cap is a seeded uniform draw within each (source, half), so a quick build sees every source.
    Texts repeated across sources (after whitespace folding) are kept once, in the first source read.
    """
    if limit_per_source < 0:
        raise ValueError(f"limit_per_source must be >= 0, got {limit_per_source}")
    rows: list[LabelledText] = []
    seen: set[str] = set()
    for item in (*_ours(), *_real_questions(raw / "real-questions"), *_english(raw)):
        key = " ".join(item.text.split()).lower()
        if key in seen:
            continue
        seen.add(key)
        rows.append(item)
    if not limit_per_source:
        return rows
    groups: dict[tuple[str, bool], list[int]] = {}
    for n, item in enumerate(rows):
        groups.setdefault((item.source, item.held_out), []).append(n)
    rng = random.Random(seed)
    kept: set[int] = set()
    for (_source, _half), members in sorted(groups.items()):
        kept.update(members if len(members) <= limit_per_source else rng.sample(members, limit_per_source))
    return [item for n, item in enumerate(rows) if n in kept]
