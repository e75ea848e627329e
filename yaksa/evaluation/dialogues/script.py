"""Scripted 5-turn dialogues for the simulated patients: seeded, deterministic, with varied wording.

Each turn tests one thing the agent must do across a conversation:
  1. facts            the patient says who they are: age, sex, pregnancy, conditions, medications
                      (and drug allergies) — what the profile must keep from here on;
  2. symptom_question a symptom → drug question ("머리가 아픈데 무슨 약 먹으면 돼요?");
  3. new_fact         a medication, a vital sign or a lab value said in passing;
  4. caution_question a question about one MFDS product whose 주의사항/상호작용 text cautions for
                      something the patient already said (pregnancy, a condition, their age): a
                      personalised answer must carry that caution;
  5. follow_up        "그럼 그 약은 하루에 몇 번 먹어요?": answerable only by resolving "그 약" to
                      turn 4's product.
Every turn records the facts it introduces (`facts_stated`) and what a good answer needs
(`expects`), so the evaluation can score profile recall, personalisation and follow-up resolution
per turn without re-deriving them.

Determinism: one `random.Random(f"{seed}:{pid}")` per persona drives every choice, and the inputs
(personas, drug rows) are read in a fixed order, so the same seed gives byte-identical dialogues.
The wording varies through several templates per turn kind; facts and cautions come from data.
"""

from __future__ import annotations

import csv
import functools
import random
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from yaksa.corpus.mfds_easy_drug import clean_text, split_product_name
from yaksa.corpus.rawio import one_line
from yaksa.evaluation.dialogues.personas import Entry, KoMapping, Persona, load_mapping
from yaksa.text.hangul import with_particle, with_ro

TURN_KINDS: tuple[str, ...] = ("facts", "symptom_question", "new_fact", "caution_question", "follow_up")
REASONS: tuple[str, ...] = ("pregnancy", "condition", "age")   # priority order for turn 4
MAX_CONDITIONS = 4      # a patient names their main conditions, not a 20-item problem list
MAX_MEDICATIONS = 4
OLDER_ADULT_AGE = 65
CHILD_AGE = 12          # below this a parent speaks for the child
_CSV_COLUMNS = {"item_seq": "제품일련번호", "title": "제품명", "efficacy": "효능효과", "usage": "용법용량",
                "precautions": "주의사항", "interactions": "상호작용", "side_effects": "부작용"}
FIELD_LABELS = {"precautions": "주의사항", "interactions": "상호작용"}


# ------------------------------------------------------------------------------------------ types

class Fact(NamedTuple):
    """A fact introduced in a turn: (slot_type, name, value), the first three fields of a `SlotItem`.

    `name` is the wording the patient used for conditions, symptoms and medications, or the regex slot
    key ("age", "gender", "pregnancy", "blood_pressure", "glucose", "hba1c", "weight") with its value
    as the extractor stores it (age 70.0, gender "female", pregnancy "yes"/"no", "150/95").
    Lexicon concept ids and units are in the turn's `expects["concepts"]` / `expects["units"]`.
    """

    slot_type: str
    name: str
    value: str | float | None = None


class _Said(NamedTuple):
    """A fact plus what `Fact` leaves out, collected while a turn is built."""

    fact: Fact
    concept: str | None = None
    unit: str | None = None


def _make_turn(index: int, kind: str, text: str, said: Sequence[_Said], expects: dict[str, Any]) -> Turn:
    """A turn whose `expects` also carries the stated facts' concept ids and units (by fact name)."""
    concepts = {s.fact.name: s.concept for s in said if s.concept}
    units = {s.fact.name: s.unit for s in said if s.unit}
    extra: dict[str, Any] = {}
    if concepts:
        extra["concepts"] = concepts
    if units:
        extra["units"] = units
    return Turn(index, kind, text, tuple(s.fact for s in said), {**expects, **extra})


@dataclass(frozen=True)
class Turn:
    """One user message of a scripted dialogue."""

    index: int                      # 1..5
    kind: str                       # one of TURN_KINDS
    text: str
    facts_stated: tuple[Fact, ...] = ()
    expects: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.kind not in TURN_KINDS:
            raise ValueError(f"kind must be one of {TURN_KINDS}, got {self.kind!r}")

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["facts_stated"] = [f._asdict() for f in self.facts_stated]
        return data


