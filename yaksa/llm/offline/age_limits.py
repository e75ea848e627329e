"""Products whose label says a child of the person's age must not take them.

Why: a father's post about his 19-month-old, sick after a hospital stay, named the throat spray the
hospital gave (탄툼 베르데); the answer quoted 삼아탄툼액's uses and dose, and the same label's caution says
"이 약에 과민증 환자, 12세 이하의 소아는 이 약을 사용하지 마십시오" (found as a user on the full bundle,
2026-11-30). 165 sentences of the 500 MFDS labels forbid a product below an age ("만 7세 이하의 어린이는 이
약을 복용하지 마십시오", "2세 미만의 영아", "만 19세 미만의 소아"): for that child the forbidding sentence is the
answer, not the product's uses.

Read from the words alone:
- a label sentence that forbids ("…하지 마십시오", "…하지 말 것", "금기") and lists an age group as one of its
  items ("2세 이하의 영아", "미숙아 및 1세 이하의 영아", "만 18세 미만의 소아 및 청소년"); an item with
  other qualifiers before the age ("혈액이 섞인 설사가 있는 1세 미만의 소아") is a condition, not an age, and
  is left alone;
- the person's age: the youngest age the conversation states (`post_reader.youngest_stated_months`), or,
  for a baby or a child whose age is not stated, the oldest such a word can mean (`UNSTATED_AGE_MONTHS`:
  a baby on 분유 may be two, a "child" may be fourteen), so only limits that cover every such person count.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from yaksa.extraction.post_reader import youngest_stated_months
from yaksa.lexicon.focus import ADULT_AGE, CHILD_POPULATIONS
from yaksa.llm.evidence import Citation
from yaksa.llm.offline.caution_lists import shortened_list
from yaksa.text.lexical import list_items, sentences

MONTHS_PER_YEAR = 12
# the oldest a person described only by a word can be, in months: an "infant" (아기, 애기, 분유) up to three,
# a "child" (아이, 초등학생 …) up to the month before adulthood (MFDS doses "성인 (15세 이상)")
UNSTATED_AGE_MONTHS = {"infant": 3 * MONTHS_PER_YEAR, "child": ADULT_AGE * MONTHS_PER_YEAR - 1}

_FORBIDS = re.compile(r"하지\s*(?:마십시오|마세요|말\s*것|말아야|않도록\s*하십시오)|금기")
# one list item that is an age group: "2세 이하의 영아", "만 7세 이하의 어린이는 이 약을 복용하지 마십시오",
# "미숙아 및 1세 이하의 영아", "만 18세 미만의 소아 및 청소년", "6개월 미만의 영아"
_AGE_ITEM = re.compile(
    r"^(?:이\s*약을\s*)?(?:[가-힣]+\s*및\s*)?(?:만\s*)?(?P<n>\d{1,2})\s*(?P<unit>세|개월)\s*(?P<bound>이하|미만)"
    r"(?:의)?\s*(?:소아|어린이|영아|유아|영\s*\S?\s*유아|아이|아동|청소년|신생아|젖먹이|환자)?"
    r"(?:\s*및\s*청소년)?\s*(?:은|는|에게는|에게|$)")


@dataclass(frozen=True)
class AgeLimit:
    """A label's sentence that forbids its product below an age: the product, the cited section, the sentence
    as the label says it, and the age below which it applies (months, exclusive: "12세 이하" is 156)."""

    product: str
    citation: Citation
    sentence: str
    below_months: int


def forbidden_below_months(sentence: str) -> int | None:
    """The age, in months (exclusive), below which the sentence forbids the product; None when it forbids no
    age group. "12세 이하의 소아는 이 약을 사용하지 마십시오" 156, "2세 미만의 영아, …는 복용하지 마십시오" 24,
    "6개월 미만" 6; the widest when it names two."""
    if not _FORBIDS.search(sentence):
        return None
    limits: list[int] = []
    for item in list_items(sentence):
        m = _AGE_ITEM.match(item)
        if m is None:
            continue
        n = int(m.group("n"))
        months = n * MONTHS_PER_YEAR if m.group("unit") == "세" else n
        if m.group("bound") == "이하":
            months += MONTHS_PER_YEAR if m.group("unit") == "세" else 1
        limits.append(months)
    return max(limits, default=None)


def age_limits(evidence: Iterable[Citation]) -> list[AgeLimit]:
    """Every forbidding age sentence of the cited sections, in citation order (Korean labels only)."""
    found: list[AgeLimit] = []
    for c in evidence:
        for sentence in sentences(c.text):
            below = forbidden_below_months(sentence)
            if below is not None:
                found.append(AgeLimit(c.title, c, sentence, below))
    return found


def person_months(stated_months: float | None, population: Sequence[str]) -> float | None:
    """The age to judge by: the stated one, else the oldest a baby or a child can be (`UNSTATED_AGE_MONTHS`);
    None for anyone else (an adult, or no one described)."""
    if stated_months is not None:
        return stated_months
    ages = [UNSTATED_AGE_MONTHS[g] for g in population if g in UNSTATED_AGE_MONTHS]
    return max(ages, default=None)


def conversation_months(question: str, profile_summary: str, population: Sequence[str]) -> float | None:
    """The child's age to judge a turn by (`person_months`): the youngest the message states, else the youngest
    the remembered profile states ("(자녀) 2세."), else the oldest the person's word can mean; None for anyone
    but a child or a baby."""
    if not CHILD_POPULATIONS & set(population):
        return None
    stated = youngest_stated_months(question)
    if stated is None and profile_summary:
        stated = youngest_stated_months(profile_summary)
    return person_months(stated, population)


@dataclass(frozen=True)
class ChildAge:
    """The child's age a turn is judged by (`conversation_months`), read once per turn by the retrieve node and
    handed to the answer (offline or the LLM prompt): None months for anyone but a child or a baby. Why a type:
    the search and the answer read the person differently (the search also takes a "먹여요" message with no
    profile as a child's), and the product the search fetched a forbidding caution for must be the one the
    answer leaves out."""

    months: float | None

    @classmethod
    def of_turn(cls, given: ChildAge | None, question: str, profile_summary: str,
                population: Sequence[str]) -> ChildAge:
        """`given` (the retrieve node's reading) when there is one, else read here (`conversation_months`): the one
        rule for callers outside the agent (tests, `yaksa ask` without a graph), held in one place."""
        return given if given is not None else cls(conversation_months(question, profile_summary, population))


def forbidden_for(evidence: Sequence[Citation], months: float | None) -> dict[str, list[AgeLimit]]:
    """product -> the cited sentences that forbid it at `months` (the person is younger than the limit)."""
    if months is None:
        return {}
    out: dict[str, list[AgeLimit]] = {}
    for limit in age_limits(evidence):
        if months < limit.below_months:
            out.setdefault(limit.product, []).append(limit)
    return out


OFFERING_SECTIONS = frozenset({"efficacy", "usage"})   # a product's uses or dose: what the answer would offer


def offered_products(forbidden: dict[str, list[AgeLimit]], evidence: Sequence[Citation]) -> dict[str, list[AgeLimit]]:
    """The forbidden products whose uses or dose the evidence holds (what the answer would otherwise offer, or what
    the message named: a named product's dose is fetched). Why: "6개월 아기 열날 때 먹이는 약" found 게보린정's
    주의사항 alone, and its "15세 미만의 소아 … 복용하지 마십시오" led the answer for a product nobody offered."""
    offered = {c.title for c in evidence if c.metadata.get("section_key") in OFFERING_SECTIONS}
    return {product: limits for product, limits in forbidden.items() if product in offered}


def age_limit_facts(forbidden: dict[str, list[AgeLimit]]) -> str:
    """The same limits for an LLM generator's prompt: one line per product with its sentence and citation."""
    return "\n".join(f"- {product}: \"{' '.join(dict.fromkeys(lim.sentence for lim in limits))}\" "
                     + "".join(f"[문서 {n}]" for n in dict.fromkeys(lim.citation.n for lim in limits))
                     for product, limits in forbidden.items())


def age_limit_paragraphs(forbidden: dict[str, list[AgeLimit]], korean: bool) -> list[str]:
    """The forbidding sentences, one paragraph per product, each cited; said before any other label text.
    No number of our own: the label's sentence carries the age."""
    paragraphs: list[str] = []
    for product, limits in forbidden.items():
        seen: list[str] = []
        cites: list[int] = []
        for limit in limits:
            # a long list keeps its first items, its age group and what to do (`shortened_list`)
            sentence = shortened_list(limit.sentence, set(), ())
            if sentence not in seen:
                seen.append(sentence)
            if limit.citation.n not in cites:
                cites.append(limit.citation.n)
        refs = "".join(f" [문서 {n}]" for n in cites)
        if korean:
            paragraphs.append(f"{product}: 허가 정보에 물으신 아이의 나이에는 쓰지 말라고 되어 있습니다. "
                              f"\"{' '.join(seen)}\"{refs}")
        else:
            paragraphs.append(f"{product}: its label says a child of this age must not take it. "
                              f"\"{' '.join(seen)}\"{refs}")
    return paragraphs
