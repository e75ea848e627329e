"""The offline generator: a cited answer made only of sentences copied from the evidence.

Why extractive: without a language model the only answer that can never invent a dose is one whose
every sentence is a sentence of a retrieved document. For each cited document the sentences that
overlap the question most (long list sentences discounted) are kept in their original order, one
paragraph per document ending in its `[문서 N]`, at most MAX_DOCUMENTS paragraphs, indications and
dosing before cautions and side-effect lists unless side effects were asked about, and the section the
question asks for (its intent: 용법용량 for "얼마나 먹여요") before all of them. When the user's profile has conditions (고령자, 당뇨병, 임부 ...), sentences of caution
sections (주의사항, 상호작용) that name them are kept first and flagged as relevant to the profile.
For a question about a child or an infant, sentences that dose adults only ("성인은 1회 200-600 mg", and
the ones after it that name no other group) are left out: beside the child's dose they invite the wrong one, and they answer nothing that was asked
(the document stays cited). A cited product holding an ingredient of a medication in the profile
gets a duplicate-ingredient caution first (`yaksa.llm.duplicates`). The answer always ends with the
consult line.

    extractive_answer("타이레놀 하루 몇 번 먹어요?", evidence, profile_summary="75세, 당뇨병")
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from yaksa.llm.duplicates import duplicate_cautions
from yaksa.llm.evidence import Citation
from yaksa.llm.lexical import grams, is_korean, mentions, overlap, sentences
from yaksa.llm.profile_terms import profile_terms, with_aliases
from yaksa.llm.safety import safety_line
from yaksa.retrieval.focus import find_population
from yaksa.retrieval.section_intent import asks_side_effects, classify_intent

MAX_SENTENCES_PER_DOC = 3
MAX_DOCUMENTS = 4          # a longer extract buries the answer; every retrieved section stays cited
LONG_SENTENCE = 200        # characters: longer sentences (lists of every side effect) score less
# "Can I take X for Y?" is answered by what the product is for and how to take it, then its cautions;
# a side-effect list that happens to name the symptom comes last unless side effects were asked about.
SECTION_ORDER = {"efficacy": 0, "usage": 1, "precautions": 2, "interactions": 3, "storage": 4, "side_effects": 5}
CAUTION_SECTIONS = frozenset({"주의사항", "상호작용", "경고", "부작용", "precautions", "interactions", "warnings"})
CHILD_POPULATIONS = frozenset({"child", "infant"})
ADULT_WORDS = re.compile(r"성인|(만\s*)?1[5-9]\s*세\s*이상|\badults?\b", re.IGNORECASE)
CHILD_WORDS = re.compile(r"소아|어린이|유아|영아|신생아|개월|\d+\s*[~∼-]\s*\d+\s*세|\d+\s*세\s*(미만|이하)"
                         r"|\bchild(ren)?\b|\binfants?\b", re.IGNORECASE)
NO_EVIDENCE_KO = "질문에 답할 근거 문서를 찾지 못했습니다. 확인되지 않은 정보로 답하지 않겠습니다."
NO_EVIDENCE_EN = "I could not find source documents that answer this question, so I will not guess."


def is_caution(citation: Citation) -> bool:
    """Whether a document is a caution section (by its section name or MFDS section key)."""
    key = str(citation.metadata.get("section_key", ""))
    return citation.section.strip().lower() in CAUTION_SECTIONS or key in CAUTION_SECTIONS


def adult_only(sentence: str) -> bool:
    """The sentence speaks of adults and of no child age group ("성인은 1회 200-600 mg씩")."""
    return bool(ADULT_WORDS.search(sentence)) and not CHILD_WORDS.search(sentence)


def for_children(texts: Sequence[str]) -> list[str]:
    """`texts` without the sentences about adults only. A sentence that names no group belongs to the
    group of the sentence before it: "성인은 1회 200-600 mg씩 … 1일 최고 3,200 mg까지 투여할 수 있습니다."
    is the adult maximum, though only its first sentence says so."""
    kept: list[str] = []
    adults = False
    for sentence in texts:
        if CHILD_WORDS.search(sentence):
            adults = False
        elif ADULT_WORDS.search(sentence):
            adults = True
        if not adults:
            kept.append(sentence)
    return kept


def _pick(citation: Citation, query: set[str], profile: list[str],
          for_child: bool = False) -> tuple[list[str], list[str]]:
    """The sentences to keep from one document, and the profile words they matched."""
    candidates = sentences(citation.text)
    if for_child:
        candidates = for_children(candidates)
    caution = is_caution(citation)
    scored: list[tuple[float, int, list[str]]] = []
    for i, sent in enumerate(candidates):
        hits = [w for w in profile if mentions(w, sent)] if caution else []
        brevity = min(1.0, LONG_SENTENCE / max(len(sent), 1))
        scored.append((overlap(query, sent) * brevity + (1.0 if hits else 0.0), i, hits))
    best = sorted((s for s in scored if s[0] > 0), key=lambda s: (-s[0], s[1]))[:MAX_SENTENCES_PER_DOC]
    if not best and candidates:  # retrieved for the question as a whole: its opening still answers
        best = [(0.0, 0, [])]
    best.sort(key=lambda s: s[1])
    matched = [w for _, _, hits in best for w in hits]
    return [candidates[i] for _, i, _ in best], list(dict.fromkeys(matched))


def _paragraph(citation: Citation, picked: list[str], matched: list[str], korean: bool) -> str:
    label = f"{citation.title} ({citation.section})" if citation.section else citation.title
    if matched:
        who = ", ".join(matched)
        label += f" — 회원님 정보({who})와 관련된 주의" if korean else f" — relevant to your profile ({who})"
    return f"{label}: {' '.join(picked)} [문서 {citation.n}]"


def extractive_answer(question: str, evidence: Sequence[Citation], profile_summary: str = "") -> str:
    """An answer whose every sentence is copied from a cited document, ending with the consult line."""
    if not isinstance(question, str) or not question.strip():
        raise ValueError(f"question must be a non-empty string, got {question!r}")
    korean = is_korean(question)
    closing = safety_line(question)
    if not evidence:
        return f"{NO_EVIDENCE_KO if korean else NO_EVIDENCE_EN}\n\n{closing}"
    query = grams(question)
    profile = with_aliases(profile_terms(profile_summary))
    paragraphs: list[str] = []
    seen: set[str] = set()
    # Profile-relevant cautions first: for this user they matter more than the general description.
    side_effects_asked = asks_side_effects(question)
    for_child = bool(CHILD_POPULATIONS & set(find_population(question)))

    asked = classify_intent(question).name  # "얼마나 먹여요": the dose comes first, before what it is for

    def order(c: Citation) -> tuple[bool, int, int]:
        key = str(c.metadata.get("section_key", ""))
        section = -1 if key == asked else SECTION_ORDER.get(key, 2)
        return (not (profile and is_caution(c)), 0 if side_effects_asked else section, c.n)

    ranked = sorted(evidence, key=order)
    used: list[Citation] = []
    for citation in ranked:
        if len(paragraphs) == MAX_DOCUMENTS:
            break
        picked, matched = _pick(citation, query, profile, for_child)
        picked = [s for s in picked if s not in seen]
        if not picked:
            continue
        seen.update(picked)
        used.append(citation)
        paragraphs.append(_paragraph(citation, picked, matched, korean))
    if not paragraphs:  # every sentence was for adults, and the question is about a child
        return f"{NO_EVIDENCE_KO if korean else NO_EVIDENCE_EN}\n\n{closing}"
    # what the user already takes, inside a product the answer names, is said first
    return "\n\n".join([*duplicate_cautions(profile_summary, used, question), *paragraphs, closing])