@dataclass(frozen=True)
class DrugRow:
    """The parts of one MFDS e약은요 product the script needs (texts cleaned as ingest cleans them)."""

    item_seq: str
    title: str                      # 제품명 as listed, e.g. "타이레놀정500밀리그람(아세트아미노펜)"
    name: str                       # what a patient calls it: the title without ingredient parentheses
    efficacy: str
    usage: str
    precautions: str
    interactions: str
    side_effects: str

    @property
    def oral(self) -> bool:
        """Taken by mouth (its 용법용량 says 복용/먹): decides "먹어도 돼요?" vs "써도 돼요?"."""
        return bool(_ORAL.search(self.usage)) or not _NOT_ORAL.search(self.usage)

    def doc_id(self, section: str) -> str:
        """The corpus document id of one section (same scheme as `yaksa.corpus.mfds_easy_drug`)."""
        return f"mfds:{self.item_seq}:{section}"


class Caution(NamedTuple):
    """Where a product's text cautions for something the patient said."""

    reason: str                     # pregnancy | condition | age
    keyword: str                    # the matching words in the product text ("고혈압", "고령자", "임부")
    field: str                      # precautions | interactions
    sentence: str                   # the sentence holding the keyword
    condition: str | None           # the condition's Korean wording (reason "condition")


_ORAL = re.compile(r"복용|먹|마시|내복")
_NOT_ORAL = re.compile(r"바르|바릅|도포|붙이|붙입|점안|점이|점비|뿌리|뿌립|분무|흡입|사용|넣|씻|감")


def load_drugs(csv_path: Path) -> list[DrugRow]:
    """Products of the MFDS CSV dump (UTF-8 with BOM) that have a name, an id and 용법용량, in file order."""
    with Path(csv_path).open(encoding="utf-8-sig", newline="") as fh:
        reader = csv.DictReader(fh)
        missing = [col for col in _CSV_COLUMNS.values() if col not in (reader.fieldnames or [])]
        if missing:
            raise ValueError(f"{csv_path}: header lacks column(s) {', '.join(missing)}")
        rows: list[DrugRow] = []
        for raw in reader:
            values = {key: clean_text(raw.get(col)) for key, col in _CSV_COLUMNS.items()}
            item_seq, title = one_line(values.pop("item_seq")), one_line(values.pop("title"))
            if not item_seq or not title or not values["usage"]:
                continue
            rows.append(DrugRow(item_seq=item_seq, title=title, name=split_product_name(title)[0], **values))
    return rows


# ------------------------------------------------------------------------------- Korean particles


def _copula(word: str) -> str:
    return with_particle(word, "이에요", "예요")


def _join(items: Sequence[str], rng: random.Random) -> str:
    """"A, B와 C" / "A하고 B" / "A, B, C": varied like speech, particles agreeing with each word."""
    items = list(items)
    if len(items) == 1:
        return items[0]
    style = rng.randrange(3)
    if style == 0:
        return ", ".join(items[:-2] + [with_particle(items[-2], "과", "와") + " " + items[-1]])
    if style == 1:
        return ", ".join(items[:-2] + [items[-2] + "하고 " + items[-1]])
    return ", ".join(items)


# ------------------------------------------------------------------------------------- templates

_ADULT_INTRO = (
    "안녕하세요. 저는 {age}살 {sex}입니다.",
    "{age}세 {sex_copula}.",
    "저 {age}살이고 {sex_copula}.",
    "{age}살 {sex}인데 약 좀 여쭤보려고요.",
)
_CHILD_INTRO = (
    "저희 아이가 {age}살 {kid_copula}.",
    "아이가 {age}살이고 {kid_copula}.",
    "{age}살 된 {son_daughter} 때문에 여쭤봐요.",
)
_INFANT_INTRO = ("돌이 안 된 {sex} 아기예요.", "태어난 지 얼마 안 된 {sex} 아기예요.")
_TODDLER_INTRO = ("만 {age}살 된 {sex} 아기예요.", "{age}살 된 {sex} 아기 때문에 여쭤봐요.")
_PREGNANT = ("지금 임신 중이에요.", "현재 임신한 상태예요.", "임신 중이라서 조심스러워요.")
_NOT_PREGNANT = ("임신은 아니에요.", "임신은 안 했어요.")
_CONDITIONS = ("{list_iga} 있어요.", "지병으로 {list_iga} 있고요.", "병원에서 {list} 진단을 받았어요.",
               "{list_ro} 병원에 다니고 있어요.")
_CHILD_CONDITIONS = ("아이가 {list_iga} 있어요.", "아이는 {list_ro} 병원에 다니고 있어요.")
_ORAL_MEDS = ("약은 {list_eul} 먹고 있어요.", "지금 {list_eul} 복용 중이에요.", "매일 {list_eul} 챙겨 먹어요.",
              "처방받은 {list_eul} 먹는 중이에요.")
