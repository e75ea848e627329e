"""Personal identifiers in a user's message: find them, flag them, cut them out.

Why: users volunteer who they are ("제 이름은 홍길동이고 010-1234-5678 인데 ..."), and anything a
message carries can travel further than the user meant: into the shared response cache, whose
entries serve other users, into the conversation history, the third-party web-search query, traces
and logs. The cache refuses a question with an identifier (`has_identifiers`); `redact_identifiers`
keeps the medical question and drops the rest.

Why a normalised view: an identifier typed in another spelling is the same identifier. Detection
reads a view of the text in which compatibility forms are folded (NFKC: full-width digits, "＠",
"＋" and ideographic or no-break spaces become ASCII), every dash-like character (en/em dash,
minus sign, non-breaking hyphen, small and full-width hyphen-minus ...) reads as "-", and invisible
format characters (zero-width space, soft hyphen, BOM) are dropped. Each view character remembers
the character of the original it came from, so a span found in the view cuts exactly what the user
typed.

What counts (`Identifier.kind`):
- `phone`: Korean mobile and landline numbers, with or without separators ("-", ".", spaces, spaces
  around a separator: 010-1234-5678, 01012345678, 010 - 1234 - 5678, 02-123-4567, 031-123-4567) and
  with the international prefix in any common form (+82 10-1234-5678, 82-10-1234-5678,
  0082 10 1234 5678, +82 (0)10-1234-5678);
- `rrn`: 주민등록번호, six digits that form a date, a separator ("-", ".", a dash, spaces) or none,
  a 1-8 digit and six more digits (or six mask characters);
- `card`: 13 to 19 digits, contiguous or in groups of 3-6 after a first group of four (4-4-4-4,
  Amex 4-6-5, Diners 4-6-4 ...), that pass the Luhn check, so an ordinary long number is no card;
  16 digits written as one run or as four groups of four count even without it (a card number
  with a typo is still a card number, and that form was always redacted);
- `email`: an address with "@", and one spelled out so that filters miss it: "hong at example dot
  com", "hong (at) example (dot) com", "hong[at]example[dot]com", "hong 골뱅이 example 점 com"
  (a spelled-out address must end in a known top-level domain: "take it at night.am" is no address);
- `name`: a name the user introduces: "제 이름은 홍길동", "이름은 김철수이고", "저는 홍길동이라고
  합니다", "my name is John Smith", "I'm called ...", and a self-introduction with a copula
  ("저는 홍길동입니다", "전 김철수예요", "저 이영희에요") when the word is a Korean name: a common
  surname (김, 이, 박 ... or 남궁, 선우, 제갈 ...) and one or two given-name syllables.

Why so strict: a pharmacy question is full of numbers (500mg 2정, 혈압 150/95, 65세, 2024-03-01,
HbA1c 7.2%) and self-descriptions ("저는 65세 남성입니다", "저는 임산부예요", "저는 간호사입니다"),
none of which may be mistaken for an identifier: a self-description word that begins with a surname
syllable (임산부, 고혈압, 이모, 한국인, 주부, 강사 ...) is on a stop-list and is never a name. A name
the user does not introduce is not found; the cache's other guards (only verified answers, only
users with no profile) still apply to such a question.

Why it stays cheap: it runs on every turn. Most messages need no per-character view (ASCII and
Hangul map one for one), each pattern first needs a literal cue ("@", a digit, "이름", "저는" ...),
and every repetition is bounded, so no input backtracks catastrophically (about 0.1-0.3 ms for a
100-character message, a few ms for 2,000 characters of digits and hyphens or "at"/"dot" words).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from itertools import repeat
from typing import Literal

IdentifierKind = Literal["phone", "rrn", "email", "name", "card"]


@dataclass(frozen=True)
class Identifier:
    """One identifier in a text: its kind and its span (`text[start:end]`)."""

    kind: IdentifierKind
    start: int
    end: int


# -- the normalised view detection reads ---------------------------------------------------------

_DASHES = "\u2010\u2011\u2012\u2013\u2014\u2015\u2043\u2212\u2e3a\u2e3b\ufe58\ufe63\uff0d"
_VIEW_CHARS = str.maketrans(dict.fromkeys(_DASHES, "-"))
_DASH = re.compile(f"[{_DASHES}]")
# anything but ASCII, Hangul syllables and dashes: a character NFKC may change, or an invisible one
_UNUSUAL = re.compile(r"[^\x00-\x7f가-힣" + _DASHES + "]")
# invisible format characters dropped from the view ("010\u200b1234\u200b5678" is a phone number)
_INVISIBLE = re.compile(r"[\u00ad\u180e\u200b-\u200f\u2060-\u2064\ufeff]")
_OTHER_DIGIT = re.compile(r"(?![0-9])\d")   # a decimal digit of another script: "٣" reads as "3"


@dataclass(frozen=True)
class _View:
    """The text detection reads, and for each of its characters the index of its original one."""

    text: str
    origin: list[int] | None   # origin[i]: the original index of view character i; None: the same

    def start(self, i: int) -> int:
        """The original index where a span starting at view index `i` starts."""
        return i if self.origin is None else self.origin[i]

    def end(self, i: int) -> int:
        """The original index where a span ending at view index `i` ends (a whole original character)."""
        if self.origin is None or i == 0:
            return i
        return self.origin[i - 1] + 1


@lru_cache(maxsize=4096)
def _view_char(char: str) -> str:
    """One original character as the view reads it ("" for an invisible one, "3" for any digit 3)."""
    if _INVISIBLE.match(char):
        return ""
    if char.isdecimal():
        return str(unicodedata.decimal(char))
    return unicodedata.normalize("NFKC", char).translate(_VIEW_CHARS)


def _view(text: str) -> _View:
    """The normalised view of `text`. Text that NFKC leaves alone (most messages: ASCII, Hangul,
    "μg", "℃" ...) maps one character for one, only its dashes read as "-"."""
    if not _UNUSUAL.search(text) or (unicodedata.is_normalized("NFKC", text)
                                     and not _INVISIBLE.search(text) and not _OTHER_DIGIT.search(text)):
        return _View(_DASH.sub("-", text), None)
    parts: list[str] = []
    origin: list[int] = []
    for i, char in enumerate(text):
        norm = char if "가" <= char <= "힣" else _view_char(char)
        parts.append(norm)
        if len(norm) == 1:
            origin.append(i)
        elif norm:
            origin.extend(repeat(i, len(norm)))
    origin.append(len(text))   # where a span starting at the end of the view starts
    return _View("".join(parts), origin)


# -- detectors for structured identifiers (the span is the identifier itself) ---------------------

# One separator between digit groups: "-" or "." with up to two spaces around it, or spaces alone.
_SEP = r"(?:\s{0,2}[-.]\s{0,2}|\s{1,2})"
_PHONE = re.compile(
    r"(?<![\d+])(?:(?:(?:\+|00)82" + _SEP + r"?|82" + _SEP + r")(?:\(\s?0\s?\)\s{0,2})?0?|\(?0)"
    r"(?:1[016789]|2|[3-6][1-5]|70)"                    # mobile 01x, Seoul 02, regions 031-064, 070
    r"\)?" + _SEP + r"?\d{3,4}" + _SEP + r"?\d{4}(?!\d)")
_RRN = re.compile(
    r"(?<!\d)\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])"   # YYMMDD
    r"(?:\s{0,2}[-.]\s{0,2}|\s{0,2})"                           # "-", ".", a dash, spaces or nothing
    r"[1-8](?:\d{6}|[*xX●○]{6})(?!\d)")                        # sex/century digit, rest (or masked)
# a run of 13-19 digits, or groups (4, then 3-6 each) joined by spaces or hyphens; `_cards` checks Luhn
_CARD = re.compile(r"(?<!\d)(?<!\d-)(?:\d{4}(?:(?:\s?-\s?|\s)\d{3,6}){2,4}|\d{13,19})(?!\d)(?!-\d)")
_DIGIT_RUN = re.compile(r"\d+")
_EMAIL = re.compile(r"(?<![\w.%+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}")
# Spelled out: "at"/"(at)"/"[at]"/"골뱅이" for "@", "dot"/"(dot)"/"점"/"쩜"/"닷" for ".".
_AT = (r"(?:\s*@\s*|\s*[\[({<]\s*(?:at|@|골뱅이)\s*[\])}>]\s*|\s+at\s+|\s*골뱅이\s*)")
_DOT = (r"(?:\.|\s*[\[({<]\s*(?:dot|\.|점|쩜|닷)\s*[\])}>]\s*|\s+dot\s+|\s*(?:점|쩜|닷)\s*)")
_TLD = (r"(?:com|net|org|edu|gov|mil|info|biz|io|me|co|kr|jp|cn|us|uk|de|fr|ca|au|nz|ac|or|go|ne"
        r"|es|it|ru|in|tw|hk|sg|vn|ph|th|ai|app|dev|xyz)")
_SPELLED_EMAIL = re.compile(
    r"(?i)(?<![\w.%+-])[a-z0-9._%+-]+" + _AT + r"[a-z0-9-]+(?:" + _DOT + r"[a-z0-9-]+)*" + _DOT + _TLD
    + r"(?![a-z0-9])")
# Each pattern with a cheap search that must succeed first (most messages hold no "@", no name cue).
_DIGIT = re.compile(r"\d")
_PATTERNS: tuple[tuple[IdentifierKind, re.Pattern[str], re.Pattern[str]], ...] = (
    ("rrn", _RRN, _DIGIT), ("phone", _PHONE, _DIGIT), ("email", _EMAIL, re.compile("@")),
    ("email", _SPELLED_EMAIL, re.compile(r"(?i)at|@|골뱅이")))
# Which kind an identical span is reported as: a 13-digit RRN may pass Luhn, a phone may too.
_PRIORITY: dict[IdentifierKind, int] = {"rrn": 0, "phone": 1, "card": 2, "email": 3, "name": 4}

# What may introduce a structured identifier ("제 전화번호는 ", "연락처: ", "my email is ") and
# follow it ("이고", " 인데", "로"): removed with it, so no dangling "번호는 인데" is left behind.
_LABEL = re.compile(
    r"(?:(?:(?<![가-힣])(?:제|저의|내|나의|본인)\s*)?"
    r"(?:(?:휴대\s*)?(?:전화|폰|핸드폰|휴대폰)(?:\s*번호)?|연락처|번호|이메일(?:\s*주소)?|메일(?:\s*주소)?"
    r"|주민(?:등록)?\s*번호|카드(?:\s*번호)?)\s*(?:은|는|이|가|:)?"
    r"|(?i:(?:\bmy\s+)?(?:(?:phone|mobile|cell|card)\s+)?(?:\bnumber|\bphone|\be-?mail(?:\s+address)?|\bssn)"
    r"(?:\s+is|\s*:)?))\s*$")
_TAIL = (r"(?:이(?:고요?|구요|에요|며|요)|예요|입니다|인데요?|고요?|요|으로|로"
         r"|(?:\s*,)?\s+and\b)(?=[\s,.!?~]|$)")
_LABEL_WINDOW = 40   # characters before an identifier searched for its label (the longest is ~25)
_AFTER = re.compile(r"\s*" + _TAIL)

# -- names: the whole introduction is matched; group "id" is the name -----------------------------

# Endings that may follow a Korean name directly (이고, 예요, 입니다, 인데 ...), or a plain boundary.
_KO_END = (r"(?:이(?:고요?|구요|에요|며|야|요)|고요?|구요|예요|며|야|요|입니다|인데요?|님|씨"
           r"|(?=[\s,.!?~]|$))")
# Not a name: a question or a refusal in the name's place ("이름이 뭐예요?", "이름은 모르겠어요").
_KO_NAME = r"(?!뭐|뭔|무엇|어떻|어디|누구|왜|모르|몰라|없|기억|비밀)(?P<id>[가-힣]{2,4}?)"
_EN_NAME = r"(?P<id>[A-Za-z][A-Za-z'\-]+(?:\s+[A-Z][A-Za-z'\-]+){0,2})"
_EN_CAP_NAME = r"(?P<id>[A-Z][A-Za-z'\-]+(?:\s+[A-Z][A-Za-z'\-]+){0,2})"
_SAY = r"(?:합니다|해요|하고요?|하는데요?|하구요|해|불러요|부릅니다)"
_SENTENCE_START = r"(?:^|(?<=[.!?\n,]))\s*"
# 제 이름은 / 이름은 (at the start of a sentence) / 성함:
_KO_INTRO = (r"(?:(?<![가-힣])(?:제|저의|내|나의|본인)\s*(?:이름|성함)|" + _SENTENCE_START + r"(?:이름|성함))"
             r"\s*(?:은|는|이|:)\s*")
# my name is / my name's / name:
_EN_INTRO = r"(?i:\bmy\s+name\s+is|\bmy\s+name's|\bname\s*:)\s*"
# The common Korean surnames (about 100, with spelling variants 리/림/류/라/량) and the two-syllable ones.
_SURNAMES = ("김이리박최정강조윤장임림한오서신권황안송전홍유류고문양량손배백허남심노하곽성차주우구민"
             "나라진지엄채원천방공현함변염여추도소석선설마길연위표명기반왕금옥육인맹제모탁국어은편용예경"
             "봉사부가복태목형피두감호")
_SURNAMES_2 = "남궁|선우|제갈|황보|독고|사공|서문|동방"
_KO_SURNAME_NAME = r"(?P<id>(?:" + _SURNAMES_2 + r")[가-힣]{1,2}?|[" + _SURNAMES + r"][가-힣]{1,2}?)"
# Copula endings of a self-introduction ("홍길동입니다", "김철수예요", "이영희에요", "홍길동인데요").
# Not "고"/"야"/"요" alone: verbs take those ("저는 마시고", "전 마셔야").
_COPULA = r"(?:입니다|입니당|이에요|이예요|예요|에요|이고요?|이구요|인데요?|이며|이야)"
_KO_CUE = re.compile("이름|성함")
_EN_CUE = re.compile("(?i)name")
# Each name pattern with the cue it cannot match without (searched first: most messages have none).
_NAME_PATTERNS: tuple[tuple[re.Pattern[str], re.Pattern[str]], ...] = (
    (re.compile(_KO_INTRO + _KO_NAME + _KO_END + r"(?:\s*(?:이)?라고\s*" + _SAY + r")?"), _KO_CUE),
    (re.compile(_KO_INTRO + _EN_CAP_NAME), _KO_CUE),
    # 저는 홍길동이라고 합니다 / 홍길동이라고 해요 (at the start of a sentence)
    (re.compile(r"(?:(?<![가-힣])(?:저는|전|나는|난|저)\s*|" + _SENTENCE_START + r")"
                + _KO_NAME + r"(?:이)?라고\s*" + _SAY), re.compile("라고")),
    # 저는 홍길동입니다 / 전 김철수예요 / 저 이영희에요 / 제가 남궁민수인데요: a surname, then 1-2 syllables
    # (a bare 저/전/난 needs a space after it: "전문의예요", "난방이에요" introduce nobody)
    (re.compile(r"(?<![가-힣])(?:(?:저는|나는|제가)\s*|(?:저|전|난)\s+)" + _KO_SURNAME_NAME + _COPULA),
     re.compile("저|전|나는|난|제가")),
    (re.compile(_EN_INTRO + _EN_NAME), _EN_CUE),
    (re.compile(_EN_INTRO + _KO_NAME + _KO_END), _EN_CUE),
    # I'm called John / I am called John / call me John (capitalised: "call me back" is no name)
    (re.compile(r"(?i:\bi'?m\s+called|\bi\s+am\s+called|\bcall\s+me)\s+" + _EN_CAP_NAME),
     re.compile("(?i)call")),
)
# Words the name patterns could catch that describe the user instead of naming them: every one of
# them starts with a surname syllable, or follows "이름은"/"라고 해요" in a self-description.
_NOT_NAMES = frozenset(word.casefold() for group in (
    # pregnancy, sex, age, origin and life stage
    ("임산부 임신부 임부 산모 수유부 수유모 임신 임신중 수유중 모유수유 육아맘 예비맘 예비엄마 워킹맘 초보맘 "
    "환자 남성 여성 남자 여자 남학생 여학생 여대생 남대생 여고생 남고생 고딩 학생 노인 어르신 노약자 노년 "
    "장년 고령 고령자 성인 성인남성 성인여성 유아 소아 신생아 한국인 외국인 미국인 중국인 일본인 이민자 "
    "장애인 비장애인 유부남 유부녀 미혼 기혼 이혼 신혼 신부 부부 가장 가족 보호자 직장인 이십대 사십대 "
    "오십대 육십대 구십대 한살 두살 세살"),
    # family roles
    ("엄마 아빠 어머니 아버지 남편 부인 아내 와이프 아들 딸 손자 손녀 손주 조카 이모 고모 이모부 고모부 "
    "삼촌 외삼촌 오빠 형 형님 언니 누나 동생 남동생 여동생 형제 남매 자매 장남 장녀 차남 차녀 막내 외동 "
    "부모 부모님 부친 모친 조부 조모 조부모 사위 며느리 장모 장인 시모 시부 사촌 육촌"),
    # conditions and symptoms
    ("당뇨 당뇨병 고혈압 저혈압 고지혈 천식 비염 변비 설사 두통 편두통 복통 위염 장염 구내염 방광염 신장염 "
    "피부염 모낭염 염증 심장병 신장병 부정맥 심부전 신부전 우울증 공황 감기 독감 고열 마비 배탈 구토 기침 "
    "가래 인후통 현기증 어지럼 여드름 유산 조산 노산 허리 허약 정상 정상인 비만 과체중 저체중 빈혈"),
    # occupations, roles and other words for a person
    ("간호사 강사 주부 기사 기자 기술자 공무원 연구원 은행원 경찰 경찰관 소방관 사무직 사원 신입 주임 부장 "
    "차장 사장 사장님 원장 원장님 선생 선생님 교사 박사 석사 변호사 변리사 한의사 전공의 전문의 인턴 조교 "
    "조리사 제빵사 목사 목수 가수 배우 모델 선수 감독 백수 고시생 유학생 은퇴자 노동자 도우미 사업가 "
    "사업자 어부 어민 장교 장병 예비군 민방위 위생사 조산사 주인 본인 당사자 경비원 기관사 사무원 선원 "
    "용접공 정비사 조종사 배달원 반장 이장 소장 공익 공시생 구직자 신자 신도 장로 권사 전도사 선교사 "
    "부목사 신랑 주민 구민 국민 민원인 손님 고객 방문자 가입자 신청자 구매자 주문자 예약자 복용자 사용자 "
    "소유자 명의자 피해자 사람 인간 이방인 어린 어린이 형수 제수 형부 제부"),
    # states ("복용중이에요") and more conditions
    ("금연중 금주중 금식중 복용중 사용중 투약중 치료중 진료중 투병중 입원중 통원중 재활중 요양중 투석중 "
    "생리중 육아중 휴직중 양성 오형 위궤양 위암 유방암 조현병 조울증 강박증 석회 결석 전립선 황달 백내장 "
    "노안 안구 피로 부종 부작용 경련 경증 기흉 감염"),
    # time, place and other everyday words
    ("여기 거기 이거 이것 이쪽 그쪽 오늘 오전 오후 어제 내일 지금 이번 이제 요즘 주말 평일 마지막 이상 이하 "
    "이전 이후 반대 문제 가능 안전 위험 사이 예외 기준 전부 전체 반반 절반 진짜 정말 사실 원래 원인"),
    # English non-names ("my name is not ...")
    "not a an the none unknown private secret",
) for word in group.split())


def _luhn(digits: str) -> bool:
    """The Luhn checksum every payment card number satisfies (one mistyped digit fails it)."""
    total = 0
    for i, char in enumerate(reversed(digits)):
        d = ord(char) - 48
        total += (d * 2 - 9 if d > 4 else d * 2) if i % 2 else d
    return total % 10 == 0


def _is_card(groups: list[str]) -> bool:
    """Whether these digit groups, read as one number, are a card number."""
    digits = "".join(groups)
    if not 13 <= len(digits) <= 19:
        return False
    return _luhn(digits)


def _card_window(groups: list[str]) -> tuple[int, int] | None:
    """The longest run of consecutive digit groups that is a card number (the earliest of equal
    length), as group indices [i, j); None when there is none."""
    for size in range(len(groups), 0, -1):
        for i in range(len(groups) - size + 1):
            if _is_card(groups[i:i + size]):
                return i, i + size
    return None


def _cards(text: str) -> Iterator[tuple[IdentifierKind, int, int]]:
    """Card numbers in the candidates `_CARD` finds.

    Why not the whole candidate: a card may be followed or preceded by another number
    ("4111 1111 1111 1111 500원"), which the pattern takes into the same candidate."""
    for m in _CARD.finditer(text):
        runs = list(_DIGIT_RUN.finditer(m.group()))
        window = _card_window([r.group() for r in runs])
        if window is not None:
            i, j = window
            yield "card", m.start() + runs[i].start(), m.start() + runs[j - 1].end()


def _structured_spans(text: str) -> Iterator[tuple[IdentifierKind, int, int]]:
    """Every structured identifier candidate in the view: kind and span."""
    for kind, pattern, cue in _PATTERNS:
        if cue.search(text):
            for m in pattern.finditer(text):
                yield kind, m.start(), m.end()
    if _DIGIT.search(text):
        yield from _cards(text)


def _structured(text: str) -> list[tuple[Identifier, int, int]]:
    """Structured identifiers with the span to cut: their label before, their particle after."""
    found = []
    for kind, start, end in _structured_spans(text):
        label = _LABEL.search(text, max(0, start - _LABEL_WINDOW), start)
        tail = _AFTER.match(text, end)
        found.append((Identifier(kind, start, end), label.start() if label else start,
                      tail.end() if tail else end))
    return found


def _names(text: str) -> list[tuple[Identifier, int, int]]:
    """Introduced names with the span to cut: the whole introduction and its ending."""
    found = []
    for pattern, cue in _NAME_PATTERNS:
        if not cue.search(text):
            continue
        for m in pattern.finditer(text):
            if m.group("id").casefold() in _NOT_NAMES:
                continue
            tail = _AFTER.match(text, m.end())
            found.append((Identifier("name", m.start("id"), m.end("id")), m.start(),
                          tail.end() if tail else m.end()))
    return found


def _detect(text: str) -> list[tuple[Identifier, int, int]]:
    """Every identifier with the span to cut for it, in the original text; overlaps keep the
    earlier, then the longer identifier, then the more specific kind (`_PRIORITY`)."""
    if not isinstance(text, str):
        raise TypeError(f"text must be a string, got {type(text).__name__}")
    view = _view(text)
    candidates = sorted(_structured(view.text) + _names(view.text),
                        key=lambda f: (f[0].start, -(f[0].end - f[0].start), _PRIORITY[f[0].kind]))
    kept: list[tuple[Identifier, int, int]] = []
    for cand in candidates:
        if kept and cand[0].start < kept[-1][0].end:
            continue
        kept.append(cand)
    return [(Identifier(ident.kind, view.start(ident.start), view.end(ident.end)),
             view.start(cut_start), view.end(cut_end)) for ident, cut_start, cut_end in kept]


def find_identifiers(text: str) -> list[Identifier]:
    """The identifiers in `text`, in order, without overlaps; spans index `text` as given."""
    return [ident for ident, _, _ in _detect(text)]


def has_identifiers(text: str) -> bool:
    """Whether `text` names, or gives a number or address of, a person."""
    return bool(_detect(text))


_SPACES = re.compile(r"\s+")
_SPACE_BEFORE_PUNCT = re.compile(r"\s+([,.!?])")
_PUNCT_RUN = re.compile(r"[,.!?](?:\s*[,.!?])+")
_LEADING = re.compile(r"^[\s,.;:!?~]+")


def _strongest_mark(run: re.Match[str]) -> str:
    """A punctuation run left by a cut ("Hi, ." / "되나요? .") becomes its strongest mark: ? ! . ,"""
    return next(mark for mark in "?!.," if mark in run.group(0))


def redact_identifiers(text: str) -> str:
    """`text` without its identifiers and the words introducing them, whitespace and punctuation tidied.

    "제 이름은 홍길동이고 010-1234-5678 인데 65세 남성 당뇨 환자가 이부프로펜 먹어도 되나요?"
    becomes "65세 남성 당뇨 환자가 이부프로펜 먹어도 되나요?". The rest of the text is kept as
    typed (full-width digits stay full-width): only the cuts use the normalised view.
    """
    cuts = sorted((start, end) for _, start, end in _detect(text))
    if not cuts:
        return text
    pieces, pos = [], 0
    for start, end in cuts:
        if start > pos:
            pieces.append(text[pos:start])
        pos = max(pos, end)
    pieces.append(text[pos:])
    out = _SPACES.sub(" ", " ".join(pieces))
    out = _PUNCT_RUN.sub(_strongest_mark, _SPACE_BEFORE_PUNCT.sub(r"\1", out))
    return _LEADING.sub("", out).strip()
