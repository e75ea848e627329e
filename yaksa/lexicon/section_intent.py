"""What part of a document a question asks for: the MFDS label section, or the MedQuAD question type.

Why: label sections answer different needs, and a section that merely mentions the question's words
(a side-effect list names nearly every symptom) must not outrank the section that answers it. The
searcher prefers documents of the asked sections and demotes the others (`intent_factor`).

Korean intents and the MFDS sections that answer them (primary first; secondary sections often hold
the answer too, e.g. alcohol and pregnancy warnings live in 주의사항 and in 경고):

  efficacy      어디에 쓰는 약, 두통에 먹는 약      -> 효능효과
  usage         하루에 몇 알, 어떻게 먹어요, 용량   -> 용법용량
  precautions   임신 중인데, 술 먹고, 햇빛, 먹어도 되나요 -> 주의사항, 경고
  interactions  같이 먹어도, 함께 복용              -> 상호작용 (then 주의사항)
  side_effects  부작용, 졸린가요                    -> 부작용 (then 주의사항)
  storage       보관, 냉장고                        -> 보관방법

English questions get a MedQuAD question type (information, symptoms, causes, treatment, exams and
tests, outlook, prevention, inheritance, frequency, genetic changes, susceptibility, considerations,
research, stages, complications), matched against the passages' metadata `qtype`.

Usage:
    classify_intent("임신 중인데 타이레놀 먹어도 되나요").name    # "precautions"
    classify_intent("What are the symptoms of Gout ?").sections  # ("symptoms",)
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

ASKS_SIDE_EFFECTS = re.compile(r"부작용|이상반응|side effects?|adverse", re.IGNORECASE)

# MFDS section_key -> the label shown in Document.section (yaksa.corpus.mfds_easy_drug.SECTIONS)
SECTION_LABELS: dict[str, str] = {
    "efficacy": "효능효과", "usage": "용법용량", "warning": "경고", "precautions": "주의사항",
    "interactions": "상호작용", "side_effects": "부작용", "storage": "보관방법",
}

# intent -> (primary sections, secondary sections)
KO_SECTIONS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "efficacy": (("efficacy",), ("usage",)),
    "usage": (("usage",), ("precautions",)),
    "precautions": (("precautions", "warning"), ("usage",)),
    "interactions": (("interactions",), ("precautions", "warning")),
    "side_effects": (("side_effects",), ("precautions", "warning")),
    "storage": (("storage",), ()),
}

# Who or what the question is careful about: a caution question even when it names a symptom.
# 술 is alcohol, not 입술 (lips: "입술에 물집" was read as a caution question), 기술, 미술, 예술, 마술.
# "나이 들어서", "연세 드신": how people say old age (the focus reads them as elderly too)
CAUTION_CONTEXT = (r"임신|임산부|임부|수유|모유|노인|어르신|고령|나이\s*(가\s*)?(들|드)|연세|연로|노년|노령|운전|"
                   r"(?<![입기미예마])술|음주|햇빛|햇볕|자외선|주의|조심|경고|금기")

# Checked in this order; the first match is the primary intent. Specific asks (storage, side effects,
# interactions, dose) come before the broad "is it safe" cues, which almost every question carries.
KO_CUES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("storage", re.compile(r"보관|냉장|상온|실온|유통\s*기한|개봉\s*후|얼려|냉동")),
    # (dizziness alone is a complaint: "어지러워요" got a folic-acid label's side effects; "먹으면 어지러워요?" below)
    ("side_effects", re.compile(r"부작용|이상\s*반응|졸(려|린|음|리|립)|잠이\s*(와|오)|"
                                r"속이\s*쓰리(면|나|던)|생기나요|나타나|"
                                # "아스피린 먹으면 속 쓰려요?": what taking it does to you
                                # ("이부프로펜 먹고 속이 쓰려요" got ibuprofen's uses)
                                r"(먹|복용하|마시|바르|발라|붙이|써|쓰)(으면|면|고\s*나서|었더니|고\s*나니|니까|고)\s*"
                                r"(속이?\s*)?(쓰려|쓰리|아파|아프|졸|어지|메스꺼|울렁|붓|부어|가려|가렵|두드러기|"
                                r"설사|변비|살이?\s*쪄|살찌|두근|떨려|토하|구역|피부가|발진|빨개)|"
                                # "이부프로펜 먹고 코피가 나요": something came on after taking it
                                r"(먹|복용하|마시|바르|발라|붙이)(고|고\s*나서|은\s*뒤|은\s*후|었더니)\s*"
                                r"[가-힣]{1,6}(이|가)\s*(나|났|생기|생겼)")),
    ("interactions", re.compile(r"같이\s*(먹|복용|써|사용|발라)|함께\s*(먹|복용|써|사용)|병용|상호\s*작용|"
                                r"(이랑|랑|하고|와|과)\s*(같이|함께|동시에)|동시에\s*(먹|복용)|섞어|"
                                # "해열제 교차복용": two antipyretics taken in turn
                                r"교차\s*(복용|투여|해서|로|로\s*먹)|번갈아")),
    ("usage", re.compile(r"용량|용법|몇\s*(알|개|정|번|포|스푼|방울|ml|mL|미리|시간|회|장|일)|얼마나\s*(먹|자주|복용|써|발라)|"
                         r"하루에|최대|복용\s*법|먹는\s*법|어떻게\s*(먹|복용|써|사용|발라|붙여|넣)|언제\s*(먹|복용)|"
                         r"식전|식후|공복|간격|사용\s*법|바르는\s*법|복용\s*방법|사용\s*방법|몇\s*살부터|양은|얼만큼|"
                         # another dose: "먹은지 2시간 됐는데 또 먹어도 되나요?" asked when the next dose may come and
                         # got the precautions' contraindications (2026-11-30)
                         r"(먹|먹인|먹은|복용한|복용)\s*(지|고)\s*\S{1,4}\s*(시간|분)|"
                         r"(또|다시|한\s*번\s*더|추가로)\s*(먹어|먹여|복용해|드셔)\s*도")),
    ("precautions", re.compile(rf"{CAUTION_CONTEXT}|(먹어|먹여|복용해|써|발라|붙여|사용해|마셔|봐|드셔|해)도\s*(되|돼|괜찮)|"
                               r"괜찮(나|을|은|아)|안\s*되는\s*(사람|경우)|하면\s*안|간\s*(이|질환|수치)|위궤양|"
                               r"(간|위|몸|신장|콩팥|심장|뼈|눈|태아|아기)에\s*(안\s*좋|나쁘|나빠|무리|해로)|"
                               r"고혈압|당뇨|천식|신장|콩팥|아기|아이|어린이|소아|개월")),
    ("efficacy", re.compile(r"효능|효과|어디에\s*(쓰|좋|먹|사용)|뭐에\s*(쓰|좋|먹)|무슨\s*약|어떤\s*약|"
                            r"(먹는|바르는|쓰는|붙이는|뿌리는|넣는)\s*약|약\s*(있|추천|좀)|추천|듣나요|잘\s*들|"
                            r"뭐\s*먹|뭘\s*먹|낫(게|는)|치료")),
)

EN_QTYPES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("symptoms", re.compile(r"\bsymptoms?\b|\bsigns?\b", re.IGNORECASE)),
    ("causes", re.compile(r"\bcauses?\b|\bwhy do(es)?\b", re.IGNORECASE)),
    ("genetic changes", re.compile(r"\bgenetic changes?\b|\bgenes?\b.*\brelated\b|\bmutations?\b", re.IGNORECASE)),
    ("inheritance", re.compile(r"\binherit|\bpassed down\b|\bhereditary\b|\brun in famil", re.IGNORECASE)),
    ("frequency", re.compile(r"\bhow many people\b|\bhow common\b|\bfrequency\b|\bprevalen", re.IGNORECASE)),
    ("susceptibility", re.compile(r"\bat risk\b|\brisk factors?\b|\bwho gets\b|\bsusceptib", re.IGNORECASE)),
    ("exams and tests", re.compile(r"\bdiagnos|\btests?\b|\bexams?\b|\bscreen", re.IGNORECASE)),
    ("treatment", re.compile(r"\btreat|\btherap|\bcure\b|\bmedications? for\b|\bmanage", re.IGNORECASE)),
    ("prevention", re.compile(r"\bprevent|\bavoid getting\b|\breduce (the|my) risk\b", re.IGNORECASE)),
    ("outlook", re.compile(r"\boutlook\b|\bprognosis\b|\blife expectancy\b|\brecover", re.IGNORECASE)),
    ("research", re.compile(r"\bresearch\b|\bclinical trials?\b|\bstudies\b", re.IGNORECASE)),
    ("stages", re.compile(r"\bstages?\b", re.IGNORECASE)),
    ("complications", re.compile(r"\bcomplications?\b", re.IGNORECASE)),
    ("considerations", re.compile(r"\bwhat to do for\b", re.IGNORECASE)),
    ("information", re.compile(r"^\s*what (is|are)\b|\bwhat is \(are\)|\bdo you have information\b|"
                               r"\btell me about\b|\bwhat does .* mean\b", re.IGNORECASE)),
)
# The question's opening frame decides first: "What is (are) hereditary X ?" asks for information,
# though "hereditary" would read as inheritance further in.
EN_FRAMES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("information", re.compile(r"^\s*(what is \(are\)|do you have information)", re.IGNORECASE)),
    ("frequency", re.compile(r"^\s*how many people", re.IGNORECASE)),
    ("treatment", re.compile(r"^\s*what are the treatments", re.IGNORECASE)),
    ("research", re.compile(r"^\s*what research", re.IGNORECASE)),
    ("prevention", re.compile(r"^\s*how to prevent", re.IGNORECASE)),
    ("considerations", re.compile(r"^\s*what to do for", re.IGNORECASE)),
    ("outlook", re.compile(r"^\s*what is the outlook", re.IGNORECASE)),
)
HANGUL = re.compile(r"[\uac00-\ud7a3]")

# A medicine taken and no better ("변비약 먹은지 3일째인데 효과가 없어요", "타이레놀 먹었는데 두통이 안 나아요"): both got
# the product's uses, which the writer knows. What a label says for it is in its cautions: "… 복용하여도 증상이 좋아지지
# 않을 경우 복용을 중지하고 의사 또는 약사와 상의하십시오" (`NO_BETTER_IN_LABEL`). Taking and the failure are both needed:
# "효과가 없는 약도 있나요?" asks about no one's medicine.
_TAKEN = re.compile(r"(?:먹|먹여|먹이|복용|드시|드셔|발라|바르|써|쓰|뿌리|뿌려|붙이|붙여)\S{0,3}?\s*(?:지|고|도|는데|니까|봤|었|았|했|한\s*지|중)"
                    r"|먹었|먹였|복용했|복용\s*중|썼는데|발랐")
# The words of a medicine's failing, told ("효과가 없어요", "안 나아요", "호전이 없고") or supposed ("효과가 없으면", "안
# 나으면": `_SUPPOSED` after them); read here and by the long-post reader (`post_reader._IF_MEDICINE_FAILS`: a
# medicine only as the condition for going to a doctor). "안 좋아지" only supposed ("안 좋아지면"): told, "약 먹고 속이
# 안 좋아졌어요" is a side effect, not a failure
FAILURE_WORDS = (r"(?:효과|약효|차도|변화|소용|호전)\s*(?:가|는|도|이|은)?\s*(?:전혀\s*|별로\s*|하나도\s*|아무\s*)?(?:없|안\s*(?:나|보|있|되)|그닥|그다지)"
                 r"|(?:안|잘\s*안|전혀\s*안)\s*(?:들어|듣|들|낫|나아|나았|나으|좋아지(?=면)|내려|떨어|멈|그쳐|가라앉)"
                 r"|(?:나아지|좋아지|낫|듣|들|호전되)지\s*(?:가|를|는|도)?\s*않"
                 r"|그대로(?:예요|에요|입니다|네요|인데|이|고)|여전(?:합|하|해)"
                 r"|(?:계속|여전히|아직도?)\s*(?:[가-힣]+(?:이|가|은|는)\s+)?(?:돼|되[고요네는었]|됩|나[요고네와]|아파|아프|있어|있네|있습|그래|그러)")
_NO_BETTER = re.compile(FAILURE_WORDS)
# a label's line on when to stop and ask, for the reader whose medicine did not help: what to do when it does not
# ("증상의 개선이 없을 경우 복용을 즉각 중지하고", "5~6회 복용하여도 … 나타나지 않을 경우", "지시없이 통증에 10일 이상") ...
_LABEL_NO_BETTER = (r"(?:좋아지|개선되|나아지|낫)지\s*않|개선(?:이|은)?\s*(?:없|되지)|효과가\s*없|(?:배변|변통)(?:이)?\s*없"
                    r"|나타나지\s*않을\s*경우|지시\s*없이[^.]{0,40}?이상|(?:지속|계속)(?:되|될)\s*(?:경우|때)")
# ... and how long not to go on using it ("장기간 사용하지 마십시오", "1주일 이상 계속 사용하지 마십시오", "7일 이상 계속하여
# 사용하지 마십시오": an ointment used for a week that did not help got its contraindications and dose; 132 of the 491
# labels' cautions hold one of these lines, 120 before, 2026-12-02)
_LABEL_NOT_FOR_LONG = (r"장기간\s*(?:계속\s*(?:하여|해서)?\s*)?(?:연용|사용|복용|투여)하지|장기\s*(?:연용|사용)하지"
                       r"|(?:연용|사용|복용|투여)\s*기간을\s*제한|계속\s*(?:하여|해서)?\s*(?:사용|복용|투여)하지")
NO_BETTER_IN_LABEL = re.compile(f"{_LABEL_NO_BETTER}|{_LABEL_NOT_FOR_LONG}")


_NOT_TAKEN = re.compile(r"\s*(?:않|안|못|말)")
# a failure only supposed: "약 먹어보고 안가라앉으면 엑스레이를 찍자", "효과가 없으면 오라고"
# ... its "if" ("효과가 없으면 병원에 가라고"), which the long-post reader reads too
IF_WORDS = r"[가-힣]?(?:으면|면|다면|을\s*경우)"
_SUPPOSED = re.compile(rf"{IF_WORDS}|[가-힣]?(?:을\s*때|을까|을지)")
# the failure follows the taking closely: in a long post "먹고 토하는 … (300 characters) … 별 차도가" is two stories
FAILURE_WITHIN = 60   # characters


def says_it_did_not_work(question: str) -> str | None:
    """The words saying a medicine was taken and did not help (`_NO_BETTER` within `FAILURE_WITHIN` characters
    after `_TAKEN`; "먹지 않고" takes nothing, "안 가라앉으면" supposes), or None. 152 of the 4,986 shared posts read so; of a sample of 16 of
    them 15 tell of a medicine (해열제를 먹여도 차도가 없어, 항생제 일주일째 먹고있는데 … 계속) and one of food (2026-12-02;
    167 once "호전이 없어요" and "안 좋아지면" were read, the same day)."""
    for taken in _TAKEN.finditer(question):
        if taken.group(0).endswith("지") and _NOT_TAKEN.match(question, taken.end()):
            continue
        for failed in _NO_BETTER.finditer(question, taken.end(), taken.end() + FAILURE_WITHIN):
            if not _SUPPOSED.match(question, failed.end()):
                return failed.group(0)
    return None


@dataclass(frozen=True)
class SectionIntent:
    """The asked intent: a name, the sections (or MedQuAD qtypes) that answer it, and why."""

    name: str | None                  # None: the question says nothing about which section it wants
    sections: tuple[str, ...] = ()    # primary: MFDS section keys, or MedQuAD qtypes for English
    secondary: tuple[str, ...] = ()   # also acceptable, ranked after the primary ones
    cues: tuple[str, ...] = field(default_factory=tuple)  # the words that decided it
    lang: str = "ko"

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "sections": list(self.sections), "secondary": list(self.secondary),
                "labels": [SECTION_LABELS.get(s, s) for s in self.sections], "cues": list(self.cues),
                "lang": self.lang}

    def rank(self, section_key: str | None) -> int:
        """0 for a primary section, 1 secondary, 2 anything else (3 when no intent is known)."""
        if self.name is None:
            return 3
        if section_key in self.sections:
            return 0
        return 1 if section_key in self.secondary else 2


NO_INTENT = SectionIntent(None)


def asks_side_effects(question: str) -> bool:
    """Whether the question is about side effects (their label sections are then what it wants)."""
    return ASKS_SIDE_EFFECTS.search(question) is not None


# what was eaten or drunk just before "먹고"/"먹으면": food, not a medicine ("밥 먹고 속이 쓰려요" asks what
# helps, not what a drug's side effects are)
_FOOD_BEFORE = re.compile(r"(?:밥|식사|음식|술|커피|우유|고기|라면|과자|빵|야식|밀가루|매운\s*(?:것|거|음식))"
                          r"\s*(?:을|를|이|가|만|도|만\s*)?\s*$")


def _after_food(question: str, match: re.Match[str]) -> bool:
    """Whether a side-effect cue is "먹고/마시고 …" right after a food ("밥 먹고 속이 쓰려요")."""
    return match.group(0).startswith(("먹", "마시")) and _FOOD_BEFORE.search(question[:match.start()]) is not None


def classify_korean(question: str, default: str | None = None, symptom: bool = False,
                    careful: bool = False) -> SectionIntent:
    """The Korean intent of `question`; `default` when no cue matches.

    `symptom`: the question names a symptom. "두통이 있는데 타이레놀 먹어도 되나요" asks whether the
    drug treats the symptom first, so a bare "먹어도 되나요" then means efficacy, with the precautions
    as the secondary sections. `careful`: the question is for someone the labels single out (an older,
    pregnant or breastfeeding person: "75세 아버지가 밤에 자꾸 깨시는데 수면유도제 드셔도 되나요?"), so
    "드셔도 되나요" keeps asking for the cautions.
    """
    hits = [(name, m.group(0)) for name, pattern in KO_CUES for m in [pattern.search(question)]
            if m and not (name == "side_effects" and _after_food(question, m))]
    # taken and no better: the cautions say when to stop and ask, unless a dose, a pairing, a side effect or storage
    # is asked outright (`says_it_did_not_work`)
    failed = says_it_did_not_work(question)
    if failed and (not hits or hits[0][0] in ("precautions", "efficacy")):
        primary, secondary = KO_SECTIONS["precautions"]
        return SectionIntent("precautions", primary, secondary, (failed,))
    if not hits:
        if default is None:
            return SectionIntent(None)
        primary, secondary = KO_SECTIONS[default]
        return SectionIntent(default, primary, secondary, ())
    name, cue = hits[0]
    if name == "precautions" and symptom and not careful and not re.search(
            CAUTION_CONTEXT, question):
        name = "efficacy"
        primary, _ = KO_SECTIONS[name]
        return SectionIntent(name, primary, ("precautions", "warning", "usage"), (cue,))
    primary, secondary = KO_SECTIONS[name]
    return SectionIntent(name, primary, secondary, tuple(c for _, c in hits))


def classify_english(question: str) -> SectionIntent:
    """The MedQuAD question type of an English question (no intent when nothing matches)."""
    for name, pattern in (*EN_FRAMES, *EN_QTYPES):
        m = pattern.search(question)
        if m:
            return SectionIntent(name, (name,), (), (m.group(0),), lang="en")
    return SectionIntent(None, lang="en")


def classify_intent(question: str, default: str | None = None, symptom: bool = False,
                    careful: bool = False) -> SectionIntent:
    """Korean section intent for Hangul questions, MedQuAD question type otherwise."""
    if not isinstance(question, str) or not question.strip():
        raise ValueError("question must be a non-empty string")
    if HANGUL.search(question):
        return classify_korean(question, default, symptom, careful)
    return classify_english(question)
