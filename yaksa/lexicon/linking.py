"""Find the drugs a Korean (or English) question names: bundle products, ingredients, known brands.

Why: a drug name in a question is a constraint, not a hint. Fused BM25/dense scores let "타이레놀 먹어도
되나요" cite trimebutine, because the dense model hears "먹어도 되나요" louder than a brand it does not
know. The linker resolves names against the loaded bundle's own documents (`DrugCatalog.from_documents`:
product names, brand stems and the ingredient in metadata or in the name), so it follows the data;
only brands missing from the data come from a reviewed file (`rules/brands_ko.yaml`, with a source per
entry), and they resolve to products of the same ingredient.

Matching works on the question's words (runs of Hangul, Latin letters and digits). A word names a
product when it starts with the product's brand stem (or the stem's tail: "우루사" for 대웅우루사,
"부루펜" for 어린이부루펜) and the rest of the word is a strength, a dosage form or a particle
("부루펜시럽을", "타이레놀500", "게보린이랑"). Forms and strengths, in the same word or the next one,
order the matched products ("부루펜 시럽" → 어린이부루펜시럽 first, then 부루펜정).

Usage:
    catalog = DrugCatalog.from_documents(drug_documents)
    found = catalog.link("임신 중인데 타이레놀 먹어도 되나요")
    found.products     # acetaminophen products, single-ingredient first
    found.brands       # [BrandLink("타이레놀", ("아세트아미노펜",), in_data=False)]
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from importlib import resources
from typing import Any

import yaml

from yaksa.corpus.document import Document
from yaksa.lexicon.product_names import is_oral
from yaksa.text.userdict import DOSAGE_FORMS, SALT_SUFFIXES, brand_stem, ingredient_words

BRANDS_FILE = "brands_ko.yaml"
WORDS = re.compile(r"[가-힣A-Za-z0-9.\-]+")
DIGITS = re.compile(r"^\d+(?:[.,]\d+)?\s*(?:밀리그람|밀리그램|마이크로그램|그람|그램|밀리리터|mg|mcg|ml|g|%)?",
                    re.IGNORECASE)
# What may follow a drug name inside one word: particles and the start of a verb.
PARTICLES: tuple[str, ...] = (
    "은", "는", "이", "가", "을", "를", "과", "와", "랑", "하고", "도", "만", "의", "에", "로", "으로", "나",
    "처럼", "보다", "요", "인데", "같은", "먹", "복용", "드", "써", "바르", "발라", "붙", "좀", "부터", "까지",
    "한", "할", "해", "했", "쓰", "넣", "뿌",
)
FORM_WORDS: tuple[str, ...] = tuple(sorted({*DOSAGE_FORMS, "연질캡슐", "현탁액", "시럽", "물약", "알약", "가루약"},
                                           key=len, reverse=True))
# Series letters after a brand ("판콜에이", "보나링에이", "신신파스에스"): people say the brand without them.
SERIES_SUFFIXES: tuple[str, ...] = ("에이", "에스", "에프", "엠", "큐", "골드", "플러스", "포르테", "키즈", "씨", "엘")
FULL_NAME_MIN = 4  # a full product name this long anywhere in the question links it ("타이레놀정500밀리그람")
MIN_SUFFIX = 3  # "우루사" of 대웅우루사; shorter tails ("루펜") name too many things
# A product the data lacks, named as people name products ("독시정과 아시팜정 약을 처방받아"): two or more
# syllables then a dosage form, with at most a particle after it, in a sentence about taking or being
# given medicine. Such a word must be answered "not in the data", not from whatever product's name starts
# the same or whatever else the message says (a post about 독시정, doxycycline, got doxylamine sleep aids).
UNLISTED_FORMS: tuple[str, ...] = ("연질캡슐", "캡슐", "시럽", "현탁액", "과립", "연고", "정")
UNLISTED_PARTICLES: tuple[str, ...] = (   # "도" is not here: "두바퀴정도" is 정도 (about), no tablet
    "", "은", "는", "이", "가", "을", "를", "과", "와", "이랑", "랑", "하고", "만", "의", "에", "으로", "이나",
    "인데", "이라는", "이란", "이라고", "이요", "이에요", "입니다", "이랑은")
# everyday words ending in a form word: 걱정, 예정, 판정, 과정, 안정, 세정, 절정 …; 무연고, 타임캡슐
UNLISTED_NOT: tuple[str, ...] = (
    "걱정", "예정", "판정", "과정", "안정", "가정", "세정", "절정", "인정", "교정", "특정", "감정", "결정", "일정",
    "천정", "진정", "측정", "설정", "수정", "표정", "열정", "사정", "조정", "작정", "지정", "규정", "추정", "확정",
    "한정", "고정", "검정", "부정", "동정", "긍정", "선정", "개정", "책정", "산정", "재정", "행정", "우정", "애정",
    "심정", "순정", "공정", "의정", "상정", "발정", "실정", "평정", "협정", "정정", "중정", "내정", "무연고", "타임캡슐",
    # a form, not a product: 서방정 (extended release), 설하정, 질정 (vaginal tablet), "기침할때 먹는 시럽"
    "서방정", "설하정", "장용정", "발포정", "당의정", "붕해정", "질정", "먹는정", "먹는시럽", "먹는캡슐")
UNLISTED_LONGEST = 8   # characters: longer ones are words run together ("처방받았습니다알레파타딘정…"), not one name
_MEDICINE_CONTEXT = re.compile(r"처방|복용|먹|드시|드셔|약|투약|부작용|성분|효능|조제")
_SENTENCES = re.compile(r"[^.!?\n]+")


def _without_particle(word: str, shortest: int) -> str:
    """`word` without a trailing particle ("타미플루를" → "타미플루"), never shorter than `shortest`."""
    for particle in sorted(UNLISTED_PARTICLES, key=len, reverse=True):
        if particle and word.endswith(particle) and len(word) - len(particle) >= max(shortest, 2):
            return word[: -len(particle)]
    return word


def _name_as_said(word: str, name_length: int) -> str:
    """The name a reply says for a brand or ingredient found at the start of `word`, whose first `name_length`
    characters are the name: without its particle ("타미플루를에 해당하는 제품" was said), and without what follows it
    in the same word when that is no form or strength ("타미플루복용.일동아목시실린250…복용중이예요": a real post listing
    a child's medicines without spaces, all of it said back as one medicine the data lacks)."""
    word = _without_particle(word, name_length)
    return word[:name_length] if word[name_length:].startswith(PARTICLES) else word


# "스티바A라는 의약품이", "캘론이라는 약을": a name said to be a medicine, whatever its shape (a real post on flushing
# asked about 스티바A and got four unrelated labels' side effects; 7 of the 4,986 shared posts name one so)
_SAID_TO_BE = re.compile(r"^(?P<name>[가-힣A-Za-z0-9\-]{2,20}?)(?:이)?라는$")
# (not 주사: an injection is given at a clinic, often a procedure, "PRP라는 주사", and no label of the data is one)
_MEDICINE_NOUN = re.compile(r"^(?:의약품|약물|약|연고|크림|안약|시럽|알약|[가-힣]{1,4}약)"
                            r"(?:을|를|이|가|은|는|도|인데|이에요|입니다|이었|으로|이랑|과|와)?$")


_SENTENCE_END_GLUED = re.compile(r"^[가-힣]*?(?:습니다|니다|어요|아요|에요|예요|구요|고요)(?=[가-힣]{2})")
# what "X라는 약" says as a figure of speech ("시간이라는 약": time heals), not a medicine's name
_FIGURES_OF_SPEECH = frozenset({"시간", "세월", "사랑", "추억", "망각", "웃음", "음악", "여행", "휴식", "운동", "가족", "친구",
                                "눈물", "기도", "잠", "술", "위로", "이별", "희망", "용서"})


def _named_as_a_medicine(word: str, next_word: str) -> str | None:
    """The name in "X라는 약" (`word` is "X라는", `next_word` the medicine noun), None otherwise."""
    m = _SAID_TO_BE.match(word)
    if m is None or not _MEDICINE_NOUN.match(next_word) or next_word.startswith(("약사", "약국")):
        return None
    name = m.group("name")
    if re.fullmatch(r"[가-힣]+", name):   # a sentence's end glued on: "나와있습니다디크놀이라는 약은"
        name = _SENTENCE_END_GLUED.sub("", _GLUED_BEFORE.sub("", name))
    return None if name in _FIGURES_OF_SPEECH or len(name) < 2 else name


# ingredients people take in food and drink far more often than as a medicine: the medicine only where its sentence
# speaks of one ("카페인 알약", "타이밍 복용"); "카페인 음료를 마시면 가슴이 콩닥콩닥 해요" (a real post) got a caffeine
# tablet's uses and dose, and of the 11 shared posts naming 카페인 none asks of a tablet (2026-12-01)
DIETARY_INGREDIENTS = frozenset({"카페인"})
_AS_A_MEDICINE = re.compile(r"알약|정제|캡슐|복용|약\s*(?:을|를|으로|이|은|도)|각성제|졸음|\b(?:tablets?|pills?|capsules?)\b", re.IGNORECASE)


def named_in_the_diet(ingredient: str, question: str) -> bool:
    """Whether a dietary ingredient (`DIETARY_INGREDIENTS`) is named only as food or drink: no sentence naming it
    speaks of a medicine."""
    if ingredient not in DIETARY_INGREDIENTS:
        return False
    english = {"카페인": "caffeine"}.get(ingredient, "")
    said = [m.group(0) for m in _SENTENCES.finditer(question)
            if ingredient in m.group(0) or (english and english in m.group(0).lower())]
    return not any(_AS_A_MEDICINE.search(s) for s in said)


def _in_talk_of_medicine(word: str, question: str) -> bool:
    """Whether `word` stands in a sentence of `question` that talks of medicine (prescribed, taken, 약…): a
    product-shaped word elsewhere ("타임캡슐을 묻었다") is no medicine. Asked only of such words, so an ordinary
    question never pays for splitting its sentences."""
    return any(word in m.group(0) and _MEDICINE_CONTEXT.search(m.group(0)) for m in _SENTENCES.finditer(question))


def unlisted_product(word: str) -> str | None:
    """The product name `word` reads as (without its particle) when it has the shape of a product's name
    (UNLISTED_FORMS above); None otherwise. The caller checks that the data has no such product and that
    its sentence is about medicine."""
    for form in UNLISTED_FORMS:
        at = word.rfind(form)
        if at < 2:
            continue
        stem, rest = word[:at], word[at + len(form):]
        if rest not in UNLISTED_PARTICLES or not re.fullmatch(r"[가-힣]+", stem):
            continue
        stem = _GLUED_BEFORE.sub("", stem)
        name = stem + form
        if name.endswith(UNLISTED_NOT) or stem in COMMON_WORDS or len(name) > UNLISTED_LONGEST:
            return None
        return name
    return None


# a verb's ending or "약물" written onto a name ("받앗던알프람정", "된다며소론도정", "약물슈다페드정": real posts, said back as
# written): the words before it are cut when at least two syllables stay; the longer endings are tried first
# ("타왔는데요스마블과립" keeps no "데요")
_GLUED_BEFORE = re.compile(r"^(?:[가-힣]+?(?:는데요|던데요|는데|던데|다며|던|며|은|는|된)|약물)(?=[가-힣]{2})")


_FORM_CHUNK = re.compile(r"[가-힣]+?(?:" + "|".join(UNLISTED_FORMS) + ")")


def unlisted_products(word: str) -> list[str]:
    """The unlisted product names in `word`: one (`unlisted_product`), or several written without spaces
    ("알레파타딘정슈다페드정" → 알레파타딘정, 슈다페드정; a post listed six prescribed medicines so), each piece a
    name by itself; a piece that is not ("처방받았습니다알레파타딘정": words run together) is left out."""
    single = unlisted_product(word)
    if single is not None:
        return [single]
    pieces = _FORM_CHUNK.findall(word)
    if len(pieces) < 2 or word[sum(map(len, pieces)):] not in UNLISTED_PARTICLES:
        return []
    return [name for piece in pieces if (name := unlisted_product(piece)) is not None]


# Brand stems and stem tails that are also everyday words: "에스" (S), "타이밍" (timing), "마스"(크).
COMMON_WORDS: frozenset[str] = frozenset({
    "에스", "마스", "이벤", "소담", "보송", "엔디", "엘씨", "루마", "글루", "한생", "청나", "속청", "솔봄",
    "포맨", "아론", "타이밍", "아이리스", "브레인", "플러스", "골드", "케어", "베이비",
    "파스타", "그린", "씨티",  # pasta (아비나파스타's tail), green (그린큐액), Citi(bank) (씨티엠액)
})


class LinkingRulesError(ValueError):
    """The brand rules file is malformed (the message names the entry)."""


@dataclass(frozen=True)
class BrandRule:
    brand: str
    ingredients: tuple[str, ...]
    aliases: tuple[str, ...]
    source: str


def names_term(text: str, term: str) -> bool:
    """Whether a label text names a symptom term, spaces ignored on both sides.

    Why compact: labels write "눈의 피로", "벌레 물린데" and "벌레물린데" alike; a term that must match
    the spacing of every label silently names no product ("눈의피로" named none).
    """
    return without_spaces(term) in without_spaces(text)


def without_spaces(text: str) -> str:
    """`text` with all whitespace removed: how names, terms and questions are compared."""
    return re.sub(r"\s+", "", text)


@dataclass(frozen=True)
class BrandRules:
    brands: dict[str, BrandRule]
    ingredient_aliases: dict[str, str]  # alias (lower case) -> Korean ingredient name

    @cached_property
    def brand_words(self) -> frozenset[str]:
        """Every word that names a brand: the brands and their aliases (checked per prefix of each word)."""
        return frozenset(self.brands) | {a for r in self.brands.values() for a in r.aliases}

    @cached_property
    def known_ingredients(self) -> frozenset[str]:
        """Ingredient words the rules know (Korean names, brand ingredients and alias spellings), lower
        case: a question naming one the data lacks ("졸피뎀 먹고 술 마셔도 돼요?", "zolpidem") is told
        so, not answered from whatever the words happen to match."""
        names = set(self.ingredient_aliases.values()) | {i for r in self.brands.values() for i in r.ingredients}
        return frozenset({n.lower() for n in names if len(n) >= 2} | set(self.ingredient_aliases))


@lru_cache(maxsize=1)
def load_brand_rules() -> BrandRules:
    """The packaged brand and ingredient-alias rules, checked once per process."""
    text = resources.files("yaksa.lexicon").joinpath("rules", BRANDS_FILE).read_text(encoding="utf-8")
    data = yaml.safe_load(text) or {}
    brands: dict[str, BrandRule] = {}
    for brand, entry in (data.get("brands") or {}).items():
        if not isinstance(entry, dict):
            raise LinkingRulesError(f"{BRANDS_FILE}: brands.{brand} must be a mapping")
        ingredients = entry.get("ingredients")
        source = entry.get("source")
        if not isinstance(ingredients, list) or not ingredients or not all(isinstance(i, str) and i for i in ingredients):
            raise LinkingRulesError(f"{BRANDS_FILE}: brands.{brand}.ingredients must be a non-empty list of names")
        if not isinstance(source, str) or not source.strip():
            raise LinkingRulesError(f"{BRANDS_FILE}: brands.{brand}.source is required (where to check it)")
        aliases = tuple(str(a).lower() for a in entry.get("aliases") or [])
        brands[str(brand)] = BrandRule(str(brand), tuple(ingredients), aliases, source.strip())
    aliases: dict[str, str] = {}
    for name, values in (data.get("ingredient_aliases") or {}).items():
        if not isinstance(values, list):
            raise LinkingRulesError(f"{BRANDS_FILE}: ingredient_aliases.{name} must be a list")
        for value in values:
            aliases[str(value).lower()] = str(name)
    return BrandRules(brands, aliases)


@dataclass(frozen=True)
class Product:
    """One MFDS product of the bundle and what the linker and ranking need to know about it."""

    item_seq: str
    name: str                     # product_name (no ingredient parenthesis)
    stem: str                     # brand stem: 타이레놀정500밀리그람 → 타이레놀
    ingredients: tuple[str, ...]  # base names (no salts), from metadata or the name itself
    rows: dict[str, int]          # section_key -> row in the drugs collection
    route: str                    # oral | topical | rectal | eye
    usage: str = ""               # 용법용량 text (population fit)
    efficacy: str = ""            # 효능효과 text (symptom match)
    company: str = ""             # the company's short name ("삼아" of 삼아제약), often the stem's prefix

    @property
    def single_ingredient(self) -> bool:
        return len(self.ingredients) == 1


@dataclass(frozen=True)
class LinkedProduct:
    item_seq: str
    name: str
    via: str        # name | stem | tail | ingredient | brand
    mention: str    # the words of the question that named it

    def to_json(self) -> dict[str, Any]:
        return {"item_seq": self.item_seq, "name": self.name, "via": self.via, "mention": self.mention}


@dataclass(frozen=True)
class BrandLink:
    brand: str
    ingredients: tuple[str, ...]
    in_data: bool   # a product of the bundle carries this brand
    source: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"brand": self.brand, "ingredients": list(self.ingredients), "in_data": self.in_data,
                "source": self.source}


