"""Read a long forum-style post: what it asks, and whom the answer is for.

Why: patients write posts, not queries ("29살 여자인데요 … 타이레놀 먹어도 될까요?", "6살 딸이 … 해열제를
먹였는데 … 병원 가야 하나요?"). Searching the whole post (the embedder reads only its head) and reading
"29살" as a child's age sent adults children's doses and answered questions the post never asked. The
reader splits the post into sentences, finds the question sentences, and the person the post is about:
the writer, or the child/parent/spouse the writer speaks for ("32살 엄마인데 4살 아들이 …": the patient is
4, not 32), with age (years, months or days for infants), sex, pregnancy and its week, breastfeeding,
weight, the symptoms it has and the ones it denies ("열은 없어요"), the medicines it names and what was
already tried ("해열제를 먹였는데"). The agent searches with the questions plus these facts, answers for
that person (`population`), and says plainly which questions drug labels cannot answer (`care_only`:
"무슨 병인가요", "어느 과에 가야 하나요").

Only messages longer than a short question are read (`is_long`); a short question keeps its usual path
and costs nothing here.

    reading = read_post(post, catalog)          # catalog: the bundle's DrugCatalog, or None
    reading.population, reading.questions, reading.search_query()
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from yaksa.extraction.regex_slots import AGE_IN_WORDS, DOL_MONTHS, KOREAN_NUMBERS, regex_slots
from yaksa.extraction.slots import SlotItem
from yaksa.extraction.speech_act import SPOKEN_END_DA, SPOKEN_END_YO
from yaksa.lexicon.conditions import ASKS_ABOUT_A_DISEASE, ASKS_ABOUT_A_DISEASE_EN
from yaksa.lexicon.focus import ADULT_AGE, CAREFUL_STATE_WORDS, ELDERLY_AGE
from yaksa.lexicon.section_intent import FAILURE_WORDS, IF_WORDS, says_it_did_not_work

LONG_POST_CHARS = 150        # longer than this, or more sentences than LONG_POST_SENTENCES: a post
LONG_POST_SENTENCES = 2
MAX_QUERY_CHARS = 300        # the query embedding reads ~400 characters; the questions fit well inside
INFANT_MONTHS = 12
DAYS_PER_MONTH = 30.4

# --- sentences -----------------------------------------------------------------------------------
# Punctuation ends a sentence (not a decimal point: "37.5도"); so does a spoken ending followed by a
# space, since many posts have no punctuation at all ("열이 나요 해열제를 먹였는데요 …"). A "?" glued to the
# next word is a hesitation, not an end, unless what precedes it ends like a sentence: "20개월쯤?부터",
# "두갑?정도", "질염?인가" go on; "발생하나여?대장암이" ends. (Split there, "20번?" became a question.)
_ENDS_LIKE_A_SENTENCE = "요여까나지니죠쵸냐래야어아다네데가고게"
_BOUNDARY = re.compile(
    r"(?<=[?!…])(?!(?:을|를|이|가|은|는|도|로|으로|인지)\s)"
    rf"(?!(?<=[가-힣][?])(?<![{_ENDS_LIKE_A_SENTENCE}][?])[가-힣])\s*|(?<=\.)(?!\d)\s*|\n+"
    rf"|(?<={SPOKEN_END_YO})\s+|(?<={SPOKEN_END_DA})\s+"
)
_ONLY_MARKS = re.compile(r"^[\s.?!…~ㅠㅜㅋㅎ^;:,'\"*-]*$")

# --- questions -----------------------------------------------------------------------------------
# (나요 as its own word is the verb 나다, told: "3주째 기침이 나요.", "열이 조금 나요", "땀이 많이 나요" — 53 sentences
# of the shared posts were read as questions; so is it glued to a subject's 이 or to 안, "열이나요", "땀이 안나요" — 28
# more; as an ending it joins its stem: "먹나요", "되나요", "가나요"; "열이 나요?" asks)
_QUESTION = re.compile(
    r"\?(?![가-힣])|(?<=[가-힣])(?<![이안])나요|나요\s*\?|까요|가요|는지|은지|을지|인지|닌지|던지|건지|걸까|을까|될까|할까|줄까|볼까|일까|좋을까|있을까|없을까"
    r"|궁금|되나|되요\s*$|돼요\s*$|는가|인가|건가|나\s*$|까\s*$|왜\s*[^.?!]{0,15}죠"
    r"|알려\s*주|알려주|추천\s*(?:해|좀|부탁)|가르쳐|말씀\s*(?:해\s*)?주|조언\s*(?:좀\s*)?부탁|어떻게\s*(?:해야|하면|하나)|어떡"
)
# a polite closing is no question: "답변 부탁드립니다", "감사합니다"
_CLOSING = re.compile(r"^(?:(?:자세한\s*|빠른\s*|좋은\s*)?답변\s*(?:좀\s*)?(?:부탁|주시면|해\s*주시면|바랍|기다)|감사|미리\s*감사)")
# what a drug label can answer: taking, dosing, applying a medicine, its effects and cautions
# (약국, 약사: where they went or whom they asked, not a medicine: "약국을 가니 … 어떤 증상일까요?")
# (만약 is "if": "만약 내원이 필요하다면, 어느 진료분야의 병원을 가야하는지")
# 약 that is no medicine, by the syllable before it: 만약 "if", 강약 "strength", 예약 "a booking", 절약 "saving" (요약 is
# not excluded: posts written without spaces run "…거에요약을 먹었는데" together) ...
_NOT_A_MEDICINE_BEFORE = "[만강예절]"
# ... or after it: 약간 "a little", 약속 "a promise", 약하게/약해 "weakly"
_NOT_A_MEDICINE_AFTER = "간|속|하|해"
_MEDICINE = re.compile(
    # a word on its own, also not 약한 "weak", 약점, 약혼, 약국 "a pharmacy", 약사 "a pharmacist"
    rf"(?<![가-힣])약(?!{_NOT_A_MEDICINE_AFTER}|한|점|혼|국|사)"
    rf"|(?!{_NOT_A_MEDICINE_BEFORE}약)[가-힣]약(?=[은는이을를도만]|\s|$|\?)|복용|먹어도|먹여도|드셔도|먹으면|먹이면"
    r"|먹는|먹여야|먹어야|먹을|먹일|드려도|바르|발라|뿌리|뿌려|붙이|붙여|연고|크림|시럽|용량|용법|몇\s*(?:알|정|번|회|ml|미리)"
    r"|부작용|처방|해열제|진통제|영양제|소화제|감기약|성분|투여|같이\s*(?:먹|복용)|함께\s*(?:먹|복용)"
    # "스티바A라는 의약품이 … 홍조치료약으로 지정했다고 들어서 어떠한지 궁금하빈다" asks about a medicine
    r"|의약품|치료약"
)
# a medicine as the condition for something else: "약먹어도 효과가 없으면", "먹여도 안 나으면"
# (the failing's words are the ones `says_it_did_not_work` reads, after an "if": `FAILURE_WORDS`, `IF_WORDS`)
# (약 as a medicine: `_NOT_A_MEDICINE_BEFORE`, `_NOT_A_MEDICINE_AFTER`)
_IF_MEDICINE_FAILS = re.compile(
    rf"(?:(?<!{_NOT_A_MEDICINE_BEFORE})약(?!{_NOT_A_MEDICINE_AFTER})|복용|먹어도|먹여도|먹고도)[^.?!,]{{0,14}}?(?:{FAILURE_WORDS}){IF_WORDS}")
# a disease's name asked ("어떤 병명인가요!", "병명이 궁금합니다"): a diagnosis, whatever medicine the sentence tells of
# having used ("연고를 발라도 따가운데 어떤 병명인가요?" was read as a question on the ointment)
# ("뚜렷한 병명이 아니라 어떤 약을 먹어야할찌도" asks for a medicine; "무슨 질병이 있어서 그런건 아니구요" tells)
_DIAGNOSIS_ASKED = re.compile(r"병명(?!이?\s*(?:아니|없))|(?:무슨|어떤)\s*(?:병|질환|질병)(?:인|일|이\s*(?:있(?:나|는|을)|의심)|을\s*의심)")
# what needs a doctor, not a label: the cause, a diagnosis, which department, tests, is it serious
_CARE = re.compile(
    r"병원|무슨\s*과|어느\s*과|어떤\s*과|몇\s*과|진료|검사|원인|왜|무슨\s*병|어떤\s*병|병인가|병일까|질환|증상인가|증상일까"
    r"|증상인지|암\s*(?:일|인|이\s*아)|괜찮은\s*(?:건|걸|거)|괜찮을까|정상인가|정상일까|수술|입원|응급실|심각|위험한"
    r"|이상이\s*있|문제가\s*있|뭘까|무엇일까|뭔가요|뭔지|무엇인지|무엇인가|어떤\s*(?:증상|상태)|가봐야|가\s*봐야|가야\s*(?:할|하|되)"
    r"|치료|낫나요|나을까|나아질|후유증|전염|옮|결핵|폐렴|디스크|[가-힣]염인가|[가-힣]염일까"
    # "is it because of …": "스트레스 받아서그런가 심장이 안좋아서그런가", "피곤해서 그런 걸까요"
    r"|(?:서|때문에|탓에|탓인지)\s*그(?:런가|런\s*건가|런\s*걸까|런지|럴까)"
    # whether it goes with a disease or bears on it ("이런것도 임파선에 영향이 있나요?"), and a department named
    # ("강직성 척추염과 연관이 있나요?", "내과로그냥가면 될런지": a
    # real post on recurring fever in ankylosing spondylitis got antipyretics' uses and doses)
    r"|(?:연관|관련|상관)(?:이|이\s*있|성이|\s*있)|영향(?:이|을)?\s*(?:있|주|미치|끼치)|[가-힣]{1,4}과(?:로|에)\s*(?:그냥\s*)?가(?:면|도|야|봐)"
    # whether one thing causes another: "소화계쪽 질병 때문에 통증이 그렇게 느껴지는건가요?", "등 근육통때문에 가슴통증이
    # 느껴질수도 있나요?" (a real post on chest pain in gastritis got clonixin's uses and doses)
    # ("미세먼지때문인지 콧물과 기침을 앓았습니다", "심장때문일까봐 불안하고", "때문인가 싶어": a guess told, no question)
    # whether a test or a complaint means something wrong: "도대체 뭐가 문제일까요?", "심장에 문제가 있는 건 아니죠?",
    # "정상이면 걱정할 필요 없는 거죠?" (real posts on chest tightness got antihistamines' cautions, a cream's dose)
    r"|문제(?:일까|인가|인지|일\s*수|가[^.?!]{0,20}?아니)|걱정\s*(?:안\s*해도|할\s*필요|하지\s*않아도)|필요\s*없는\s*(?:거|건)"
    r"|(?:때문|(?<![가-힣])탓)(?:인가(?!\s*싶)|인\s*(?:건|걸|거)|일\s*(?:수도|까(?!\s*[봐바])|지)|이\s*아닐"
    r"|인지\s*(?=$|[?.!~ㅠㅜ]|궁금|모르|알)|에[^.?!,]{0,30}?(?:건가|걸까|인가|일까|는지|은지|수도|나요|까요))"
    # the reason asked: "이런 증상이 나타나는 이유는 무엇입니까", "이유가 뭘까요"
    r"|이유(?:가|는|이|를)?\s*(?:뭘|뭔|뭐|무엇|머|궁금|알\s*수|있을|있나)"
    r"|" + _DIAGNOSIS_ASKED.pattern
)

# --- who the post is about -----------------------------------------------------------------------
# role words: a child, a parent, a spouse (the writer is "self"); the quiz-form rule reads them as a person
# (`yaksa.scope.trivia`)
ROLE_WORDS: dict[str, str] = {
    "아이": "child", "애기": "child", "아기": "child", "아가": "child", "딸아이": "child", "아들": "child",
    "딸": "child", "신생아": "child", "손자": "child", "손녀": "child", "조카": "child", "우리애": "child",
    "저희애": "child", "큰애": "child", "작은애": "child", "둘째": "child", "첫째": "child",
    "엄마": "parent", "어머니": "parent", "어머님": "parent", "아빠": "parent", "아버지": "parent",
    "아버님": "parent", "부모님": "parent", "할머니": "parent", "할아버지": "parent", "시어머니": "parent",
    "친정엄마": "parent", "남편": "spouse", "아내": "spouse", "와이프": "spouse", "신랑": "spouse",
    "집사람": "spouse", "동생": "sibling", "언니": "sibling", "오빠": "sibling", "누나": "sibling", "형": "sibling",
}
_ROLE = "|".join(sorted(ROLE_WORDS, key=len, reverse=True))
_SUBJECT_PARTICLE = r"(?:가|이가|이는|이도|는|은|이|도|한테|에게|께서|를|을|의|\s*때문에|\s*문제로|\s*일로|에\s*대한|에\s*대해)"
# "아이가 열이 나요", "딸이 5살", "엄마가 70세인데": the role is the sentence's subject
_ROLE_SUBJECT = re.compile(rf"(?<![가-힣])(?:저희\s*|우리\s*|제\s*)?(?P<role>{_ROLE}){_SUBJECT_PARTICLE}"
                           rf"|(?<![가-힣])(?:저희|우리|제)\s*(?P<role2>{_ROLE})(?![가-힣]*(?:입니다|인데|이고|예요|이에요))")
# "아기 엄마입니다", "32살 엄마인데", "애아버지이고": the writer says who they are (not the patient)
_PARENT_WORDS = "|".join(sorted((w for w, r in ROLE_WORDS.items() if r == "parent"), key=len, reverse=True))
_WRITER_ROLE = re.compile(rf"(?P<role>{_PARENT_WORDS})(?:예요|이에요|입니다|인데|이고|이구요|인데요|이구)")
_CHILD_WORDS = "|".join(sorted((w for w, r in ROLE_WORDS.items() if r == "child"), key=len, reverse=True))
# "생후 20일 된 아기인데", "6살 딸아이예요": the child is who the sentence is about
_CHILD_COPULA = re.compile(rf"(?P<role>{_CHILD_WORDS})(?:인데|이에요|예요|입니다|이고|인데요|에요)")
_WRITER = re.compile(r"(?<![가-힣])(?:저는|저도|제가|전|저|본인은|본인이|나는|내가|제\s*나이)(?![가-힣])|저희는")
# "중3 여자", "고3 수험생", "초등학생 2학년", "초등학교 5학년"
_SCHOOL = re.compile(r"(?P<k>초|중|고)(?:등학생|등학교|학생|학교)?\s*(?P<n>[1-6])(?!\d)(?:\s*학년)?(?!\s*(?:때|떄|시절))")
# a school child with no grade: "초등학생 여자아이 OOO이라구합니다" wrote a child and was sent adult doses
_SCHOOL_AGE = {"유치원생": 5, "초등학생": 9, "초딩": 9, "중학생": 14, "중딩": 14, "고등학생": 17, "고딩": 17}
# (not a time in the past, "초등학생 때부터", nor children in general, "초등학생들")
_SCHOOL_WORD = re.compile(rf"(?P<w>{'|'.join(_SCHOOL_AGE)})(?!\s*[1-6](?!\d))(?!\s*(?:때|떄|시절|이었|였|일\s*때|일\s*떄|들))")
_DECADE_WORDS = {"십대": 10, "이십대": 20, "삼십대": 30, "사십대": 40, "오십대": 50, "육십대": 60, "칠십대": 70,
                 "팔십대": 80}
_DECADE = re.compile(r"(?<!\d)(?P<n>[1-9]0)\s*대|(?P<w>이십대|삼십대|사십대|오십대|육십대|칠십대|팔십대)")
# an age, not a duration: "6살", "만 2세", "13개월 된", "생후 20일"; "3개월 전부터", "5살 때" are not
_NOT_AN_AGE = r"(?!\s*(?:전|후|째|동안|간|정도|만에|이상|이하|미만|부터|쯤|마다|이\s*지|가\s*지|넘게|때|까지|분|치))"
_AGE_YEARS = re.compile(rf"(?:만\s*)?(?<![\d.])(?P<n>\d{{1,3}})\s*(?:살|세){_NOT_AN_AGE}|나이\s*[.:은는]?\s*(?P<m>\d{{1,3}})(?!\d)")
_AGE_MONTHS = re.compile(rf"(?:생후\s*)?(?<![\d.])(?P<n>\d{{1,2}})\s*(?:개월|달){_NOT_AN_AGE}(?=\s*(?:된|짜리|난|아기|아이|애기|남아|여아|딸|아들|이에요|예요|입니다|인데|이고|아가|\s|$|[,.]))")
# "만 4년 6개월 된", "4살 6개월": one age in years and months (its months alone read an infant of 6 months)
_AGE_YEARS_MONTHS = re.compile(rf"(?:만\s*)?(?<![\d.])(?P<y>\d{{1,2}})\s*(?:년|살|세)\s*(?P<m>\d{{1,2}})\s*개월{_NOT_AN_AGE}")
_AGE_DAYS = re.compile(r"생후\s*(?P<n>\d{1,3})\s*일|(?<![\d.])(?P<m>\d{1,3})\s*일\s*(?:된|째\s*(?:된|인)|짜리)\s*(?:아기|신생아|애기|아가)")
_AGE_WEEKS = re.compile(r"생후\s*(?P<n>\d{1,2})\s*주|(?<![\d.])(?P<m>\d{1,2})\s*주\s*(?:된|째\s*(?:된|인)|짜리)\s*(?:아기|신생아|애기|아가)")
WEEKS_PER_MONTH = 4.35
_PREGNANCY_WEEK = re.compile(r"임신\s*(?P<n>\d{1,2})\s*주|(?<!\d)(?P<m>\d{1,2})\s*주\s*(?:차|째)?\s*(?:임산부|임부|임신)")
_MALE = re.compile(r"(?:남성|남자|남학생|(?<![가-힣])남(?=[\s,./)]|$|입니다|이고|인데))(?!\s*친구)")
_FEMALE = re.compile(r"(?:여성|여자|여학생|(?<![가-힣])여(?=[\s,./)]|$|입니다|이고|인데))(?!\s*친구)")
_ROLE_SEX = {"아들": "male", "딸": "female", "딸아이": "female", "엄마": "female", "어머니": "female",
             "어머님": "female", "할머니": "female", "아내": "female", "와이프": "female", "집사람": "female",
             "시어머니": "female", "친정엄마": "female", "언니": "female", "누나": "female", "아빠": "male",
             "아버지": "male", "아버님": "male", "할아버지": "male", "남편": "male", "신랑": "male", "오빠": "male",
             "형": "male", "손자": "male", "손녀": "female"}
_FEEDING = re.compile(r"먹여|먹이[면고는나]|먹일")
# what only a grown-up does, said with no one named, is the writer's own: "술 먹고 타이레놀 먹어도 돼?" after a
# question about a feverish baby was answered for the baby (the conversation's person so far)
_ADULT_DOINGS = re.compile(r"(?<![가-힣])술\s*(?:을\s*|도\s*|좀\s*|한\s*잔\s*)?(?:먹|마시|마셔|마셨|드시|드셨|했|하고|한\s*날)"
                           r"|음주|과음|숙취|해장|회식|담배|흡연|출근|야근|면도"
                           # a posture from desks and screens: "거북목 때문에 목이 아파요" after a baby's fever got the
                           # baby's acetaminophen
                           r"|거북목|일자목"
                           # a break-up with one's partner (a real post: "3달전에 여자친구와 헤어졌습니다 … 잠이 안오고")
                           r"|(?:여자\s*친구|남자\s*친구|여친|남친|애인)(?:와|과|랑|이랑|하고)\s*헤어")
_INFANT_WORDS = re.compile(r"아기|애기|아가|신생아|갓난|영아|분유|이유식|돌\s*(?:전|안)")
_ELDERLY_ROLES = frozenset({"할머니", "할아버지"})

# --- symptoms, medicines, what was tried ---------------------------------------------------------
_CLAUSE = re.compile(r",|(?<=고)\s|(?<=는데)\s*|(?<=지만)\s*|(?<=은데)\s*")
_NO_FEVER = re.compile(r"(?<![가-힣])열(?:은|이|도)?\s*(?:전혀|별로|딱히)?\s*(?:없|안\s*나)")
_NEGATED = re.compile(r"없|아니|않|안\s*(?:나|났|아프|아파)|전혀")
_TRIED = re.compile(r"먹였|먹었|먹어\s*봤|먹여\s*봤|복용했|복용\s*중|복용하고|먹고\s*있|발랐|발라\s*봤|뿌렸|붙였|써\s*봤|사용했"
                    r"|사용하고|처방\s*받|처방받|맞았|넣었|해\s*봤|했는데|했지만|찜질|먹이고")
_TRIED_THING = re.compile(r"(?P<w>[가-힣A-Za-z0-9]*(?:약|제|시럽|연고|크림|파스|찜질|주사|스프레이|액|정(?!도)|캡슐))"
                          r"(?:을|를|도|이랑|랑|하고|만|은|는)?\s*(?=[가-힣\s]{0,6}"
                          r"(?:먹였|먹었|먹어\s*봤|먹여|복용|발랐|발라|뿌렸|붙였|써\s*봤|사용|맞았|넣었|했))")

Linker = Callable[[str], Any]   # DrugCatalog.link: text -> Linking (mentions, products ...)


@dataclass(frozen=True)
class Person:
    """Whom the answer is for. `who`: self | child | parent | spouse | sibling; ages in years (months
    and days kept for infants, whose doses go by month); None where the post does not say."""

    who: str = "self"
    age_years: float | None = None
    age_months: float | None = None
    sex: str | None = None
    pregnant: bool | None = None
    pregnancy_week: int | None = None
    breastfeeding: bool | None = None
    weight_kg: float | None = None
    role_word: str = ""          # the word the post used ("딸", "엄마"), for the answer's wording
    infant_words: bool = False   # 아기/분유 ... said of the patient, no age given

    @property
    def population(self) -> tuple[str, ...]:
        """The focus populations (yaksa.lexicon.focus) this person belongs to, the age group first."""
        groups: list[str] = []
        months = self.age_months if self.age_months is not None else (
            self.age_years * 12 if self.age_years is not None else None)
        if months is not None and months < INFANT_MONTHS:
            groups.append("infant")
        elif self.age_years is not None and self.age_years < ADULT_AGE:
            groups.append("child")
        elif months is None and self.who == "child":
            groups.append("infant" if self.infant_words else "child")
        elif (self.age_years is not None and self.age_years >= ELDERLY_AGE) or self.role_word in _ELDERLY_ROLES:
            groups.append("elderly")
        else:
            groups.append("adult")
        if self.pregnant:
            groups.append("pregnant")
        if self.breastfeeding:
            groups.append("breastfeeding")
        return tuple(groups)

    def describe(self) -> str:
        """Korean words for the person ("6세 여아", "임신 12주 여성", "29세 여성"), for the answer and prompt."""
        parts: list[str] = []
        if self.age_months is not None and self.age_months < 24:
            parts.append(f"생후 {self.age_months:g}개월" if self.age_months >= 1
                         else f"생후 {round(self.age_months * DAYS_PER_MONTH):d}일")
        elif self.age_years is not None:
            parts.append(f"{self.age_years:g}세")
        if self.pregnant:
            parts.append(f"임신 {self.pregnancy_week}주" if self.pregnancy_week else "임신 중")
        if self.breastfeeding:
            parts.append("수유 중")
        noun = {"male": "남성", "female": "여성"}.get(self.sex or "", "")
        if self.who == "child":
            noun = {"male": "남아", "female": "여아"}.get(self.sex or "", "아이")
        elif self.who != "self":
            noun = self.role_word or noun
        if noun:
            parts.append(noun)
        if self.weight_kg is not None:
            parts.append(f"체중 {self.weight_kg:g}kg")
        return " ".join(parts)

    def to_json(self) -> dict[str, Any]:
        return {"who": self.who, "age_years": self.age_years, "age_months": self.age_months, "sex": self.sex,
                "pregnant": self.pregnant, "pregnancy_week": self.pregnancy_week,
                "breastfeeding": self.breastfeeding, "weight_kg": self.weight_kg,
                "population": list(self.population)}


@dataclass(frozen=True)
class Question:
    """One asked sentence and what can answer it: `medicine` (a drug label), `care` (a doctor: cause,
    diagnosis, department, tests), `other` (neither cue: searched as today)."""

    text: str
    kind: str

    def to_json(self) -> dict[str, str]:
        return {"text": self.text, "kind": self.kind}


@dataclass(frozen=True)
class PostReading:
    """What a message asks and about whom. `long` is False for a short question: nothing else is read
    but whether it asks only for the cause of a complaint (`asks_cause`, `asks_only_the_cause`)."""

    text: str
    long: bool
    sentences: tuple[str, ...] = ()
    questions: tuple[Question, ...] = ()
    person: Person = field(default_factory=Person)
    symptoms: tuple[str, ...] = ()        # efficacy terms the post says the person has
    denied: tuple[str, ...] = ()          # symptoms it says they do not have ("열은 없어요")
    medicines: tuple[str, ...] = ()       # drug words the post names (as written)
    tried: tuple[str, ...] = ()           # medicines/remedies already taken or used
    conditions: tuple[str, ...] = ()      # conditions and allergies, from the turn's slots
    slots: tuple[SlotItem, ...] = ()      # the regex facts of the patient's sentences
    asks_cause: bool = False              # a short question asking only the cause, naming no medicine
    unlisted: tuple[str, ...] = ()        # of `medicines`, those no product of the data answers for

    @property
    def medicines_in_data(self) -> tuple[str, ...]:
        """The medicines named that a label can speak to (`medicines` without the `unlisted` ones)."""
        return tuple(m for m in self.medicines if m not in self.unlisted)

    @property
    def population(self) -> tuple[str, ...]:
        return self.person.population if self.long else ()

    @property
    def care_only(self) -> bool:
        """Every question needs a doctor, none a drug label: the data cannot answer this post."""
        return self.long and bool(self.questions) and all(q.kind == "care" for q in self.questions)

    @property
    def care_questions(self) -> tuple[str, ...]:
        return tuple(q.text for q in self.questions if q.kind == "care")

    def search_query(self) -> str:
        """What to search for a long post: the medicine questions (else every question, else the last
        sentence), the drugs it names, its symptoms and who it is for (pregnancy and age group words
        that the label sections use), within MAX_QUERY_CHARS. The message itself when it is short."""
        if not self.long:
            return self.text
        asked = [q.text for q in self.questions if q.kind == "medicine"] or \
                [q.text for q in self.questions if q.kind == "other"] or \
                [q.text for q in self.questions] or list(self.sentences[-1:])
        extra = [m for m in self.medicines if not any(m in a for a in asked)]
        extra += [s for s in self.symptoms if not any(s in a for a in asked)]
        extra += [_POPULATION_WORDS[g] for g in self.population if g in _POPULATION_WORDS]
        query = " ".join([*asked, *extra])
        if len(query) > MAX_QUERY_CHARS:
            tail = " ".join(extra)
            query = f"{' '.join(asked)[: max(MAX_QUERY_CHARS - len(tail) - 1, 80)]} {tail}".strip()
        return query.strip() or self.text

    def facts(self) -> str:
        """The facts as Korean lines for the generator's prompt (the LLM path) and the trace."""
        if not self.long:
            return ""
        lines = [f"- 누구에 대한 질문: {_WHO_KO[self.person.who]}"
                 + (f" ({self.person.describe()})" if self.person.describe() else "")]
        if self.questions:
            lines.append("- 물은 것: " + " / ".join(q.text for q in self.questions))
        if self.symptoms:
            lines.append("- 증상: " + ", ".join(self.symptoms))
        if self.denied:
            lines.append("- 없다고 한 증상: " + ", ".join(self.denied))
        if self.conditions:
            lines.append("- 질환/알레르기: " + ", ".join(self.conditions))
        if self.medicines:
            lines.append("- 글에 나온 약: " + ", ".join(self.medicines))
        if self.tried:
            lines.append("- 이미 먹거나 써 본 것: " + ", ".join(self.tried))
        if self.care_questions:
            lines.append("- 허가 정보로 답할 수 없는 질문(진료 필요): " + " / ".join(self.care_questions))
        return "\n".join(lines)

    def profile_words(self) -> str:
        """The person as profile words the label cautions use (임신, 수유, 고령자 ...), for the answer."""
        return population_profile_words(self.population) if self.long else ""

    def to_json(self) -> dict[str, Any]:
        return {"long": self.long, "sentences": len(self.sentences),
                "questions": [q.to_json() for q in self.questions], "person": self.person.to_json(),
                "symptoms": list(self.symptoms), "denied": list(self.denied), "medicines": list(self.medicines),
                "tried": list(self.tried), "conditions": list(self.conditions), "care_only": self.care_only}


