"""The medical vocabulary behind the scope model's concept-density signal.

Why a vocabulary signal: Korean consumer questions ("두통이 있는데 타이레놀 먹어도 돼요?") reach a best
cosine barely above coherent off-topic ones ("삼성전자 주가 알려줘"), because multilingual-e5
compresses short Korean sentences into a narrow band. Naming a product, an ingredient, a symptom, a
condition or a drug class is strong evidence of scope that a cosine cannot see. The vocabulary is
built from what the bundle and the project already curate: the bundle's user dictionary (product
brand stems and ingredients), the query-expansion rules, the Korean symptom/condition lexicon used
for slot extraction, a short list of drug-class and dosing words and of words of care below, and the
nouns of the drug labels that general Korean rarely uses (`data/corpus_terms_ko.txt`, derived by
`scripts/derive_corpus_terms.py`: without them a fifth to a third of real health posts and exam
stems named no medical term, e.g. 통증, 증상, 질환, 임신). Only single analyser
tokens are kept, so a phrase never matches by one common word. English questions are matched
against `ENGLISH_MEDICAL_WORDS`, the words of the bundle's English documents that general English rarely
uses (`data/corpus_terms_en.txt`, same script: with the hand list alone 65% of English exam questions named
no medical term) and the suffixes of drug and disease names (`ENGLISH_MEDICAL_SUFFIX`), since the
bundle's dictionary is Korean.

Why density and not presence: one medical-sounding word ("크림" in "크림 파스타 레시피", "비타민" in
"비타민 주식 전망") must not decide. The scope model reads the *share* of the question's content
tokens that are medical, next to the other signals (`features.py`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache
from importlib import resources
from pathlib import Path

from yaksa.lexicon.concept_rows import lexicon_rows
from yaksa.lexicon.expansion import load_rules
from yaksa.text.tokenizer import Tokenizer
from yaksa.text.userdict import read_userdict

DRUG_WORDS: tuple[str, ...] = (
    "약", "감기약", "두통약", "진통제", "해열제", "소화제", "변비약", "지사제", "수면제", "수면유도제", "안약",
    "점안액", "연고", "크림", "파스", "시럽", "영양제", "비타민", "항생제", "항히스타민제", "제산제", "소염제",
    "진통소염제", "혈압약", "당뇨약", "복용", "투약", "용법", "용량", "부작용", "상호작용", "효능", "처방",
    "일반의약품", "전문의약품", "임부", "수유부", "알약", "정제", "캡슐",
    "가글", "겔", "현탁액", "상비약", "흉터",
    # classes and forms people ask about that the analyser did not know (2026-11-30: "구충제 가족 모두 먹어야
    # 돼요?" was read as 구 + 충 and named nothing medical); none is in a shared non-medical question
    "구충제", "위장약", "지혈제", "근이완제", "소독약", "소독제", "해독제", "관장약", "좌제", "마취제", "외용제",
    "점비제", "유산균", "엽산", "구강청결제",
)

# everyday words of care a post or an exam stem uses where it names no drug or symptom ("병원에 가봐야
#할까요", "어떤 검사를 받아야 하나요"); the labels rarely use them, so the corpus list below misses them
CARE_WORDS: tuple[str, ...] = (
    "병원", "의원", "질병", "검사", "진찰", "진료", "진단", "응급실", "입원", "퇴원", "수술", "처방전", "증세",
    "내과", "외과", "소아과", "소아청소년과", "이비인후과", "산부인과", "피부과", "정형외과", "신경과", "안과",
    "치과", "비뇨기과", "정신건강의학과", "한의원", "약국", "간호사", "의사", "약사", "환자", "통증", "질환",
    "치료", "처치", "재활", "요양", "간병", "접종", "백신", "검진", "출산", "정신과",
)
# mental health is health (docs/scope.md): a post about panic, an obsession or an addiction often names
# no drug, no symptom of the body and no clinic but 정신과; none of these is in the labels' nouns, and of
# the non-medical sources only Chatbot_data uses one, 폭식증, once (counted 2026-11-26). 스트레스, 상담,
# 심리 and 장애 stay out: small talk says "스트레스 받아", and 상담 and 장애 also mean customer service
# and outages
MIND_WORDS: tuple[str, ...] = (
    "정신건강", "강박", "강박증", "공황", "중독", "트라우마", "조현병", "거식증", "폭식증", "자해", "환청",
    "망상", "화병", "기피증", "자폐", "우울감", "금단",
    "번아웃",   # 2026-11-30, with 분노 조절 below: probes of ours refused once the threshold rose (not in any shared question)
)
# 중독 is an addiction only after what one is addicted to: "식중독", "일산화탄소 중독", "농약 중독" are
# poisonings, which the labels, the red flags and 119 answer, never a psychiatrist
_ADDICTION = re.compile(r"(게임|알코올|알콜|술|도박|인터넷|스마트폰|휴대폰|핸드폰|쇼핑|마약|니코틴|담배|흡연|카페인"
                        r"|성|섹스|쇼츠|유튜브|sns|SNS)\s?중독")
# anger that cannot be held back ("분노 조절이 안 돼요", 분노조절장애) is a concern of the mind, not a word of the labels;
# so is seeking counselling ("심리상담은 어디서 받을 수 있나요?" P 0.001, 2026-11-30): 상담 alone is customer service
# and "고민상담"/"연애 상담" small talk (both in Chatbot_data), so only counselling of the mind counts
_MIND_PHRASE = re.compile(r"분노\s?조절|심리\s?(상담|치료)|상담\s?치료|정신\s?건강\s?(상담|센터|복지)")
# what the mind carries after being harmed ("학교폭력 당했던 기억 때문에 아직도 힘들어요"), a habit one wants to stop and
# cannot ("게임을 끊고 싶은데 하루 종일 게임만 하게 돼요"), a body-focused repetitive habit ("손톱을 계속 물어뜯어요",
# ICD-11 6B25): refused as off-topic, 2026-12-01 (messages we wrote, not blind). None of the 3,000 shared non-medical
# questions or 4,986 posts says any; of the 1,218 exam stems, five name a harm and one a wish to stop smoking
_MIND_AFTER_HARM = re.compile(
    r"(학교\s?폭력|학폭|성\s?폭력|성\s?추행|성\s?폭행|가정\s?폭력|데이트\s?폭력|학대|왕따|따돌림)(을|를|에)?\s?(당|받)"
    r"[^.?!\n]{0,16}?(기억|트라우마|힘들|힘드|괴롭|괴로|무서|무섭|두렵|두려|생각나|떠올|악몽)")
_MIND_HABIT = re.compile(
    r"(게임|술|담배|도박|쇼핑|야동|음란물|유튜브|쇼츠|핸드폰|휴대폰|스마트폰)(을|를|만)?\s?(끊고|줄이고|그만\s?하고)\s?싶은데"
    r"|손톱(을|만)?\s?(자꾸\s?|계속\s?|습관적으로\s?)?(물어\s?뜯|뜯)|머리카락(을|만)?\s?(자꾸\s?|계속\s?)?(뽑|쥐어\s?뜯)")


# low mood: 우울 was a word of the base vocabulary before MIND_WORDS existed, so it is not in that list (which
# feeds the analyser's user dictionary); "요즘 너무 우울한데 어떻게 해야 할까" got "see a 병원" and no crisis line
LOW_MOOD = "우울"


# a condition's word starts a word: "투자해볼까" holds 자해 (self-harm) inside it
_MIND_WORD = re.compile(r"(?<![\uac00-\ud7a3])(" + "|".join(w for w in MIND_WORDS if w != "중독") + ")")


def names_mind_condition(text: str) -> bool:
    """Whether `text` names a mental-health condition of `MIND_WORDS` ("공황", "강박증") at the start of a word,
    low mood ("우울해요"), an addiction ("게임 중독"), anger out of control ("분노 조절"), counselling sought
    ("심리상담"), what a harm left behind ("학교폭력 당했던 기억") or a habit that will not stop ("손톱을 물어뜯어요"): what no drug label of the bundle answers (`yaksa.agent.nodes.retrieve`) and what the scope stage
    never refuses (`yaksa.lexicon.mind_signs`)."""
    return (bool(_ADDICTION.search(text)) or LOW_MOOD in text or bool(_MIND_WORD.search(text))
            or bool(_MIND_PHRASE.search(text)) or bool(_MIND_AFTER_HARM.search(text)) or bool(_MIND_HABIT.search(text)))


# dentistry is medicine, and its licensing exam is one of the team's test subjects (which we may not read): of
# stems we wrote in its style ("법랑질의 주성분은?", "상악 중절치의 맹출 시기는?", "하악 제1대구치의 근관 수로 가장
# 흔한 것은?", "불소 도포의 효과는?") the scope model refused 4 of 10 (2026-11-27): they named no word it knew. None
# of these occurs in the 3,000 shared non-medical questions (counted 2026-11-27); left out: 교정 (a proofreading),
# 치열 (치열한 경쟁), 치수 (a size), 유치 (유치원), 대구 (a city, a fish), 상아 (ivory). As the other lists here they
# count only where the analyser reads them whole.
DENTAL_WORDS: tuple[str, ...] = (
    "치아", "법랑질", "법랑", "백악질", "근관", "근관치료", "치관", "교합", "보철", "틀니", "임플란트", "충치",
    "우식증", "치아우식증", "치석", "치태", "불소", "중절치", "측절치", "상악", "하악", "악관절", "턱관절", "치수염",
    "아말감", "인레이", "스케일링", "치실", "침샘", "악골", "치경부", "와동", "교두", "치주낭", "골유착", "치면세마",
    "실란트",
    # 2026-11-29: of 8 more stems we wrote ("유치의 맹출 순서는?", "레진 수복 시 산부식의 목적은?", "치주인대의 주요
    # 기능은?") 3 were refused. None of these occurs in the 3,000 shared non-medical questions (counted that day);
    # left out: 수복 (a city retaken), 저작 (an author's work), 구순 (ninety years), 치경 (rare), 치간 (정치 간),
    # 구개 (구 개월), 치근 (치근덕거리다)
    "인상재", "구강", "타액", "치열궁", "악안면", "설소대", "총의치", "국소의치",
    # 2026-11-30: of 40 more stems we wrote over the dentist exam's subjects (materials, anatomy, pathology,
    # prosthodontics), 4 were refused ("글래스아이오노머 시멘트의 장점은?" P 0.05, "상아세관을 통한 지각과민의 기전
    # 이론은?"): the analyser reads these whole but no list had them. None occurs in the 3,000 shared non-medical
    # questions (counted that day); left out: 석고 (gypsum, a mineral of geology trivia), 치수 (자외선 치수)
    "글래스아이오노머", "아이오노머", "치근단", "치수강", "치수절단술", "치수복조", "근관충전", "치은연하", "치조",
    "매복치", "알지네이트", "구내염", "구취", "하치조신경", "익돌근", "타액선", "치성낭", "치근낭", "아프타",
    "치은퇴축", "법랑모세포", "치배", "온레이", "치아종",
    # 2026-11-30 (second round): of 25 more stems we wrote over dental materials and prosthodontics ("금속도재관의
    # 금속 하부구조에 요구되는 성질은?", "클라스프의 유지암이 위치하는 부위는?", "러버댐 장착의 장점은?"; ours, not
    # blind) 9 were refused, as MedMCQA's dental materials are (2.8% of its questions). None occurs in the 3,000
    # shared non-medical questions (counted that day); left out: 석고 (geology), 왁스 (a car's), 브라켓 (a shelf's)
    "초경석고", "의치", "의치상", "대연결자", "소연결자", "클라스프", "러버댐",
    "근관세척", "글라스아이오노머",
)
# nursing is care, and its licensing exam is one of the team's test subjects (which we may not read): of 50
# stems we wrote over its subjects (2026-11-30: management, community, maternal, child, psychiatric and
# fundamental nursing, health law; ours, not blind) 12 were refused, among them "지역사회 간호진단 시 우선순위
# 결정 기준은?", "영아의 대천문이 닫히는 시기는?", "방어기제 중 합리화의 예로 옳은 것은?". None of these occurs in
# the 3,000 shared non-medical questions (counted that day); left out as everyday words: 교육, 발달, 윤리, 조직.
# They count only where the analyser reads them whole (간호진단 is read 간호 + 진단, so 간호 counts)
NURSING_WORDS: tuple[str, ...] = (
    "간호", "보건", "보건소", "욕창", "낙상", "산욕기", "신생아", "영유아", "모유", "수유", "학령기", "대천문",
    "소천문",
    # 2026-11-30 (second round, 24 more stems of ours over fundamental nursing): "유치도뇨관을 삽입할 때 지켜야 할
    # 원칙은?" was refused as near nothing; none occurs in the shared non-medical questions
    "도뇨", "도뇨관", "유치도뇨관",
)
# nursing terms the analyser splits in a sentence ("영아의 대천문이" as 대 + 천 + 문, "방어기제" as 방어 + 기제): they
# join the user dictionary as the dental ones below. None occurs in the 3,000 shared non-medical questions.
# Compounds of two medical words stay split: as one user word 간호진단 counted once where 간호 + 진단 counted
# twice, and "지역사회 간호진단 시 우선순위 결정 기준은?" was refused after the refit (2026-11-30)
NURSING_USER_WORDS: tuple[str, ...] = ("대천문", "소천문", "방어기제", "발달과업",
                                       "손위생", "비위관",   # 2026-11-30: read 손위 + 생, 비위 + 관
                                       # 2026-11-30 (third round, 24 more stems of ours over clinical nursing: 23
                                       # passed): "중심정맥관 드레싱 교환 시 주의할 점은?" read 중심 + 정맥 + 관
                                       "중심정맥관")
# dental terms the analyser splits ("맹출" as 맹 + 출, "레진" as 레지): they join the build's user dictionary
# (`curated_medical_words`), so it reads them whole and they count like the list above. Left out, since as
# user words they cut other words: 치은 (가르치은), 치주 (…치 주기), 영구치 (영구치료 → 영구치 + 료)
DENTAL_USER_WORDS: tuple[str, ...] = (
    "맹출", "유치열", "치주염", "치주인대", "치은염", "치조골", "상아질", "산부식", "레진", "치과위생사", "교정력",
    "부정교합", "구개열", "저작근", "교합력",
    # 2026-11-30 (the 40 stems above): split as 대구 + 치, 상아 + 세관, 지각 + 과민, 치주 + 낭 in a sentence. None
    # occurs in the 3,000 shared non-medical questions; 대구치 could cut "대구치킨" (none there either)
    "대구치", "소구치", "유구치", "지대치", "치주낭", "상아세관", "지각과민", "교합면", "칫솔질", "상악동",
    "편평태선", "치관주위염", "상아모세포", "보철물", "복합레진", "건성와",
    # 2026-11-30 (second round, dental materials): read 도 + 재, 매몰 + 재, 주조 + 체, 이장 + 재, 합 + 착, 경 + 석고,
    # 납 (납형), 철 (가철성) in a sentence; none occurs in the shared non-medical questions. With 도재 a user word,
    # 금속도재관 and 전부도재관 are read 금속/전부 + 도재 + 관
    "도재", "매몰재", "주조체", "이장재", "합착", "합착제", "경석고", "납형", "가철성",
    # 2026-11-30 (third round, 12 more stems of ours over dental hygiene: 11 passed): "인상채득 시 알지네이트의 혼합
    # 시간은?" (P 0.22) read 인상 + 채 + 득; none occurs in the shared non-medical questions
    "인상채득",
    # 2026-11-30 (evening): of the 43 dental stems of ours 4 were still refused; "석고 모형재의 …" read 석고 + 모형 +
    # 재, "초경석고의 혼수비" read 경석고 + 혼수 (a dowry) + 비. None occurs in the shared non-medical questions
    "모형재", "혼수비",
)
# how people say a body part hurts ("손발이 차고 저려요"), the heart races or breath runs short, and the form
# a parent crushes a tablet into ("가루약"): no non-medical source uses them (checked 2026-11-26) but
# Chatbot_data's "코골이 어떻게 고쳐?", which is a health question however that set labels it
SYMPTOM_WORDS: tuple[str, ...] = ("저리다", "쑤시다", "욱신거리다", "결리다", "따끔거리다", "화끈거리다",
                                  "울렁거리다", "가루약", "물약", "두근거리다", "숨", "피", "코골이")
CORPUS_TERMS_FILE = "corpus_terms_ko.txt"   # generated by scripts/derive_corpus_terms.py
ENGLISH_CORPUS_TERMS_FILE = "corpus_terms_en.txt"   # scripts/derive_corpus_terms.py --lang en


def _word_list(name: str) -> tuple[str, ...]:
    text = resources.files("yaksa.lexicon").joinpath("data", name).read_text(encoding="utf-8")
    return tuple(line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#"))


def corpus_terms() -> tuple[str, ...]:
    """Nouns far more frequent in the drug labels than in general Korean (the file's header says how)."""
    return _word_list(CORPUS_TERMS_FILE)


@lru_cache(maxsize=1)
def english_corpus_terms() -> frozenset[str]:
    """Words far more frequent in the bundle's English documents than in general English (file header)."""
    return frozenset(_word_list(ENGLISH_CORPUS_TERMS_FILE))


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
    for row in lexicon_rows():
        yield row["preferred"]
        yield from (n for n in row["names"].split("|") if n)


def _rule_terms() -> Iterable[str]:
    rules = load_rules()
    for table in (rules.colloquial, rules.symptom_ingredients, rules.brand_ingredients):
        for key, terms in table.items():
            yield key
            yield from terms


def curated_medical_words() -> list[str]:
    """Single Hangul words of the curated lists (lexicon, expansion rules, drug-class words, dental and nursing terms the
    analyser splits).

    The build adds them to the analyser's user dictionary: without it a sentence-initial "두통에"
    is analysed as 두 + 통, and neither BM25 nor this vocabulary would see 두통.
    """
    rules = load_rules()
    nouns = [t for table in (rules.symptom_ingredients, rules.brand_ingredients) for k, v in table.items()
             for t in (k, *v)] + [t for v in rules.colloquial.values() for t in v]  # not the colloquial keys
    words = (*DRUG_WORDS, *DENTAL_USER_WORDS, *NURSING_USER_WORDS, *_lexicon_names(), *nouns)
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
    # a word of care or of the labels counts only as the analyser reads it alone: "오심" read as 오다
    # would make every "오다" medical
    for word in (*CARE_WORDS, *NURSING_WORDS, *NURSING_USER_WORDS, *MIND_WORDS, *DENTAL_WORDS, *SYMPTOM_WORDS,
                 *corpus_terms()):
        if tokenizer.tokenize(word) == [word]:
            words.add(word)
    return frozenset(words)


# medical words with an everyday sense, and the context that marks the other one: a word counts as medical
# only where some occurrence is outside that context. "금강산의 구역 가운데" is an area, "구역과 구토" nausea;
# "지질 활동" is geology, "지질 대사" lipids; "중추적 역할" pivotal, "중추 신경" central; "머리 스타일" hair
# (2026-11-30: KorQuAD trivia about 금강산 passed on 구역 and 지질 alone)
OTHER_SENSES: dict[str, re.Pattern[str]] = {
    "구역": re.compile(r"(?:의|세|두|네|몇|각|한|관리|보호|금지|흡연|주차|행정|출입|통제|특별|일부)\s*구역(?!질|감|증)"
                     r"|구역(?!질|감|증)\s*(?:중|가운데|안에|내에|별|마다|으로\s*나|을\s*나)"),
    "지질": re.compile(r"지질\s*(?:활동|운동|학|시대|구조|조사|도|층|공원|연대|년대)"),
    "중추": re.compile(r"중추\s*적"),
    # hair, not the head: "머리 스타일 바꿀까" passed on 머리 and got a dandruff shampoo's dosing (2026-11-30)
    "머리": re.compile(r"머리\s*(?:안\s*)?(?:스타일|모양|색|염색|감[은았고기다아]|자르|자를|자른|잘랐|잘라|길[러게이]|기르|묶|땋|파마|하러|했)"),
}


def in_other_sense(word: str, text: str) -> bool:
    """Whether every occurrence of `word` in `text` is in its everyday sense (`OTHER_SENSES`)."""
    pattern = OTHER_SENSES.get(word)
    return pattern is not None and len(pattern.findall(text)) >= text.count(word) > 0


def is_medical_token(token: str, vocabulary: frozenset[str]) -> bool:
    """A Korean token in the bundle vocabulary, or an English medical word or drug/disease name."""
    if token in vocabulary:
        return True
    word = token.lower()
    return word.isascii() and word.isalpha() and (
        word in ENGLISH_MEDICAL_WORDS or word in english_corpus_terms()
        or (len(word) > 5 and ENGLISH_MEDICAL_SUFFIX.search(word) is not None))
