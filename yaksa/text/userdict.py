"""The tokenizer user dictionary: drug brand stems and ingredient names from the MFDS documents.

Without it Kiwi cuts unknown brands into syllables ("타이레놀" can come out as 타/이레/놀 in MeCab)
and glues salts onto ingredients ("로페라미드염산염" as one noun), so a question about "로페라미드"
never matches the label text. The dictionary is derived from the corpus so it follows the data, and
it is a plain TSV (`word<TAB>tag<TAB>score`) whose sha256 goes into the index manifest: the index and
the query side must load the same words.

Derivation rules (see `build_user_words`):
- ingredient names, each item of a comma-separated list, parentheses and whitespace removed; a
  known salt or hydrate suffix ("염산염", "말레산염", "나트륨", "수화물" ...) is split off and both
  parts are added, so "로페라미드염산염" is analysed as 로페라미드 + 염산염;
- the brand stem of each product: bracketed parts, strengths ("500밀리그람", "10mL") and one
  dosage-form suffix ("정", "연질캡슐", "현탁액" ...) removed — 타이레놀정500밀리그람 → 타이레놀.
  Stems that contain a known ingredient name ("신일트리메부틴말레산염") are company + generic names,
  not brands: adding them would hide the ingredient inside one token, so they are skipped;
- only Hangul words of two or more syllables are kept.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from yaksa.atomicio import atomic_write_text
from yaksa.corpus.document import Document

# Kiwi's add_user_word score is added to the word's log-probability. 0 already wins over the
# syllable split in the cases we checked (sentence-initial 두통에, 타이레놀정500밀리그람); larger values
# only make it likelier that a user word overrides a better analysis of ordinary text.
DEFAULT_SCORE = 0.0

# Longest first, so "연질캡슐" is removed rather than just "캡슐".
DOSAGE_FORMS: tuple[str, ...] = tuple(
    sorted(
        {
            "정", "정제", "필름코팅정", "서방정", "장용정", "츄어블정", "당의정", "이중정", "질정", "발포정",
            "구강붕해정", "트로키", "캡슐", "연질캡슐", "경질캡슐", "장용캡슐", "캅셀", "시럽", "액", "내복액",
            "현탁액", "점안액", "점비액", "외용액", "산", "과립", "세립", "크림", "연고", "안연고", "겔", "젤",
            "로션", "패치", "패취", "플라스타", "카타플라스마", "파스", "좌제", "좌약", "주", "주사", "주사액",
            "스프레이", "에멀젼", "구강필름", "환",
        },
        key=len,
        reverse=True,
    )
)

# Salt and hydrate names that follow an active ingredient in Korean INN spellings.
SALT_SUFFIXES: tuple[str, ...] = tuple(
    sorted(
        {
            "염산염", "말레산염", "푸마르산염", "숙신산염", "석시네이트", "질산염", "황산염", "인산염",
            "구연산염", "타르타르산염", "메실산염", "베실산염", "브롬화수소산염", "아세테이트", "수화물",
            "무수물", "나트륨", "칼륨", "칼슘", "마그네슘",
        },
        key=len,
        reverse=True,
    )
)

_UNIT = (
    r"(?:밀리그람|밀리그램|마이크로그람|마이크로그램|밀리리터|밀리리타|그람|그램|아이유|"
    r"mg|mcg|µg|ug|ml|g|l|iu|%)"
)
_STRENGTH = re.compile(rf"\d+(?:[.,]\d+)?\s*{_UNIT}?", re.IGNORECASE)
_BRACKETED = re.compile(r"\([^()]*\)|\[[^\[\]]*\]|\{[^{}]*\}|<[^<>]*>")
_HANGUL_WORD = re.compile(r"[가-힣]{2,}")
_TAG = re.compile(r"[A-Z]{2,4}")


class UserDictError(ValueError):
    """A user-dictionary file is malformed; the message names the file and line."""


@dataclass(frozen=True, order=True)
class UserWord:
    word: str
    tag: str = "NNP"
    score: float = DEFAULT_SCORE


def _strip_brackets(name: str) -> str:
    """Remove (...)/[...]/{...}/<...> groups, innermost first; cut at an unbalanced opener."""
    previous = None
    while previous != name:
        previous, name = name, _BRACKETED.sub("", name)
    return re.split(r"[(\[{<]", name, maxsplit=1)[0]


def _is_word(text: str) -> bool:
    return bool(_HANGUL_WORD.fullmatch(text))


def ingredient_words(ingredient: str) -> list[str]:
    """Dictionary words for an ingredient field ("아세트아미노펜", "A염산염, B" ...)."""
    words: list[str] = []
    for item in _strip_brackets(ingredient).split(","):
        name = "".join(item.split())
        for salt in SALT_SUFFIXES:
            base = name[: -len(salt)]
            if name.endswith(salt) and _is_word(base):
                words.extend((base, salt))
                break
        else:
            if _is_word(name):
                words.append(name)
    return words


def brand_stem(product_name: str) -> str:
    """The brand part of a product name, or "" when nothing Hangul-only is left.

    타이레놀정500밀리그람 → 타이레놀, 이바펜400밀리그람정 → 이바펜, 대웅우루사연질캡슐 → 대웅우루사.
    Only the first comma-separated name is used ("누마렌점안액(1회용),누마렌점안액").
    """
    name = "".join(_strip_brackets(product_name).split(",")[0].split())
    name = _STRENGTH.sub("", name)
    for form in DOSAGE_FORMS:
        if name.endswith(form) and len(name) > len(form):
            name = name[: -len(form)]
            break
    name = re.sub(r"^[^가-힣]+|[^가-힣]+$", "", name)
    return name if _is_word(name) else ""


def _field(doc: Document, key: str) -> list[str]:
    value = doc.metadata.get(key)
    if isinstance(value, str):
        return [value]
    if isinstance(value, (list, tuple)):
        return [v for v in value if isinstance(v, str)]
    return []


def build_user_words(documents: Iterable[Document], score: float = DEFAULT_SCORE) -> list[UserWord]:
    """Brand stems and ingredient names of the `drugs` documents, sorted and de-duplicated."""
    ingredients: set[str] = set()
    products: set[str] = set()
    for doc in documents:
        if doc.collection != "drugs":
            continue
        products.update(_field(doc, "product_name") or [doc.title])
        for value in _field(doc, "ingredient"):
            ingredients.update(ingredient_words(value))
    # A stem that contains an ingredient is "company + generic name": let the analyser split it.
    actives = [w for w in ingredients if w not in SALT_SUFFIXES]
    stems = {brand_stem(p) for p in products} - {""}
    stems = {s for s in stems if s in ingredients or not any(a in s for a in actives)}
    return [UserWord(word, "NNP", score) for word in sorted(ingredients | stems)]


def _format_score(score: float) -> str:
    return repr(float(score))


def write_userdict(path: Path, words: Sequence[UserWord]) -> None:
    """Write `word<TAB>tag<TAB>score` lines, sorted by word, one line per word, atomically.

    When a word appears twice the entry with the higher score wins, so the file (and its hash) does
    not depend on input order.
    """
    best: dict[str, UserWord] = {}
    for w in words:
        if not w.word or any(ch.isspace() for ch in w.word):
            raise ValueError(f"user word must be non-empty without whitespace: {w.word!r}")
        if not _TAG.fullmatch(w.tag):
            raise ValueError(f"invalid tag {w.tag!r} for user word {w.word!r}")
        if not math.isfinite(w.score):
            raise ValueError(f"score of user word {w.word!r} is not finite: {w.score!r}")
        if w.word not in best or w.score > best[w.word].score:
            best[w.word] = w
    body = "".join(f"{w.word}\t{w.tag}\t{_format_score(w.score)}\n" for _, w in sorted(best.items()))
    atomic_write_text(Path(path), body)


def read_userdict(path: Path) -> list[UserWord]:
    """Parse a user-dictionary TSV; blank lines and `#` comments are ignored."""
    path = Path(path)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        raise UserDictError(f"user dictionary not found: {path}") from None
    except UnicodeDecodeError as exc:
        raise UserDictError(f"{path}: not UTF-8 text ({exc})") from None
    words: list[UserWord] = []
    for lineno, line in enumerate(lines, start=1):
        if not line.strip() or line.startswith("#"):
            continue
        parts = line.split("\t")
        if len(parts) != 3:
            raise UserDictError(f"{path}:{lineno}: expected 'word<TAB>tag<TAB>score', got {line!r}")
        word, tag, raw_score = parts
        if not word or any(ch.isspace() for ch in word):
            raise UserDictError(f"{path}:{lineno}: word must be non-empty without spaces, got {word!r}")
        if not _TAG.fullmatch(tag):
            raise UserDictError(f"{path}:{lineno}: invalid POS tag {tag!r}")
        try:
            score = float(raw_score)
        except ValueError:
            raise UserDictError(f"{path}:{lineno}: score is not a number: {raw_score!r}") from None
        if not math.isfinite(score):
            raise UserDictError(f"{path}:{lineno}: score is not finite: {raw_score!r}")
        words.append(UserWord(word, tag, score))
    return words


def userdict_hash(path: Path) -> str:
    """sha256 of the file bytes: the identity the index manifest records."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()