_CAUTION_WORDS = {"pregnant": "임신", "breastfeeding": "수유", "elderly": "고령자", "infant": "영아", "child": "소아"}


def youngest_stated_months(text: str) -> float | None:
    """The youngest age the message states, in months ("3개월 아기" 3, "생후 10주" 2.3, "5살" 60); None when it
    states none. Read by the answer's youngest-dose note (`yaksa.llm.offline.youngest_dose`) with the same
    age patterns the post reader uses, so a short question and a long post read one age the same way."""
    months = [m if m is not None else y * 12 for sentence in split_sentences(text)
              for _, _, y, m in _ages(sentence) if m is not None or y is not None]
    return min(months, default=None)


def population_profile_words(population: Sequence[str]) -> str:
    """Population groups ("pregnant", "elderly") as the profile words label cautions use ("임신, 고령자"):
    a short question names its person too ("임신 20주인데 타이레놀 먹어도 되나요?")."""
    return ", ".join(_CAUTION_WORDS[g] for g in population if g in _CAUTION_WORDS)


_POPULATION_WORDS = {**CAREFUL_STATE_WORDS, "infant": "영아", "child": "어린이", "elderly": "고령자"}
_WHO_KO = {"self": "글쓴이 본인", "child": "글쓴이의 아이", "parent": "글쓴이의 부모", "spouse": "글쓴이의 배우자",
           "sibling": "글쓴이의 형제자매"}


