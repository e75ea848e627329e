"""An English question about a medicine, said again in the Korean words our label rules read.

Why a gloss and not English rules beside every Korean one: the product labels are Korean (MFDS), and
what an answer quotes from them is chosen by Korean readings: the section asked for
(`section_intent.classify_korean`), who it is for (`focus.find_population`), which sentences speak of
the person's condition. "What are the side effects of naproxen?" was answered from a MedQuAD passage on
taste and an ACE-inhibitor abstract, though the labels hold naproxen's own side effects. Saying what the
English question asks in those Korean words ("부작용", "5살 아이 18kg 얼마나 먹여요", "임신 중 먹어도 되나요")
lets every Korean reading answer it unchanged; the drug itself is linked from the English name by the
catalog (`DrugCatalog.link`), not from the gloss.

Only what a label section answers is glossed: the intent (uses, dose, cautions, interactions, side
effects, storage), the person (age, weight, pregnancy, nursing, old age), conditions the cautions name and
complaints in the labels' 효능효과 words. A word the table does not know is left out, not guessed.

Usage:
    korean_gloss("how much tylenol can I give my 5 year old who weighs 18 kg?")   # "5살 아이 18kg 얼마나 먹여요"
    asks_about_a_medicine("What is Glutathione synthetase deficiency?", ("Glutathione",))   # False
"""

from __future__ import annotations

import re
from collections.abc import Sequence

_I = re.IGNORECASE

