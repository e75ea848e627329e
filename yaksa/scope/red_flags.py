"""Messages that need care now (issue 23): recognised before anything else is answered, under every
profile, and answered with what to do first (119, 응급실, see a doctor today), then what the labels say.

Why rules, and a table: of 23 real posts that met published red-flag criteria (a sibling staggering
after sleeping pills, a 15-month-old with 39-40 °C for six days who cannot get up, chest pain at rest
with atrial fibrillation, sepsis signs) none was told to seek care first; the overdose got the pill's
dose and the toddler adult cold-medicine indications, and a feverish newborn was refused as
off-topic. Whether a message needs care now must not depend on a model's threshold or on whether the
corpus has a label for it. The rules live in `data/red_flags.yaml`, one entry per rule with its
clinical source (NICE NG143 traffic-light table for fever in under 5s, CG95 chest pain, NG128 stroke,
CG150 headache, CG134 anaphylaxis, NG126 bleeding in pregnancy, CG141 GI bleeding, NG51 sepsis ...),
so a clinician can review them without reading code.

What the engine reads besides the table's terms:

- ages: "50일 된 아기", "생후 2개월", "15개월", "만 4년 6개월 된", "6살", "29세", "20대", "중학생", "신생아", "2 month old";
- the highest temperature: "38.2도", "39~40도", "38도 넘게", "37.9~38.3" ("38도 미만" counts as under 38);
- how long a fever has lasted: "6일째", "일주일 동안", "4일 전부터" (within 80 characters of the fever);
- negation within a clause: a term is absent when what follows it in its clause says so ("열은
  없어요", "숨차지는 않아요", "피는 안 나요", "no fever"), but "열이 안 떨어져요" (it persists) is not a
  negation. A clause ends at punctuation or at a connective ("…고 ", "…는데 ", "…지만 "), so "열이 나고
  숨은 안 차요" keeps the fever.

A fever counts when a fever word is present and not negated, or a temperature of 38 °C or more is
stated; when a temperature is stated it decides ("6주 아기 미열 37.3" is not a fever of 38).

Three urgencies: `emergency` (119 / an emergency department now), `today` (a doctor today) and `soon`
(a doctor within days, not urgent: a cough for three weeks, heartburn with weight loss, pain on
breathing in). Why `soon` is in the same table: a long post about a cough of three weeks answered
with cold-medicine cautions alone lets the writer treat at home what a doctor should look at; the
advice goes first like the others. It is not a red flag in the evaluation's sense (`is_urgent`):
its advice never says 119, 응급실 or "today", and `red_flag_eval` does not count it.

The check runs on every turn right after the crisis rules (`yaksa.scope.crisis`): NFC-normalised and
lower-cased once, term patterns compiled once, evaluated lazily rule by rule (a typical question
costs well under a millisecond; a 2,000-character message a few milliseconds). How the rules do is
measured by `python -m yaksa.scope.red_flag_eval` on committed phrasings and on hand-labelled real
posts.

Usage:
    flag = red_flag("50일 된 아기가 열이 38.2도예요")
    flag.rule_id, flag.urgency        # "fever_under_3_months", "emergency"
    flag.advice("…")                  # the advice in the message's language
    red_flag("아이 열은 없어요, 콧물만 나요")   # None
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from re import _constants as sre_c  # type: ignore[attr-defined]
from re import _parser as sre_parse  # type: ignore[attr-defined]
from typing import Any

import yaml

from yaksa.extraction.regex_slots import AGE_IN_WORDS, DOL_MONTHS, KOREAN_NUMBERS
from yaksa.scope.decision import ScopeDecision

TABLE_FILE = "red_flags.yaml"
RED_FLAG_RULES = "red-flag-rules-v1"       # the deciding "model" a red-flag scope decision names
RED_FLAG_REASON_PREFIX = "red_flag:"
EMERGENCY = "emergency"
# a rule's `closing` (the line after advice that no label follows; `yaksa.llm.safety.urgent_line` words each)
CLOSING_URGENT, CLOSING_SWALLOWED, CLOSING_MIND = "urgent", "swallowed", "mind"
CLOSINGS = (CLOSING_URGENT, CLOSING_SWALLOWED, CLOSING_MIND)
TODAY = "today"
SOON = "soon"
URGENCIES = (EMERGENCY, TODAY, SOON)       # most urgent first: a rule never hides a more urgent one
FEVER_TEMP = 38.0                          # NICE NG143: fever is 38 °C or more
CHILD_MAX_YEARS = 16
FEVER_DAYS_REACH = 80                      # characters between a fever and its duration
NEGATION_REACH = 20                        # characters after a term that may negate it
MAX_CHARS = 4000                           # longer text is read up to here (messages are capped at 2,000)

_HANGUL = re.compile(r"[\uac00-\ud7a3]")
_SENTENCE_END = re.compile(r"(?<![.?!])[.?!](?![.?!])|\n")   # one stop, not an ellipsis ("..")
_LATIN = re.compile(r"[a-z]")


@dataclass(frozen=True)
class RedFlag:
    """A message that needs care now: which rule, how urgent, what to say, and on whose authority."""

    rule_id: str
    urgency: str          # "emergency" (119 / emergency department now) | "today" (a doctor today)
                          # | "soon" (a doctor within days)
    title: str
    advice_ko: str
    advice_en: str
    source: str
    # the answer after the advice quotes no dosing section: a dose beside "go now" reads as "treat at
    # home first" (a feverish newborn, someone who took too many pills)
    withhold_doses: bool = False
    # the closing line when no label follows the advice (`yaksa.llm.safety.urgent_line`): "urgent" (do not wait it
    # out on medicines), "swallowed" (the harm is what was swallowed: bring the pack, no further dose) or "mind"
    # (thoughts of giving up on life: tell someone trusted)
    closing: str = CLOSING_URGENT
    # the advice is the whole answer unless the message names a medicine: its advice says not to treat it with what the
    # labels offer ("연고나 진통제로 지켜보지 마시고": a real post on infected stitches got painkillers' uses after it)
    advice_only: bool = False

    def advice(self, text: str) -> str:
        """The advice in the message's language (Korean when it has Hangul)."""
        return self.advice_ko if _HANGUL.search(text) or not text.isascii() else self.advice_en

    @property
    def is_urgent(self) -> bool:
        """Care now or today (`emergency`, `today`): what "a red flag" means to the evaluations."""
        return self.urgency != SOON

    def to_json(self) -> dict[str, str]:
        """What the trace and `/v1/search` carry: the rule and its urgency (not the advice text)."""
        return {"rule": self.rule_id, "urgency": self.urgency}