def is_long(text: str) -> bool:
    """Longer than a short question: more than LONG_POST_CHARS characters or LONG_POST_SENTENCES sentences."""
    return len(text) > LONG_POST_CHARS or len(split_sentences(text)) > LONG_POST_SENTENCES


def split_sentences(text: str) -> list[str]:
    """Sentences of a post, by punctuation and by spoken endings followed by a space."""
    out: list[str] = []
    for piece in _BOUNDARY.split(text):
        piece = (piece or "").strip()
        if not piece:
            continue
        if _ONLY_MARKS.match(piece) and out:
            out[-1] += piece
        else:
            out.append(piece)
    return out


# a short question that asks only what is wrong: the cause or the name of an illness ("입냄새가 심한데 원인은
# 무엇일까요?"), which a doctor's examination answers and no drug label does
_CAUSE = re.compile(r"원인|무슨\s*병|어떤\s*병|병인가|병일까|병인지"
                    # "왜일까요?", "왜 그럴까요" (a real post's sudden headache, worse on bending, got painkillers' doses)
                    r"|왜\s*(?:이런|그런|이러|그러|그럴|이럴|자꾸|일까|인가|인지|그래|이래|그렇|이렇)"
                    # whether or where to see a doctor: "병원가야하나요? 어느병원에 가야할까요?" (a real post on a lump
                    # in a man's chest got naproxen's doses)
                    r"|병원(?:에|을)?\s*(?:가야|가\s*봐야|가봐야)|(?:어느|무슨|어떤|몇)\s*(?:병원|과)(?:에|로|를|을)?\s*(?:가|진료)"
                    # "어디 병원을 가봐야되는건가요?" (a real post on chest tightness for 4 days got "no data"), and whether
                    # it is normal: "심박수를 확인해보니 80이나왔는데 정상인걸까요?" (a suppository's dose, a cream's, a gel's)
                    r"|어디\s*병원|정상(?:인가|인\s*(?:걸까|건가|거죠|거예요|지)|일까|이에요|이죠|인가요|이\s*아닌)"
                    r"|이유(?:가|는|를|\s*(?:뭘|뭔|무엇|알))"
                    # "이 증상이 심장병 초기증상인가요?": the name of an illness, asked (got naproxen's doses)
                    r"|증상(?:인가|일까|인지|이\s*아닐까)|(?:질환|질병|[가-힣]병|[가-힣]암)(?:인가|일까|인지|이\s*아닐까)")