_CHILD_ORAL_MEDS = ("아이는 {list_eul} 먹고 있어요.", "아이가 지금 {list_eul} 복용 중이에요.")
_ROUTE_VERBS = {"topical": "바르고 있어요", "inhaled": "쓰고 있어요", "injection": "맞고 있어요",
                "patch": "붙이고 있어요", "carried": "처방받아서 갖고 다녀요"}
_ALLERGY = ("{list} 알레르기가 있어요.", "{list_e} 알레르기가 있어요.")
_NOTHING = ("특별한 지병은 없고 먹는 약도 없어요.", "따로 앓는 병이나 먹는 약은 없어요.")

_QUESTION_FRAMES = ("무슨 약 먹으면 돼요?", "어떤 약이 좋을까요?", "약국에서 살 수 있는 약 있을까요?",
                    "먹을 만한 약 추천해 주세요.")
_CHILD_FRAMES = ("무슨 약 먹이면 돼요?", "어떤 약을 먹이면 될까요?", "아이한테 먹일 만한 약 있을까요?")
_TOPICAL_FRAMES = ("무슨 약 바르면 돼요?", "어떤 연고가 좋을까요?", "바르는 약 추천해 주세요.")

_BP = ("어제 혈압 재보니 {s}에 {d} 나왔어요.", "아침에 집에서 혈압을 쟀더니 {s}/{d} 나왔어요.",
       "참, 요즘 혈압이 {s}/{d} 정도 나와요.")
_GLUCOSE = ("지난번 피검사에서 혈당이 {v} 나왔어요.", "혈당을 재봤더니 {v}mg/dL 나왔어요.",
            "참, 혈당 수치가 {v} 정도 나와요.")
_HBA1C = ("병원에서 당화혈색소가 {v}%라고 하더라고요.", "검사해 보니 당화혈색소 {v}% 나왔어요.")
_WEIGHT = ("참, 아이 몸무게는 {v}킬로예요.", "아이 체중은 {v}kg 정도 나가요.")
_NEW_MED = ("아, 그리고 {m} 먹고 있어요.", "깜빡했는데 {m} 복용 중이에요.",
            "최근에 병원에서 {m_eul} 새로 처방받아서 먹기 시작했어요.")
_NEW_MED_OTHER = ("아, 그리고 {m} {verb}.", "깜빡했는데 {m} {verb}.")
# turn 3 when nothing was measured and no medication is left to mention: (symptom, concept, sentence)
_EXTRA_ADULT = (("두통", "YK:SYM:headache", "그리고 요즘 머리도 자주 아파요."),
                ("피로", "YK:SYM:fatigue", "요즘 많이 피곤하기도 해요."),
                ("불면", "YK:SYM:insomnia", "요즘 잠도 잘 못 자요."))
_EXTRA_CHILD = (("기침", "YK:SYM:cough", "아이가 요즘 기침도 조금 해요."),
                ("발열", "YK:SYM:fever", "아이가 어젯밤에는 열도 좀 났어요."),
                ("콧물", "YK:SYM:rhinorrhea", "아이가 콧물도 조금 흘려요."))

_ASK_ORAL = ("{p_eul} 먹어도 될까요?", "약국에서 {p_eul} 권해 주던데 제가 먹어도 괜찮아요?",
             "집에 {p_iga} 있는데 먹어도 돼요?", "{p_eun} 저한테 괜찮은 약인가요?")
_ASK_CHILD = ("아이한테 {p_eul} 먹여도 될까요?", "집에 {p_iga} 있는데 아이가 먹어도 돼요?")
_ASK_OTHER = ("{p_eul} 써도 될까요?", "집에 {p_iga} 있는데 써도 괜찮아요?", "{p_eun} 저한테 써도 되는 약인가요?")

_FOLLOW_USAGE = ("그럼 그 약은 하루에 몇 번 먹어요?", "그 약은 한 번에 얼마나 먹으면 돼요?",
                 "그거 식후에 먹어야 하나요?", "그럼 그건 하루에 몇 번까지 먹어도 돼요?")
_FOLLOW_USAGE_CHILD = ("그럼 그 약은 아이한테 하루에 몇 번 먹이면 돼요?", "그거 아이는 한 번에 얼마나 먹여야 해요?")
_FOLLOW_USAGE_OTHER = ("그럼 그 약은 하루에 몇 번 써요?", "그건 얼마나 자주 쓰면 돼요?")
_FOLLOW_SIDE = ("그 약 먹으면 부작용은 없어요?", "그거 먹고 조심해야 할 부작용이 있나요?")
_FOLLOW_SIDE_OTHER = ("그 약 쓰면 부작용은 없어요?", "그거 쓰고 조심해야 할 부작용이 있나요?")
_FOLLOW_WITH = ("그 약을 제가 먹는 {m_rang} 같이 먹어도 돼요?", "그거 지금 먹고 있는 {m_gwa} 같이 먹어도 괜찮아요?")