# --- the table -------------------------------------------------------------------------------------

_GATE_MAX_CHARS = 400   # a first-character set larger than this (e.g. any Hangul syllable) is no gate
_DENSE_FROM = 200       # for text longer than this, count the candidate positions first ...
_DENSE_CANDIDATES = 48  # ... and scan plainly when there are more (trying each costs more than a C scan)


def _first_chars(pattern: str) -> frozenset[str] | None:
    """The characters a match of `pattern` can start with, or None when that set is unknown or too large."""
    def seq(items: Any) -> tuple[set[str] | None, bool]:
        chars: set[str] = set()
        for op, av in items:
            first, nullable = item(op, av)
            if first is None:
                return None, False
            chars |= first
            if not nullable:
                return chars, False
        return chars, True

    def item(op: Any, av: Any) -> tuple[set[str] | None, bool]:
        if op is sre_c.LITERAL:
            return {chr(av)}, False
        if op is sre_c.IN:
            chars: set[str] = set()
            for kind, value in av:
                if kind is sre_c.LITERAL:
                    chars.add(chr(value))
                elif kind is sre_c.RANGE and value[1] - value[0] < _GATE_MAX_CHARS:
                    chars.update(chr(c) for c in range(value[0], value[1] + 1))
                else:
                    return None, False
            return chars, False
        if op is sre_c.BRANCH:
            out: set[str] = set()
            nullable = False
            for alt in av[1]:
                first, alt_nullable = seq(alt)
                if first is None:
                    return None, False
                out |= first
                nullable = nullable or alt_nullable
            return out, nullable
        if op is sre_c.SUBPATTERN:
            return seq(av[-1])
        if op in (sre_c.MAX_REPEAT, sre_c.MIN_REPEAT):
            first, nullable = seq(av[2])
            return first, nullable or av[0] == 0
        if op in (sre_c.AT, sre_c.ASSERT, sre_c.ASSERT_NOT):
            return set(), True     # zero width: the next item starts the match
        return None, False

    try:
        chars, nullable = seq(sre_parse.parse(pattern))
    except Exception:  # noqa: BLE001 - any parser detail we do not model: no gate, same results
        return None
    if chars is None or nullable or not chars or len(chars) > _GATE_MAX_CHARS:
        return None
    return frozenset(chars)


class _Gated:
    """A compiled pattern searched only where a match can start (its possible first characters).

    Why: `re` scans fast for a pattern whose alternatives start with plain literals, but not for the
    nested groups a readable table needs; a character-class scan (in C) finds the few candidate
    positions, and the pattern is tried only there. Same matches as `finditer`.
    """

    def __init__(self, pattern: re.Pattern[str]) -> None:
        self.rx = pattern
        chars = _first_chars(pattern.pattern)
        self.gate = re.compile("[" + "".join(re.escape(c) for c in sorted(chars)) + "]") if chars else None

    def finditer(self, text: str) -> Iterable[re.Match[str]]:
        if self.gate is None or len(text) > _DENSE_FROM and len(self.gate.findall(text)) > _DENSE_CANDIDATES:
            yield from self.rx.finditer(text)     # candidates everywhere (e.g. English text): a plain scan is faster
            return
        pos, end = 0, len(text)
        while pos <= end:
            cand = self.gate.search(text, pos)
            if cand is None:
                return
            m = self.rx.match(text, cand.start())
            if m is None:
                pos = cand.start() + 1
                continue
            yield m
            pos = m.end() if m.end() > m.start() else m.end() + 1

    def search(self, text: str) -> re.Match[str] | None:
        return next(iter(self.finditer(text)), None)


@dataclass(frozen=True)
class _Term:
    name: str
    ko: _Gated | None
    en: _Gated | None
    negatable: bool = True
    # a match right after this (in the text before it) is another sense: "고환에 열이" is a warm spot, not a fever
    not_after: re.Pattern[str] | None = None


NOT_AFTER_REACH = 16   # characters before a term that `not_after` reads


Requirement = str | tuple["Requirement", ...]   # a term, or alternatives (a nested tuple: all of them)