def asks_only_the_cause(question: str, linker: Linker | None = None) -> bool:
    """A short question asking for the cause or the name of an illness and naming no medicine (no
    drug word, taking, dosing or applying; with `linker`, no product or ingredient it knows): the
    drug labels cannot answer it."""
    return not is_long(question) and question_kind(question, linker) != "medicine" and bool(_CAUSE.search(question))


# a textbook or exam question: a short one ending in the abstract noun it asks for ("지역사회 간호진단 시
# 우선순위 결정 기준은?", "영아의 대천문이 닫히는 시기는?", "방어기제 중 합리화의 예로 옳은 것은?"). With no drug,
# symptom or drug class named, a label that shares a word with it ("진단", "기준") answers none of it: found as a
# user on 2026-11-30, the first got an ibuprofen syrup's side effects and an inhalation solution's dosing
_TEXTBOOK = re.compile(r"(?:것|점|시기|기준|특징|목적|종류|요인|역할|기능|정의|단계|내용|의미|장점|단점|차이|순서|조건"
                       r"|대상|항목|요소|지표|이유|기전|원리|구성|분류|과업|유형|원칙|예)(?:은|는)\s*\?*\s*$")


def in_a_textbooks_form(question: str) -> bool:
    """A short question in a textbook's or an exam's form (`_TEXTBOOK`: "…의 장점으로 옳은 것은?")."""
    return not is_long(question) and bool(_TEXTBOOK.search(question))


