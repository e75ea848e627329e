"""The concept table MedCAT matches against, built from the corpus and the curated Korean lexicon.

Sources, in priority order (a name belongs to the first concept that claims it, because an untrained
MedCAT pack cannot disambiguate a name shared by two concepts):
1. the curated Korean symptom/condition rows of the lexicon (`lexicon_ko.csv`, project ids
   `YK:SYM:*`/`YK:CON:*`);
2. MFDS ingredients (`YK:ING:<name without salt>`) from metadata `ingredient`, or when that is empty
   from an all-Hangul parenthesis in the product name ("...크림(아시클로버)"); names are the
   ingredient and its salt-less form ("나프록센나트륨", "나프록센");
3. MedQuAD focus names with their UMLS CUIs (semantic group Disorders → condition; the first CUI of
   the question; English names). Questions without CUIs are skipped: ids are never invented;
4. brand stems shared by several MFDS products (`YK:BRAND:<stem>`: "타이레놀" for every 타이레놀 product);
5. MFDS products (`YK:MFDS:<item_seq>`): the full product name and, when unique, its brand stem;
6. the lexicon's medication rows: chronic-use drugs (`YK:DRUG:*`: 와파린, 메트포르민...) and drug
   classes (`YK:CLASS:*`: 혈압약, 항우울제...) that the 500-product MFDS data lacks, so "와파린을
   먹고 있어요" is remembered. They come last: where the MFDS data has the same name (아스피린),
   its ingredient concept keeps it. Every lexicon row names its `source` (e.g. "WHO ATC B01AA03");
7. the brands of the linker's rules (`yaksa/lexicon/rules/brands_ko.yaml`, `YK:OTC:<brand>`, names
   the brand and its aliases) that no MFDS product names: "타이레놀을 매일 먹고 있어요" is remembered
   although the 500-product dump has no 타이레놀 (it was answered as a question and forgotten).
Name ownership is decided on a normalised key (case-folded letters, digits and Hangul), which is how
MedCAT sees names once its tagger drops punctuation and spaces.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import duckdb

from yaksa.atomicio import atomic_write_text, write_json
from yaksa.lexicon.linking import load_brand_rules
from yaksa.text.userdict import brand_stem, ingredient_words

CONCEPT_TYPES: tuple[str, ...] = ("medication", "symptom", "condition")
LEXICON_PATH = Path(__file__).parent.parent / "lexicon" / "data" / "lexicon_ko.csv"
MEDQUAD_TYPES: dict[str, str] = {"Disorders": "condition"}
# lexicon id prefix → concept type; drug and drug-class rows rank after the MFDS concepts
LEXICON_TYPES: dict[str, str] = {"YK:SYM:": "symptom", "YK:CON:": "condition", "YK:DRUG:": "medication",
                                 "YK:CLASS:": "medication"}

_ID = re.compile(r"(?:YK:[A-Z]+:\S+|C\d{7})")
_KEY_DROP = re.compile(r"[^0-9a-z가-힣]+")
_PAREN_INGREDIENT = re.compile(r"\(([가-힣]{2,})\)")
_PARENS = re.compile(r"\s*\([^()]*\)\s*")


@dataclass(frozen=True)
class Concept:
    """One concept: a stable id, its slot type, the preferred name (also first in `names`)."""

    concept_id: str
    type: str
    preferred: str
    names: tuple[str, ...]

    def __post_init__(self) -> None:
        if not _ID.fullmatch(self.concept_id):
            raise ValueError(f"concept id must be a UMLS CUI or a YK: project id, got {self.concept_id!r}")
        if self.type not in CONCEPT_TYPES:
            raise ValueError(f"{self.concept_id}: type must be one of {CONCEPT_TYPES}, got {self.type!r}")
        if not self.names or self.names[0] != self.preferred:
            raise ValueError(f"{self.concept_id}: names must start with the preferred name {self.preferred!r}")
        if any(not n.strip() or "|" in n for n in self.names):
            raise ValueError(f"{self.concept_id}: names must be non-empty and free of '|': {self.names!r}")


def name_key(name: str) -> str:
    """The form two names must share to be the same name for MedCAT."""
    return _KEY_DROP.sub("", name.casefold())


def _concept(concept_id: str, ctype: str, names: Iterable[str]) -> Concept:
    """A concept whose names also include each name without its parentheses ("X (Y)" → "X")."""
    expanded = [v for n in names for v in (n.strip(), _PARENS.sub(" ", n).strip())]
    unique = list(dict.fromkeys(n for n in expanded if n))
    return Concept(concept_id, ctype, unique[0], tuple(unique))


def read_lexicon(path: Path = LEXICON_PATH) -> list[Concept]:
    """The curated lexicon: `concept_id,type,preferred,names,source` with `|`-separated names.

    The id prefix fixes the type (`LEXICON_TYPES`), and `source` must say where the mapping comes
    from, so a reviewer can check every row.
    """
    path = Path(path)
    with path.open(encoding="utf-8", newline="") as fh:
        reader = csv.DictReader(fh)
        missing = {"concept_id", "type", "preferred", "names", "source"} - set(reader.fieldnames or [])
        if missing:
            raise ValueError(f"{path}: missing columns {sorted(missing)}")
        out = []
        for lineno, row in enumerate(reader, start=2):
            prefix = row["concept_id"][: row["concept_id"].find(":", 3) + 1]
            if prefix not in LEXICON_TYPES:
                raise ValueError(f"{path}:{lineno}: lexicon ids must start with one of {sorted(LEXICON_TYPES)}")
            if row["type"] != LEXICON_TYPES[prefix]:
                raise ValueError(f"{path}:{lineno}: {prefix}* rows have type {LEXICON_TYPES[prefix]!r}")
            if not (row["source"] or "").strip():
                raise ValueError(f"{path}:{lineno}: source is empty (say where the mapping comes from)")
            try:
                out.append(_concept(row["concept_id"], row["type"], [row["preferred"], *row["names"].split("|")]))
            except ValueError as exc:
                raise ValueError(f"{path}:{lineno}: {exc}") from None
    return out


def _ingredient(item: str) -> Concept | None:
    words = ingredient_words(item)  # [base, salt] | [name] | [] when not an all-Hangul name
    if not words:
        return None
    return _concept(f"YK:ING:{words[0]}", "medication", [words[0], "".join(words)])


def mfds_concepts(products: Iterable[tuple[str, str, str | None]]) -> list[Concept]:
    """Ingredient, shared-brand and product concepts from (item_seq, product_name, ingredient) rows."""
    ingredients: dict[str, Concept] = {}
    stems: dict[str, set[str]] = defaultdict(set)
    rows = sorted(set(products))
    for item_seq, product, ingredient in rows:
        sources = ingredient.split(",") if ingredient else _PAREN_INGREDIENT.findall(product)
        for item in sources:
            concept = _ingredient(item)
            if concept is not None:
                old = ingredients.get(concept.concept_id)
                names = (old.names if old else ()) + concept.names
                ingredients[concept.concept_id] = _concept(concept.concept_id, "medication", names)
        if stem := brand_stem(product):
            stems[stem].add(item_seq)
    brands = [_concept(f"YK:BRAND:{s}", "medication", [s]) for s, seqs in sorted(stems.items()) if len(seqs) > 1]
    products_out = []
    for item_seq, product, _ in rows:
        stem = brand_stem(product)
        names = [product] + ([stem] if stem and len(stems[stem]) == 1 else [])
        products_out.append(_concept(f"YK:MFDS:{item_seq}", "medication", names))
    return [*ingredients.values(), *brands, *products_out]


def medquad_concepts(questions: Iterable[tuple[str, list[str], str | None]]) -> list[Concept]:
    """Condition concepts from (focus, cuis, semantic_group) rows, merged per first CUI."""
    names: dict[str, list[str]] = {}
    types: dict[str, str] = {}
    for focus, cuis, group in questions:
        ctype = MEDQUAD_TYPES.get(group or "")
        if not cuis or ctype is None or not focus:
            continue
        names.setdefault(cuis[0], []).append(focus)
        types[cuis[0]] = ctype
    return [_concept(cui, types[cui], focus_names) for cui, focus_names in names.items()]


def assign_names(concepts: Iterable[Concept]) -> list[Concept]:
    """Give each name (by `name_key`) to the first concept listing it; drop concepts left nameless."""
    claimed: set[str] = set()
    ids: set[str] = set()
    out = []
    for c in concepts:
        if c.concept_id.upper() in ids:
            raise ValueError(f"duplicate concept id {c.concept_id!r}")
        ids.add(c.concept_id.upper())  # MedCAT upper-cases ids
        own: dict[str, str] = {}  # key → first spelling
        for name in c.names:
            key = name_key(name)
            if key and key not in claimed and key not in own:
                own[key] = name
        if own:
            claimed.update(own)
            names = tuple(own.values())
            out.append(Concept(c.concept_id, c.type, names[0], names))
    return out


def _read_documents(documents_path: Path) -> tuple[list[tuple[str, str, str | None]], list[tuple[str, list[str], str | None]]]:
    path = Path(documents_path)
    if not path.is_file():
        raise ValueError(f"documents parquet not found: {path}")
    con = duckdb.connect()
    try:
        rows = con.execute(
            "SELECT collection, metadata FROM read_parquet(?) "
            "WHERE collection IN ('drugs', 'health') ORDER BY doc_id", [str(path)]
        ).fetchall()
    except duckdb.Error as exc:
        raise ValueError(f"{path}: cannot read collection/metadata columns ({exc})") from None
    finally:
        con.close()
    products, questions = [], []
    for collection, metadata in rows:
        meta = json.loads(metadata) if isinstance(metadata, str) else dict(metadata or {})
        if collection == "drugs" and meta.get("item_seq") and meta.get("product_name"):
            products.append((str(meta["item_seq"]), meta["product_name"], meta.get("ingredient") or None))
        elif collection == "health":
            questions.append((meta.get("focus") or "", list(meta.get("cuis") or []), meta.get("semantic_group")))
    return products, questions


def concepts_from_documents(documents_path: Path, lexicon_path: Path = LEXICON_PATH) -> list[Concept]:
    """The full concept table for a documents parquet, names assigned by source priority."""
    products, questions = _read_documents(documents_path)
    mfds = mfds_concepts(products)
    ingredients = [c for c in mfds if c.concept_id.startswith("YK:ING:")]
    rest = [c for c in mfds if not c.concept_id.startswith("YK:ING:")]  # brands, then products
    lexicon = read_lexicon(lexicon_path)
    drugs = [c for c in lexicon if c.type == "medication"]
    lay_terms = [c for c in lexicon if c.type != "medication"]
    return assign_names([*lay_terms, *ingredients, *medquad_concepts(questions), *rest, *drugs,
                         *brand_rule_concepts()])


def brand_rule_concepts() -> list[Concept]:
    """One medication concept per brand of the linker's rules (the brand, then its aliases)."""
    rules = load_brand_rules()
    return [_concept(f"YK:OTC:{brand}", "medication", [brand, *rule.aliases]) for brand, rule in rules.brands.items()]


def write_medcat_csv(path: Path, concepts: Iterable[Concept]) -> None:
    """MedCAT's CSV (`cui,name,name_status,type_ids`), one row per name, preferred name status P."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(["cui", "name", "name_status", "type_ids"])
    for c in concepts:
        for name in c.names:
            writer.writerow([c.concept_id, name, "P" if name == c.preferred else "A", c.type])
    atomic_write_text(Path(path), buf.getvalue())


def write_concept_map(path: Path, concept_map: dict[str, tuple[str, str]]) -> None:
    """`{concept_id: [type, preferred]}` as JSON: what extraction needs without the MedCAT CDB."""
    write_json(Path(path), {cid: list(v) for cid, v in concept_map.items()})


def read_concept_map(path: Path) -> dict[str, tuple[str, str]]:
    """Inverse of `write_concept_map`."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    return {cid: (ctype, preferred) for cid, (ctype, preferred) in data.items()}