@dataclass(frozen=True)
class Rule:
    """One row of the table (see the header of `data/red_flags.yaml` for the keys)."""

    flag: RedFlag
    all: tuple[Requirement, ...]
    none: tuple[str, ...] = ()
    age_days: tuple[float, float] | None = None
    child: bool = False
    fever_min_temp: float | None = None
    fever_number_required: bool = False
    fever_days: int | None = None
    within: int | None = None       # the `all` terms must occur this close together (characters)

    @property
    def rule_id(self) -> str:
        return self.flag.rule_id

    def terms(self) -> set[str]:
        found: set[str] = set(self.none)

        def walk(req: Requirement) -> None:
            if isinstance(req, str):
                found.add(req)
            else:
                for r in req:
                    walk(r)
        for req in self.all:
            walk(req)
        return found


_RULE_KEYS = {"id", "urgency", "title", "source", "all", "none", "age_days", "child", "fever", "fever_days", "within",
              "withhold_doses", "closing", "advice_only", "advice_ko", "advice_en"}


@dataclass(frozen=True)
class RedFlagTable:
    terms: dict[str, _Term]
    rules: tuple[Rule, ...]

    @classmethod
    def parse(cls, text: str, source: str = TABLE_FILE) -> RedFlagTable:
        """The table from YAML text; ValueError naming the rule or term on anything wrong."""
        data = yaml.safe_load(text)
        if not isinstance(data, dict) or data.get("version") != 1:
            raise ValueError(f"{source}: need a mapping with version: 1")
        terms = {name: _term(name, spec, source) for name, spec in (data.get("terms") or {}).items()}
        rules: list[Rule] = []
        seen: set[str] = set()
        for spec in data.get("rules") or []:
            rule = _rule(spec, source)
            if rule.rule_id in seen:
                raise ValueError(f"{source}: duplicate rule id {rule.rule_id!r}")
            missing = rule.terms() - terms.keys()
            if missing:
                raise ValueError(f"{source}: rule {rule.rule_id!r} names unknown terms {sorted(missing)}")
            seen.add(rule.rule_id)
            rules.append(rule)
        if not rules:
            raise ValueError(f"{source}: no rules")
        if any(rule.child for rule in rules) and "child" not in terms:
            raise ValueError(f"{source}: rules with `child: true` need a `child` term")
        return cls(terms, tuple(rules))

    def rule(self, rule_id: str) -> Rule:
        for rule in self.rules:
            if rule.rule_id == rule_id:
                return rule
        raise KeyError(rule_id)

    def check(self, text: str | ReadMessage) -> RedFlag | None:
        """The first emergency rule (in table order) the message meets, else the first `today` rule, else
        the first `soon` rule, or None. A rule no more urgent than the one found is not tried. `text` may
        be a message already read (`read_message`), which is then not read again. A case already in care,
        written as an exam or a clinician writes it (`in_care_vignette`), raises none."""
        msg = text if isinstance(text, ReadMessage) and text.table is self else ReadMessage(self, str(text))
        if not msg.text or msg.in_care():
            return None
        found: RedFlag | None = None
        for rule in self.rules:
            rank = URGENCIES.index(rule.flag.urgency)
            if (found is None or rank < URGENCIES.index(found.urgency)) and msg.meets(rule):
                if rule.flag.urgency == EMERGENCY:
                    return rule.flag
                found = rule.flag
        return found

    def check_all(self, text: str) -> list[RedFlag]:
        """Every rule the message meets (for evaluation and review)."""
        msg = ReadMessage(self, text)
        return [rule.flag for rule in self.rules if msg.text and msg.meets(rule)]


def _compile(patterns: Any, name: str, source: str) -> _Gated | None:
    if not patterns:
        return None
    if isinstance(patterns, str):
        patterns = [patterns]
    if not isinstance(patterns, list) or not all(isinstance(p, str) and p for p in patterns):
        raise ValueError(f"{source}: term {name!r}: patterns must be a list of non-empty strings")
    try:
        return _Gated(re.compile("|".join(f"(?:{p})" for p in patterns)))
    except re.error as exc:
        raise ValueError(f"{source}: term {name!r}: {exc}") from exc


def _term(name: str, spec: Any, source: str) -> _Term:
    if not isinstance(spec, dict) or not (spec.get("ko") or spec.get("en")):
        raise ValueError(f"{source}: term {name!r} needs ko and/or en patterns")
    unknown = set(spec) - {"ko", "en", "negatable", "not_after"}
    if unknown:
        raise ValueError(f"{source}: term {name!r}: unknown keys {sorted(unknown)}")
    not_after = None
    if spec.get("not_after"):
        try:
            not_after = re.compile(f"(?:{spec['not_after']})$")
        except re.error as exc:
            raise ValueError(f"{source}: term {name!r}: not_after: {exc}") from exc
    return _Term(name, _compile(spec.get("ko"), name, source), _compile(spec.get("en"), name, source),
                 bool(spec.get("negatable", True)), not_after)


def _requirement(item: Any, rid: str, source: str) -> Requirement:
    if isinstance(item, str):
        return item
    if isinstance(item, list) and item:
        return tuple(_requirement(i, rid, source) for i in item)
    raise ValueError(f"{source}: rule {rid!r}: `all` items are term names or non-empty lists of them")


