"""The long-standing conditions a message names ("고혈압이 있는데", "혈압약 먹는데", "당뇨가 있어서").

Why: "고혈압이 있는데 코감기약 먹어도 돼요?" is the pharmacist's classic — a decongestant raises blood
pressure — yet it was answered with cold medicines' uses and doses: the question named a symptom, so
"can I take it?" read as "what is it for?". A condition the labels' cautions single out makes the
question one about cautions, as pregnancy or old age already did (`yaksa.lexicon.focus`), and its name
is a profile word the answer flags (`yaksa.llm.offline.extractive`).

The names are the condition rows of the curated concept lexicon (`data/lexicon_ko.csv`), minus the
conditions an over-the-counter label treats (비염, 아토피, 위염, 관절염 …: "비염약 먹어도 돼요?" asks what
treats it, not what to avoid), plus the everyday words for a condition's medicine (혈압약 → 고혈압).
"""

from __future__ import annotations

import re
from functools import cache

from yaksa.lexicon.concept_rows import lexicon_rows
from yaksa.lexicon.linking import without_spaces

# conditions over-the-counter labels treat, or that name no caution of their own
_TREATED = frozenset({
    "YK:CON:allergic_rhinitis", "YK:CON:atopic_dermatitis", "YK:CON:gastritis", "YK:CON:arthritis",
    "YK:CON:gout", "YK:CON:anemia", "YK:CON:obesity", "YK:CON:irritable_bowel", "YK:CON:smoking",
    "YK:CON:depression", "YK:CON:osteoporosis", "YK:CON:metabolic_syndrome", "YK:CON:cataract",
    "YK:CON:cancer",
})
# names that read as something else inside everyday words ("간질간질" is itching, not epilepsy)
_AMBIGUOUS = frozenset({"간질"})
# a condition's medicine, as people say they take it
MEDICINE_OF = {"혈압약": "고혈압", "당뇨약": "당뇨병", "고지혈증약": "고지혈증", "갑상선약": "갑상선 질환",
               "항응고제": "출혈 경향", "와파린": "출혈 경향"}


@cache
def _names() -> tuple[tuple[str, str], ...]:
    """(compact name, preferred name) of every condition kept, longest names first."""
    pairs: dict[str, str] = {}
    for row in lexicon_rows():
        if row["type"] != "condition" or row["concept_id"] in _TREATED:
            continue
        for name in row["names"].split("|"):
            compact = without_spaces(name)
            # a predicate matches every ending: "간이 안 좋다" is "간이 안 좋은데" too
            compact = compact.removesuffix("다")
            if len(compact) >= 2 and compact not in _AMBIGUOUS:
                pairs.setdefault(compact, row["preferred"])
    pairs.update({without_spaces(k): v for k, v in MEDICINE_OF.items()})
    return tuple(sorted(pairs.items(), key=lambda p: -len(p[0])))


# what follows a disease asked about in general, not had: "고혈압 증상이 뭐예요?", "당뇨 초기 증상", "통풍이란"
ASKS_ABOUT_A_DISEASE = re.compile(r"\s*(?:의|은|는|이|가)?\s*(?:초기\s*)?(?:증상|원인|예방|합병증|진단\s*기준|치료법|이란|란)")
# ... in English the asking words come before it: "What are the symptoms of high blood pressure?"
ASKS_ABOUT_A_DISEASE_EN = re.compile(
    r"\b(?:symptoms?|signs?|causes?|treatments?|complications?|risk\s+factors?|prevention|diagnosis|what\s+is"
    r"|what\s+are|who\s+gets)\b(?:\s+(?:of|for|the|a|an))*\s*$", re.IGNORECASE)


@cache
def _spoken_names() -> re.Pattern[str]:
    """Every kept name, longest first, with any spacing between its letters ("고 혈압", "당뇨병"): the one
    matcher of what a condition mention is, for finding, cutting and "asked about" alike (a name inside a
    longer one is no mention of its own: "저혈압약" is a low-blood-pressure medicine, not 혈압약)."""
    return re.compile("|".join(r"\s*".join(map(re.escape, name)) for name, _preferred in _names()))


def _mentions(text: str) -> list[re.Match[str]]:
    return list(_spoken_names().finditer(text))


@cache
def _preferred_and_rank() -> tuple[dict[str, str], dict[str, int]]:
    """Each kept name's preferred name and its place in `_names()`: built once, since `find_conditions` runs
    several times a turn."""
    names = _names()
    return dict(names), {name: i for i, (name, _preferred) in enumerate(names)}


def _preferred_in_lexicon_order(names: list[str]) -> tuple[str, ...]:
    preferred, rank = _preferred_and_rank()
    return tuple(dict.fromkeys(preferred[name] for name in sorted(set(names), key=rank.__getitem__)))


def find_conditions(text: str) -> tuple[str, ...]:
    """The preferred names of the conditions `text` names, in lexicon order, de-duplicated."""
    return _preferred_in_lexicon_order([without_spaces(m.group()) for m in _mentions(text)])


def without_conditions(text: str) -> str:
    """`text` with the conditions it names cut out ("고혈압이 있는데 먹어도 돼요?" → " 이 있는데 먹어도 돼요?"): what
    is left says what the message asks beside the person's condition (`yaksa.agent.followup.elliptical`)."""
    return _spoken_names().sub(" ", text)


def conditions_followed_by(text: str, after: re.Pattern[str]) -> tuple[str, ...]:
    """The preferred names of the conditions `text` names where a name is directly followed by `after`
    (matched on the rest of the text with spaces removed): "고혈압 증상이 뭐예요?" with `ASKS_ABOUT_A_DISEASE` gives
    고혈압, "혈압약 부작용" does not. A mention's shorter names count too: "수면무호흡 증상이" is matched as
    수면무호흡증 (the longest name) but asks about 수면무호흡's 증상."""
    return _preferred_in_lexicon_order([name for m in _mentions(text) for name, end in _names_within(text, m)
                                        if after.match(without_spaces(text[end:]))])


def _names_within(text: str, mention: re.Match[str]) -> list[tuple[str, int]]:
    """Every kept name the mention starts with, and the offset in `text` where that name ends."""
    ends = [i + 1 for i in range(mention.start(), mention.end()) if not text[i].isspace()]
    compact = without_spaces(mention.group())
    return [(name, ends[len(name) - 1]) for name, _preferred in _names() if compact.startswith(name)]