def asks_like_a_textbook(question: str, linker: Linker | None = None) -> bool:
    """A short question in a textbook's or an exam's form (`in_a_textbooks_form`) that names no medicine."""
    return in_a_textbooks_form(question) and question_kind(question, linker) != "medicine"


def question_kind(sentence: str, linker: Linker | None = None) -> str:
    """medicine | care | other (see `Question`); a drug the sentence names makes it a medicine question.
    A medicine only as the condition for care ("약먹어도 효과가 없으면 대학병원가서 심장검사 받아보라는데
    그래야 되는건지") asks about the care, not the medicine."""
    if linker is not None and linker(sentence).mentions:
        return "medicine"
    if _DIAGNOSIS_ASKED.search(sentence):
        return "care"
    if _MEDICINE.search(_IF_MEDICINE_FAILS.sub(" ", sentence)):
        return "medicine"
    return "care" if _CARE.search(sentence) else "other"


# a question mark that describes rather than asks: a hedge ("두개 뼈라고 할까요", "찌르는 느낌이랄까요") or a word
# left open mid-description ("귀밑 목 선? 위쪽에 혹이", "왼쪽 가슴?심장?이", "30분정도?"): a bare word before the mark
# and no other question cue. 264 sentences of the shared long posts end so; read as questions, they kept a label
# answer for a post whose real questions were all a doctor's (a neck lump: "병원에 가야할까요")
_HEDGE = re.compile(r"(?:이?라고\s*(?:해야\s*)?할까요?|이?랄까요?|다고\s*할까요?)\s*[?.]*$")
_BARE_WORD_MARK = re.compile(r"(?P<last>[가-힣])\s*\?+$")
_ENDING_SYLLABLES = frozenset("요여용욤까나지죠니냐래가는데고며면서다야어아게해")
_QUESTION_WITHOUT_MARK = re.compile(_QUESTION.pattern.replace(r"\?(?![가-힣])|", "", 1))
# ... but a bare word asked about is a question said short: "눈충혈 치료법?", "정형외과 물리치료 어떤것 ?"
# (near the mark, and not 몇 or 무슨: "몇초?", "코안에 무슨 막대기?" describe)
_ASKING_WORD = re.compile(r"어[떻덯]|어떤|어느|뭐|무엇|언제|어디|얼마|왜|치료법|방법|원인|이유(?!\s*없)|병명|용량|부작용")
_ASKING_REACH = 12   # characters before the mark


# "V-(으)ㄴ지 N 됐다" says how long since (담배는 끊은지 3년 됐습니다, 약을 먹은지 일주일이 지났는데): its 은지/는지 is no
# question. 23 sentences of the shared long posts asked nothing else (read 2026-12-01); one, a post on blood in the
# stool ("내시경 … 안받은지 2년가량 지났구요"), kept labels after the urgent advice for it
_SINCE = re.compile(r"(?<![어무누])[ㄴ은는]?지\s*(?:벌써\s*|꽤\s*|약\s*|거의\s*|이제\s*|한\s*)?(?:\d+|한|두|세|네|몇|반|일주|보름|오래)"
                    r"\s*(?:년|개월|달|주|일|시간|분|주일)?[^?]{0,8}?(?:지났|됐|됬|되었|넘었|째|되어|돼|되는데|지나|만에)")