@dataclass(frozen=True)
class Linking:
    """The drugs a question names, the products that may answer it (best first), and notes."""

    products: tuple[LinkedProduct, ...] = ()
    ingredients: tuple[str, ...] = ()
    brands: tuple[BrandLink, ...] = ()
    mentions: tuple[str, ...] = ()       # every drug word found, linked or not
    notes: tuple[str, ...] = ()
    groups: tuple[tuple[str, ...], ...] = ()  # item_seqs per mention, so several drugs share the results
    # item_seqs whose name has the form and strength the question asked for ("부루펜정" → the 정, not the
    # 시럽 of the same stem); empty when the question asked for none
    asked_form: frozenset[str] = frozenset()

    @property
    def named(self) -> bool:
        """The question names a drug (even when the data has no product for it)."""
        return bool(self.mentions)

    @property
    def absent(self) -> tuple[str, ...]:
        """The drugs named that no product of the data answers for (a brand or ingredient the data lacks,
        a word read as an unlisted product's name), once each, in order."""
        return tuple(dict.fromkeys(m for m, g in zip(self.mentions, self.groups, strict=False) if not g))

    def to_json(self) -> dict[str, Any]:
        return {"products": [p.to_json() for p in self.products], "ingredients": list(self.ingredients),
                "brands": [b.to_json() for b in self.brands], "mentions": list(self.mentions),
                "notes": list(self.notes)}