class Symptom(NamedTuple):
    """A common OTC complaint: how a patient says it, and how a product's 효능효과 names it."""

    name: str                       # lexicon preferred name (the profile's symptom slot name)
    concept: str
    complaints: tuple[str, ...]     # adult wording, ending in a connective (-는데)
    child: tuple[str, ...]          # a parent's wording; empty → not asked for children
    efficacy: str                   # regex over 효능효과 for the retrieval gold
    topical: bool = False
    female_only: bool = False


SYMPTOMS: tuple[Symptom, ...] = (
    Symptom("두통", "YK:SYM:headache", ("머리가 아픈데", "두통이 심한데", "아침부터 머리가 지끈거리는데"),
            ("아이가 머리가 아프다고 하는데",), r"두통"),
    Symptom("발열", "YK:SYM:fever", ("열이 38도 넘게 나는데", "어제부터 열이 나는데"),
            ("아이가 열이 나는데", "애가 밤새 열이 났는데"), r"발열|해열"),
    Symptom("기침", "YK:SYM:cough", ("기침이 계속 나는데", "마른기침이 안 멈추는데"),
            ("아이가 기침을 심하게 하는데",), r"기침"),
    Symptom("콧물", "YK:SYM:rhinorrhea", ("콧물이 계속 흐르는데", "맑은 콧물이 나는데"),
            ("아이가 콧물을 계속 흘리는데",), r"콧물"),
    Symptom("인후통", "YK:SYM:sore_throat", ("목이 따갑고 아픈데", "침 삼킬 때 목이 아픈데"),
            ("아이가 목이 아프다고 하는데",), r"인후통|인후염|인두염|목의\s*통증|목\s*아픔"),
    Symptom("소화불량", "YK:SYM:dyspepsia", ("속이 더부룩하고 소화가 안 되는데", "체한 것 같은데"),
            ("아이가 체한 것 같은데",), r"소화불량|체함"),
    Symptom("속쓰림", "YK:SYM:heartburn", ("속이 쓰린데", "밥만 먹으면 속이 쓰린데"), (), r"속쓰림"),
    Symptom("설사", "YK:SYM:diarrhea", ("배탈이 나서 설사를 하는데", "어제부터 설사를 계속하는데"),
            ("아이가 설사를 하는데",), r"설사"),
    Symptom("변비", "YK:SYM:constipation", ("변비가 심한데", "며칠째 변이 안 나오는데"),
            ("아이가 변비가 있는데",), r"변비"),
    Symptom("근육통", "YK:SYM:muscle_pain", ("운동하고 나서 근육통이 심한데", "온몸이 쑤시고 근육이 아픈데"), (),
            r"근육통"),
    Symptom("치통", "YK:SYM:toothache", ("이가 욱신욱신 아픈데", "치통이 있는데"), (), r"치통"),
    Symptom("생리통", "YK:SYM:dysmenorrhea", ("생리통이 심한데",), (), r"생리통|월경통", female_only=True),
    Symptom("가려움", "YK:SYM:itching", ("피부가 가려운데", "모기 물린 데가 너무 가려운데"),
            ("아이가 모기에 물려서 가려워하는데",), r"가려움", topical=True),
    Symptom("코막힘", "YK:SYM:nasal_congestion", ("코가 꽉 막혔는데",), ("아이가 코가 막혀서 힘들어하는데",),
            r"코막힘"),
    Symptom("멀미", "YK:SYM:motion_sickness", ("내일 배를 타는데 멀미가 걱정되는데",),
            ("아이가 차만 타면 멀미를 하는데",), r"멀미"),
    Symptom("감기", "YK:SYM:common_cold", ("감기 기운이 있는데", "감기에 걸린 것 같은데"),
            ("아이가 감기에 걸렸는데",), r"감기"),
)


# ------------------------------------------------------------------------------------- cautions

_PREGNANCY = re.compile(r"임부|임신(?!\s*중독)")
_OLDER = re.compile(r"고령자|노인")
_AGE_LIMIT = re.compile(r"(?:만\s*)?(\d{1,2})\s*(?:세|살)\s*(미만|이하)")
_CHILD_WORDS: tuple[tuple[re.Pattern[str], int], ...] = (
    (re.compile(r"소아"), 15), (re.compile(r"유아"), 7), (re.compile(r"영아|젖먹이|신생아"), 2),
)
_SENTENCE_END = re.compile(r"(?<!\d)\.(?!\d)|\n")


