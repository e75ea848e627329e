"""The medical vocabulary behind the scope model's concept-density signal.

Why a vocabulary signal: Korean consumer questions ("두통이 있는데 타이레놀 먹어도 돼요?") reach a best
cosine barely above coherent off-topic ones ("삼성전자 주가 알려줘"), because multilingual-e5
compresses short Korean sentences into a narrow band. Naming a product, an ingredient, a symptom, a
condition or a drug class is strong evidence of scope that a cosine cannot see. The vocabulary is
built from what the bundle and the project already curate: the bundle's user dictionary (product
brand stems and ingredients), the query-expansion rules, the Korean symptom/condition lexicon used
for slot extraction, and a short list of drug-class and dosing words below. Only single analyser
tokens are kept, so a phrase never matches by one common word. English questions are matched
against `ENGLISH_MEDICAL_WORDS` and the suffixes of drug and disease names (`ENGLISH_MEDICAL_SUFFIX`),
since the bundle's dictionary is Korean.

Why density and not presence: one medical-sounding word ("크림" in "크림 파스타 레시피", "비타민" in
"비타민 주식 전망") must not decide. The scope model reads the *share* of the question's content
tokens that are medical, next to the other signals (`features.py`).
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterable
from importlib import resources
from pathlib import Path

from yaksa.lexicon.expansion import load_rules
from yaksa.text.tokenizer import Tokenizer
from yaksa.text.userdict import read_userdict

DRUG_WORDS: tuple[str, ...] = (
    "약", "감기약", "두통약", "진통제", "해열제", "소화제", "변비약", "지사제", "수면제", "수면유도제", "안약",
    "점안액", "연고", "크림", "파스", "시럽", "영양제", "비타민", "항생제", "항히스타민제", "제산제", "소염제",
    "진통소염제", "혈압약", "당뇨약", "복용", "투약", "용법", "용량", "부작용", "상호작용", "효능", "처방",
    "일반의약품", "전문의약품", "임부", "수유부", "알약", "정제", "캡슐",
)


_ENGLISH_WORDS = """
    ache aches acid acne adhd allergic allergies allergy alzheimer anemia antacid antibiotic antibiotics
    antidepressant antihistamine antihistamines anxiety arthritis aspirin asthma athlete bleeding blood
    bp breastfeed breastfeeding bronchitis burn calcium cancer capsule capsules cholesterol chronic
    clinical cold colitis congestion constipation contagious copd cough cramps cream cure curable
    decongestant dementia depression dermatitis diabetes diabetic diagnosed diagnosis diarrhea disease
    disorder dizziness dizzy dosage dose doses drowsy drug drugs dry eczema elderly fatigue fever flu
    fracture gout headache heartburn hepatitis hives hypertension hypothyroidism immune infection
    infections inflammation inhaler insomnia insulin itch itching itchy kidney lozenge medication
    medications medicine medicines migraine migraines mortality nasal nausea ointment overdose pain
    painkiller patients pediatric pill pills pneumonia pregnancy pregnant prescription probiotic
    probiotics psoriasis rash relief remedy risk runny seizure sinus sleep sore spray stomach stroke
    supplement supplementation supplements swallowed symptom symptoms syndrome syrup tablet tablets
    therapy throat toddler treated treatment treatments ulcer vaccine vitamin vitamins vomiting