_SWALLOWED = re.compile(r"복용|마시|삼키|씹어")
_APPLIED = re.compile(r"바르|발라|붙이|붙여|뿌리|뿌려|도포|점안|가글|양치|헹구|환부")


def _route(name: str, usage: str) -> str:
    if re.search(r"관장|좌제|좌약|좌剤", name) or re.search(r"항문|직장\s*내", usage[:200]):
        return "rectal"
    if re.search(r"점안|안약|안연고", name):
        return "eye"
    if is_oral(name):
        return "oral"
    # a name without a form word ("뇌선", a powder) says nothing: its 용법용량 does ("복용합니다")
    head = usage[:300]
    if _SWALLOWED.search(head) and not _APPLIED.search(head):
        return "oral"
    return "topical"



def _base(ingredient: str) -> str:
    """Ingredient without salt suffix, spaces or brackets: 나프록센나트륨 → 나프록센."""
    words = ingredient_words(ingredient)
    return words[0] if words else without_spaces(ingredient)


COMPANY_WORDS = re.compile(r"\(주\)|주식회사|㈜|제약|약품|신약|헬스케어|바이오|케미칼|코리아|\s+")


def _company_short(company: str) -> str:
    """삼아제약(주) → 삼아: the part a brand stem starts with ("삼아탄툼" is said "탄툼")."""
    return COMPANY_WORDS.sub("", company)