def _sentence(text: str, start: int, end: int) -> str:
    """The sentence of `text` around [start, end) (a full stop between digits does not end one)."""
    before = [m.end() for m in _SENTENCE_END.finditer(text, 0, start)]
    after = _SENTENCE_END.search(text, end)
    return text[(before[-1] if before else 0):(after.end() if after else len(text))].strip()


def _age_match(text: str, age: int) -> re.Match[str] | None:
    """A mention in `text` that cautions for a patient of this age: 고령자/노인 from 65, "만 N세 미만"
    when the patient is under N, or 소아 (< 15) / 유아 (< 7) / 영아 (< 2) unless an age limit right
    before the word says it does not apply ("만 2세 미만 소아" is not about a 6-year-old)."""
    if age >= OLDER_ADULT_AGE:
        return _OLDER.search(text)
    for m in _AGE_LIMIT.finditer(text):
        limit = int(m.group(1))
        if age < limit or (m.group(2) == "이하" and age == limit):
            return m
    for pattern, bound in _CHILD_WORDS:
        for m in pattern.finditer(text):
            if age < bound and not _AGE_LIMIT.search(text, max(0, m.start() - 16), m.start()):
                return m
    return None


def _first_caution(drug: DrugRow, find: Any) -> tuple[str, re.Match[str]] | None:
    """The first (field, match) where `find(text)` matches, 주의사항 before 상호작용."""
    for key in FIELD_LABELS:
        text = getattr(drug, key)
        if text and (m := find(text)):
            return key, m
    return None


def cautions_for(
    drug: DrugRow, persona: Persona, conditions: Sequence[tuple[str, Entry]]
) -> list[Caution]:
    """Every reason (in priority order) for which `drug`'s text cautions this patient.

    `conditions` are the (Korean wording, mapping entry) pairs the patient has stated: a caution for
    a condition the agent was never told about cannot be expected in its answer.
    """
    found: list[Caution] = []

    def add(reason: str, hit: tuple[str, re.Match[str]] | None, condition: str | None = None) -> None:
        if hit:
            key, m = hit
            text = getattr(drug, key)
            found.append(Caution(reason, m.group(0), key, _sentence(text, m.start(), m.end()), condition))

    if persona.pregnant:
        add("pregnancy", _first_caution(drug, _PREGNANCY.search))
    for korean, entry in conditions:
        for pattern in entry.caution:
            rx = re.compile(pattern)
            add("condition", _first_caution(drug, rx.search), korean)
    add("age", _first_caution(drug, lambda text: _age_match(text, persona.age)))
    return found


# ---------------------------------------------------------------------------------------- turns

def _pick(rng: random.Random, options: Sequence[str]) -> str:
    return options[rng.randrange(len(options))]


def _number(value: float | str) -> str:
    """138.0 → "138", 6.25 → "6.3": how a patient reads a value off a slip."""
    if isinstance(value, str):
        return value
    return str(round(value)) if abs(value - round(value)) < 0.05 else f"{value:.1f}"


def _stated_conditions(persona: Persona, mapping: KoMapping) -> list[tuple[str, Entry]]:
    """The conditions a patient names first: those with a known caution or lexicon concept (their
    chronic diseases), then the rest, in bundle order, at most MAX_CONDITIONS."""
    pairs = [(c.korean, e) for c in persona.conditions if (e := mapping.entry("conditions", c.code, c.english))]
    ranked = sorted(enumerate(pairs), key=lambda ip: (not ip[1][1].caution, ip[1][1].concept is None, ip[0]))
    return [pair for _, pair in ranked[:MAX_CONDITIONS]]


def _medication_entries(persona: Persona, mapping: KoMapping) -> list[tuple[str, Entry]]:
    return [(m.korean, e) for m in persona.medications if (e := mapping.entry("medications", m.code, m.english))]


def _condition_fact(korean: str, entry: Entry) -> _Said:
    return _Said(Fact(entry.slot, korean), entry.concept)


def _med_fact(korean: str, entry: Entry) -> _Said:
    return _Said(Fact("medications", korean), entry.concept)


def _age_fact(age: int) -> _Said:
    return _Said(Fact("demographics", "age", float(age)), unit="years")