def _rule(spec: Any, source: str) -> Rule:
    if not isinstance(spec, dict) or not spec.get("id"):
        raise ValueError(f"{source}: every rule needs an id")
    rid = str(spec["id"])
    unknown = set(spec) - _RULE_KEYS
    if unknown:
        raise ValueError(f"{source}: rule {rid!r}: unknown keys {sorted(unknown)}")
    for key in ("urgency", "title", "source", "advice_ko", "advice_en", "all"):
        if not spec.get(key):
            raise ValueError(f"{source}: rule {rid!r} needs {key!r}")
    if spec["urgency"] not in URGENCIES:
        raise ValueError(f"{source}: rule {rid!r}: urgency must be one of {URGENCIES}")
    if not _HANGUL.search(spec["advice_ko"]) or _HANGUL.search(spec["advice_en"]):
        raise ValueError(f"{source}: rule {rid!r}: advice_ko must be Korean and advice_en English")
    if spec.get("closing", CLOSING_URGENT) not in CLOSINGS:
        raise ValueError(f"{source}: rule {rid!r}: closing must be one of {', '.join(CLOSINGS)}")
    age = spec.get("age_days")
    if age is not None and not (isinstance(age, list) and len(age) == 2 and 0 <= age[0] < age[1]):
        raise ValueError(f"{source}: rule {rid!r}: age_days must be [min, max] days")
    fever = spec.get("fever") or {}
    if set(fever) - {"min_temp", "number_required"}:
        raise ValueError(f"{source}: rule {rid!r}: fever takes min_temp and number_required")
    flag = RedFlag(rid, spec["urgency"], " ".join(str(spec["title"]).split()),
                   " ".join(spec["advice_ko"].split()), " ".join(spec["advice_en"].split()),
                   " ".join(str(spec["source"]).split()), bool(spec.get("withhold_doses", False)),
                   spec.get("closing", CLOSING_URGENT), bool(spec.get("advice_only", False)))
    within = spec.get("within")
    if within is not None and not all(isinstance(i, str) for i in spec["all"]):
        raise ValueError(f"{source}: rule {rid!r}: `within` needs `all` to be plain term names")
    return Rule(flag, tuple(_requirement(i, rid, source) for i in spec["all"]),
                tuple(spec.get("none") or ()), tuple(age) if age else None, bool(spec.get("child", False)),
                fever.get("min_temp"), bool(fever.get("number_required", False)), spec.get("fever_days"), within)


@cache
def load_table() -> RedFlagTable:
    """The packaged table, parsed and compiled once per process."""
    path = resources.files("yaksa.scope").joinpath("data", TABLE_FILE)
    return RedFlagTable.parse(path.read_text(encoding="utf-8"))


def read_message(text: str) -> ReadMessage:
    """The message as the rules read it (its terms, negation-aware; ages; temperatures), for other
    questions asked of the table (`yaksa.scope.when_to_go`)."""
    return ReadMessage(load_table(), text)


# A case as a licensing exam or a clinician writes it: an age and a sex as its subject, brought to a hospital
# in the past tense, and a short question on it ("58세 남자가 갑자기 숨이 차고 왼쪽 가슴이 아파서 병원에 왔다. …
# 진단은?"). The patient is already in care; "call 119 now" answers nothing the asker needs (135 of the 1,218
# shared exam stems met a rule, 76 of them read so; none of the 4,986 shared posts does).
_VIGNETTE = re.compile(
    r"(?:\d{1,3}\s?(?:세|개월|일|주)|신생아)\s?(?:남자|여자|남아|여아|남성|여성|환자|아기|임신부|임부|산모|소아|남|여)(?:가|이|는)"
    r".{0,400}?(?:(?:병원|응급실|외래|진료실|보건소|약국|의원)에\s?(?:왔다|실려\s?왔다|내원)|내원하였다|내원했다|입원하였다|입원했다"
    r"|(?:수술|술|시술)을\s?받았다)",
    re.DOTALL)
_VIGNETTE_QUESTION = re.compile(r"(?<![가-힣])[가-힣]{1,14}(?:\s[가-힣]{1,8}){0,3}(?:은|는)\?")


def in_care_vignette(text: str) -> bool:
    """The message is a clinical case already in care, as an exam writes it (see `_VIGNETTE`)."""
    return bool(_VIGNETTE.search(text) and _VIGNETTE_QUESTION.search(text))


def red_flag(text: str) -> RedFlag | None:
    """The flag the message raises (emergency before today before soon), or None. NFC first."""
    if not isinstance(text, str):
        return None
    return load_table().check(text)


# --- negation --------------------------------------------------------------------------------------

# where a clause ends: punctuation, or a connective ending after a Hangul syllable ("나고 ", "없는데 ")
# a sentence-final 요/다 before a space ends the clause too: in "숨이차요 뛰거나 운동을 한것도 아닌데" the 아닌 is
# the running's, not the breathlessness's (a real post of sudden chest tightness at rest got no advice)
# ... and a formal ending run into the next sentence ("머리가너무아픕니다열이나는건아니고": a real post's headache was denied
# by the next sentence's denial of a fever)
_CLAUSE_END = re.compile(r"[.?!\n;,~]|(?<=[가-힣])(?:고|며|면서|는데|은데|지만|서|니까|어도|아도|요|다)(?:\s|$)"
                         r"|(?<=[가-힣])니다(?=[가-힣])")
