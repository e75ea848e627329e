"""What a question is about: the drugs it names, its symptoms, its intent, who it is for, and how.

Why one object: the searcher uses it to constrain and order candidates (`yaksa.retrieval.focus_ranking`),
the result carries it (`SearchResult.focus`, in the `/v1/search` wire format), and the agent's
verifier checks citations against it (`yaksa.retrieval.relevance.check_relevance`). Drug names come
from the linker (`linking.py`); symptoms, drug classes, populations and routes from the reviewed word
lists in `rules/focus_ko.yaml`; the intent from `section_intent.py`.

Modes:
  drug      the question names a drug: candidates come only from the linked products (or, for a brand
            not in the data, from products of its ingredient); none → empty result with a reason
  symptom   no drug, but a symptom or a drug class ("해열제"): products are ranked by their 효능효과
  general   neither: hybrid search with the section-intent prior

Usage:
    focus = analyse("아기 해열제 용량 알려주세요", catalog)
    focus.mode, focus.symptoms, focus.intent.name, focus.population   # symptom, (발열,), usage, (infant,)
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from importlib import resources
from typing import Any

import yaml

from yaksa.lexicon.conditions import find_conditions
from yaksa.lexicon.english_gloss import asks_about_a_medicine, asks_for_a_medicine, korean_gloss
from yaksa.lexicon.linking import DrugCatalog, Linking, without_spaces
from yaksa.lexicon.research_question import asks_what_studies_found
from yaksa.lexicon.rule_tables import RulesFileError, word_table
from yaksa.lexicon.section_intent import HANGUL, SectionIntent, classify_intent, classify_korean

FOCUS_FILE = "focus_ko.yaml"
MODES: tuple[str, ...] = ("drug", "symptom", "general")


class FocusRulesError(RulesFileError):
    """`rules/focus_ko.yaml` is malformed (the message names the section)."""


@dataclass(frozen=True)
class FocusRules:
    symptoms: dict[str, tuple[str, ...]]       # efficacy term -> compact question patterns
    drug_classes: dict[str, tuple[str, ...]]   # class word -> efficacy terms
    populations: dict[str, tuple[str, ...]]
    population_usage: dict[str, tuple[str, ...]]
    routes: dict[str, tuple[str, ...]]
    population_products: dict[str, tuple[str, ...]]  # word in a product name -> populations it suits
    hidden_by: dict[str, tuple[str, ...]] = field(default_factory=dict)  # symptom -> symptoms that hide it
    not_with: dict[str, tuple[str, ...]] = field(default_factory=dict)   # symptom -> words of its other sense
    # symptom -> words of its other sense anywhere in a message, a long post's too (`in_its_other_sense`)
    message_not_with: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def same_complaint(self, a: str, b: str) -> bool:
        """Whether two efficacy terms name one complaint: one is the other's everyday phrasing (월경통:
        [생리통 …]) or both have the same phrasings (인후통 and 인두염, 염좌 and 삠). Why: labels write
        "월경통(생리통)", and counting it as two of the question's symptoms put 뇌선 first for "생리통 약"."""
        pa, pb = self.symptoms.get(a, ()), self.symptoms.get(b, ())
        return a == b or a in pb or b in pa or (bool(pa) and pa == pb)

    def complaints(self, terms: Sequence[str]) -> tuple[tuple[str, ...], ...]:
        """`terms` grouped into complaints (`same_complaint`), in order of each group's first term."""
        groups: list[list[str]] = []
        for t in terms:
            group = next((g for g in groups if any(self.same_complaint(t, o) for o in g)), None)
            if group is None:
                groups.append([t])
            else:
                group.append(t)
        return tuple(tuple(g) for g in groups)


def _table(data: dict[str, Any], name: str) -> dict[str, tuple[str, ...]]:
    return word_table(data.get(name), FOCUS_FILE, name)