def _intro(persona: Persona, rng: random.Random) -> tuple[list[str], list[_Said]]:
    sex_word = {"male": "남자", "female": "여자"}.get(persona.sex, "")
    facts: list[_Said] = []
    if sex_word:
        facts.append(_Said(Fact("demographics", "gender", persona.sex)))
    if persona.age < 1:
        text = _pick(rng, _INFANT_INTRO).format(sex=sex_word)
        facts.append(_Said(Fact("demographics", "age_group", "infant")))
    elif persona.age < 2:
        text = _pick(rng, _TODDLER_INTRO).format(age=persona.age, sex=sex_word)
        facts.append(_age_fact(persona.age))
    elif persona.age < CHILD_AGE:
        kid = {"male": "남자아이", "female": "여자아이"}.get(persona.sex, "아이")
        template = _pick(rng, _CHILD_INTRO)
        if "{son_daughter}" in template and persona.sex not in ("male", "female"):
            template = _CHILD_INTRO[0]
        text = template.format(age=persona.age, kid_copula=_copula(kid),
                               son_daughter={"male": "아들", "female": "딸"}.get(persona.sex, ""))
        facts.append(_age_fact(persona.age))
    else:
        text = _pick(rng, _ADULT_INTRO).format(age=persona.age, sex=sex_word or "사람",
                                               sex_copula=_copula(sex_word or "사람"))
        facts.append(_age_fact(persona.age))
    sentences = [text]
    if persona.pregnant:
        sentences.append(_pick(rng, _PREGNANT))
        facts.append(_Said(Fact("demographics", "pregnancy", "yes")))
    elif persona.sex == "female" and 15 <= persona.age < 50 and rng.random() < 0.5:
        sentences.append(_pick(rng, _NOT_PREGNANT))
        facts.append(_Said(Fact("demographics", "pregnancy", "no")))
    return sentences, facts


def _medication_sentences(
    meds: Sequence[tuple[str, Entry]], child: bool, rng: random.Random
) -> list[str]:
    oral = [k for k, e in meds if e.route == "oral"]
    sentences: list[str] = []
    if oral:
        listed = _join(oral, rng)
        sentences.append(_pick(rng, _CHILD_ORAL_MEDS if child else _ORAL_MEDS).format(
            list_eul=with_particle(listed, "을", "를")))
    for route, verb in _ROUTE_VERBS.items():  # one sentence per route: "A와 B도 쓰고 있어요."
        same = [k for k, e in meds if e.route == route]
        if same:
            listed = _join(same, rng)
            word = listed + "도" if sentences else with_particle(listed, "을", "를")
            sentences.append(f"{word} {verb}.")
    return sentences


def _turn1(persona: Persona, mapping: KoMapping, conditions: Sequence[tuple[str, Entry]],
           meds: Sequence[tuple[str, Entry]], holding_back: bool, rng: random.Random) -> Turn:
    """Who the patient is; `holding_back` (a medication kept for turn 3) forbids "먹는 약도 없어요"."""
    sentences, facts = _intro(persona, rng)
    child = persona.age < CHILD_AGE
    nouns = [(k, e) for k, e in conditions if not e.say]
    if nouns:
        listed = _join([k for k, _ in nouns], rng)
        sentences.append(_pick(rng, _CHILD_CONDITIONS if child else _CONDITIONS).format(
            list=listed, list_iga=with_particle(listed, "이", "가"), list_ro=with_ro(listed)))
    for korean, entry in conditions:
        if entry.say:
            sentences.append(entry.say.rstrip(".") + ".")
    facts.extend(_condition_fact(k, e) for k, e in conditions)
    sentences.extend(_medication_sentences(meds, child, rng))
    facts.extend(_med_fact(k, e) for k, e in meds)
    drug_allergies = [a for a in persona.allergies if a.category == "medication"]
    if drug_allergies:
        listed = _join([a.korean for a in drug_allergies], rng)
        sentences.append(_pick(rng, _ALLERGY).format(list=listed, list_e=listed + "에"))
        for a in drug_allergies:
            entry = mapping.entry("allergies", a.code, a.english)
            facts.append(_Said(Fact("conditions", f"{a.korean} 알레르기"), entry.concept if entry else None))
    if not conditions and not meds and not holding_back and rng.random() < 0.5:
        sentences.append(_pick(rng, _NOTHING))
    return _make_turn(1, "facts", " ".join(sentences), facts, {})


def _symptom_gold(symptom: Symptom, drugs: Sequence[DrugRow]) -> list[str]:
    rx = re.compile(symptom.efficacy)
    return [d.doc_id("efficacy") for d in drugs if rx.search(d.efficacy)]


def _turn2(persona: Persona, drugs: Sequence[DrugRow], rng: random.Random) -> tuple[Turn, Symptom]:
    child = persona.age < CHILD_AGE
    options = [s for s in SYMPTOMS
               if (s.child if child else s.complaints)
               and (not s.female_only or (persona.sex == "female" and 12 <= persona.age < 55))]
    symptom = options[rng.randrange(len(options))]
    complaint = _pick(rng, symptom.child if child else symptom.complaints)
    frames = _TOPICAL_FRAMES if symptom.topical else (_CHILD_FRAMES if child else _QUESTION_FRAMES)
    text = f"{complaint} {_pick(rng, frames)}"
    said = _Said(Fact("symptoms", symptom.name), symptom.concept)
    expects = {"symptom": symptom.name, "gold": _symptom_gold(symptom, drugs)}
    return _make_turn(2, "symptom_question", text, [said], expects), symptom