"""
ENGLISH_MEDICAL_WORDS: frozenset[str] = frozenset(_ENGLISH_WORDS.split())
# suffixes of generic drug and disease names (ibuprofen is not in any list, but -profen is)
ENGLISH_MEDICAL_SUFFIX = re.compile(
    r"(profen|amol|cillin|mycin|cycline|prazole|tidine|olol|pril|sartan|statin|formin|pine|zepam|azole"
    r"|mab|vir|itis|osis|emia|algia|oma|pathy|ectomy|phen|caine|dryl|nol)$")


# Clinical measurements people state about themselves or a child: a temperature, weight, blood pressure,
# blood sugar or an infant's age in months is health context even with no medical noun in the question
# ("어제부터 열이 38도야", "My son is 4 and weighs 35 pounds"). Each kind that matches counts as one
# medical term (features.py), like an expansion-rule family.
MEASUREMENTS: dict[str, re.Pattern[str]] = {
    "temperature": re.compile(r"(열|체온|미열|고열)[이가은는도]?\s*(\d{2}(\.\d)?)\s*도|\b(3[5-9]|4[0-2])(\.\d)?\s*(도|℃|°C)"
                              r"|\b(9[7-9]|10[0-6])(\.\d)?\s*(°F|degrees?)\b|temperature of", re.IGNORECASE),
    "weight": re.compile(r"(몸무게|체중)|\d+(\.\d+)?\s*(kg|킬로)(?![a-z])|\bweigh(s|ed|t)?\b.{0,20}\b(pounds?|lbs?|kg|kilos?)\b",
                         re.IGNORECASE),
    "blood_pressure": re.compile(r"혈압|\b(1\d{2}|[89]\d)\s*/\s*([4-9]\d|1[0-2]\d)\b|mmHg|blood pressure", re.IGNORECASE),
    "blood_sugar": re.compile(r"혈당|공복 ?혈당|당화혈색소|HbA1c|mg/dL|blood sugar|glucose", re.IGNORECASE),
    "infant_age": re.compile(r"(생후|만)\s*\d+\s*(개월|주)|\d+\s*개월\s*(아기|아이|된)|\b\d+[- ]month[- ]old\b",
                             re.IGNORECASE),
}


def clinical_measurements(question: str) -> tuple[str, ...]:
    """The kinds of clinical measurement the question states, in `MEASUREMENTS` order."""
    return tuple(kind for kind, pattern in MEASUREMENTS.items() if pattern.search(question))


# inflected forms ("열나다", "가래가") must stay phrases for the analyser, not become nouns
NOT_NOUN_ENDINGS = ("다", "가", "이", "을", "를", "에", "는", "은", "워", "렵")


def _lexicon_names() -> Iterable[str]:
    text = resources.files("yaksa.lexicon").joinpath("data", "lexicon_ko.csv").read_text(encoding="utf-8")
    for row in csv.DictReader(text.splitlines()):
        yield row["preferred"]
        yield from (n for n in row["names"].split("|") if n)


def _rule_terms() -> Iterable[str]:
    rules = load_rules()
    for table in (rules.colloquial, rules.symptom_ingredients, rules.brand_ingredients):
        for key, terms in table.items():
            yield key
            yield from terms


def curated_medical_words() -> list[str]:
    """Single Hangul words of the curated lists (lexicon, expansion rules, drug-class words).

    The build adds them to the analyser's user dictionary: without it a sentence-initial "두통에"
    is analysed as 두 + 통, and neither BM25 nor this vocabulary would see 두통.
    """
    rules = load_rules()
    nouns = [t for table in (rules.symptom_ingredients, rules.brand_ingredients) for k, v in table.items()
             for t in (k, *v)] + [t for v in rules.colloquial.values() for t in v]  # not the colloquial keys
    words = (*DRUG_WORDS, *_lexicon_names(), *nouns)
    return sorted({w for w in words if len(w) >= 2 and all("\uac00" <= ch <= "\ud7a3" for ch in w)
                   and not w.endswith(NOT_NOUN_ENDINGS)})


def medical_vocabulary(tokenizer: Tokenizer, userdict: Path | None) -> frozenset[str]:
    """Single analyser tokens that mark a question as being about medicines or health."""
    words: set[str] = set()
    if userdict is not None and userdict.exists():
        words.update(w.word for w in read_userdict(userdict))
    for phrase in (*DRUG_WORDS, *_lexicon_names(), *_rule_terms()):
        tokens = tokenizer.tokenize(phrase)
        if len(tokens) == 1:
            words.add(tokens[0])
    return frozenset(words)


def is_medical_token(token: str, vocabulary: frozenset[str]) -> bool:
    """A Korean token in the bundle vocabulary, or an English medical word or drug/disease name."""
    if token in vocabulary:
        return True
    word = token.lower()
    return word.isascii() and word.isalpha() and (
        word in ENGLISH_MEDICAL_WORDS or (len(word) > 5 and ENGLISH_MEDICAL_SUFFIX.search(word) is not None))