@lru_cache(maxsize=1)
def load_focus_rules() -> FocusRules:
    """The packaged focus word lists, checked once per process."""
    text = resources.files("yaksa.lexicon").joinpath("rules", FOCUS_FILE).read_text(encoding="utf-8")
    data = yaml.safe_load(text) or {}
    rules = FocusRules(*(_table(data, n) for n in
                         ("symptoms", "drug_classes", "populations", "population_usage", "routes",
                          "population_products", "hidden_by", "not_with", "message_not_with")))
    for term, hiders in rules.hidden_by.items():
        unknown = sorted({term, *hiders} - set(rules.symptoms))
        if unknown:
            raise RulesFileError(f"{FOCUS_FILE}: hidden_by.{term} names unknown symptoms {unknown}")
    for table in ("not_with", "message_not_with"):
        unknown = sorted(set(getattr(rules, table)) - set(rules.symptoms))
        if unknown:
            raise RulesFileError(f"{FOCUS_FILE}: {table} names unknown symptoms {unknown}")
    for word, groups in rules.population_products.items():
        unknown = sorted(set(groups) - set(rules.populations))
        if unknown:
            raise RulesFileError(f"{FOCUS_FILE}: population_products.{word} names unknown populations {unknown}")
    return rules


CONJUGATED_PAIN = re.compile(r"아(파|픈|플|퍼|팠)")


# adverbs of how often or how much, said between a body part and its complaint ("속이 자주 쓰려요", "머리가
# 너무 아파요"): a symptom's pattern ("속이쓰") is matched with them left out
_DEGREE_ADVERBS = re.compile(r"(?<!\S)(?:자주|너무|좀|많이|계속|자꾸|조금|엄청|진짜|정말|가끔|항상|늘|살짝|심하게|매일|갑자기)(?!\S)")


# a likeness is no symptom: "냉이 콧물처럼 나와요" is about discharge, not a runny nose (it got cold medicines); nor
# "콧물 같은" what comes from elsewhere or how it looks ("노란 콧물같은 대변", "콧물같이 끈적한", "콧물형 토너": 50 shared
# posts on stool, discharge or bleeding got cold medicines), though "재채기, 콧물 같은 감기 기운" is a runny nose
_LIKENESS = re.compile(r"[가-힣]+\s*(?:처럼|마냥)|콧물\s*형|콧물\s*(?:같은|같이)(?=[^.?!\n]{0,10}?(?:대변|변|피|냉|액체|점액|분비물"
                       r"|끈적|끈끈|늘어나|덩어리|갈색|누런|노란|투명))")


def _compact(text: str) -> str:
    """The question without spaces, with 아파/아픈/아플 written 아프 so one pattern fits every ending."""
    return CONJUGATED_PAIN.sub("아프", without_spaces(text))


@dataclass(frozen=True)
class Focus:
    """The constraints a question puts on its answer, and (after the search) whether they were met."""

    question: str
    lang: str
    mode: str
    intent: SectionIntent
    linking: Linking = field(default_factory=Linking)
    symptoms: tuple[str, ...] = ()     # efficacy terms ("두통"), from symptom words and drug classes
    classes: tuple[str, ...] = ()      # drug-class words the question used ("해열제")
    population: tuple[str, ...] = ()   # infant | child | adult | pregnant | breastfeeding | elderly
    route: str | None = None           # oral | topical | rectal | eye, when the question says
    item_seqs: tuple[str, ...] = ()    # products the answer may come from (drug mode), or that matched (symptom)
    conditions: tuple[str, ...] = ()   # long-standing conditions named ("고혈압"): `yaksa.lexicon.conditions`
    satisfied: bool | None = None      # filled by the searcher: the hits honour the constraint
    reason: str | None = None          # why nothing (or something unexpected) was returned

    @property
    def constrained(self) -> bool:
        return self.mode in ("drug", "symptom")

    def with_outcome(self, item_seqs: tuple[str, ...], satisfied: bool, reason: str | None) -> Focus:
        return replace(self, item_seqs=item_seqs, satisfied=satisfied, reason=reason)

    def to_json(self) -> dict[str, Any]:
        return {
            "mode": self.mode, "lang": self.lang,
            "products": [p.to_json() for p in self.linking.products],
            "ingredients": list(self.linking.ingredients),
            "brands": [b.to_json() for b in self.linking.brands],
            "mentions": list(self.linking.mentions),
            "notes": list(self.linking.notes),
            "symptoms": list(self.symptoms), "classes": list(self.classes),
            "intent": self.intent.to_json(), "population": list(self.population), "route": self.route,
            "item_seqs": list(self.item_seqs), "satisfied": self.satisfied, "reason": self.reason,
            "conditions": list(self.conditions),
        }


