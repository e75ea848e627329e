"""Personal identifiers in a user's message: find them, flag them, cut them out.

Why: users volunteer who they are ("제 이름은 홍길동이고 010-1234-5678 인데 ..."), and anything a
message carries can travel further than the user meant: into the shared response cache, whose
entries serve other users, and into traces and logs. The cache refuses a question with an
identifier (`has_identifiers`); `redact_identifiers` keeps the medical question and drops the rest.

What counts (`Identifier.kind`):
- `phone`: Korean mobile and landline numbers, with or without separators or the +82 prefix
  (010-1234-5678, 01012345678, 010 1234 5678, +82 10-1234-5678, 02-123-4567, 031-123-4567);
- `rrn`: 주민등록번호, six digits that form a date, an optional hyphen, a 1-8 digit and six more;
- `email`; `card`: 16 digits, contiguous or in groups of four;
- `name`: a name the user introduces ("제 이름은 홍길동", "이름은 김철수이고", "저는 홍길동이라고
  합니다", "my name is John Smith", "I'm called ...").

Why so strict: a pharmacy question is full of numbers (500mg 2정, 혈압 150/95, 65세, 2024-03-01,
HbA1c 7.2%) and self-descriptions ("저는 65세 남성입니다", "저는 임산부예요"), none of which may be
mistaken for an identifier: a bare "저는 X입니다" is never a name, only "저는 X(이)라고 합니다" and
an explicit "이름은" are. A name the user does not introduce is not found; the cache's other guards
(only verified answers, only users with no profile) still apply to such a question.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

IdentifierKind = Literal["phone", "rrn", "email", "name", "card"]


@dataclass(frozen=True)
class Identifier:
    """One identifier in a text: its kind and its span (`text[start:end]`)."""

    kind: IdentifierKind
    start: int
    end: int


# -- detectors for structured identifiers (the span is the identifier itself) ---------------------

_PHONE = re.compile(
    r"(?<![\d+])(?:\+82[-.\s]?(?:\(0\))?0?|0)"        # +82 (international) or a leading 0
    r"(?:1[016789]|2|[3-6][1-5]|70)"                    # mobile 01x, Seoul 02, regions 031-064, 070
    r"[-.\s)]?\d{3,4}[-.\s]?\d{4}(?!\d)")
_RRN = re.compile(
    r"(?<!\d)\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])"   # YYMMDD
    r"\s?-?\s?[1-8](?:\d{6}|\*{6})(?!\d)")                     # sex/century digit, rest (or masked)
_CARD = re.compile(r"(?<!\d)\d{4}([-\s]?)\d{4}\1\d{4}\1\d{4}(?!\d)")
_EMAIL = re.compile(r"(?<![\w.%+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}")
_STRUCTURED: tuple[tuple[IdentifierKind, re.Pattern[str]], ...] = (
    ("card", _CARD), ("rrn", _RRN), ("phone", _PHONE), ("email", _EMAIL))

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
_NAME_PATTERNS: tuple[re.Pattern[str], ...] = (
    re.compile(_KO_INTRO + _KO_NAME + _KO_END + r"(?:\s*(?:이)?라고\s*" + _SAY + r")?"),
    re.compile(_KO_INTRO + _EN_CAP_NAME),
    # 저는 홍길동이라고 합니다 / 홍길동이라고 해요 (at the start of a sentence)
    re.compile(r"(?:(?<![가-힣])(?:저는|전|나는|난|저)\s*|" + _SENTENCE_START + r")"
               + _KO_NAME + r"(?:이)?라고\s*" + _SAY),
    re.compile(_EN_INTRO + _EN_NAME),
    re.compile(_EN_INTRO + _KO_NAME + _KO_END),
    # I'm called John / I am called John / call me John (capitalised: "call me back" is no name)
    re.compile(r"(?i:\bi'?m\s+called|\bi\s+am\s+called|\bcall\s+me)\s+" + _EN_CAP_NAME),
)
# Words the name patterns could catch that describe the user instead of naming them.
_NOT_NAMES = frozenset({
    "임산부", "임신부", "수유부", "환자", "남성", "여성", "남자", "여자", "학생", "노인", "어르신", "엄마",
    "아빠", "직장인", "보호자", "당뇨", "당뇨병", "고혈압",
    "not", "a", "an", "the", "none", "unknown", "private", "secret",
})


def _structured(text: str) -> list[tuple[Identifier, int, int]]:
    found = []
    for kind, pattern in _STRUCTURED:
        for m in pattern.finditer(text):
            start, end = m.span()
            label = _LABEL.search(text, max(0, start - _LABEL_WINDOW), start)
            tail = _AFTER.match(text, end)
            found.append((Identifier(kind, start, end), label.start() if label else start,
                          tail.end() if tail else end))
    return found


def _names(text: str) -> list[tuple[Identifier, int, int]]:
    found = []
    for pattern in _NAME_PATTERNS:
        for m in pattern.finditer(text):
            if m.group("id").casefold() in _NOT_NAMES:
                continue
            tail = _AFTER.match(text, m.end())
            found.append((Identifier("name", m.start("id"), m.end("id")), m.start(),
                          tail.end() if tail else m.end()))
    return found


def _detect(text: str) -> list[tuple[Identifier, int, int]]:
    """Every identifier with the span to cut for it; overlaps keep the longer identifier."""
    if not isinstance(text, str):
        raise TypeError(f"text must be a string, got {type(text).__name__}")
    candidates = sorted(_structured(text) + _names(text),
                        key=lambda f: (f[0].start, -(f[0].end - f[0].start)))
    kept: list[tuple[Identifier, int, int]] = []
    for cand in candidates:
        if kept and cand[0].start < kept[-1][0].end:
            continue
        kept.append(cand)
    return kept


def find_identifiers(text: str) -> list[Identifier]:
    """The identifiers in `text`, in order, without overlaps."""
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
    becomes "65세 남성 당뇨 환자가 이부프로펜 먹어도 되나요?".
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
