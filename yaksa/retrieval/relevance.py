"""Are the cited documents about what was asked? A pure check the agent's verifier runs on citations.

Why: a fluent answer citing 타라부틴정 for a 타이레놀 question is wrong however well it reads. The
search already constrains candidates (`yaksa.retrieval.focus_ranking`); this function lets the verifier
check the documents an answer actually cites, with nothing but the search's focus and the documents.

A document is *about* the focus when:
  drug mode     its item_seq is one of the focus's products (the named product, or products of the
                named ingredient / of the brand's ingredient);
  symptom mode  its item_seq is one of the products whose 효능효과 names the symptom, or its own text
                names one of the symptom terms;
  general       always (nothing to check but the intent).
It *addresses the intent* when its section (MFDS `section_key`, or MedQuAD `qtype`) is one of the
intent's primary sections, or a secondary one.

Usage:
    verdict = check_relevance(result.focus, [(h.title, h.section, h.text, h.metadata) for h in hits])
    if not verdict.relevant: ...verdict.problems
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from yaksa.lexicon.focus import Focus
from yaksa.lexicon.linking import names_term

MIN_SHARE = 0.5  # at least half of the cited documents must be about the asked drug or symptom

CitedDoc = tuple[str, str, str, Mapping[str, Any]]  # (title, section, text, metadata)


@dataclass(frozen=True)
class RelevanceVerdict:
    relevant: bool          # first_ok and share_ok >= MIN_SHARE and intent_ok
    first_ok: bool          # the first cited document is about the focus
    share_ok: float         # share of cited documents about the focus (1.0 when nothing is checked)
    intent_ok: bool         # some cited document is of a section that answers the intent
    problems: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def is_about(focus: Focus, doc: CitedDoc) -> bool:
    """Whether one document is about the asked drug or symptom (module doc)."""
    _title, _section, text, meta = doc
    seq = str(meta.get("item_seq") or "")
    if focus.mode == "drug":
        return bool(seq) and seq in focus.item_seqs
    if focus.mode == "symptom":
        return (bool(seq) and seq in focus.item_seqs) or (
            meta.get("section_key") == "efficacy" and any(names_term(text, t) for t in focus.symptoms))
    return True


def _section(doc: CitedDoc) -> str | None:
    meta = doc[3]
    return meta.get("section_key") or meta.get("qtype")


def check_relevance(focus: Focus | None, docs: Sequence[CitedDoc]) -> RelevanceVerdict:
    """Whether `docs` (cited, in order) are about `focus` and answer its intent (module doc)."""
    if focus is None:
        return RelevanceVerdict(True, True, 1.0, True, [])
    if not docs:
        reason = focus.reason or "no documents cited"
        return RelevanceVerdict(False, False, 0.0, False, [reason])
    problems: list[str] = []
    about = [is_about(focus, d) for d in docs]
    share = sum(about) / len(about)
    first_ok = about[0]
    subject = ", ".join(focus.linking.mentions or focus.symptoms) or "the question"
    if focus.mode == "drug" and not focus.item_seqs:
        problems.append(focus.reason or f"no product of the data matches {subject}")
    if not first_ok:
        problems.append(f"the first cited document ({docs[0][0]} — {docs[0][1]}) is not about {subject}")
    if share < MIN_SHARE:
        problems.append(f"only {share:.0%} of cited documents are about {subject}")
    wanted = (*focus.intent.sections, *focus.intent.secondary)
    intent_ok = focus.intent.name is None or any(_section(d) in wanted for d in docs)
    if not intent_ok:
        problems.append(f"no cited document answers the {focus.intent.name} question "
                        f"(wanted sections {', '.join(focus.intent.sections)})")
    return RelevanceVerdict(first_ok and share >= MIN_SHARE and intent_ok and not (
        focus.mode == "drug" and not focus.item_seqs), first_ok, share, intent_ok, problems)