# what says the term is absent
_NEG_KO = re.compile(
    r"없|않|아니|아닌|아녜|안\s?(?:나|났|남|납|와|왔|오|올|보|들|쉬|차|해|했|함|아프|아파|생기|생겼|느껴|느낀|붓|부어|부었"
    r"|비치|섞|묻|있|뛰|저리|저려)|못\s?느끼|업(?:고|어|음|슴|습|다|는)"
    # a finding said normal ("검사는 정상"), not a question whether it is ("운동시 숨이 가쁘면 가슴이 따가게 아픈 정상은",
    # a real post of chest pain with breathlessness on effort, got no advice, 2026-12-02)
    r"|정상(?!\s?(?:인가|일까|인지|입니까|인\s?(?:건|거|걸)|이에요\s?\?|이야\s?\?|은\s?(?:\?|$)|일\s?수|범위))")
# what says it persists (checked first): "열이 안 떨어져요", "열이 내리지 않아요", "없어지지 않아요", or comes
# and goes ("열이 났다 안났다 해요": its "안났" is no "no fever")
_PERSIST_KO = re.compile(
    r"(?:안|못)\s?(?:떨어|내려|내리|가라앉|멈|없어지|없어져|나아|낫|좋아|잡히|잡혀|그쳐|그치)"
    r"|(?:떨어지|내리|내려가|없어지|나아지|낫|멈추|가라앉|좋아지|잡히|그치)\s?(?:지|질)\s?(?:가\s?|를\s?|도\s?|는\s?)?(?:않|못|안)"
    r"|끊이지\s?않|쉬지\s?않고|계속|자꾸"
    # comes and goes: "열이 났다 안났다 반복해요", "오르락내리락"
    r"|(?:났|나)다가?\s?(?:안|말|내렸|떨어)|반복|오르락\s?내리락")
_NEG_EN_BEFORE = re.compile(
    r"\b(?:no|not|without|denies|denied|never|nor|negative\s+for|free\s+of|isn't|aren't|doesn't\s+have|don't\s+have"
    r"|hasn't\s+had|haven't\s+had)\s+(?:\w+\s+){0,2}$")


# "or" joining the term to the next clause: in "가슴이 답답하거나..숨쉬기 힘든적은 없습니다만" the 없 denies both
_OR_JOINS = re.compile(r"\s?(?:하|했|이|이었|였)?거나[.…~,\s]*")


def _negated_after(text: str, end: int) -> bool:
    # searched in `text`, not in the slice: a connective right after the term ("토하고 힘없이 …") needs
    # the term's last syllable for its look-behind, or the clause runs on into the next one's "없"
    if (joined := _OR_JOINS.match(text, end)) is not None:
        end = joined.end()   # the term's clause is the next one's ("…하거나 … 적은 없어요"): a real post was told
                             # to see a doctor for chest pain on running that it denied
    stop = _CLAUSE_END.search(text, end, end + NEGATION_REACH)
    window = text[end:stop.end() if stop is not None else end + NEGATION_REACH]
    if _PERSIST_KO.search(window):
        return False
    return _NEG_KO.search(window) is not None


def _negated_before_en(text: str, start: int) -> bool:
    return _NEG_EN_BEFORE.search(text[max(0, start - 40):start]) is not None


# --- facts: ages, temperature, duration ------------------------------------------------------------

_BABY = r"(?:아기|아가|애기|신생아|여아|남아|딸|아들|우리\s?애|남자\s?(?:아이|아기|애)|여자\s?(?:아이|아기|애)|아이|손자|손녀|조카|유아|영아)"
_AGE_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"(?:생후|태어난\s?지|출생\s?후)\s?(\d{1,3})\s?일"), "d"),
    (re.compile(rf"(?<!\d)(\d{{1,3}})\s?일\s?(?:된|된|짜리|차\s?{_BABY}|째\s?(?:되는|된)\s?{_BABY}|\s?{_BABY})"), "d"),
    (re.compile(r"백\s?일\s?(?:된|지난|아기|쯤|정도|인데|이에요|잔치)"), "100d"),
    (re.compile(r"백\s?일(?:도|이)?\s?(?:안\s?(?:된|됐|지난|지났)|전|이\s?안)"), "90d"),
    (re.compile(r"(?:생후|태어난\s?지)\s?(\d{1,2})\s?주"), "w"),
    (re.compile(rf"(?<![임신\d])(\d{{1,2}})\s?주\s?(?:된|짜리|차\s?{_BABY}|\s?{_BABY})"), "w"),
    (re.compile(r"(?:생후|태어난\s?지)\s?(\d{1,2})\s?(?:개월|달)"), "m"),
    # "만 4년 6개월 된 어린이": years and months (a child's age as a parent writes it; "2년 6개월 전부터" is a time)
    (re.compile(rf"(?:만\s?)?(?<![\d.])(\d{{1,2}})\s?년\s?(\d{{1,2}})\s?개월\s?(?:된|짜리|인(?!\s?(?:지|가))|이에요|예요|입니다|이고|{_BABY})"),
     "ym"),
    (re.compile(
        r"(?<![임신\d])(?<!년\s)(?<!살\s)(?<!세\s)(?<![년살세])(\d{1,2})\s?개월\s?(?:된|짜리|차\s?(?:아기|아가|애기)|인(?!\s?(?:지|가))|이에요|이예요|이구요|이고|입니다|이며|이에여|예요"
        rf"|{_BABY}|남자|여자|둥이|\(|,|\s?\d{{1,2}}\s?일)"), "m"),
    (re.compile(r"(한|두|세)\s?달\s?(?:된|짜리|하고|이\s?(?:된|안\s?된|지난)|안\s?된)"), "km"),
    (re.compile(r"(?:만\s?)?(?<![\d.])(\d{1,2})\s?(?:살|세)(?!대|기|트|균|척|제|금|계|상|포|탁|미|련|수|입|출|율|월|례|배|무|때|까지|무렵|이후|이전|부터)"), "y"),
    (AGE_IN_WORDS, "ky"),
    (re.compile(r"(?<!\d)([1-9])0\s?대"), "decade"),
    (re.compile(r"(?:초등학교\s?([1-6])\s?학년|(?<![가-힣])초\s?([1-6])(?![\d가-힣]))(?!\s?(?:때|시절))"), "grade_e"),
    (re.compile(r"(?:초등학생|초딩)(?!\s?(?:때|시절))"), "9y"),
    (re.compile(r"(?:중학생|중학교|(?<![가-힣])중\s?[1-3](?![\d가-힣])|중딩)(?!\s?(?:때|시절))"), "14y"),
    (re.compile(r"(?:고등학생|고등학교|(?<![가-힣])고\s?[1-3](?![\d가-힣])|고딩)(?!\s?(?:때|시절))"), "17y"),
    (re.compile(r"대학생|대학교"), "21y"),
    (re.compile(r"신생아(?!\s?(?:때|시절|시기|기에|였을))"), "14d"),
    *((pattern, f"{months:g}m") for pattern, months in DOL_MONTHS),
    (re.compile(r"유치원|어린이집"), "4y"),
    (re.compile(r"\bnewborn\b|\bneonate\b"), "14d"),
    (re.compile(r"\b(\d{1,3})[\s-]+(day|week|month|year)s?[\s-]+old\b"), "en"),
    (re.compile(r"\baged?\s+(\d{1,2})\b"), "y"),
)
_TEMP = re.compile(
    r"(?<![\d.])(3[5-9]|4[0-3])(?:[.,](\d{1,2}))?(?!\d)"
    r"(?:\s?(?:~|-|–|에서|부터|이나|내지|\s)\s?(3[5-9]|4[0-3])(?:[.,](\d{1,2}))?(?!\d))?"
    r"(\s?(?:도|℃|°|º|degrees?|c\b))?")