def _turn3_options(persona: Persona, held_back: tuple[str, Entry] | None) -> list[str]:
    options = ["medication"] if held_back else []
    if persona.age >= CHILD_AGE:
        options += [name for name in ("blood_pressure",) if name in persona.vitals]
        options += [name for name in ("glucose", "hba1c") if name in persona.labs]
    elif "weight" in persona.vitals:
        options.append("weight")
    return options


def _turn3(persona: Persona, option: str, held_back: tuple[str, Entry] | None, symptom: Symptom,
           rng: random.Random) -> Turn:
    if option == "medication" and held_back:
        korean, entry = held_back
        if entry.route == "oral":
            text = _pick(rng, _NEW_MED).format(m=korean + "도", m_eul=with_particle(korean, "을", "를"))
        else:
            text = _pick(rng, _NEW_MED_OTHER).format(m=korean + "도", verb=_ROUTE_VERBS[entry.route])
        return _make_turn(3, "new_fact", text, [_med_fact(korean, entry)], {"fact": "medication"})
    if option == "blood_pressure":
        value, unit = persona.vitals["blood_pressure"]
        s, d = str(value).split("/")
        text = _pick(rng, _BP).format(s=s, d=d)
        return _make_turn(3, "new_fact", text, [_Said(Fact("vitals", option, str(value)), unit=unit)], {"fact": option})
    if option in ("glucose", "hba1c"):
        value, unit = persona.labs[option]
        said = _number(round(float(value)) if option == "glucose" else value)   # glucose is read as a whole number
        text = _pick(rng, _GLUCOSE if option == "glucose" else _HBA1C).format(v=said)
        return _make_turn(3, "new_fact", text, [_Said(Fact("labs", option, float(said)), unit=unit)], {"fact": option})
    if option == "weight":
        value, unit = persona.vitals["weight"]
        said = _number(value)
        text = _pick(rng, _WEIGHT).format(v=said)
        return _make_turn(3, "new_fact", text, [_Said(Fact("vitals", option, float(said)), unit=unit)], {"fact": option})
    # Nothing measured and nothing held back: a second complaint is still a new fact to keep.
    extras = [e for e in (_EXTRA_CHILD if persona.age < CHILD_AGE else _EXTRA_ADULT) if e[0] != symptom.name]
    name, concept, text = extras[rng.randrange(len(extras))]
    return _make_turn(3, "new_fact", text, [_Said(Fact("symptoms", name), concept)], {"fact": "symptom"})


def _choose_product(
    persona: Persona, drugs: Sequence[DrugRow], conditions: Sequence[tuple[str, Entry]],
    symptom_gold: set[str], rng: random.Random,
) -> tuple[DrugRow, Caution | None]:
    """A product that cautions for the highest-priority reason the patient has (pregnancy, then a stated
    condition, then age), preferring products for the turn-2 symptom so the conversation hangs
    together; without any caution, a product for the symptom (or any product)."""
    by_reason: dict[str, list[tuple[DrugRow, Caution]]] = {r: [] for r in REASONS}
    for drug in drugs:
        seen: set[str] = set()
        for caution in cautions_for(drug, persona, conditions):
            if caution.reason not in seen:
                seen.add(caution.reason)
                by_reason[caution.reason].append((drug, caution))
    for reason in REASONS:
        pairs = by_reason[reason]
        if reason == "condition" and pairs:
            # one condition first (each equally likely), then a product for it
            names = sorted({c.condition or "" for _, c in pairs})
            chosen = names[rng.randrange(len(names))]
            pairs = [(d, c) for d, c in pairs if c.condition == chosen]
        if pairs:
            preferred = [(d, c) for d, c in pairs if d.doc_id("efficacy") in symptom_gold] or pairs
            return preferred[rng.randrange(len(preferred))]
    pool = [d for d in drugs if d.doc_id("efficacy") in symptom_gold] or list(drugs)
    return pool[rng.randrange(len(pool))], None