# (English pattern, Korean words): checked in order, every match adds its words once
_PHRASES: tuple[tuple[re.Pattern[str], str], ...] = (
    # the person
    (re.compile(r"\bnewborn\b|\bneonate\b", _I), "신생아"),
    (re.compile(r"\bbab(y|ies)\b|\binfants?\b|\btoddlers?\b", _I), "아기"),
    (re.compile(r"\b(child|children|kids?|son|daughter|boy|girl)\b", _I), "아이"),
    (re.compile(r"\bpregnan(t|cy)\b|\bexpecting a baby\b", _I), "임신 중"),
    (re.compile(r"\bbreast[- ]?feed(ing)?\b|\bnursing (mother|mom)\b|\bi am nursing\b|\bi'm nursing\b", _I), "수유 중"),
    (re.compile(r"\badults?\b|\bgrown[- ]ups?\b", _I), "성인"),
    (re.compile(r"\belderly\b|\bolder (adult|person|people|parent)s?\b|\bseniors?\b|\bgrandparents?\b", _I), "노인"),
    # conditions the cautions name
    (re.compile(r"\bhigh blood pressure\b|\bhypertension\b", _I), "고혈압"),
    (re.compile(r"\bdiabet(es|ic)\b", _I), "당뇨"),
    (re.compile(r"\basthma\b", _I), "천식"),
    (re.compile(r"\bkidney\b|\brenal\b", _I), "신장"),
    (re.compile(r"\bliver\b|\bhepatic\b", _I), "간 질환"),
    (re.compile(r"\bstomach ulcers?\b|\bpeptic ulcers?\b", _I), "위궤양"),
    # complaints, in the labels' own 효능효과 words (`focus_ko.yaml`'s terms): "What can I take for a headache?"
    (re.compile(r"\bheadaches?\b|\bmigraines?\b", _I), "두통"),
    (re.compile(r"\btooth ?aches?\b", _I), "치통"),
    (re.compile(r"\b(period|menstrual) (pain|cramps?)\b|\bcramps\b", _I), "생리통"),
    (re.compile(r"\b(muscle|muscular) (pain|aches?)\b|\bsore muscles\b", _I), "근육통"),
    (re.compile(r"\bback ?(pain|ache)\b", _I), "요통"),
    (re.compile(r"\bjoint pain\b", _I), "관절통"),
    (re.compile(r"\bsprain(ed)?\b", _I), "염좌"),
    (re.compile(r"\bfevers?\b|\bhigh temperature\b", _I), "발열"),
    (re.compile(r"\b(a |the )?(common )?cold\b(?! (sore|weather|water|hands|feet))|\bflu\b", _I), "감기"),
    (re.compile(r"\bcough(ing)?\b", _I), "기침"),
    (re.compile(r"\bphlegm\b|\bmucus\b", _I), "가래"),
    (re.compile(r"\brunny nose\b", _I), "콧물"),
    (re.compile(r"\bstuffy nose\b|\bblocked nose\b|\bnasal congestion\b", _I), "코막힘"),
    (re.compile(r"\bsore throat\b", _I), "인후통"),
    (re.compile(r"\bheartburn\b|\bacid reflux\b", _I), "속쓰림"),
    (re.compile(r"\bstomach ?ache\b|\bstomach pain\b", _I), "복통"),
    (re.compile(r"\bindigestion\b|\bbloat(ed|ing)\b", _I), "소화불량"),
    (re.compile(r"\bconstipat(ed|ion)\b", _I), "변비"),
    (re.compile(r"\bdiarrh?(o)?ea\b", _I), "설사"),
    (re.compile(r"\bmotion sickness\b|\bcar ?sick(ness)?\b|\bsea ?sick(ness)?\b", _I), "멀미"),
    (re.compile(r"\bnausea\b|\bnauseous\b", _I), "구역"),
    (re.compile(r"\bmouth ulcers?\b|\bcanker sores?\b", _I), "구내염"),
    (re.compile(r"\bcold sores?\b", _I), "구순포진"),
    (re.compile(r"\bathlete'?s foot\b", _I), "무좀"),
    (re.compile(r"\beczema\b", _I), "습진"),
    (re.compile(r"\bitch(y|ing|es)?\b", _I), "가려움"),
    (re.compile(r"\bhives\b", _I), "두드러기"),
    (re.compile(r"\bhay ?fever\b|\ballergies\b|\ballergic rhinitis\b", _I), "알레르기 비염"),
    (re.compile(r"\bacne\b|\bpimples?\b", _I), "여드름"),
    (re.compile(r"\bburns?\b(?! (calories|fat))", _I), "화상"),
    (re.compile(r"\bhemorrhoids?\b|\bhaemorrhoids?\b|\bpiles\b", _I), "치질"),
    (re.compile(r"\binsomnia\b|\bcan'?t sleep\b|\bcannot sleep\b", _I), "불면"),
    (re.compile(r"\bhangover\b", _I), "숙취"),
    # what is asked
    (re.compile(r"\bside[- ]?effects?\b|\badverse\b|\breactions?\b", _I), "부작용"),
    (re.compile(r"^\s*(does|do|can|could|will|would) [^?]{1,40}\b(cause|give (you|me)|make (you|me))\b", _I), "부작용"),
    (re.compile(r"\bdrows(y|iness)\b|\bsleepy\b|\bmake me sleep\b", _I), "졸려요"),
    (re.compile(r"\bstor(e|age|ing)\b|\bfridge\b|\brefrigerat|\bexpir", _I), "보관"),
    # (not with food or drink, nor with a condition: "take ibuprofen with high blood pressure" asks for the cautions,
    # and got the interactions section)
    (re.compile(r"\b(take|taking|use|using|mix|mixing|combine|combining)\b[^?.!]{0,40}\b(with|and|together)\b"
                r"(?!\s+(?:food|meals?|water|milk|an empty|alcohol|beer|wine|a drink|drinks"
                r"|(?:an? |my )?(?:high blood pressure|hypertension|diabetes|asthma|kidney|renal|liver|hepatic|"
                r"(?:stomach |peptic )?ulcers?|heart)))"
                r"|\binteract(ion|ions|s)?\b|\btogether\b", _I), "같이 먹어도 되나요"),
    (re.compile(r"\balcohol\b|\bdrink(ing)? (beer|wine|alcohol)\b|\bbeer\b|\bwine\b", _I), "술"),
    (re.compile(r"\bempty stomach\b|\bwith food\b|\bbefore or after (meals|food|eating)\b", _I), "식후 공복"),
    (re.compile(r"\bhow (much|many)\b|\bdos(e|es|age|ing)\b|\bhow often\b|\bmaximum\b|\bmax\b|"
                r"\bhow long between\b|\bevery \d+ hours\b", _I), "얼마나 먹여요 용량"),
    (re.compile(r"\bwhat is [^?]{1,40}\b(used )?for\b|\bused (for|to treat)\b|\bwhat does [^?]{1,40}\b(do|treat)\b|"
                r"\bhelp (with|for)\b|\bgood for\b|\bwork for\b", _I), "효능"),
    (re.compile(r"\b(can|may|should) (i|we|he|she|they|my \w+) (take|give|use)\b|\bis it (ok|okay|safe)\b|"
                r"\bsafe (to|for|during|while)\b|\ballowed\b", _I), "먹어도 되나요"),
)
_AGE_YEARS = re.compile(r"\b(\d{1,3})[- ]?(?:years?|yrs?|yo)(?:[- ]old)?\b|\baged? (\d{1,3})\b", _I)
_AGE_MONTHS = re.compile(r"\b(\d{1,2})[- ]?months?[- ]old\b", _I)
_KILOGRAMS = re.compile(r"\b(\d{1,3}(?:\.\d)?)\s?kg\b", _I)
_POUNDS = re.compile(r"\b(\d{1,3}(?:\.\d)?)\s?(?:lbs?|pounds)\b", _I)
POUNDS_PER_KG = 2.20462