_TEMP_BAD_AFTER = re.compile(r"\s?(?:kg|cm|%|세|살|대|키로|킬로|mmhg|분|회|번|mg|ml|개|시|mm|주|일|년|명|원|점|초|kcal|층|평|인|만|알|정|캡슐|달|개월)")
_TEMP_CONTEXT = re.compile(r"(?:체온|열|온도|고열|미열|귀|겨드랑이|temp|fever)\D{0,8}$")
_TEMP_UNDER = re.compile(r"\s?(?:도\s?)?(?:미만|이하|아래|안\s?(?:되|넘)|가까이|근처|육박|언저리|under|below)")
_TEMP_F = re.compile(r"(?<![\d.])(9[5-9]|10[0-9])(?:\.(\d))?\s?(?:°\s?f|f\b|degrees?\s+f)")
_DURATION = re.compile(
    r"(?<!\d)(\d{1,2})\s?일\s?(?:째|동안|간|넘게|이상|정도\s?(?:째|동안|됐|되었|지속)|가량|이나|내내|전부터|전\s부터|되었|됐|지났|연속)"
    r"|(이틀|사흘|나흘|닷새|엿새|이레|열흘|보름|일주일|한\s?주|1\s?주일|2\s?주|두\s?주)\s?(?:째|동안|간|넘게|이상|가까이|내내|전부터|가\s?넘|이\s?넘|가\s?지|이\s?지|넘|되었|됐|지났|지속|정도)"
    r"|(?<!\d)([1-9])\s?주\s?(?:째|동안|간|넘게|이상|가까이|전부터)"
    r"|\b(\d{1,2})\s+days?\b|\bfor\s+(a\s+week|two\s+weeks)\b")
_DURATION_WORDS = {"이틀": 2, "사흘": 3, "나흘": 4, "닷새": 5, "엿새": 6, "이레": 7, "열흘": 10, "보름": 15,
                   "일주일": 7, "한주": 7, "1주일": 7, "2주": 14, "두주": 14, "a week": 7, "two weeks": 14}
_ADULT_NEAR_CHILD = 4   # characters between an adult age and a child word that make them one person ("20살 딸")


def _ages(text: str) -> list[tuple[float, int, int]]:
    """(age in days, start, end) of every age the message states."""
    found: list[tuple[float, int, int]] = []
    for pattern, kind in _AGE_PATTERNS:
        for m in pattern.finditer(text):
            days = _age_days(m, kind)
            if days is not None:
                found.append((days, m.start(), m.end()))
    return found


def _age_days(m: re.Match[str], kind: str) -> float | None:
    groups = [g for g in m.groups() if g]
    num = int(groups[0]) if groups and groups[0].isdigit() else None
    if kind == "d" and num is not None:
        return float(num)
    if kind == "w" and num is not None:
        return num * 7.0
    if kind == "m" and num is not None:
        return num * 30.4
    if kind == "y" and num is not None:
        return num * 365.0
    if kind == "ym" and num is not None:
        return num * 365.0 + int(groups[1]) * 30.4
    if kind == "km":
        return KOREAN_NUMBERS[groups[0]] * 30.4
    if kind == "ky":
        return KOREAN_NUMBERS[groups[0]] * 365.0
    if kind == "decade" and num is not None:
        return (num * 10 + 5) * 365.0
    if kind == "grade_e" and num is not None:
        return (6 + num) * 365.0
    if kind == "en" and num is not None:
        return num * {"day": 1.0, "week": 7.0, "month": 30.4, "year": 365.0}[m.group(2)]
    fixed = re.fullmatch(r"(\d+)([dmy])", kind)
    if fixed:
        return int(fixed.group(1)) * {"d": 1.0, "m": 30.4, "y": 365.0}[fixed.group(2)]
    return None


