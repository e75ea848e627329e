"""Follow-up questions that refer back ("그 약은 하루에 몇 번 먹어요?", "그거 부작용은요?"): which drug
they mean, and the standalone question the rest of the turn works on.

Why: patients talk in turns. "그 약" names no drug, so a search for it finds whatever text mentions
dosing, and an answer cached for another user's "그 약" would describe another user's drug. The
referent is taken from the user's own conversation (`ProfileStore.recent_turns`), newest turn first:
  1. the drugs the user's question of that turn named ("신일폴산정을 먹어도 될까요?");
  2. else the one product a cited answer of that turn was about (so "그 약은요?" after a follow-up
     still resolves: that answer names the product);
  3. else the turn before, up to the turns the history keeps.
The first turn that names any drug decides: one drug → the referent; several → the user is asked which
one (never a guess); none in the kept history → the user is asked to name the drug.

The resolved question is the user's words with the referring words replaced by the drug's name, its
particle agreeing ("그 약은" → "페니라민정은", "그걸" → "부루펜정을"): search, generation and the
response cache see a question that stands on its own; the history keeps what the user typed.

Usage:
    r = resolve("그럼 그 약은 하루에 몇 번 먹어요?", history, catalog.link)
    r.refers_back, r.referent.name, r.question   # True, "페니라민정", "그럼 페니라민정은 하루에 몇 번 먹어요?"
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from yaksa.lexicon.conditions import without_conditions
from yaksa.lexicon.linking import Linking
from yaksa.llm.safety import CITATION, SAFETY_LINE_EN, SAFETY_LINE_KO
from yaksa.text.hangul import has_final, has_hangul, with_ro
from yaksa.text.lexical import terms

Link = Callable[[str], Linking]          # DrugCatalog.link of the loaded bundle
MAX_CANDIDATES = 4                       # drugs listed when asking which one was meant

# particle meanings, each as (after a final consonant, after a vowel)
_PAIRS: dict[str, tuple[str, str]] = {
    "topic": ("은", "는"), "subject": ("이", "가"), "object": ("을", "를"), "and": ("과", "와"),
    "with": ("이랑", "랑"), "by": ("으로", "로"),
}
_PARTICLE_MEANING: dict[str, str] = {
    "은": "topic", "는": "topic", "이": "subject", "가": "subject", "을": "object", "를": "object",
    "과": "and", "와": "and", "이랑": "with", "랑": "with", "으로": "by", "로": "by",
}
_FIXED_PARTICLES = ("하고", "에게", "에는", "에서", "도", "만", "의", "에", "보다", "처럼")
# contracted pronouns carry their particle: 그건 = 그것은, 그걸 = 그것을, 그게 = 그것이
_CONTRACTED = {"건": "topic", "걸": "object", "게": "subject"}

_NOUN = r"(?:약물|약|제품|연고|파스|시럽|물약|알약|안약)"
_PARTICLE = r"(?:이랑|하고|으로|에게|에는|에서|보다|처럼|은|는|이|가|을|를|과|와|랑|도|만|의|에|로)"
_REFERRING = re.compile(
    r"(?<![가-힣])(?P<lead>(?:아까|방금|앞에서|위에서|말씀하신|얘기한|말한|추천해\s*주신|알려\s*주신)\s+)?"
    r"(?:(?:그|이)\s*" + _NOUN + r"(?P<p1>" + _PARTICLE + r")?"      # not 저: "저 약 먹고 있어요" is "I"
    r"|(?:그|이|저)(?:거|것)(?P<p2>" + _PARTICLE + r")?"
    r"|(?:그|이|저)(?P<c>[건걸게]))"
    r"(?!(?!요)[가-힣])"            # the word ends here ("그 약은요?" too), so "그 약국", "이것저것" do not count
)
_PARENS = re.compile(r"\([^)]*\)|\[[^]]*\]")
# A question that leaves its drug out because the conversation just named it: "하루에 몇 번까지 돼요?",
# "부작용은요?", "임산부도 먹어도 돼요?". Refused as off-topic on its own (P 0.2: it names nothing medical),
# it is the most ordinary next question a patient asks. Short, and about taking a medicine.
ELLIPTICAL_MAX_CHARS = 30
_ELLIPTICAL = re.compile(
    r"몇\s*(?:번|알|회|정|포|개|봉|방울|ml|mL|시간|일)|얼마나\s*(?:먹|복용|발라|뿌려|붙|써|자주|간격)|하루에?\s*(?:몇|최대|한)|부작용"
    r"|(?:같이|함께)\s*(?:먹|복용|써)|식전|식후|공복|빈속|먹어도|먹여도|드셔도|발라도|복용해도|써도|붙여도|먹으면|먹이면"
    r"|(?:임산부|임부|아이|애기|아기|어린이|노인|수유부?)(?:는|도|한테|에게)\s*(?:요|먹|괜찮|돼|되)|술(?:이랑|하고|과|\s*마시)"
    r"|용량|용법")


@dataclass(frozen=True)
class Referent:
    """The drug a follow-up refers to, and where in the conversation it was found."""

    name: str               # how the resolved question names it ("페니라민정")
    source: str             # "question" (the user named it) | "answer" (a cited answer was about it)
    turns_back: int         # 1 = the previous turn

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "source": self.source, "turns_back": self.turns_back}


@dataclass(frozen=True)
class Resolution:
    """What a question refers back to; `question` is the standalone question (the input when none)."""

    question: str
    expression: str = ""                 # the referring words ("그 약은"); "" when it refers to nothing
    referent: Referent | None = None
    candidates: tuple[str, ...] = ()     # several drugs in the turn it refers to: ask which one

    implicit: bool = False               # an elliptical follow-up: the drug left out, not pointed at

    @property
    def refers_back(self) -> bool:
        return bool(self.expression) or self.implicit

    @property
    def resolved(self) -> bool:
        return self.referent is not None

    def to_json(self) -> dict[str, Any]:
        return {"expression": self.expression, "implicit": self.implicit, "resolved": self.resolved,
                "referent": self.referent.to_json() if self.referent else None,
                "candidates": list(self.candidates), "question": self.question}


def with_particle(name: str, meaning: str) -> str:
    """`name` followed by the particle of `meaning` that agrees with its last sound."""
    if meaning in _PAIRS:
        if meaning == "by":
            return with_ro(name)          # a final ㄹ takes 로: "시럽" 으로, "타이레놀" 로
        consonant, vowel = _PAIRS[meaning]
        return name + (consonant if has_final(name) else vowel)
    return name + meaning


def referring_expression(question: str) -> re.Match[str] | None:
    """The first words of `question` that point back at a drug ("그 약은", "그거", "아까 그 약을")."""
    if not isinstance(question, str):
        raise TypeError(f"referring_expression() expects str, got {type(question).__name__}")
    return _REFERRING.search(question)


def _particle_of(match: re.Match[str]) -> str:
    """The particle the referring words carried, as a meaning (or a fixed particle), "" for none."""
    if match.group("c"):
        return _CONTRACTED[match.group("c")]
    particle = match.group("p1") or match.group("p2") or ""
    return _PARTICLE_MEANING.get(particle, particle)


def _products(linking: Linking) -> frozenset[str]:
    return frozenset(p.item_seq for p in linking.products)


def bare_name(mention: str, link: Link) -> str:
    """A linked drug word without its trailing particle ("신일폴산정을" → "신일폴산정"), when the shorter
    word still names the same products; the word as it is otherwise ("판콜에이" stays)."""
    products = _products(link(mention))
    for particle in sorted((*_PARTICLE_MEANING, *_FIXED_PARTICLES), key=len, reverse=True):
        if mention.endswith(particle) and len(mention) > len(particle) + 1:
            shorter = link(mention[: -len(particle)])
            if shorter.named and _products(shorter) == products:
                return mention[: -len(particle)]
    return mention


def _question_drugs(text: str, link: Link) -> list[str]:
    """The drugs a user's message names, as bare words, in order; two words for the same products
    ("페니라민정" found as a full name and as the word "페니라민정을") are one drug."""
    linking = link(text)
    seen: set[tuple[str, ...]] = set()
    names: list[str] = []
    for mention, group in zip(linking.mentions, linking.groups, strict=False):
        key = tuple(sorted(group))
        if key and key in seen:
            continue
        seen.add(key)
        names.append(bare_name(mention, link))
    return list(dict.fromkeys(names))


def _answer_products(text: str, link: Link) -> list[str]:
    """The products a cited answer is about: product names it links by name (not by ingredient or
    brand, which the parenthesised ingredient of every title would add), distinct."""
    if not CITATION.search(text):
        return []          # a fixed reply (acknowledgement, refusal, a question back) is about no product
    linking = link(_PARENS.sub(" ", text))
    names = [p.name for p in linking.products if p.via in ("name", "stem", "tail")]
    return list(dict.fromkeys(names))


def _turns_newest_first(history: Sequence[dict[str, str]]) -> list[tuple[str, str]]:
    """(user message, assistant message) pairs, newest first, from chat messages oldest first."""
    pairs: list[tuple[str, str]] = []
    user: str | None = None
    for message in history:
        if message.get("role") == "user":
            user = message.get("content", "")
        elif message.get("role") == "assistant" and user is not None:
            pairs.append((user, message.get("content", "")))
            user = None
    return pairs[::-1]


def _rewrite(question: str, match: re.Match[str], name: str) -> str:
    """The question with the referring words replaced by `name` (its particle agreeing)."""
    replaced = with_particle(name, _particle_of(match)) if _particle_of(match) else name
    return question[: match.start()] + replaced + question[match.end():]


# every content word of such a question is about taking a medicine: "운전 연수 몇 번 받아야 해요?" names 운전
# and 연수 and is not one ("커피랑 같이 먹어도 돼요?" is: what it is taken with)
FOLLOWUP_WORDS = frozenset({
    "하루", "최대", "최소", "용량", "용법", "얼마", "부작용", "효과", "임산부", "임부", "수유부", "수유", "아이", "애기",
    "아기", "어린이", "소아", "노인", "식후", "식전", "공복", "빈속", "같이", "함께", "자주", "간격", "시간", "한번",
    "며칠", "계속", "복용", "커피", "우유", "음주", "자몽", "주스", "졸음",
    # "임신 20주인데 먹어도 돼요?" after "타이레놀 하루에 몇 번 먹어요?" got an antacid's dose: the pregnancy is the
    # person's, the drug the last turn's (found as a user, 2026-11-30)
    "임신", "임신부"})


# a question that asks which to take, not whether the last one may be: "당뇨 있는데 뭐 먹어도 돼요?"
_WHICH = re.compile(r"뭐|무엇|무슨|어떤|어느")
# what a person with a condition is called beside it: "천식 환자인데 먹어도 돼요?"
_PERSON_WORDS = frozenset({"환자"})


# The English follow-up: "How much can I take per day?", "Can I take it while pregnant?" after "What is naproxen used
# for?" were answered from MedQuAD's balance problems and pregnancy overviews (found as a user, 2026-12-01). Short,
# about taking a medicine, and every word one of taking a medicine (`EN_FOLLOWUP_WORDS`): "Is it safe to exercise with
# a cold?" is a new question.
EN_ELLIPTICAL_MAX_CHARS = 70
_EN_ELLIPTICAL = re.compile(r"\b(take|taking|give|giving|use|using|dose|dosage|doses|side effects?|how (much|many|often)|"
                            r"safe|pregnan\w*|breastfeed\w*|alcohol|drowsy|interact\w*)\b", re.IGNORECASE)
_EN_WORD = re.compile(r"[a-z]+(?:'[a-z]+)?", re.IGNORECASE)
_EN_FOLLOWUP_LINES = (
    "how much many often long can could should may might will would is are was do does did i i'm we you he she they my",
    "our his her their it it's its this that these those them the a an and or but if so also too still then what which",
    "when about take taking took give giving use using dose doses dosage dosing maximum max most per day days daily a",
    "week times time once twice hour hours every between before after with without food meals meal empty stomach milk",
    "water coffee alcohol drink drinks drinking beer wine side effect effects safe ok okay fine while during when",
    "pregnant pregnancy breastfeeding nursing child children kid kids baby babies toddler son daughter year years old",
    "month months adult adults elderly mother father mom dad grandmother grandfather parent wife husband for to of in",
    "on at at any there be been have has get make me drowsy sleepy interact interaction interactions together same",
    "medicine medication drug pill pills tablet tablets syrup need want again another more less than up ml mg kg lbs",
)
EN_FOLLOWUP_WORDS = frozenset(w for line in _EN_FOLLOWUP_LINES for w in line.split())


def _english_elliptical(text: str) -> bool:
    """An English follow-up that leaves its medicine out (`EN_FOLLOWUP_WORDS`)."""
    return (len(text) <= EN_ELLIPTICAL_MAX_CHARS and _EN_ELLIPTICAL.search(text) is not None
            and all(w.lower() in EN_FOLLOWUP_WORDS for w in _EN_WORD.findall(text)))


def elliptical(question: str) -> bool:
    """A short question about taking a medicine that names none and points at none ("하루에 몇 번까지
    돼요?"), or says only the person's condition beside it (`_states_a_condition`): it continues the
    conversation's drug. The caller checks that it names no drug, symptom or drug class (its focus is general).
    English ones too ("How much can I take per day?", `_english_elliptical`)."""
    text = question.strip()
    if not has_hangul(text):
        return _english_elliptical(text)
    if len(text) > ELLIPTICAL_MAX_CHARS or referring_expression(text) is not None or not _ELLIPTICAL.search(text):
        return False
    rest = without_conditions(text)
    # the words are read once for most questions (they name no condition); twice only when the condition
    # reading fails
    return (rest != text and _states_a_condition(text, rest)) or set(terms(text)) <= FOLLOWUP_WORDS


def _states_a_condition(text: str, rest: str) -> bool:
    """"고혈압이 있는데 먹어도 돼요?" after "타이레놀 하루에 몇 번 먹어요?": the condition is the person's, the drug the
    last turn's (it got naproxen's side effects, found as a user 2026-11-30, as the pregnancy once got an antacid's
    dose). Every other word (`rest`: the text without its conditions) must be about taking a medicine, and the
    question must not ask which to take ("당뇨 있는데 뭐 먹어도 돼요?" is a new question)."""
    return not _WHICH.search(text) and set(terms(rest)) <= FOLLOWUP_WORDS | _PERSON_WORDS


def follows_an_answer(history: Sequence[dict[str, str]]) -> bool:
    """Whether the conversation's last turn was answered from the documents (a cited answer): only then
    can a question that leaves its drug out continue it."""
    turns = _turns_newest_first(history)
    return bool(turns) and CITATION.search(turns[0][1]) is not None


def resolve(question: str, history: Sequence[dict[str, str]], link: Link | None,
            implicit: bool = False) -> Resolution:
    """The drug `question` refers back to, from the user's own history (see the module doc). With
    `implicit` (an `elliptical` question) the drug of the last turn is put in front of the question
    ("하루에 몇 번까지 돼요?" → "타이레놀은 하루에 몇 번까지 돼요?"); found nowhere, it refers back
    unresolved (the user is asked which drug)."""
    if not isinstance(question, str) or not question.strip():
        raise ValueError("question must be a non-empty string")
    match = referring_expression(question)
    if match is None:
        return _resolve_implicit(question, history, link) if implicit and link is not None else Resolution(question)
    expression = match.group(0).strip()
    if link is None:   # a bundle without drug products: nothing to resolve against
        return Resolution(question, expression)
    if link(question[: match.start()]).named:
        # "타이레놀 먹어도 돼요? 그거 하루 몇 번?": the drug is named before the pointer, in this message
        return Resolution(question)
    found = _drugs_back(history, link)
    if found is None:
        return Resolution(question, expression)
    back, source, drugs = found
    if len(drugs) > 1:
        return Resolution(question, expression, candidates=tuple(drugs[:MAX_CANDIDATES]))
    return Resolution(_rewrite(question, match, drugs[0]), expression, Referent(drugs[0], source, back))


def _drugs_back(history: Sequence[dict[str, str]], link: Link) -> tuple[int, str, list[str]] | None:
    """(turns back, "question" | "answer", drugs) of the newest turn that names any drug: its question's
    drugs, else the products its cited answer is about; None when no kept turn names one."""
    for back, (asked, answered) in enumerate(_turns_newest_first(history), start=1):
        for source, drugs in (("question", _question_drugs(asked, link)), ("answer", _answer_products(answered, link))):
            if drugs:
                return back, source, drugs
    return None


def _resolve_implicit(question: str, history: Sequence[dict[str, str]], link: Link) -> Resolution:
    """An elliptical question's drug: the one drug of the last turn that names any (its question's, else
    its cited answer's); several or none: the user is asked which (unresolved). Why not answer it as asked when
    there is none: "임신 20주인데 먹어도 돼요?" as a first message names no drug, and its search found an antacid
    whose adult dose was then offered to a pregnant woman who asked whether she may take something else."""
    found = _drugs_back(history, link)
    if found is None:
        return Resolution(question, implicit=True)
    back, source, drugs = found
    if len(drugs) > 1:
        return Resolution(question, candidates=tuple(drugs[:MAX_CANDIDATES]), implicit=True)
    # English: the drug said after the question as its subject ("How much can I take per day? (naproxen)")
    standalone = (f"{with_particle(drugs[0], 'topic')} {question.strip()}" if has_hangul(question)
                  else f"{question.strip()} ({drugs[0]})")
    return Resolution(standalone, referent=Referent(drugs[0], source, back), implicit=True)


def _clarify_reply_en(resolution: Resolution, first_message: bool) -> str:
    if resolution.candidates and not first_message:
        ask = (f"The conversation so far named {', '.join(resolution.candidates)}, so I am not sure which medicine you "
               "mean. Please ask again with its name.")
    else:
        ask = 'Which medicine do you mean? Please ask again with its name (e.g. "How much naproxen can I take?").'
    return f"{ask} {SAFETY_LINE_EN}"


def clarify_reply(resolution: Resolution, *, first_message: bool = False) -> str:
    """The question back when the referent is unknown or ambiguous: which drug is meant (no guess).

    `first_message`: there is no earlier turn, so the reply does not speak of one ("임신 20주인데 먹어도 돼요?"
    as a first message was told the drug was not found "in the conversation so far"). An English question is
    asked back in English."""
    if not has_hangul(resolution.question):
        return _clarify_reply_en(resolution, first_message)
    if first_message:
        ask = ("어떤 약을 말씀하시는지 알려 주세요. "
               "약 이름을 넣어 다시 물어봐 주세요 (예: \"타이레놀 먹어도 돼요?\").")
    elif resolution.candidates:
        listed = with_particle(", ".join(resolution.candidates), "subject")
        ask = (f"앞선 대화에 {listed} 함께 나와서 어느 약을 말씀하시는지 확실하지 않아요. "
               "약 이름을 넣어 다시 물어봐 주세요.")
    else:
        ask = ("어떤 약을 말씀하시는지 앞선 대화에서 찾지 못했어요. "
               "약 이름을 넣어 다시 물어봐 주세요 (예: \"타이레놀은 하루에 몇 번 먹어요?\").")
    return f"{ask} {SAFETY_LINE_KO}"