# "perhaps because" and "I thought it was": "이거때문인지 머리가 울리고", "그래서인지", "알레르기 천식인가 했는데" tell,
# not ask (a real post on chest tightness had four such "questions" and got antihistamines' cautions)
# "A인지 B인지" followed by what happened, not by a word of wondering, tells too: "스테로이드 부작용인지 레이져 부작용인지
# 얼굴에 홍조가 심해졌는데요" (a post on flushing that asked about a tretinoin cream got four labels' side effects)
_TOLD = re.compile(r"(?:때문|탓|그래서|그런지|어째서)\s*인지(?!\s*(?:$|[?.!~ㅠㅜ]|궁금|모르|알))"
                   r"|(?:인가|일까|건가)\s*(?:했|싶었|해서|하고|하다)"
                   r"|인지\s+[^?.!]{1,20}?인지\s+(?=[가-힣])(?!(?:잘\s*|정확히\s*)?(?:궁금|궁급|모르|몰|알|걱정|헷갈|구분|확인|여쭙|물어"
                   r"|어떻|어떡|어디|판단|판별|문의|듣고|아니면|아님|정확))")


def _asks(sentence: str) -> bool:
    """Whether a sentence asks something (`_QUESTION`), a "since" clause (`_SINCE`) or a guess told (`_TOLD`) aside."""
    return bool(_QUESTION.search(_TOLD.sub(" ", _SINCE.sub(" ", sentence))))


# an explaining ending said with a rising mark: "옻물을 한달간 4병이나 먹었거든요?", "정상이라그랬거든요?"
_EXPLAINING_MARK = re.compile(r"(?:거든요|더라구요|더라고요|잖아요|는데요)\s*\?+$")


def _describes(sentence: str) -> bool:
    """The sentence's question mark or "할까요" describes (`_HEDGE`, `_BARE_WORD_MARK`, `_EXPLAINING_MARK`), asks
    nothing."""
    s = sentence.strip()
    if _EXPLAINING_MARK.search(s):
        return not _QUESTION_WITHOUT_MARK.search(_EXPLAINING_MARK.sub("", s))
    if _HEDGE.search(s):
        return not _QUESTION_WITHOUT_MARK.search(_HEDGE.sub("", s))
    bare = _BARE_WORD_MARK.search(s)
    return (bool(bare) and bare.group("last") not in _ENDING_SYLLABLES and not _QUESTION_WITHOUT_MARK.search(s)
            and not _ASKING_WORD.search(s[-_ASKING_REACH:]))


# two questions joined in one sentence: "이부프로펜으로 바꿔서 먹어도 되는지 궁금하고, 계속 이러면 어떤 병명인지 무슨 과에
# 가봐야 하는지도 알려주세요" asks a medicine's question and a doctor's; read whole, it was one medicine question and the
# doctor's went unanswered. Split at a comma after a joining 고/며, or after "궁금하고", when each part asks and the
# parts ask both a medicine's question and a doctor's (other joined questions are read whole, as before).
_JOINED_QUESTIONS = re.compile(r"(?<=[고며]),\s*|(?<=궁금하고|궁금하며)\s+")


def _asked(sentence: str, linker: Linker | None) -> list[Question]:
    """The sentence's questions: one per part when it joins a medicine question and a care question
    (`_JOINED_QUESTIONS`), else the sentence as one."""
    parts = [p.strip() for p in _JOINED_QUESTIONS.split(sentence) if p.strip()]
    if len(parts) > 1 and all(_asks(p) for p in parts):
        split = [Question(p, question_kind(p, linker)) for p in parts]
        if {"medicine", "care"} <= {q.kind for q in split}:
            return split
    return [Question(sentence, question_kind(sentence, linker))]


def _questions(sentences: Sequence[str], linker: Linker | None) -> tuple[Question, ...]:
    found = []
    for s in sentences:
        if _asks(s) and not _CLOSING.match(s.strip()) and not _describes(s):
            found.extend(_asked(s, linker))
    return tuple(found)


# a child born or carried, the object of the writer's pregnancy ("3월에 아이를 출산한 적이 있는데요", "아이를 임신했을 때"):
# no subject of the sentence (a mother's post on her own dizziness was sent to a paediatrician)
_BEGOTTEN = re.compile(r"\s*(?:출산|낳|임신|가졌|갖|유산|입양)")


def _begotten(sentence: str, m: re.Match[str]) -> bool:
    return m.group(0).endswith(("를", "을")) and _BEGOTTEN.match(sentence, m.end()) is not None


def _owner(sentence: str, previous: tuple[str, str]) -> tuple[str, str]:
    """(who, role word) the sentence is about: a role as its subject, else the writer when the writer
    speaks of themselves, else the previous sentence's (Korean drops the subject)."""
    writer_role = _WRITER_ROLE.search(sentence)
    for m in _ROLE_SUBJECT.finditer(sentence):
        word = m.group("role") or m.group("role2")
        if writer_role and writer_role.start() <= m.start() < writer_role.end():
            continue   # "아기 엄마입니다": the writer's own role
        if _begotten(sentence, m):
            continue
        if word in ROLE_WORDS and not (writer_role and word in writer_role.group(0)):
            return ROLE_WORDS[word], word
    if (child := _CHILD_COPULA.search(sentence)) and not (writer_role and writer_role.start() <= child.start()
                                                           < writer_role.end()):
        return "child", child.group("role")
    if writer_role or _WRITER.search(sentence):
        return "self", ""
    return previous


def _bound_age(sentence: str, start: int, end: int) -> str | None:
    """The role word an age phrase is bound to ("6살 딸", "딸이 5살", "9개월 된 아기"), or None."""
    after = sentence[end:end + 12]
    m = re.match(rf"\s*(?:된|짜리|난|인|먹은)?\s*(?P<r>{_ROLE})", after)
    if m:
        return m.group("r")
    before = sentence[max(0, start - 12):start]
    m = re.search(rf"(?P<r>{_ROLE}){_SUBJECT_PARTICLE}?\s*(?:올해\s*|이제\s*|지금\s*|나이\s*)?$", before)
    return m.group("r") if m else None


# --- whose facts: what the profile memory keeps for whom -----------------------------------------
_BARE_ROLE = re.compile(rf"(?<![가-힣])(?P<role>{_ROLE})(?![가-힣])")


def _markers(sentence: str) -> list[tuple[int, str]]:
    """(position, who) of every subject the sentence names: a role as subject, or the writer."""
    writer_role = _WRITER_ROLE.search(sentence)
    found: list[tuple[int, str]] = []
    for m in _ROLE_SUBJECT.finditer(sentence):
        word = m.group("role") or m.group("role2")
        inside = writer_role is not None and writer_role.start() <= m.start() < writer_role.end()
        if word in ROLE_WORDS and not inside and not _begotten(sentence, m):
            found.append((m.start(), ROLE_WORDS[word]))
    if writer_role:
        found.append((writer_role.start(), "self"))
    found.extend((m.start(), "self") for m in _WRITER.finditer(sentence))
    return sorted(found)


def _sentence_subject(sentence: str) -> str | None:
    """Whom one sentence is about, or None when it does not say: a role or the writer as its subject
    (`_owner`), the writer doing what only a grown-up does ("술 먹고", "담배"), a child being fed ("먹여요",
    "먹일"), or a role word standing alone ("5살 아이 해열제")."""
    who, _ = _owner(sentence, ("", ""))
    if who:
        return who
    if _ADULT_DOINGS.search(sentence):
        return "self"
    if _FEEDING.search(sentence):
        return "child"
    bare = [ROLE_WORDS[m.group("role")] for m in _BARE_ROLE.finditer(sentence)
            if not _WRITER_ROLE.match(sentence, m.start())]
    return bare[0] if bare else None