# a named ingredient that is part of a disease's or an enzyme's name ("Glutathione synthetase deficiency",
# "Caffeine intoxication"): the question is about the disease, not the medicine
_PART_OF_A_NAME = re.compile(r"^\W*(synthetase|synthase|reductase|deficiency|syndrome|disease|disorder|intoxication|"
                             r"poisoning|metabolism|levels?|receptors?|pathway)\b", _I)


def korean_gloss(question: str) -> str:
    """What `question` asks of a label, in the Korean words the label rules read ("" when nothing is known)."""
    words: list[str] = []
    if m := _AGE_MONTHS.search(question):
        words.append(f"{int(m.group(1))}개월")
    elif m := _AGE_YEARS.search(question):
        words.append(f"{int(m.group(1) or m.group(2))}살")
    if m := _KILOGRAMS.search(question):
        words.append(f"{m.group(1)}kg")
    elif m := _POUNDS.search(question):
        words.append(f"{round(float(m.group(1)) / POUNDS_PER_KG)}kg")
    for pattern, korean in _PHRASES:
        if pattern.search(question) and korean not in words:
            words.append(korean)
    return " ".join(words)


# asking which medicine to take for a complaint, as a person asks it, not as MedQuAD's "What are the treatments for …"
_ASKS_FOR_A_MEDICINE = re.compile(
    r"\bwhat (can|should|could) (i|we|he|she|you|my \w+) (take|give|use)\b|\bwhat (medicine|medication|pills?|drugs?|tablets?)\b"
    r"|\b(medicine|medication|something|pills?|tablets?|remedy|remedies) (for|to help)\b|\bwhat helps\b|\bover[- ]the[- ]counter\b"
    r"|\bbest (medicine|pill|thing) for\b", _I)


def asks_for_a_medicine(question: str) -> bool:
    """Whether the English `question` asks which medicine to take ("What can I take for a headache?")."""
    return _ASKS_FOR_A_MEDICINE.search(question) is not None


def asks_about_a_medicine(question: str, mentions: Sequence[str]) -> bool:
    """Whether the English `question` asks about a medicine it names (a linked `mention`), not about a disease
    or an enzyme whose name holds the ingredient's word."""
    for mention in mentions:
        at = question.lower().find(mention.lower())
        if at >= 0 and not _PART_OF_A_NAME.search(question[at + len(mention):]):
            return True
    return False