def _temperatures(text: str) -> list[tuple[float, int]]:
    """(°C, position) of every body temperature stated."""
    temps: list[tuple[float, int]] = []
    for m in _TEMP.finditer(text):
        unit = bool(m.group(5))
        decimal = m.group(2) is not None or m.group(4) is not None
        after = text[m.end():m.end() + 6]
        if not unit and _TEMP_BAD_AFTER.match(after):
            continue
        if not (unit or decimal or _TEMP_CONTEXT.search(text[max(0, m.start() - 12):m.start()])):
            continue
        values = [float(f"{m.group(1)}.{m.group(2) or 0}")]
        if m.group(3):
            values.append(float(f"{m.group(3)}.{m.group(4) or 0}"))
        value = max(values)
        if _TEMP_UNDER.match(text, m.end()):
            value -= 0.1
        temps.append((value, m.start()))
    for m in _TEMP_F.finditer(text):
        temps.append((round((float(f"{m.group(1)}.{m.group(2) or 0}") - 32) / 1.8, 1), m.start()))
    return temps


def _durations(text: str) -> list[tuple[int, int]]:
    """(days, position) of every duration stated ("6일째", "일주일 동안", "4일 전부터")."""
    out: list[tuple[int, int]] = []
    for m in _DURATION.finditer(text):
        if m.group(1):
            days = int(m.group(1))
        elif m.group(2):
            days = _DURATION_WORDS.get(re.sub(r"\s", "", m.group(2)), 0)
        elif m.group(3):
            days = int(m.group(3)) * 7
        elif m.group(4):
            days = int(m.group(4))
        else:
            days = _DURATION_WORDS.get(m.group(5) or "", 0)
        if days:
            out.append((days, m.start()))
    return out


# --- one message -----------------------------------------------------------------------------------

@dataclass
class ReadMessage:
    """A message as the rules read it (NFC, lower-cased), with what several rules share, computed once."""

    table: RedFlagTable
    raw: str
    text: str = field(init=False)
    latin: bool = field(init=False)
    _hits: dict[str, list[tuple[int, int]]] = field(init=False, default_factory=dict)
    _has: dict[str, bool] = field(init=False, default_factory=dict)
    _facts: dict[str, Any] = field(init=False, default_factory=dict)

    def __post_init__(self) -> None:
        self.text = unicodedata.normalize("NFC", self.raw)[:MAX_CHARS].strip().lower()
        self.latin = _LATIN.search(self.text) is not None

    # terms
    def iter_hits(self, name: str) -> Iterator[tuple[int, int]]:
        """Spans of the term's matches that are not negated, found lazily (cached once all are read)."""
        if name in self._hits:
            yield from self._hits[name]
            return
        term = self.table.terms[name]
        spans: list[tuple[int, int]] = []
        if term.ko is not None:
            for m in term.ko.finditer(self.text):
                if term.not_after is not None and term.not_after.search(
                        self.text, max(0, m.start() - NOT_AFTER_REACH), m.start()):
                    continue
                if not (term.negatable and _negated_after(self.text, m.end())):
                    spans.append(m.span())
                    yield m.span()
        if term.en is not None and self.latin:
            for m in term.en.finditer(self.text):
                if not (term.negatable and (_negated_before_en(self.text, m.start())
                                            or _negated_after(self.text, m.end()))):
                    spans.append(m.span())
                    yield m.span()
        self._hits[name] = spans

    def hits(self, name: str) -> list[tuple[int, int]]:
        """All spans of the term's matches that are not negated."""
        if name not in self._hits:
            for _ in self.iter_hits(name):
                pass
        return self._hits[name]

    def has_word(self, name: str) -> bool:
        """The term itself (for "fever": the word, not a stated temperature)."""
        if name not in self._has:
            self._has[name] = next(iter(self.iter_hits(name)), None) is not None
        return self._has[name]

    def has(self, name: str) -> bool:
        if name == "fever":
            return self.fever(FEVER_TEMP, False)
        return self.has_word(name)

    def satisfied(self, req: Requirement, conjunction: bool) -> bool:
        """A term; or a tuple: all of it (conjunction) or any of it (alternatives), alternating by depth."""
        if isinstance(req, str):
            return self.has(req)
        if conjunction:
            return all(self.satisfied(r, False) for r in req)
        return any(self.satisfied(r, True) for r in req)

    # facts
    def in_care(self) -> bool:
        """A clinical case already in care, as an exam writes it (`in_care_vignette`), read once per message:
        the red-flag check and the turn's memory both ask."""
        return bool(self._fact("in_care", lambda: in_care_vignette(self.text)))

    def _fact(self, key: str, compute: Any) -> Any:
        if key not in self._facts:
            self._facts[key] = compute()
        return self._facts[key]

    @property
    def ages(self) -> list[tuple[float, int, int]]:
        return self._fact("ages", lambda: _ages(self.text))

    @property
    def temperatures(self) -> list[tuple[float, int]]:
        return self._fact("temps", lambda: _temperatures(self.text))

    @property
    def max_temp(self) -> float | None:
        return max((t for t, _ in self.temperatures), default=None)

    def fever(self, min_temp: float, number_required: bool) -> bool:
        """A fever of at least `min_temp`: the stated temperature decides; without one, a fever word."""
        top = self.max_temp
        if top is not None:
            return top >= min_temp
        return not number_required and self.has_word("fever")

    def fever_days(self) -> int:
        """The longest duration stated near a fever word or a temperature of 38 or more."""
        def compute() -> int:
            spots = [s for s, _ in self.hits("fever")] + [p for t, p in self.temperatures if t >= FEVER_TEMP]
            return max((d for d, pos in _durations(self.text)
                        if any(abs(pos - s) <= FEVER_DAYS_REACH for s in spots)), default=0)
        return self._fact("fever_days", compute)

    def is_child(self) -> bool:
        """An age under 16 is stated, or a child is named and not given an adult age ("20살 딸")."""
        def compute() -> bool:
            limit = CHILD_MAX_YEARS * 365
            if any(days < limit for days, _, _ in self.ages):
                return True
            adults = [(s, e) for days, s, e in self.ages if days >= limit]
            for start, end in self.iter_hits("child"):
                if not any(-_ADULT_NEAR_CHILD <= start - a_end <= _ADULT_NEAR_CHILD
                           or -_ADULT_NEAR_CHILD <= a_start - end <= _ADULT_NEAR_CHILD + 2
                           for a_start, a_end in adults):
                    return True
            return False
        return self._fact("child", compute)

    def close_together(self, names: list[str], reach: int) -> bool:
        """Some match of the first term has a match of every other term within `reach` characters and
        in the same sentence."""
        first, *others = names

        def near(a: tuple[int, int], b: tuple[int, int]) -> bool:
            lo, hi = (a, b) if a[0] <= b[0] else (b, a)
            return hi[0] - lo[1] <= reach and _SENTENCE_END.search(self.text, lo[1], max(lo[1], hi[0])) is None
        return any(all(any(near(span, o) for o in self.hits(other)) for other in others)
                   for span in self.hits(first))

    def age_in(self, low: float, high: float) -> bool:
        return any(low <= days < high for days, _, _ in self.ages)

    # rules
    def meets(self, rule: Rule) -> bool:
        if rule.age_days is not None and not self.age_in(*rule.age_days):
            return False
        if rule.child and not self.is_child():
            return False
        if not all(self.satisfied(req, False) for req in rule.all):
            return False
        if rule.fever_min_temp is not None and not self.fever(rule.fever_min_temp, rule.fever_number_required):
            return False
        if rule.fever_days is not None and self.fever_days() < rule.fever_days:
            return False
        if rule.within is not None and not self.close_together([r for r in rule.all if isinstance(r, str)], rule.within):
            return False
        return not any(self.has(name) for name in rule.none)