def message_subject(text: str) -> str | None:
    """Whom a message is about: a relative it speaks of (the one named most), "self" when the writer
    speaks only of themselves, None when it does not say ("하루에 몇 번 먹어요?": the conversation's
    person so far)."""
    said = [who for s in split_sentences(text) or [text] if (who := _sentence_subject(s))]
    relatives = [w for w in said if w != "self"]
    if relatives:
        return max(dict.fromkeys(relatives), key=relatives.count)
    return "self" if said else None


_WRITER_EN = re.compile(r"\b(?:I|I'm|I've|my|me)\b", re.IGNORECASE)
# a group asked about, not a person described: "임산부도 먹어도 돼요?" (not "임산부인데", "제가 임산부라서")
_GROUP_ASKED = re.compile(r"^(?:임산부|임부|수유부)$")
_GROUP_PARTICLE = re.compile(r"\s*(?:도|는|은|가|이|한테|에게|의|용|들)(?![가-힣]*(?:예요|이에요|입니다|인데|이고))")


def attribute_slots(text: str, slots: Sequence[SlotItem], default: str = "self", *,
                    subject: str | None = None) -> tuple[SlotItem, ...]:
    """The facts among `slots` about someone, with `about` set to whom, so the profile memory keeps a
    child's age apart from the writer's. A fact goes to the subject named last before it in its sentence
    ("저는 35세고 아이는 5살이에요"), an age or sex to the role it is bound to ("5살 아이", "6살 된 아들"), a
    pregnancy or nursing to the writer unless a spouse's or parent's; a fact whose sentence names no
    one goes to the message's subject, else to `default` (the conversation's person so far). A group
    asked about ("임산부도 먹어도 돼요?") or a disease asked about in general ("고혈압 증상이 뭐예요?") is no
    fact about anyone and is left out. `subject`: the message's subject when the caller has it already
    (the turn's analysis reads it once), read here otherwise."""
    sentences = split_sentences(text) or [text]
    subject = subject or message_subject(text) or default
    out: list[SlotItem] = []
    for item in slots:
        about = subject
        home = next((s for s in sentences if item.text and item.text in s), None)
        if home is not None and not _WRITER.search(home) and not _WRITER_EN.search(home):
            start = home.index(item.text)
            after = start + len(item.text)
            if _GROUP_ASKED.match(item.text) and _GROUP_PARTICLE.match(home, after):
                continue
            if item.slot_type == "conditions" and (ASKS_ABOUT_A_DISEASE.match(home[after:])
                                                   or ASKS_ABOUT_A_DISEASE_EN.search(home[:start])):
                continue
        if home is not None:
            at = home.index(item.text)
            before = [who for pos, who in _markers(home) if pos <= at]
            about = before[-1] if before else (_sentence_subject(home) or subject)
            if item.slot_type == "demographics" and (bound := _bound_age(home, at, at + len(item.text))):
                about = ROLE_WORDS[bound]
            elif item.name == "gender" and (role := _BARE_ROLE.search(item.text)):
                about = ROLE_WORDS[role.group("role")]
        if item.name in ("pregnancy", "breastfeeding") and about not in ("spouse", "parent", "sibling"):
            about = "self"    # "모유수유 중인데 아기가 …": the writer nurses, not the child
        out.append(item if item.about == about else dataclasses.replace(item, about=about))
    return tuple(out)


@dataclass
class _Facts:
    age_years: float | None = None
    age_months: float | None = None
    sex: str | None = None
    pregnant: bool | None = None
    week: int | None = None
    nursing: bool | None = None
    weight: float | None = None
    role_word: str = ""
    infant_words: bool = False
    slots: list[SlotItem] = field(default_factory=list)


def _ages(sentence: str) -> list[tuple[int, int, float | None, float | None]]:
    """(start, end, years, months) of each age phrase in the sentence."""
    found = []
    for m in _AGE_YEARS_MONTHS.finditer(sentence):
        months = int(m.group("y")) * 12 + int(m.group("m"))
        found.append((m.start(), m.end(), round(months / 12, 2), float(months)))
    for m in _AGE_DAYS.finditer(sentence):
        days = int(m.group("n") or m.group("m"))
        found.append((m.start(), m.end(), None, round(days / DAYS_PER_MONTH, 2)))
    for m in _AGE_WEEKS.finditer(sentence):
        weeks = int(m.group("n") or m.group("m"))
        found.append((m.start(), m.end(), None, round(weeks / WEEKS_PER_MONTH, 2)))
    for m in _AGE_MONTHS.finditer(sentence):
        months = int(m.group("n"))
        if 0 < months <= 36:
            found.append((m.start(), m.end(), round(months / 12, 2), float(months)))
    for m in _AGE_YEARS.finditer(sentence):
        years = int(m.group("n") or m.group("m"))
        if 0 < years <= 120:
            found.append((m.start(), m.end(), float(years), None))
    for m in AGE_IN_WORDS.finditer(sentence):
        found.append((m.start(), m.end(), float(KOREAN_NUMBERS[m.group("w")]), None))
    for pattern, months in DOL_MONTHS:
        for m in pattern.finditer(sentence):
            found.append((m.start(), m.end(), round(months / 12, 2), months))
    for m in _SCHOOL.finditer(sentence):
        base = {"초": 6, "중": 13, "고": 16}[m.group("k")]
        found.append((m.start(), m.end(), float(base + int(m.group("n")) - 1), None))
    for m in _SCHOOL_WORD.finditer(sentence):
        found.append((m.start(), m.end(), float(_SCHOOL_AGE[m.group("w")]), None))
    for m in _DECADE.finditer(sentence):
        years = int(m.group("n")) if m.group("n") else _DECADE_WORDS[m.group("w")]
        found.append((m.start(), m.end(), float(years + 5), None))
    return sorted(found, key=lambda f: (f[0], -f[1]))   # of two at one start, the longer ("4살 6개월", not "4살")


def _read_facts(sentences: Sequence[str], owners: Sequence[tuple[str, str]]) -> dict[str, _Facts]:
    """Facts per person (who), each sentence's facts going to its owner, bound ages to their role."""
    facts: dict[str, _Facts] = {}

    def of(who: str) -> _Facts:
        return facts.setdefault(who, _Facts())

    for sentence, (who, word) in zip(sentences, owners):
        f = of(who)
        if word and not f.role_word:
            f.role_word = word
        taken: list[tuple[int, int]] = []
        for start, end, years, months in _ages(sentence):
            if any(s <= start < e for s, e in taken):
                continue
            taken.append((start, end))
            bound = _bound_age(sentence, start, end)
            target = of(ROLE_WORDS[bound]) if bound else f
            if bound and not target.role_word:
                target.role_word = bound
            if target.age_years is None and target.age_months is None:
                target.age_years, target.age_months = years, months
        for word_m in re.finditer(_ROLE, sentence):
            role = ROLE_WORDS[word_m.group(0)]
            sex = _ROLE_SEX.get(word_m.group(0))
            writer_role = _WRITER_ROLE.match(sentence, word_m.start())
            target = of("self") if writer_role else of(role)
            if sex and target.sex is None:
                target.sex = sex
        if _INFANT_WORDS.search(sentence) and who == "child":
            f.infant_words = True
        if f.sex is None:
            if _FEMALE.search(sentence):
                f.sex = "female"
            elif _MALE.search(sentence):
                f.sex = "male"
        week = _PREGNANCY_WEEK.search(sentence)
        for item in regex_slots(sentence):
            if item.name in ("pregnancy", "breastfeeding"):
                # pregnancy and nursing are the writer's (or the spouse's), never a child's
                target = f if who in ("self", "spouse") else of("self")
                if item.name == "pregnancy":
                    target.pregnant = item.value == "yes" if target.pregnant is not False else False
                    if item.value == "yes" and week:
                        target.week = int(week.group("n") or week.group("m"))
                else:
                    target.nursing = item.value == "yes" if target.nursing is not False else False
                f.slots.append(item)
            elif item.name == "weight" and f.weight is None:
                f.weight = float(item.value)  # type: ignore[arg-type]
                f.slots.append(item)
            elif item.slot_type in ("vitals", "labs", "conditions"):
                f.slots.append(item)
        if week and f.pregnant is None and who in ("self", "spouse"):
            f.pregnant, f.week = True, int(week.group("n") or week.group("m"))
    return facts


