"""Messages that need crisis help, not a document: thoughts of suicide or self-harm, questions about
a lethal amount, and an overdose that has already happened.

Why rules, first, and not the scope model: "수면제 50알 먹으면 어떻게 되나요" names a medicine and is
squarely in the corpus's vocabulary, so the scope model lets it through and retrieval answers it
from the sleeping pill's label (its dose, its indication). For these messages the right reply is the
same for everybody and must not depend on a model's threshold: where to get help now (자살예방상담전화
109, 119), no amounts, no method. The rules run before the greeting check, the scope model, the
cache, the LLM, memory and web search, under every ablation profile.

What the rules look for is a meaning, not one phrasing (issue 22: only "…죽나요" was caught). A
message is a crisis when it puts together

- an *excessive amount* of a medicine: a count from `OVERDOSE_MIN_UNITS` units up ("50알", "30정",
  "스무 알", "수십 알", "50 sleeping pills"), a lot ("한 움큼", "왕창", "잔뜩", "a handful of"), a whole
  container ("한 통", "한 박스", "통째로", "한 병 다", "a whole bottle") or the whole supply ("있는 약 다",
  "다 털어 넣", "모아둔"), next to a verb of taking it, and what that verb says: asking what happens,
  whether it is all right or how many ("먹으면", "먹어도", "먹어야", "what happens if I take")
  -> `LETHAL_AMOUNT`; that it was taken ("먹었어요", "삼켰", "I took") -> `OVERDOSE_TAKEN`; that the
  writer means to ("먹고 싶어요", "먹을 거예요") -> `SELF_HARM`;
- or wording about not waking up or going painlessly ("영원히 잠들", "다시는 안 깨", "고통 없이",
  "to not wake up"; "안 깨어나" only next to how-many, an excessive amount or alcohol) -> `LETHAL_AMOUNT`, or as a
  wish ("영원히 잠들고 싶어요", "안 깨어났으면 좋겠어요") -> `SELF_HARM`;
- or a child who took a medicine with an excessive amount, by accident or someone else's medicine
  ("아이가 … 한 병 다 마셨어요", "아들이 엄마 혈압약을 먹었어요") -> `OVERDOSE_TAKEN`;
- or the explicit phrases of the first version (죽고 싶어요, 치사량, 먹으면 죽나요, I overdosed).

An event goes first (119 before anything else), then intent, then questions. What stays out:
ordinary dosing questions with small counts ("타이레놀 2알 먹어도 되나요"), daily limits ("하루 최대
8알"), a pack's size or price ("한 통에 몇 알", "한 통 사면 몇 달 먹어요": no taking verb next to the
amount), a single-dose drink ("판콜에스 한 병 다 마셔도"), a finished course ("항생제 다 먹었는데"),
an adult's or a parent's double dose ("실수로 두 번"), side-effect questions with 자살 충동 as a label
term, travel and bowel "편하게 가는", and 죽 the rice porridge.

What the rules catch and miss is measured on `data/crisis_phrasings.tsv` (tune and held-out halves,
`python -m yaksa.scope.crisis_eval`) and on the committed question sets (none of their in-scope
questions trips them; `tests/scope/test_crisis.py`). Text is NFC-normalised first, so decomposed
Hangul (NFD) reads the same. All patterns are linear (bounded gaps, no nested repeats, no IGNORECASE:
the text is lower-cased once): a 2,000-character message takes about 1-2 ms, adversarial ones included.

Usage:
    crisis_kind("죽고 싶어요")                          # "self_harm"
    crisis_kind("수면제 50알 먹으면 어떻게 되나요")      # "lethal_amount"
    crisis_kind("아이가 해열제 시럽을 한 통 다 마셨어요")  # "overdose_taken"
    crisis_kind("타이레놀 2알 먹어도 되나요")            # None
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from functools import cached_property

from yaksa.scope.decision import ScopeDecision

CRISIS_RULES = "crisis-rules-v2"  # the deciding "model" a crisis decision names
CRISIS_REASON_PREFIX = "crisis:"
SELF_HARM = "self_harm"
LETHAL_AMOUNT = "lethal_amount"
OVERDOSE_TAKEN = "overdose_taken"
OVERDOSE_MIN_UNITS = 10  # "2알 먹었는데" is a dosing question; "30알 먹었어요" is an emergency
MAX_GAP = 16             # characters between an amount and the verb of taking it ("50알 한꺼번에 먹어도")
DEATH_REACH = 40         # characters between a death word and the amount it asks about, in one sentence


class _Cue:
    """One cue table: Korean alternatives and English ones, matched against lower-cased NFC text.

    Why two patterns: `re` skips ahead fast only when every alternative starts with a literal, which
    the Korean ones do; the English ones start at a word boundary and are tried only on text that has
    Latin letters. No IGNORECASE (the text is lower-cased once), no nested repeats, bounded gaps.
    """

    def __init__(self, ko: tuple[str, ...] = (), en: tuple[str, ...] = ()) -> None:
        self.ko = re.compile("|".join(ko)) if ko else None
        self.en = re.compile("|".join(en)) if en else None

    def finditer(self, msg: _Message) -> list[re.Match[str]]:
        found = list(self.ko.finditer(msg.text)) if self.ko else []
        if self.en and msg.latin:
            found += self.en.finditer(msg.text)
        return found

    def search(self, msg: _Message) -> bool:
        return bool((self.ko and self.ko.search(msg.text)) or (self.en and msg.latin and self.en.search(msg.text)))


# --- explicit phrases (first version, kept) --------------------------------------------------------

# first-person intent: these always mean crisis, whatever else the message asks
_SELF_HARM = _Cue(
    ko=(r"죽고\s?싶|죽어\s?버리고\s?싶|살기\s?(가\s?)?싫|살고\s?싶지\s?않|사라지고\s?싶|없어지고\s?싶",
        r"자살\s?(하고|하려|할까|할\s?거|할래|하는\s?법|하는\s?방법|시도|을\s?(하|생각|시도))|자해\s?(하|를\s?하|했)",
        r"극단적\s?(인\s?)?선택|목숨을\s?끊|스스로\s?목숨|손목을\s?긋"),
    en=(r"\b(kill|hurt|harm)\s+myself\b|\bwant\s+to\s+die\b|\bend\s+(my\s+life|it\s+all)\b",
        r"\bcommit\s+suicide\b|\bsuicide\s+(plan|method)|\bi(\s+a)?m\s+suicidal\b"))
# 죽 the verb (죽나, 죽어, 죽을, 죽는...), not 죽 the rice porridge ("약 먹고 죽 먹어도", "죽을 먹고")
_DIE_KO = r"죽(?![을를]?\s?(먹|드|끓|쑤|쒀|주))(?=[가-힣])"
# how much of something kills: asked for an amount or a way, never answered with one
_LETHAL = _Cue(
    ko=(r"치사량|치명적인?\s?(양|용량)",
        rf"(먹|마시|삼키|드시)(으면|면|고|어서|어도|어야|어야지)\s?(바로\s?|정말\s?|진짜\s?|그냥\s?)?{_DIE_KO}",
        r"죽(을|는)\s?(수\s?있는\s?)?(약|양|용량|방법)|죽을\s?만큼\s?(먹|마시|삼키|복용)|죽으려면",
        r"죽을\s?수\s?있(나|어|을까|는지)"),
    en=(r"\blethal\s+(dose|amount)|\bhow\s+many\b.{0,40}\b(to|would)\s+(die|kill)\b|\bfatal\s+dose\b",
        r"\boverdose\s+(on|to\s+die)\b"))
# an overdose named as such ("과다복용하면 간에 안 좋아요?" is a caution question: nothing happened)
_OVERDOSE_PHRASE = _Cue(
    ko=(r"과다\s?복용\s?(했|해\s?버렸|해버렸|한\s?것\s?같)",
        r"(너무|엄청)\s?많이\s?(을|를)?\s?(먹었|삼켰|마셨|복용했|먹어\s?버렸)"),
    en=(r"\b(overdosed|i\s+took\s+too\s+many|i\s+(just\s+)?od'?d)\b",))

# --- cue tables ------------------------------------------------------------------------------------

# a medicine is being talked about (containers and "a lot" need one: "과자 한 통", "우유 한 팩" do not count)
_MED_EN = (r"(pills?|tablets?|capsules?|caps|tabs|meds|medicines?|medications?|tylenol|advil|motrin|ibuprofen"
           r"|acetaminophen|paracetamol|aspirin|ambien|zolpidem|xanax|valium|benadryl|nyquil|melatonin"
           r"|vitamins?|gummies|syrup)\b")
_MEDICINE = _Cue(
    ko=(r"약(?<![예절요계공조협규언도비구]약)(?!간|속|점|하|해|한|혼)",   # not 예약, 약간, 약속, 약해...
        r"수면\s?(유도)?제|진통제|해열제|소염제|안정제|항우울제|항불안제|철분제|영양제|소화제|근이완제|구충제|변비약|감기약",
        r"알약|정제|캡슐|시럽|비타민|타이레놀|아세트아미노펜|이부프로펜|아스피린|나프록센|졸피뎀|스틸녹스|아론",
        r"멜라토닌|독시라민|판피린|게보린|펜잘|부루펜|애드빌|자낙스|알프라졸람|로라제팜|디아제팜|트라마돌",
        r"\d\s?(알|정|캡슐)"),
    en=(rf"\b{_MED_EN}",))
# "50 of my blood pressure pills", "30 ambien": up to two words between the number and the medicine
_EN_FILLER = r"(of\s+)?((my|the|his|her|their|your|those|these)\s+)?([a-z'-]+\s+){0,2}?"

# counts: the number is group "n", checked against OVERDOSE_MIN_UNITS (개 and 포 need a medicine named)
_COUNT = _Cue(ko=(r"(?P<n>\d{1,4})\s?(?P<unit>알|정(?!도)|캡슐|개(?!월)|포(?!인))",),
              en=(rf"\b(?P<n>\d{{1,4}})\s+{_EN_FILLER}{_MED_EN}",))
# amounts that are excessive whatever the number
_WORD_COUNT = _Cue(
    ko=(r"(열|스무|서른|마흔|쉰|예순|일흔|여든|아흔|백|수\s?십|수\s?백|몇\s?십|몇\s?백)\s?(알|정(?!도)|캡슐|개(?!월)|포)",),
    en=(rf"\b(dozens?|hundreds?|twenty|thirty|forty|fifty|hundred)\s+{_EN_FILLER}{_MED_EN}",))
_LOTS = _Cue(
    ko=(r"한\s?움큼|한\s?주먹|왕창|잔뜩|몽땅|모조리|무더기로|대량으로|한가득|엄청\s?많이",),
    en=(r"\ba\s+(handful|bunch|lot|ton)\s+of\b|\bhandfuls\s+of\b|\blots\s+of\b|\bdozens\s+of\b",
        rf"\ball\s+(of\s+)?(my|the|his|her|their)\s+{_EN_FILLER}{_MED_EN}|\bthe\s+rest\s+of\s+(my|the)\b"))
_CONTAINER = _Cue(
    ko=(r"한\s?(통|박스|상자|곽|케이스|판)(?!\s?(에|이면|짜리|씩|당))|통\s?째|병\s?째",
        r"한\s?병(?=\s?(을|를)?\s?(다|전부|모두|싹|통째))"),       # one bottle: only "한 병 다"
    en=((r"\b(a|an|the|my|his|her|their)\s+(whole|entire|full)\s+(bottle|box|pack|packet|container"
        r"|jar|strip|sleeve)\b"),))
_SUPPLY = _Cue(
    ko=(r"있는\s?(약|거|것|수면제|알약)\s?(을|를)?\s?(다|전부|모두)|모아\s?(둔|놓은|뒀던|놨던|서)|남김없이",
        r"(달|주|주일|일)\s?치\s?(를|을)?\s?(한꺼번에|한\s?번에|한번에|다|전부|몽땅)",   # "한 달 치 한 번에"
        r"(한꺼번에|한\s?번에|한번에)\s?(다|전부|몽땅)",
        r"(다|전부|몽땅|모두|싹\s?다)\s?(?=털어\s?넣)"))
# what makes a container or a "다 털어" not excessive: a drink sold as one dose, alcohol, one sachet
_ONE_DOSE_BEFORE = re.compile(
    r"(판콜|쌍화|박카스|활명수|까스|원비디|위청수|드링크|자양강장|소주|맥주|술|와인|막걸리|양주|우유|물|음료|커피"
    r"|한\s?포|한\s?봉지?|한\s?스틱|한\s?알)\S*\s?$")
# a container finished over days is a course, not an overdose ("비타민 한 통 다 먹었는데 또 사야 하나요")
_FINISHED_COURSE = _Cue(ko=(r"(며칠|일주일|보름|한\s?달)(?!\s?치)|동안|거의|다\s?먹어\s?가",
                            r"(또|더|다시|새로|계속)\s?(사|구입|구매|처방|받|먹어야|먹여야|먹어도|먹여도|나)"),
                        en=(r"\b(days|weeks|a\s+month|refill|buy\s+(more|another))\b",))
# a daily total is a dosing question ("하루 최대 12알까지"), and buying or a pack's size is not taking
_DAILY = re.compile(r"하루\s?(최대|에|당|치|\d|[한두세네]\s?번)|1일|일일|매일|\b(a|per|each)\s+day\b|\bdaily\b")
_GAP_BLOCKER = re.compile(r"[.?!\n]|사서|사면|사고|샀|구입|구매|주문|처방|짜리|까지")

# the verb of taking, by what it says: asked about ("ask"), done ("taken"), or meant ("intent")
_VERBS = {
    "ask": _Cue(
        ko=(r"먹(으면|어도|어야|을\s?(때|경우|시)|는다면|게\s?되면|었을\s?(때|경우)|었다면)|머그면",
            r"드시(면|는다면)|드셔(도|야)|드실\s?(때|경우)",
            r"마시(면|는다면)|마셔(도|야)|마실\s?(때|경우)|삼키(면|는다면)|삼켜(도|야)|먹이면|먹여도",
            r"복용(하면|해도|해야|할\s?(때|경우|시)|한다면|하게\s?되면)|털어\s?넣(으면|어도|어야|는다면)"),
        en=(r"\b(takes?|taking|swallows?|swallowing|drinks?|drinking|eats?|eating|pops?|popping)\b",)),
    "taken": _Cue(
        ko=(r"먹었(?!을\s?(때|경우)|다면|으면)|먹어\s?버렸|먹어\s?버림|삼켰|삼켜\s?버렸|마셨(?!을\s?때|다면|으면)",
            r"마셔\s?버렸|먹였|털어\s?넣었|때려\s?넣었|복용했(?!을|다면|으면)|복용해\s?버렸|들이켰",
            r"드셨(?!을\s?(때|경우)|다면|으면)"),
        en=(r"\b(took|taken|swallowed|drank|ate|eaten|popped|downed)\b",)),
    "intent": _Cue(
        ko=(r"먹(고\s?싶|을\s?(거|게|래|까\s?(봐|해|싶|생각))|으려|어\s?버리려|어\s?버릴|고\s?(다\s?)?끝내)",
            r"털어\s?넣(을\s?(거|게|래)|으려|고\s?싶|어\s?버리)|삼키(고\s?싶|려)|마시(고\s?싶|려)"),
        en=(r"\b(want|going|gonna|plan(ning)?)\s+to\s+(take|swallow|drink|eat|down)\b|\bi'?ll\s+(take|swallow)\b",)),
}
# an English "take" asks only in a question ("what if I take", "is it ok to take", "?")
_QUESTION_EN = re.compile(r"\?|\b(what|if|can|could|is\s+it|will|would|should|how)\b")

# not waking up, going painlessly: a question with medicine, or a wish
_NOT_WAKE = _Cue(
    ko=(r"(영원히|영영|다시는|두\s?번\s?다시)\s?(잠들|잠을\s?자|자는|잘\s?수|안\s?깨|못\s?깨|깨지\s?않|깨어나지\s?않)",
        r"고통\s?없이\s?(편하게\s?|편히\s?)?(죽|잠들|떠나|갈|가(는|고|게|려|도|면))",
        r"안\s?아프게\s?(죽|떠나|갈|가(는|려))|편(하게|히|안하게)\s?(죽|떠나)"),
    en=(r"\b(never|not)\s+wake\s+up\b|\bwon'?t\s+wake\s+up\b|\bsleep\s+forever\b",
        r"\b(die|go)\s+in\s+(my|their|your)\s+sleep\b|\bpainless(ly)?\b|\bpeaceful(ly)?\s+(die|go|death)\b",
        r"\bwithout\s+waking\b"))
# "편하게 가는 약" is a way to die, unless it is about travel or the toilet
_EASY_GO = _Cue(ko=(r"편(하게|히|안하게)\s?(가는|갈\s?수|갈\s?만한|가려면)",))
_TRAVEL_OR_TOILET = _Cue(ko=(r"멀미|화장실|볼일|변비|대변|변을|버스|차\s?타|차를|비행기|배\s?타|여행|출근|등교|등산|운전",))
_ALCOHOL = _Cue(ko=(r"술(?<![수기미예마]술)|소주|맥주|와인|양주|막걸리|보드카",), en=(r"\b(alcohol|vodka|wine|beer|whisk(e)?y|booze)\b",))
# "안 깨어나" alone is a side effect ("아침에 잘 안 깨어나요"); with how-many or an excessive amount it is not
_WEAK_NOT_WAKE = _Cue(ko=(r"(안|못)\s?깨어?나|안\s?깨|깨지\s?않|깨어나지\s?않",))
_WISH_NOT_WAKE = _Cue(
    ko=(r"영원히\s?(잠들|잠자|자)고\s?싶|영원히\s?잠들었으면|영원히\s?잠들면\s?좋겠",
        r"깨어나고\s?싶지\s?않|(안|못)\s?(깨어났|깼)으면|깨어나지\s?않았으면"),
    en=(r"\bi\s+(want|wish|'?d\s+like)\b[^.?!]{0,60}\b(never|not)\s+wake\s+up\b",))
_HOW_MANY = _Cue(
    ko=(r"몇\s?(알|정|개(?!월)|캡슐|통(?!화)|병(?!원)|포|봉)|얼마나\s?(먹|마시|마셔|삼키|복용|많이)|얼마(만큼)?\s?(먹|마셔|삼켜)",
        r"어느\s?정도\s?(먹|마셔|복용)"),
    en=(r"\bhow\s+(many|much)\b",))
_DEATH = _Cue(ko=(_DIE_KO, r"사망|치명"), en=(r"\b(kill|kills|killed|die|dead|death|fatal|deadly|lethal)\b",))

# a child who got into a medicine
_CHILD = _Cue(
    ko=(r"아이(?!스|폰|패드|브|템|디|콘)|애기|아기|아가(?!씨)|애가|애들|우리\s?애|아들|딸(?!기)|손자|손녀|조카|유아|꼬마",
        r"(한|두|세|네|다섯|여섯|일곱|여덟|아홉)\s?살|[1-9](?<!\d\d)\s?살|\d{1,2}\s?개월"),
    en=(r"\b(kids?|child|children|son|daughter|toddler|baby|grandson|granddaughter)\b",
        r"\b(\d{1,2}|one|two|three|four|five|six|seven|eight|nine|ten)[\s-]+(year|month)s?[\s-]+old\b"))
_CHILD_TOOK = _Cue(
    ko=(r"먹었(?!을\s?(때|경우)|다면|으면)|먹어\s?버렸|삼켰|마셨|마셔\s?버렸|먹였|주워\s?먹|꺼내\s?먹|집어\s?먹",),
    en=(r"\b(took|swallowed|ate|drank|got\s+into)\b",))
_CHILD_HOW = _Cue(
    ko=(r"실수로|몰래|모르고|잘못\s?(먹|삼|마셨|마셔)|꺼내|주워|집어|열어서|뚜껑|몇\s?(알|개|정)",
        # someone else's, or an animal's ("아이가 강아지 약을 먹었어요", 2026-12-01: no rule read it)
        (r"(할머니|할아버지|엄마|아빠|어머니|아버지|부모|어른|남의|성인|강아지|고양이|반려견|반려묘|동물)\s?(의|꺼|거|것|용)?"
         r"\s?[가-힣]{0,6}?(약|제)")),
    en=(r"\b(accidentally|got\s+into|found)\b|\bmy\s+(pills|meds|medicine|vitamins)\b",
        r"\b(grandma|grandpa|grandmother|grandfather|mom|mum|dad|mother|father|parent|adult)'?s\b"))
# for a child one bottle is too much ("아이가 시럽 한 병 마셨어요"), unless finished over days
_ONE_BOTTLE = _Cue(ko=(r"한\s?병",), en=(r"\ba\s+bottle\b",))
# a repeated dose is a dosing question for a pharmacist, not 119 ("실수로 두 번 먹였어요")
_REPEAT_DOSE = _Cue(ko=(r"두\s?번|2\s?번|한\s?번\s?더|두\s?배|또\s?먹",),
                    en=(r"\b(twice|double|extra\s+dose|two\s+doses)\b",))
_ACCIDENT_EN = _Cue(en=(r"\baccidentally\s+(took|swallowed|ate|drank)\b",))
_LATIN = re.compile(r"[a-z]")


# --- rules -----------------------------------------------------------------------------------------

@dataclass
class _Message:
    """A message as the rules read it (NFC, lower-cased), with the cues several rules share."""

    text: str

    @cached_property
    def latin(self) -> bool:
        return _LATIN.search(self.text) is not None

    @cached_property
    def medicine(self) -> bool:
        return _MEDICINE.search(self)

    @cached_property
    def amounts(self) -> list[tuple[int, int]]:
        """Spans of excessive amounts of a medicine ("50알", "한 통", "왕창", "a whole bottle")."""
        return self.counts + self.containers

    @cached_property
    def counts(self) -> list[tuple[int, int]]:
        """Counts from OVERDOSE_MIN_UNITS up, in digits or words, and "a lot" (한 움큼, 왕창)."""
        spans = [m.span() for m in _COUNT.finditer(self)
                 if int(m["n"]) >= OVERDOSE_MIN_UNITS and not self._daily(m)
                 and (self.medicine or m.groupdict().get("unit") not in ("개", "포"))
                 and not (m.start() and self.text[m.start() - 1] in "0123456789.,")]
        spans += [m.span() for m in _WORD_COUNT.finditer(self) if not self._daily(m)]
        if self.medicine:
            spans += [m.span() for m in _LOTS.finditer(self)]
        return spans

    @cached_property
    def containers(self) -> list[tuple[int, int]]:
        """A whole container or the whole supply of a medicine (한 통, 통째로, 있는 약 다, a whole bottle)."""
        if not self.medicine:
            return []
        return [m.span() for cue in (_CONTAINER, _SUPPLY) for m in cue.finditer(self)
                if not _ONE_DOSE_BEFORE.search(self.text[max(0, m.start() - 12):m.start()])]

    @cached_property
    def taken_amounts(self) -> list[tuple[int, int]]:
        """The amounts that make a report of taking an overdose: not a container finished over days."""
        return self.counts if _FINISHED_COURSE.search(self) else self.amounts

    def _daily(self, m: re.Match[str]) -> bool:
        return _DAILY.search(self.text[max(0, m.start() - 12):m.end() + 12]) is not None


def _amount_taken_as(msg: _Message, mode: str) -> bool:
    """An excessive amount right before a Korean verb of taking (or right after an English one)."""
    amounts = msg.taken_amounts if mode == "taken" else msg.amounts
    if not amounts:
        return False
    cue = _VERBS[mode]
    verbs = [(m, False) for m in cue.ko.finditer(msg.text)]
    if msg.latin and (mode != "ask" or _QUESTION_EN.search(msg.text)):
        verbs += [(m, True) for m in cue.en.finditer(msg.text)]
    text = msg.text
    by_end = sorted(amounts, key=lambda span: span[1])    # sorted, to bisect for the amounts near a verb
    ends = [end for _, end in by_end]
    by_start = sorted(amounts)
    starts = [start for start, _ in by_start]
    for verb, english in verbs:
        # amounts ending at most MAX_GAP characters before the verb ("50알 한꺼번에 먹어도")
        for i in range(bisect_left(ends, verb.start() - MAX_GAP), bisect_right(ends, verb.start())):
            if not _GAP_BLOCKER.search(text, by_end[i][1], verb.start()):
                return True
        if not english:
            continue
        # English puts the amount after the verb ("take 50 sleeping pills")
        for i in range(bisect_left(starts, verb.end()), bisect_right(starts, verb.end() + 2 * MAX_GAP)):
            if not _GAP_BLOCKER.search(text, verb.end(), by_start[i][0]):
                return True
    return False


def _child_took_medicine(msg: _Message) -> bool:
    if not (_CHILD.search(msg) and _CHILD_TOOK.search(msg) and msg.medicine):
        return False
    if msg.taken_amounts or (_ONE_BOTTLE.search(msg) and not _FINISHED_COURSE.search(msg)):
        return True
    return _CHILD_HOW.search(msg) and not _REPEAT_DOSE.search(msg)


def _overdose_taken(msg: _Message) -> bool:
    return (_OVERDOSE_PHRASE.search(msg) or _amount_taken_as(msg, "taken") or _child_took_medicine(msg)
            or (_ACCIDENT_EN.search(msg) and not _REPEAT_DOSE.search(msg)))


def _self_harm(msg: _Message) -> bool:
    return _SELF_HARM.search(msg) or _WISH_NOT_WAKE.search(msg) or _amount_taken_as(msg, "intent")


def _asks_not_to_wake(msg: _Message) -> bool:
    if _NOT_WAKE.search(msg):
        return True
    if _EASY_GO.search(msg) and msg.medicine and not _TRAVEL_OR_TOILET.search(msg):
        return True
    return _WEAK_NOT_WAKE.search(msg) and (_HOW_MANY.search(msg) or bool(msg.amounts)
                                           or (_ALCOHOL.search(msg) and msg.medicine))


# "타미플루 10알 다 먹어야 하나요": whether a prescribed course must be finished (a real patient's post)
_FINISH_COURSE_ASK = re.compile(r"다\s?(먹어야|먹여야|복용해야)\s?(하|한|되|돼|할|합)")
_SENTENCE_STOP = re.compile(r"[.?!\n]")


def _lethal_amount(msg: _Message) -> bool:
    asks_amount = _amount_taken_as(msg, "ask") and not _FINISH_COURSE_ASK.search(msg.text)
    return (_LETHAL.search(msg) or asks_amount or _asks_not_to_wake(msg)
            or _death_near_amount(msg))


def _death_near_amount(msg: _Message) -> bool:
    """A death word within DEATH_REACH characters of an amount or a "how many", in one sentence ("50알
    먹으면 죽나요"). Why near: a long post says "죽을 것 같은 불안감" in one place and asks "몇 알 먹어야
    하나요" about its dose in another; apart, they are a figure of speech and a dosing question."""
    deaths = [m.span() for m in _DEATH.finditer(msg)]
    if not deaths:
        return False
    others = [*msg.amounts, *(m.span() for m in _HOW_MANY.finditer(msg))]
    for d_start, d_end in deaths:
        for o_start, o_end in others:
            lo, hi = min(d_end, o_end), max(d_start, o_start)
            if hi - lo <= DEATH_REACH and not _SENTENCE_STOP.search(msg.text, lo, max(lo, hi)):
                return True
    return False


def crisis_kind(question: str) -> str | None:
    """Which crisis the message shows (`OVERDOSE_TAKEN`, `SELF_HARM`, `LETHAL_AMOUNT`), or None.

    An overdose that has happened is named first (119 before anything else), then intent, then a
    question about an amount or a way.
    """
    msg = _Message(unicodedata.normalize("NFC", question).strip().lower())
    if not msg.text:
        return None
    if _overdose_taken(msg):
        return OVERDOSE_TAKEN
    if _self_harm(msg):
        return SELF_HARM
    if _lethal_amount(msg):
        return LETHAL_AMOUNT
    return None


def crisis_decision(question: str) -> ScopeDecision | None:
    """The scope decision for a crisis message (not answered from documents), or None."""
    kind = crisis_kind(question)
    if kind is None:
        return None
    return ScopeDecision(False, f"{CRISIS_REASON_PREFIX}{kind}", {"crisis": kind}, CRISIS_RULES)


def is_crisis(decision: ScopeDecision) -> bool:
    return decision.reason.startswith(CRISIS_REASON_PREFIX)