def _stem_variants(stem: str, company: str = "") -> list[str]:
    """The stem and the shorter names people use for it: without a salt ("오스틴암브록솔염산염" →
    "오스틴암브록솔") or a series suffix ("판콜에이" → "판콜"); common words are never keys."""
    variants = [stem]
    if company and len(company) >= 2 and stem.startswith(company) and len(stem) - len(company) >= 2:
        variants.append(stem[len(company):])
    for salt in SALT_SUFFIXES:
        if stem.endswith(salt) and len(stem) - len(salt) >= 3:
            variants.append(stem[: -len(salt)])
            break
    for suffix in SERIES_SUFFIXES:
        if stem.endswith(suffix) and len(stem) - len(suffix) >= 2:
            variants.append(stem[: -len(suffix)])
            break
    return [v for v in dict.fromkeys(variants) if v and v not in COMMON_WORDS]


def _rest_ok(rest: str) -> tuple[bool, str, str]:
    """Whether `rest` (what follows a name in the same word) is strength/form/particle; and those."""
    strength = ""
    m = DIGITS.match(rest)
    if m and m.group(0):
        strength, rest = m.group(0), rest[m.end():]
    form = ""
    for f in FORM_WORDS:
        if rest.startswith(f):
            form, rest = f, rest[len(f):]
            break
    if not strength:
        m = DIGITS.match(rest)
        if m and m.group(0):
            strength, rest = m.group(0), rest[m.end():]
    for salt in SALT_SUFFIXES:
        if rest.startswith(salt):
            rest = rest[len(salt):]
            break
    ok = rest == "" or rest.startswith(PARTICLES)
    return ok, form, re.sub(r"\D", "", strength)