def _patient(questions: Sequence[Question], sentences: Sequence[str], owners: Sequence[tuple[str, str]],
             facts: dict[str, _Facts]) -> str:
    """Whose post it is: the owner of the question sentences (a relative wins over the writer, who asks
    for them), else the relative the post speaks about most, else the writer."""
    owner_of = dict(zip(sentences, owners))
    asked = [owner_of[q.text][0] for q in questions if q.text in owner_of]
    relatives = [w for w in asked if w != "self"]
    if relatives:
        return max(set(relatives), key=relatives.count)
    if asked and any(_FEEDING.search(q.text) for q in questions):
        return "child"   # "먹여도 되나요", "먹여야 하나요": the writer gives it to someone, a child
    if asked:
        return "self"
    others = [w for w, _ in owners if w != "self"]
    return max(set(others), key=others.count) if others else "self"


def _symptoms(sentences: Sequence[str], named: Callable[[str], tuple[str, ...]]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(symptoms said, symptoms denied), clause by clause: "고열 복통 두통은 전혀 없고" denies three."""
    said: list[str] = []
    denied: list[str] = []
    for sentence in sentences:
        for clause in _CLAUSE.split(sentence):
            if not clause or not clause.strip():
                continue
            terms = named(clause)
            if _NO_FEVER.search(clause):   # "열은 없어요": no symptom pattern says 열 without 나다/있다
                denied.append("발열")
            if not terms:
                continue
            (denied if _NEGATED.search(clause) else said).extend(terms)
    said = list(dict.fromkeys(said))
    return tuple(said), tuple(t for t in dict.fromkeys(denied) if t not in said)


def _tried(sentences: Sequence[str], mentions: Sequence[str]) -> tuple[str, ...]:
    """Medicines and remedies the post says were already taken or used: a drug it names in a sentence
    that says so, or a "…약/…제/…시럽" word before 먹였/먹었/발랐 …; a question is no report. A sentence telling
    that a medicine did not help says it was taken ("요즘은 타이레놀을 먹어도 효과가 없어요": `says_it_did_not_work`)."""
    found: list[str] = []
    for s in sentences:
        told_no_better = says_it_did_not_work(s) is not None
        asks_whether_to = _QUESTION.search(s) and re.search(r"(?:먹어도|먹여도|발라도|써도)", s)
        if not told_no_better and (not _TRIED.search(s) or asks_whether_to):
            continue
        found.extend(m for m in mentions if m in s)
        found.extend(m.group("w") for m in _TRIED_THING.finditer(s))
    return tuple(dict.fromkeys(w for w in found if len(w) >= 2))


# a medicine said to be no habit, right after it: "카페인은 거의 섭취하지 않는 편입니다", "술, 카페인 안 마셔요"
# (habits' verbs only: "타이레놀은 아직 안 먹었어요" is followed by asking whether to take it)
_NOT_TAKEN_AFTER = re.compile(r"^[^.?!\n]{0,12}?(?:(?:섭취|마시|하)\s*(?:하)?지\s*(?:않|안)"
                              r"|안\s*(?:마시|마셔|하|해|합)|못\s*(?:마시|마셔)|끊었|끊은\s*지|입에\s*(?:안|대지))")
NOT_TAKEN_REACH = 25   # characters after the medicine within which it is said not to be taken


def _not_taken(sentences: Sequence[str], mention: str) -> bool:
    """Whether every sentence naming `mention` says it is not taken ("음주,흡연은 전혀 하지 않고 카페인은 거의 섭취하지
    않는 편입니다"): a medicine named only as what the writer avoids is not one the post is about (a post on chest
    tightness got a caffeine tablet's uses and dose). A sentence asking about it ("타이레놀은 안 먹는 게 좋나요?") keeps it."""
    said = [s for s in sentences if mention in s]
    return bool(said) and not any(_QUESTION.search(s) for s in said) and all(
        _NOT_TAKEN_AFTER.search(s[i + len(mention): i + len(mention) + NOT_TAKEN_REACH]) is not None
        for s in said for i in [s.index(mention)])


def read_post(text: str, linker: Linker | None = None, slots: Sequence[SlotItem] = (),
              named_symptoms: Callable[[str], tuple[str, ...]] | None = None) -> PostReading:
    """The reading of one message (module doc). `linker` is the bundle's `DrugCatalog.link` (drug
    mentions; None: none are found), `slots` the turn's extracted slots (their conditions are kept),
    `named_symptoms` the focus rules' symptom finder (default: `yaksa.lexicon.focus.named_symptoms`)."""
    if not isinstance(text, str):
        raise TypeError(f"read_post() expects str, got {type(text).__name__}")
    text = text.strip()
    if not text:
        raise ValueError("read_post() needs a non-empty message")
    if not is_long(text):
        return PostReading(text, False, asks_cause=asks_only_the_cause(text, linker))
    if named_symptoms is None:
        from yaksa.lexicon.focus import named_symptoms as focus_symptoms  # retrieval imports extraction
        named_symptoms = focus_symptoms
    sentences = split_sentences(text)
    questions = _questions(sentences, linker)
    owners: list[tuple[str, str]] = []
    previous = ("self", "")
    for s in sentences:
        previous = _owner(s, previous)
        owners.append(previous)
    facts = _read_facts(sentences, owners)
    who = _patient(questions, sentences, owners, facts)
    f = facts.get(who, _Facts())
    writer = facts.get("self", _Facts())
    pregnant, week, nursing = f.pregnant, f.week, f.nursing
    if who == "child":   # the writer's pregnancy or nursing is not the child's
        pregnant, week, nursing = None, None, None
    person = Person(who=who, age_years=f.age_years, age_months=f.age_months, sex=f.sex,
                    pregnant=pregnant, pregnancy_week=week, breastfeeding=nursing, weight_kg=f.weight,
                    role_word=f.role_word, infant_words=f.infant_words)
    if who != "self" and writer.age_years is not None and person.age_years == writer.age_years \
            and person.age_months is None:
        person = Person(**{**person.__dict__, "age_years": None})  # never the writer's own age
    linking = linker(text) if linker is not None else None
    mentions = tuple(m for m in dict.fromkeys(linking.mentions) if not _not_taken(sentences, m)) \
        if linking is not None else ()
    unlisted = tuple(linking.absent) if linking is not None else ()
    said, denied = _symptoms(sentences, named_symptoms)
    # read clause by clause, a word loses the post's context: "인삼을 먹으면 열이 납니다" in a post on a constitution
    # that runs hot ("열이 많은 소양인") is no fever (`in_its_other_sense` over the whole post)
    from yaksa.lexicon.focus import in_its_other_sense  # retrieval imports extraction
    said = tuple(t for t in said if not in_its_other_sense(t, text, whole_message=True))
    conditions = tuple(dict.fromkeys(s.name for s in slots if s.slot_type == "conditions"))
    return PostReading(text, True, tuple(sentences), questions, person, said, denied, mentions,
                       _tried(sentences, mentions), conditions, tuple(f.slots), unlisted=unlisted)