def _turn4(persona: Persona, drug: DrugRow, caution: Caution | None, rng: random.Random) -> Turn:
    child = persona.age < CHILD_AGE
    templates = (_ASK_CHILD if child else _ASK_ORAL) if drug.oral else _ASK_OTHER
    p = drug.name
    text = _pick(rng, templates).format(p_eul=with_particle(p, "을", "를"), p_iga=with_particle(p, "이", "가"),
                                        p_eun=with_particle(p, "은", "는"))
    expects: dict[str, Any] = {"product": drug.name, "title": drug.title, "item_seq": drug.item_seq,
                               "reason": None, "keyword": None}
    if caution is not None:
        expects.update(reason=caution.reason, keyword=caution.keyword, field=FIELD_LABELS[caution.field],
                       sentence=caution.sentence, condition=caution.condition,
                       gold=[drug.doc_id(caution.field)])
    else:
        expects["gold"] = [drug.doc_id("precautions")] if drug.precautions else []
    return Turn(4, "caution_question", text, (), expects)


def _turn5(persona: Persona, drug: DrugRow, oral_meds: Sequence[str], rng: random.Random) -> Turn:
    child = persona.age < CHILD_AGE
    asks = ["usage", "usage"]
    if drug.side_effects:
        asks.append("side_effects")
    if drug.interactions and oral_meds and drug.oral:
        asks.append("interactions")
    ask = asks[rng.randrange(len(asks))]
    expects: dict[str, Any] = {"referent": drug.name, "item_seq": drug.item_seq, "asks": ask,
                               "gold": [drug.doc_id(ask)]}
    if ask == "usage":
        templates = (_FOLLOW_USAGE_CHILD if child else _FOLLOW_USAGE) if drug.oral else _FOLLOW_USAGE_OTHER
        text = _pick(rng, templates)
    elif ask == "side_effects":
        text = _pick(rng, _FOLLOW_SIDE if drug.oral else _FOLLOW_SIDE_OTHER)
    else:
        med = oral_meds[rng.randrange(len(oral_meds))]
        text = _pick(rng, _FOLLOW_WITH).format(m_rang=with_particle(med, "이랑", "랑"), m_gwa=with_particle(med, "과", "와"))
        expects["with"] = med
    return Turn(5, "follow_up", text, (), expects)


def dialogue(
    persona: Persona, drugs: Sequence[DrugRow], seed: int, mapping: KoMapping | None = None
) -> list[Turn]:
    """The five turns of one persona's conversation; the same (persona, drugs, seed) → the same turns."""
    if not drugs:
        raise ValueError("dialogue() needs at least one MFDS product")
    mapping = mapping or _default_mapping()
    rng = random.Random(f"{seed}:{persona.pid}")
    conditions = _stated_conditions(persona, mapping)
    all_meds = _medication_entries(persona, mapping)
    held_back = all_meds[-1] if all_meds else None
    options = _turn3_options(persona, held_back)
    option = options[rng.randrange(len(options))] if options else "symptom"
    meds = [m for m in all_meds if not (option == "medication" and m is held_back)][:MAX_MEDICATIONS]

    t1 = _turn1(persona, mapping, conditions, meds, option == "medication", rng)
    t2, symptom = _turn2(persona, drugs, rng)
    t3 = _turn3(persona, option, held_back, symptom, rng)
    drug, caution = _choose_product(persona, drugs, conditions, set(t2.expects["gold"]), rng)
    t4 = _turn4(persona, drug, caution, rng)
    stated_oral = [k for k, e in meds if e.route == "oral"]
    if option == "medication" and held_back and held_back[1].route == "oral":
        stated_oral.append(held_back[0])
    t5 = _turn5(persona, drug, stated_oral, rng)
    return [t1, t2, t3, t4, t5]


def generate(
    personas: Sequence[Persona], drugs: Sequence[DrugRow], seed: int, mapping: KoMapping | None = None
) -> list[list[Turn]]:
    """One dialogue per persona, in the personas' order."""
    mapping = mapping or _default_mapping()
    return [dialogue(p, drugs, seed, mapping) for p in personas]


def summary(dialogues: Sequence[Sequence[Turn]]) -> dict[str, Any]:
    """Counts a report needs: turns, turn-4 caution reasons, turn-3 fact kinds, turn-5 questions."""
    reasons = Counter(str(d[3].expects.get("reason")) for d in dialogues)
    return {
        "dialogues": len(dialogues),
        "turns": sum(len(d) for d in dialogues),
        "caution_reasons": dict(sorted(reasons.items())),
        "new_fact_kinds": dict(sorted(Counter(d[2].expects.get("fact") for d in dialogues).items())),
        "follow_up_asks": dict(sorted(Counter(d[4].expects.get("asks") for d in dialogues).items())),
        "facts_stated": sum(len(t.facts_stated) for d in dialogues for t in d),
    }


@functools.lru_cache(maxsize=1)
def _default_mapping() -> KoMapping:
    """The packaged table, parsed once per process."""
    return load_mapping()
