"""Per-turn metrics of a scripted patient dialogue: does the agent remember and use what was said?

Why these, beside the answer checks every answer gets (`yaksa.evaluation.answer_checks`):
  profile_recall      facts stated so far that the stored profile still holds (context loss)
  personalisation     when the cited documents caution about the persona's condition, age group or
                      pregnancy, the answer carries that caution
  product_hit         the answer cites the product the question named (turn 4's gold)
  follow_up_resolved  a follow-up that only makes sense with earlier turns ("그 약은 …") is answered
                      from the product it refers to
Each returns None when it does not apply to the turn (no fact stated yet, no caution in the cited text),
so means are over the turns where the question could be asked at all.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from yaksa.llm.evidence import Citation

Fact = tuple[str, str, Any]  # (slot_type, name, value) as a turn states it
EXACT_VALUE_NAMES = frozenset({"age", "gender", "pregnancy"})  # demographics: the value must match too
_PAREN = re.compile(r"\([^)]*\)|\[[^]]*\]")
_SPACE = re.compile(r"\s+")


def _key(text: Any) -> str:
    return _SPACE.sub("", str(text)).casefold()


def product_key(name: str) -> str:
    """A product name without its parenthesised parts or spaces: "타이레놀정500밀리그람(아세트아미노펜)"
    and "타이레놀정 500밀리그람" compare equal."""
    return _key(_PAREN.sub("", name))


def _same_value(a: Any, b: Any) -> bool:
    """Equal values, numbers compared as numbers (the extractor stores an age of 70 as 70.0)."""
    try:
        return float(a) == float(b)
    except (TypeError, ValueError):
        return _key(a) == _key(b)


def _holds(fact: Fact, item: Mapping[str, Any]) -> bool:
    slot_type, name, value = fact
    if item.get("slot_type") != slot_type or not item.get("active", True):
        return False
    if name in EXACT_VALUE_NAMES:
        return item.get("name") == name and _same_value(item.get("value"), value)
    wanted = _key(name)
    if slot_type in ("vitals", "labs"):  # a measurement: same name and same value
        return _key(item.get("name")) == wanted and _same_value(item.get("value"), value)
    seen = {_key(item.get("name")), _key(item.get("text"))}
    return any(wanted and s and (wanted in s or s in wanted) for s in seen)


def profile_recall(stated: Sequence[Fact], profile_items: Iterable[Mapping[str, Any]]) -> float | None:
    """Share of the facts stated so far that an active profile item holds; None before any fact."""
    if not stated:
        return None
    items = list(profile_items)
    return sum(any(_holds(f, i) for i in items) for f in stated) / len(stated)


def personalisation(answer: str, citations: Sequence[Citation], cautions: Sequence[str]) -> float | None:
    """Share of the persona's caution keywords found in the cited text that the answer also carries;
    None when the cited documents caution about none of them."""
    cited = _key(" ".join(f"{c.title} {c.section} {c.text}" for c in citations))
    applicable = [k for k in dict.fromkeys(cautions) if _key(k) and _key(k) in cited]
    if not applicable:
        return None
    said = _key(answer)
    return sum(_key(k) in said for k in applicable) / len(applicable)


def product_hit(citations: Sequence[Citation], product: str, item_seq: str | None = None) -> float:
    """1.0 when a cited document is the named product: by its MFDS item_seq when known, else by name."""
    if item_seq:
        return float(any(str(c.metadata.get("item_seq", "")) == str(item_seq) for c in citations))
    want = product_key(product)
    return float(bool(want) and any(product_key(c.title) == want or want in product_key(c.title)
                                    for c in citations))


def follow_up_resolved(answer: str, citations: Sequence[Citation], referent: str,
                       item_seq: str | None = None) -> float:
    """1.0 when the follow-up is answered from the product it refers to (cited), and not refused."""
    return product_hit(citations, referent, item_seq) if answer.strip() else 0.0