def rules() -> Sequence[Rule]:
    """The packaged rules in the order they are tried."""
    return load_table().rules


def rule_ids() -> tuple[str, ...]:
    return tuple(r.rule_id for r in load_table().rules)


def describe(flags: Iterable[RedFlag]) -> list[dict[str, str]]:
    return [f.to_json() for f in flags]


def red_flag_decision(flag: RedFlag, decision: ScopeDecision) -> ScopeDecision:
    """The scope decision for a red-flag message: answered (never refused as off-topic), with the urgent
    advice first. An in-scope decision is kept (its model still keys the response cache) with the flag
    added to its signals; an out-of-scope one is overridden and keeps what the scope model said."""
    if decision.in_scope:
        return ScopeDecision(True, decision.reason,
                             {**decision.signals, "red_flag": flag.rule_id, "urgency": flag.urgency}, decision.model)
    return ScopeDecision(True, f"{RED_FLAG_REASON_PREFIX}{flag.rule_id}",
                         {"red_flag": flag.rule_id, "urgency": flag.urgency, "scope_model": decision.to_json()},
                         RED_FLAG_RULES)


def advice_texts(rule_ids: Iterable[str]) -> list[str]:
    """The advice texts (both languages) of these rules, in order; ids the table does not hold are skipped
    (a trace from an older table)."""
    table = load_table()
    known = {r.rule_id for r in table.rules}
    return [text for i in rule_ids if i in known for text in (table.rule(i).flag.advice_ko, table.rule(i).flag.advice_en)]


def flag_of(rule_id: str) -> RedFlag:
    """The flag of a rule id (as the trace carries it)."""
    return load_table().rule(rule_id).flag


def withholds_doses(noted: dict[str, str] | None) -> bool:
    """Whether a turn's red flag, as its trace carries it ({"rule", "urgency"}), withholds dosing text:
    its answer quotes cautions only, and it neither reads nor feeds the response cache (a cached
    answer to a like question may hold the dose)."""
    return bool(noted) and flag_of(noted["rule"]).withhold_doses


def advises_only(noted: dict[str, str] | None) -> bool:
    """Whether a turn's red flag, as its trace carries it, is answered by its advice alone when the message names no
    medicine (`RedFlag.advice_only`)."""
    return bool(noted) and flag_of(noted["rule"]).advice_only


def closing_of(noted: dict[str, str] | None) -> str:
    """The closing line's kind for a turn's red flag as its trace carries it (`RedFlag.closing`; "urgent" when none)."""
    return flag_of(noted["rule"]).closing if noted else CLOSING_URGENT