def find_symptoms(question: str, rules: FocusRules | None = None) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(efficacy terms, drug-class words) named in `question`."""
    rules = rules or load_focus_rules()
    compact = _compact(question)
    classes = tuple(c for c in rules.drug_classes if c in compact)
    # a longer class word ("해열진통제") hides the classes inside it ("진통제")
    classes = tuple(c for c in classes if not any(c != o and c in o for o in classes))
    # Symptoms the question names are more specific than its drug class ("허리가 아파요 파스" is 요통,
    # not every 파스 indication); the first-named symptom leads ("속이 쓰려서 잠을 못 자요").
    terms = list(named_symptoms(question, rules)) or [t for c in classes for t in rules.drug_classes[c]]
    return tuple(dict.fromkeys(terms)), classes


# a part of the body said to hurt ("우측가슴이 찌릿해요", "어깨가 너무 결려요"): a complaint even where no label
# names it (chest pain has no OTC label, so `symptoms` has no term for it). None of the 3,000 shared non-medical
# questions nor of our 387 out-of-scope ones says it (counted 2026-11-30); 550 of the 4,986 shared posts do.
_PAIN_PARTS = "가슴|배|머리|허리|목|어깨|무릎|다리|팔|등|옆구리|명치|손목|발목|눈|귀|갈비뼈|골반|엉덩이|발|손|턱|이빨"
BODY_PAIN = re.compile(
    rf"({_PAIN_PARTS})"
    r"\s?(이|가|도|쪽이|쪽|부분이|부위가)?\s?(너무\s|좀\s|자꾸\s|계속\s)?"
    r"(아프|아파|아픈|아플|아팠|찌릿|쑤시|쑤셔|결리|결려|저리|저려|욱신)")


def names_a_pain(question: str) -> bool:
    """Whether the question says a part of the body hurts (`BODY_PAIN`)."""
    return bool(BODY_PAIN.search(question))


# a part of the body, and within the clause a word of how it feels: wider than `BODY_PAIN` ("가슴이 답답한 느낌이나
# 통증이", "심장이 두근두근", "왼쪽 가슴과 팔사이 즉 겨드랑이 위쪽이 너무 아픈데", "가슴이 조금 아프기도"). None
# of the 3,387 shared and committed non-medical texts says it, of any length; 3,265 of the 13,013 in-scope ones
# do (counted 2026-11-30 on both halves).
_BODY_PARTS = (rf"(?:{_PAIN_PARTS}"
               r"|심장|속|위|장|피부|관절|허벅지|종아리|발바닥|손가락|발가락|겨드랑이|뒷목|코|입|혀|잇몸|치아|이마|얼굴)")
BODY_COMPLAINT = re.compile(
    rf"(?<![가-힣])(?:왼쪽|오른쪽|양쪽|윗|아랫|속)?\s?{_BODY_PARTS}(?:이|가|은|는|도|을|를|에|쪽이|쪽에|쪽|부분이|부위가|과|와)?"
    r"[^.?!\n]{0,20}?"
    r"(?:아프|아파|아픈|아플|아팠|통증|답답|두근|찌릿|쑤시|쑤셔|결리|결려|저리|저려|욱신|뻐근|부었|붓고|따갑|따가|가려|가렵"
    r"|쓰리|쓰려|더부룩|메스꺼|울렁|지끈|띵|어지러|어지럽|시리|시려|따끔|뻣뻣|부어|떨려|떨리|막히|막혀|조이|조여|쥐어짜"
    r"|혹|멍울|몽우리|덩어리|염증"
    # heat felt in a part ("퇴근하고 집에 오면 얼굴에서 열이 나요 왜 그런가요?", refused once flushing named no fever,
    # 2026-12-02): none of the 3,000 shared non-medical questions says it
    r"|화끈|열이\s*(?:나|났|올라|오르)|열감|달아오르)")


def describes_a_body_complaint(text: str) -> bool:
    """Whether the text says how a part of the body feels (`BODY_COMPLAINT`)."""
    return bool(BODY_COMPLAINT.search(text))


def everyday_symptoms(question: str, rules: FocusRules | None = None) -> tuple[str, ...]:
    """The efficacy terms the question names in everyday words (a phrasing of `focus_ko.yaml`: "신물이
    올라와요" → 속쓰림), not by the label's term alone: a term is also a word of other senses ("세 구역 중"
    names 구역, "핸드백선물" 백선), a phrasing rarely is. None of the 3,000 shared non-medical questions has one."""
    return named_symptoms(question, rules, as_written=False)


def named_symptoms(question: str, rules: FocusRules | None = None, *, as_written: bool = True) -> tuple[str, ...]:
    """The efficacy terms the question names itself (everyday phrasings included: "신물" → 속쓰림), in
    the order they appear; drug-class words do not count here. Without `as_written`, a term counts only
    through its phrasings (`everyday_symptoms`)."""
    found, _ = _read_symptoms(question, rules or load_focus_rules(), as_written)
    return found


def without_pain_triggers(question: str, rules: FocusRules | None = None) -> str:
    """`question` with the symptoms it says only as what brings a pain on blanked out ("재채기를 하거나 기침을 해도
    왼쪽가슴이 아파요" → " 를 하거나  을 해도 왼쪽가슴이 아파요"), which `named_symptoms` leaves out: a label for them
    answers nothing asked, though its words are the question's."""
    rules = rules or load_focus_rules()
    for term in _read_symptoms(question, rules, True)[1]:
        for said in sorted((term, *rules.symptoms.get(term, ())), key=len, reverse=True):
            question = question.replace(said, " ")
    return question


def _read_symptoms(question: str, rules: FocusRules, as_written: bool) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(the symptoms named, in order; those said only as a pain's trigger): `named_symptoms`'s reading."""
    # as written ("밤에자꾸깨" is a pattern), and with the adverbs left out ("속이 자주 쓰려요")
    question = _LIKENESS.sub(" ", question)
    compacts = (_compact(question), _compact(_DEGREE_ADVERBS.sub("", question)))
    spans: dict[str, list[tuple[int, int, int]]] = {}   # term -> (which compact, start, end) of each match
    for term, patterns in rules.symptoms.items():
        hits = [(i, start, start + len(p)) for i, c in enumerate(compacts)
                for p in ((term, *patterns) if as_written else patterns) for start in _occurrences(p, c)]
        if hits:
            spans[term] = hits
    # a symptom read only inside the phrase of one that hides it (`hidden_by`) is not named: "눈이피곤"
    # (눈의피로) is not the body's tiredness its "피곤" would say (육체피로); nor one beside a word of its other
    # sense (`not_with`): "거북목 때문에 목이 아파요" is the neck, not a sore throat
    found = [(min(start for _, start, _ in hits), term) for term, hits in spans.items()
             if not _hidden(term, spans, rules.hidden_by.get(term, ()))
             and not _other_sense_in(term, compacts[0], rules)]
    # a symptom said only as the measure of another ("잠을 못 잘 정도로 기침이 나요", "토할 만큼 배가 아파요") is not
    # a complaint of its own: the cough and the stomach ache are, and the first-named symptom leads the search
    # (a sleep aid came first for the cough). Kept when it is the only one named.
    # a symptom said only as what brings on a pain ("재채기를 하거나 기침을 해도 왼쪽가슴이 아픕니다": a chest wall
    # bruised by blows got antihistamines) is no complaint of its own: the pain is
    triggers = {term for _, term in found if all(_a_trigger(compacts[i], end) for i, _, end in spans[term])}
    found = [(at, term) for at, term in found if term not in triggers]
    measures = {term for _, term in found if all(_a_measure(compacts[i], end) for i, _, end in spans[term])}
    if measures and (len(measures) < len(found) or all(_measures_pain(compacts[i], end) for term in measures
                                                       for i, _, end in spans[term])):
        found = [(at, term) for at, term in found if term not in measures]
    return tuple(t for _, t in sorted(found)), tuple(sorted(triggers))


_JONGSEONG_RIEUL = 8          # a Hangul syllable's final ㄹ ("잘", "할", "플"): (code - 0xAC00) % 28
_MEASURE = ("정도", "만큼")     # "…ㄹ 정도로", "…ㄹ 만큼"


# nouns ending in ㄹ that come before 정도 ("두달정도", "콧물정도", "하루일정도"): no verb of a measure
_NOUNS_IN_RIEUL = frozenset("달물일말술발길열실줄월불")


def _a_measure(compact: str, end: int) -> bool:
    """Whether the phrase ending at `end` goes straight on (within a syllable) to a verb ending in ㄹ and then 정도 or
    만큼 ("잠을못" + "잘정도로", "콧물" + "이날정도로"): the phrase measures another complaint. A noun then 정도 ("두통
    정도는", "감기로 두달정도") is no measure."""
    for at in range(end, min(end + 2, len(compact))):
        code = ord(compact[at]) - 0xAC00
        if (0 <= code < 11172 and code % 28 == _JONGSEONG_RIEUL and compact[at] not in _NOUNS_IN_RIEUL
                and compact.startswith(_MEASURE, at + 1)):
            return True
    return False


_PAIN_AFTER_MEASURE = re.compile(r"(?:정도|만큼)(?:로|으로)?(?:아프|쑤시|쑤셔|결리|결려|저리|저려|따갑|따가|따끔|욱신|화끈|쓰라|쓰리|쓰려)")


# "…을 하거나", "…를 해도", "…만 해도", "…하기만 해도" then, within a few words, a pain: the symptom brings the pain on
_TRIGGER_THEN_PAIN = re.compile(r"(?:을|를|만)?(?:하거나|해도|하기만해도|하여도|할때도|할때마다|할적마다)"
                                r"[가-힣]{0,24}?(?:아프|아픕|아팠|통증|결리|결려|울리|울려|쑤시|쑤셔|찌릿|뜨끔|땡기|당기)")


def _a_trigger(compact: str, end: int) -> bool:
    """Whether the phrase ending at `end` goes on to "…하거나/해도/할 때마다" and then a pain: the phrase names what
    brings the pain on, not a complaint ("기침을 해도 가슴이 아파요"; "기침이 나고 가슴이 아파요" is a cough)."""
    return _TRIGGER_THEN_PAIN.match(compact, end) is not None


def brings_on_pain(text: str, end: int) -> bool:
    """Whether the words of `text` ending at `end` name what brings a pain on ("기침을 해도 가슴이 아파요": 기침): the
    same reading as `named_symptoms`, for a span of the text as written (a concept the slot extractor found)."""
    return _a_trigger(_compact(text[end:end + 60]), 0)


def _measures_pain(compact: str, end: int) -> bool:
    """Whether the measure after the phrase ending at `end` measures a pain ("잠을 못 잘 정도로 아파서"): the pain,
    which the symptom words may not name (the skin, a joint), is the complaint, so the measure is dropped even
    when it is the only symptom read (a post on a painful skin infection got sleep aids)."""
    for at in range(end, min(end + 2, len(compact))):
        if _PAIN_AFTER_MEASURE.match(compact, at + 1):
            return True
    return False


def in_its_other_sense(term: str, text: str, rules: FocusRules | None = None, *, whole_message: bool = False) -> bool:
    """Whether `text` has a word showing that a phrasing of the symptom `term` means something else there
    (`not_with`: "거북목 때문에 목이 아파요" is the neck, not 인후통). The slot extractor asks too: MedCAT's
    concept pack files "목이 아파" as a sore throat wherever it is written. `whole_message`: only the words that
    speak for a whole message (`message_not_with`), for a long post read clause by clause: "열이 많은 소양인" makes its
    "인삼을 먹으면 열이 납니다" no fever, while "얼굴에 열" in one sentence leaves "열이 39도" in another one."""
    rules = rules or load_focus_rules()
    compact = _compact(text)
    if whole_message:
        return any(w in compact for w in rules.message_not_with.get(term, ()))
    return _other_sense_in(term, compact, rules)


def _other_sense_in(term: str, compact: str, rules: FocusRules) -> bool:
    return any(w in compact for table in (rules.not_with, rules.message_not_with) for w in table.get(term, ()))


def _occurrences(pattern: str, text: str) -> list[int]:
    """Start of every occurrence of a plain `pattern` in `text` (str.find: this runs for every pattern of
    every symptom on every question, where a regex per pattern cost ~0.7 ms a question)."""
    starts, at = [], text.find(pattern)
    while at >= 0:
        starts.append(at)
        at = text.find(pattern, at + len(pattern))   # not overlapping, as a regex would find them
    return starts


def _hidden(term: str, spans: dict[str, list[tuple[int, int, int]]], hiders: Sequence[str]) -> bool:
    """Whether every match of `term` lies inside a strictly longer match of one of `hiders` (same text)."""
    others = [o for t in hiders for o in spans.get(t, ())]
    return bool(others) and all(
        any(o[0] == hit[0] and o[1] <= hit[1] and hit[2] <= o[2] and o[2] - o[1] > hit[2] - hit[1] for o in others)
        for hit in spans[term])


# people the labels' cautions single out: "드셔도 되나요" for them asks for the cautions (section_intent)
CAREFUL_POPULATIONS = frozenset({"elderly", "pregnant", "breastfeeding"})
# how the answers and the profile say the two states a label's cautions name (the memory's summary, the food
# reply, a long post's search words): one table, since `profile_population` reads the summary's words back
CAREFUL_STATE_WORDS = {"pregnant": "임신 중", "breastfeeding": "수유 중"}
# a pregnancy or nursing that is over: "예전에 임신한 적이 있는데", "임신했었는데", "수유 중이었는데" (a short question with
# the first was answered with the pregnancy cautions first). "임신했을 때 먹어도 되나요?" asks about pregnancy: not past.
PAST_CAREFUL_STATE = re.compile(r"(?:임신|수유)\s*(?:을|은|는)?\s*(?:한\s*적|했던\s*적|했었|하였었|중이었|하던\s*(?:때|시절))")


def without_past_states(text: str) -> str:
    """`text` with each past pregnancy or nursing (`PAST_CAREFUL_STATE`) blanked to spaces of its length, so the
    words of a current one are found elsewhere and the offsets of everything else hold."""
    return PAST_CAREFUL_STATE.sub(lambda m: " " * len(m.group(0)), text)
CHILD_POPULATIONS = frozenset({"child", "infant"})   # a child's doses, products and age limits
ADULT_AGE = 15     # MFDS labels dose "성인 (15세 이상)"
ELDERLY_AGE = 65
# an age said of the person ("29살", "만 6세"), not a bound of a label or a time ("15세 이상", "5살 때")
_AGE = re.compile(r"(?<![\d.])(\d{1,3})\s*(?:살|세)(?!\s*(?:이상|이하|미만|부터|때|까지))")
_MONTHS_OLD = re.compile(r"\d+\s*(?:개월|달)")
# a month count that is no baby's age: a pregnancy's ("임신9개월인데요" read as an infant, and a pregnant
# woman's answer was filtered for babies) or a duration ("3개월째 기침", "두 달 전부터", "6개월 동안")
_NOT_AN_AGE = re.compile(r"임신\s*(?:한\s*지\s*|한지\s*)?\d+\s*(?:개월|달|주)"
                         r"|\d+\s*(?:개월|달)\s*(?:째|동안|간|전|후|넘게|이상|가량|부터|만에|마다|내내)")


def find_population(question: str, rules: FocusRules | None = None) -> tuple[str, ...]:
    """Who the question is for. A stated age decides by its value: "29살" is an adult (it once read as a
    child, and an adult was sent children's doses), "6살" a child, "70세" elderly, "6개월" an infant —
    but not a pregnancy's months or a duration (`_NOT_AN_AGE`)."""
    rules = rules or load_focus_rules()
    compact = _compact(without_past_states(question))   # "임신한 적이 있는데": no pregnancy now
    found = [name for name, words in rules.populations.items() if any(w in compact for w in words)]
    if _MONTHS_OLD.search(_NOT_AN_AGE.sub(" ", question)):
        found.append("infant")
    elif m := _AGE.search(question):
        age = int(m.group(1))
        found.append("child" if age < ADULT_AGE else "elderly" if age >= ELDERLY_AGE else "adult")
    return tuple(dict.fromkeys(found))


# giving a medicine to someone ("먹여요", "먹일", "give"): the asker is not the one who takes it
_GIVEN = re.compile(r"먹여|먹이[고는면며]|먹일|\bgive\b|\bgiving\b", re.IGNORECASE)


def gives_it_to_someone(text: str) -> bool:
    """Whether `text` asks about giving a medicine to another ("하루에 몇 번 먹여요?", "can I give …"). A message
    that names no one and gives it to no one asks for the asker ("이모디움 하루에 몇 번 먹어요?"): an adult's dose, as a
    pharmacist at the counter reads it (`yaksa.llm.offline.extractive`)."""
    return _GIVEN.search(text) is not None


CHILD_PROFILE_LABEL = "(자녀)"   # how the memory summary heads a child's facts (`yaksa.memory.profile_summary`)


def profile_population(profile_summary: str) -> tuple[str, ...]:
    """Who a remembered profile's person is, as the question's own words would say it: "(자녀) 5세." is a
    child, "영아" an infant, "70세" or "노인" elderly, "임신 중" pregnant, "수유 중" nursing. The memory node chose
    whose profile it is (the person the conversation is about), so a message that names no one is asked for
    that person: "해열제는 한 번에 얼마나 먹여요?" after "5살 아이가 열이 나요" is a child's dose question.
    An adult ("29세") is left out: a message naming no one is taken for an adult's already, and saying so would
    swap a children's product the person named for adults' ones ("베비잘시럽을 먹어도 될까요?" got 나르펜정).
    A child's profile that keeps no age ("(자녀) 증상: 구토, 설사.": a father's post about his baby, its age only in
    the title) is still a child's: "판콜에이 하루에 몇 번 먹어요?" after it got the adult dose as if for him."""
    found = find_population(profile_summary) if profile_summary.strip() else ()
    if CHILD_PROFILE_LABEL in profile_summary and not {"infant", "child", "adult", "elderly"} & set(found):
        found = (*found, "child")
    return tuple(g for g in found if g != "adult")


def find_route(question: str, rules: FocusRules | None = None) -> str | None:
    rules = rules or load_focus_rules()
    compact = _compact(question)
    for route in ("rectal", "eye", "topical", "oral"):  # specific before the generic "먹"
        if any(w in compact for w in rules.routes.get(route, ())):
            return route
    return None


def _person(text: str, rules: FocusRules | None = None) -> tuple[tuple[str, ...], tuple[str, ...], bool]:
    """Who `text` is about (population, conditions) and whether that person asks for the cautions: "may I take
    it?" from someone pregnant, old or with a condition the cautions name. One reading for a Korean question and an
    English question's Korean gloss alike."""
    population = find_population(text, rules)
    conditions = find_conditions(text)
    return population, conditions, bool(CAREFUL_POPULATIONS & set(population)) or bool(conditions)


def _english_focus(question: str, catalog: DrugCatalog | None) -> Focus:
    """An English question naming a product the labels hold ("What are the side effects of naproxen?") is a drug
    question read through its Korean gloss (`english_gloss`: the section asked, the person); any other English
    question gets a MedQuAD question type only, as does one asking what studies found ("Is caffeine associated
    with miscarriage?": the labels do not say; routing sends it to the abstracts), or one asking nothing a label
    section answers (an empty gloss: "Do you have information about Caffeine", whose MedQuAD overview answers
    it better than a caffeine tablet's uses). A named medicine without a product in the data ("Is Benadryl safe for
    my 2 year old?") is a drug question too: its empty result says the data has no label of it (it got MedQuAD's
    blood-pressure readings), as a Korean question's does. One asking which medicine to take for a complaint the
    gloss names ("What can I take for a headache?", `asks_for_a_medicine`: it got MedQuAD's "Problems with Taste") is
    a symptom question; MedQuAD's own "What are the treatments for Headache ?" stays general."""
    gloss = korean_gloss(question)
    linking = catalog.link(question) if catalog is not None and gloss else Linking()
    general = Focus(question, "en", "general", classify_intent(question))
    if not gloss or asks_what_studies_found(question):
        return general
    population, conditions, careful = _person(gloss)
    if linking.named and asks_about_a_medicine(question, linking.mentions):
        intent = classify_korean(gloss, default="efficacy", careful=careful)
        return Focus(question, "en", "drug", intent, linking, population=population,
                     item_seqs=tuple(p.item_seq for p in linking.products), conditions=conditions)
    symptoms, classes = find_symptoms(gloss)
    if symptoms and not linking.named and asks_for_a_medicine(question):   # "What can I take for a headache?"
        intent = classify_korean(gloss, default="efficacy", symptom=True, careful=careful)
        return Focus(question, "en", "symptom", intent, linking, symptoms, classes, population,
                     conditions=conditions)
    return general


def analyse(question: str, catalog: DrugCatalog | None) -> Focus:
    """The focus of `question`; English questions get a MedQuAD question-type intent unless they name a product
    the labels hold (`_english_focus`)."""
    if not isinstance(question, str) or not question.strip():
        raise ValueError("question must be a non-empty string")
    if not HANGUL.search(question):
        return _english_focus(question, catalog)
    rules = load_focus_rules()
    linking = catalog.link(question) if catalog is not None else Linking()
    symptoms, classes = find_symptoms(question, rules)
    population, conditions, careful = _person(question, rules)
    if linking.named:
        mode = "drug"
        intent = classify_intent(question, default="efficacy", symptom=bool(symptoms), careful=careful)
        seqs = tuple(p.item_seq for p in linking.products)
    elif symptoms:
        mode = "symptom"
        intent = classify_intent(question, default="efficacy", symptom=True, careful=careful)
        seqs = ()
    else:
        mode = "general"
        intent = classify_intent(question)
        seqs = ()
    return Focus(question, "ko", mode, intent, linking, symptoms, classes, population,
                 find_route(question, rules), seqs, conditions=conditions)