@dataclass
class DrugCatalog:
    """Products and ingredients of one loaded bundle, keyed for linking. Build once per bundle."""

    products: dict[str, Product]
    keys: dict[str, dict[str, set[str]]] = field(default_factory=dict)  # kind -> key -> item_seqs
    by_ingredient: dict[str, list[str]] = field(default_factory=dict)
    # full names (FULL_NAME_MIN+ characters) by their first FULL_NAME_MIN characters, with their key order
    _name_heads: dict[str, list[tuple[int, str]]] = field(default_factory=dict, repr=False, compare=False)
    with_efficacy: list[Product] = field(default_factory=list, repr=False, compare=False)  # in catalog order
    _position: dict[str, int] = field(default_factory=dict, repr=False, compare=False)  # item_seq -> catalog order
    # symptom term -> item_seqs whose 효능효과 names it (filled on first use; terms come from the focus rules)
    _naming: dict[str, frozenset[str]] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_collection(cls, collection: Any) -> DrugCatalog:
        """Every document of a loaded drugs collection (`LoadedCollection`), read once."""
        return cls.from_documents(enumerate(collection.documents(list(range(collection.count)))))

    @classmethod
    def from_documents(cls, documents: Iterable[tuple[int, Document]]) -> DrugCatalog:
        """From (row, document) pairs of the drugs collection; non-MFDS documents are ignored."""
        sections: dict[str, dict[str, int]] = defaultdict(dict)
        meta: dict[str, dict[str, Any]] = {}
        texts: dict[str, dict[str, str]] = defaultdict(dict)
        for row, doc in documents:
            seq, key = doc.metadata.get("item_seq"), doc.metadata.get("section_key")
            if not seq or not key:
                continue
            seq = str(seq)
            sections[seq][str(key)] = int(row)
            texts[seq][str(key)] = doc.text
            meta.setdefault(seq, {"name": doc.metadata.get("product_name") or doc.title,
                                  "ingredient": doc.metadata.get("ingredient") or "",
                                  "company": doc.metadata.get("company") or ""})
        known = {_base(i) for m in meta.values() for i in str(m["ingredient"]).split(",") if i.strip()}
        known |= set(load_brand_rules().ingredient_aliases.values())
        known = {k for k in known if len(k) >= 3}
        products: dict[str, Product] = {}
        for seq, m in meta.items():
            name = str(m["name"])
            listed = [_base(i) for i in str(m["ingredient"]).split(",") if i.strip()]
            compact = without_spaces(name)
            in_name = [k for k in known if k in compact and not any(k != o and k in o for o in listed)]
            ingredients = tuple(dict.fromkeys([*listed, *sorted(in_name, key=len, reverse=True)]))
            usage = texts[seq].get("usage", "")
            products[seq] = Product(seq, name, brand_stem(name), ingredients, dict(sections[seq]),
                                    _route(name, usage), usage, texts[seq].get("efficacy", ""),
                                    _company_short(str(m["company"])))
        catalog = cls(products)
        catalog._index()
        return catalog

    def _index(self) -> None:
        keys: dict[str, dict[str, set[str]]] = {k: defaultdict(set) for k in ("name", "stem", "tail", "ingredient")}
        by_ingredient: dict[str, list[str]] = defaultdict(list)
        for seq, p in self.products.items():
            keys["name"][without_spaces(p.name).lower()].add(seq)
            for stem in _stem_variants(p.stem, p.company):
                keys["stem"][stem].add(seq)
            if p.stem and p.stem not in COMMON_WORDS:
                for i in range(1, len(p.stem) - MIN_SUFFIX + 1):
                    if p.stem[i:] not in COMMON_WORDS:
                        keys["tail"][p.stem[i:]].add(seq)
            for ing in p.ingredients:
                keys["ingredient"][ing].add(seq)
                by_ingredient[ing].append(seq)
        rules = load_brand_rules()
        for alias, ing in rules.ingredient_aliases.items():
            if ing in keys["ingredient"]:
                keys["ingredient"][alias] |= keys["ingredient"][ing]
        # a stem or tail that is itself an ingredient ("아세트아미노펜" of 삼남아세트아미노펜) links as the
        # ingredient: every product of it, not the one whose name happens to contain it
        for ing in list(keys["ingredient"]):
            keys["tail"].pop(ing, None)
            keys["stem"].pop(ing, None)
        self.keys = {kind: dict(table) for kind, table in keys.items()}
        heads: dict[str, list[tuple[int, str]]] = defaultdict(list)
        for i, name in enumerate(self.keys["name"]):
            if len(name) >= FULL_NAME_MIN:
                heads[name[:FULL_NAME_MIN]].append((i, name))
        self._name_heads = dict(heads)
        self.with_efficacy = [p for p in self.products.values() if "efficacy" in p.rows]
        self._position = {seq: i for i, seq in enumerate(self.products)}
        self.by_ingredient = {ing: self._order(seqs, ing) for ing, seqs in by_ingredient.items()}

    def _order(self, seqs: Iterable[str], ingredient: str | None = None) -> list[str]:
        """Single-ingredient products first, then those where the ingredient is listed first."""
        def key(seq: str) -> tuple[int, int, str]:
            p = self.products[seq]
            first = 0 if ingredient is None or (p.ingredients[:1] == (ingredient,)) else 1
            return (0 if p.single_ingredient else 1, first, p.name)
        return sorted(set(seqs), key=key)

    def ingredient_products(self, ingredient: str) -> list[str]:
        return list(self.by_ingredient.get(ingredient, []))

    def _full_names_in(self, compact: str) -> list[str]:
        """Product names of FULL_NAME_MIN+ characters that occur in `compact`, in key order.

        Why an index by first characters: the question is checked at each of its positions against
        the few names starting there, not against every product name (this runs twice per request:
        in the scope stage and in the focus)."""
        found = {(i, name) for start in range(len(compact) - FULL_NAME_MIN + 1)
                 for i, name in self._name_heads.get(compact[start:start + FULL_NAME_MIN], ())
                 if compact.startswith(name, start)}
        return [name for _, name in sorted(found)]

    def in_catalog_order(self, seqs: Iterable[str]) -> list[str]:
        """`seqs` ordered as the catalog lists its products (ties in a ranking keep this order)."""
        return sorted(seqs, key=self._position.__getitem__)

    def products_naming(self, term: str) -> frozenset[str]:
        """item_seqs of products with a 효능효과 section whose text names `term` (remembered per term)."""
        found = self._naming.get(term)
        if found is None:
            found = frozenset(p.item_seq for p in self.with_efficacy if names_term(p.efficacy, term))
            self._naming[term] = found
        return found

    def _match_word(self, word: str) -> tuple[str, str, set[str], str, str] | None:
        """(kind, key, item_seqs, form, strength) for the longest name at the start of `word`."""
        low = word.lower()
        rules = load_brand_rules()
        for end in range(len(low), 1, -1):
            key, rest = low[:end], low[end:]
            for kind in ("name", "stem", "tail", "ingredient"):
                seqs = self.keys.get(kind, {}).get(key)
                if seqs:
                    ok, form, strength = _rest_ok(rest)
                    if ok:
                        if kind == "stem":  # "부루펜" is 부루펜정 and, by its tail, 어린이부루펜시럽
                            seqs = seqs | self.keys.get("tail", {}).get(key, set())
                        return kind, key, set(seqs), form, strength
            if key in rules.brand_words:
                ok, form, strength = _rest_ok(rest)
                if ok:
                    return "brand", key, set(), form, strength
            if key in rules.known_ingredients:  # named, but no product of the data holds it
                ok, form, strength = _rest_ok(rest)
                if ok:
                    return "ingredient", key, set(), form, strength
        return None

    def link(self, question: str) -> Linking:
        """The drugs `question` names (see module doc); an empty `Linking` when it names none."""
        rules = load_brand_rules()
        words = WORDS.findall(question)
        compact = without_spaces(question).lower()
        found: list[LinkedProduct] = []
        groups: list[tuple[str, ...]] = []
        ingredients: list[str] = []
        brands: list[BrandLink] = []
        mentions: list[str] = []
        notes: list[str] = []
        asked_form: set[str] = set()
        # a full product name anywhere in the question ("타이레놀정500밀리그람") is the strongest link
        full = [(k, self.keys["name"][k]) for k in self._full_names_in(compact)]
        full = [(k, s) for k, s in full if not any(k != o and k in o for o, _ in full)]
        taken: set[str] = set()
        for key, seqs in full:
            mentions.append(key)
            group = sorted(seqs)
            found.extend(LinkedProduct(s, self.products[s].name, "name", key) for s in group)
            groups.append(tuple(group))
            taken.update(group)
        for i, word in enumerate(words):
            if any(word.lower() in k for k, _ in full):
                continue
            match = self._match_word(word)
            named = _named_as_a_medicine(word, words[i + 1] if i + 1 < len(words) else "") if match is None else None
            if named is not None and (said := self._match_word(named)) is not None:   # "감마리놀렌산이라는 약"
                match, word = said, named
            if match is None:
                if named is not None:
                    names = [named]
                else:
                    names = unlisted_products(word)
                    names = names if names and _in_talk_of_medicine(word, question) else []
                for name in names:
                    if self._match_word(name) is None:   # a glued piece may be a product the data has
                        mentions.append(name)
                        notes.append(f"{name} is not in the data (read as a product's name)")
                        groups.append(())
                continue
            kind, key, seqs, form, strength = match
            if kind == "ingredient" and named_in_the_diet(rules.ingredient_aliases.get(key, key), question):
                continue   # coffee's caffeine, not a tablet's
            nxt = words[i + 1] if i + 1 < len(words) else ""
            if not form:
                form = next((f for f in FORM_WORDS if nxt.startswith(f)), "")
            if not strength:
                m = DIGITS.match(nxt)
                strength = re.sub(r"\D", "", m.group(0)) if m and m.group(0) else ""
            mentions.append(word if kind not in ("brand", "ingredient") else _name_as_said(word, len(key)))
            if kind == "brand":
                brand = key if key in rules.brands else next(b for b, r in rules.brands.items() if key in r.aliases)
                rule = rules.brands[brand]
                principal = rule.ingredients[0]
                seq_list = self.ingredient_products(principal)
                brands.append(BrandLink(brand, rule.ingredients, False, rule.source))
                ingredients.append(principal)
                if seq_list:
                    notes.append(f"{brand} is not in the data; answered from products with the same "
                                 f"ingredient {principal}")
                else:
                    notes.append(f"{brand} ({', '.join(rule.ingredients)}) is not in the data, and no product "
                                 f"of the data contains {principal}")
                via = "brand"
            elif kind == "ingredient":
                ing = rules.ingredient_aliases.get(key, key)
                ingredients.append(ing)
                seq_list = self.ingredient_products(ing)
                via = "ingredient"
            else:
                seq_list = self._prefer(seqs, form, strength, exact_stem=key if kind == "stem" else None)
                if form or strength:
                    asked_form.update(s for s in seq_list if self._has_form(s, form, strength))
                via = kind
                if key in rules.brands:
                    brands.append(BrandLink(key, rules.brands[key].ingredients, True, rules.brands[key].source))
            new = [s for s in seq_list if s not in taken]
            taken.update(new)
            found.extend(LinkedProduct(s, self.products[s].name, via, word) for s in new)
            groups.append(tuple(seq_list))
        return Linking(tuple(found), tuple(dict.fromkeys(ingredients)), tuple(brands), tuple(mentions),
                       tuple(notes), tuple(groups), frozenset(asked_form))

    def _has_form(self, seq: str, form: str, strength: str) -> bool:
        """The product's name has the asked form and strength (each only when asked)."""
        compact = re.sub(r"\s+", "", self.products[seq].name)
        return (not form or form in compact) and (not strength or strength in compact)

    def _prefer(self, seqs: set[str], form: str, strength: str, exact_stem: str | None) -> list[str]:
        """Products of one name, the ones matching the asked form and strength first."""
        def key(seq: str) -> tuple[int, int, int, str]:
            p = self.products[seq]
            compact = re.sub(r"\s+", "", p.name)
            return (0 if form and form in compact else 1, 0 if strength and strength in compact else 1,
                    0 if exact_stem and p.stem == exact_stem else 1, p.name)
        return sorted(seqs, key=key)

    def products_for(self, seqs: Sequence[str]) -> list[Product]:
        return [self.products[s] for s in seqs if s in self.products]
