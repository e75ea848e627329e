"""MedCAT 2.9 for Korean: the Kiwi tokenizer/Hangul tagger shim, pack build and pack load.

MedCAT is a dictionary NER here (no UMLS pack is obtainable offline): a concept database built from
our MedCAT-format CSV (`yaksa.extraction.concepts`). Out of the box it cannot see Korean, so the four
fixes of the offline-models guide are applied:
1. `cdb_maker.min_letters_required = 0` keeps all-Hangul names;
2. `HangulTagger` keeps Hangul tokens (the stock punctuation regex skips them). It also skips Kiwi's
   particles, endings and derivational suffixes, so "머리가 아파요" matches the name "머리가 아프다"
   (both become 머리~아프) and "두통이" matches "두통";
3. `KiwiTokenizer` emits one token per Kiwi morpheme with original character offsets; its `norm`
   is the morpheme's dictionary form (아파 → 아프), so inflected verbs match names in base form;
4. `linking.disamb_length_limit = 1` keeps short names (두통, 발열) without disambiguation.

Kiwi user words: every single-word Hangul name is added as a proper noun before names are tokenized,
so a name and the same words in a question are cut the same way. The guide re-derives them from
`cdb.name2info` after loading; that set also holds verb stems ("토하" from 토하다), which as nouns
would change how ordinary verbs are cut, so the build writes the exact list to `user_words.txt` and
the loader reads it back.
"""

from __future__ import annotations

import csv
import functools
import logging
import os
import re
import shutil
import threading
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from medcat.cat import CAT
from medcat.components.tagging.tagger import TagAndSkipTagger
from medcat.components.types import CoreComponentType, register_core_component
from medcat.config import Config
from medcat.model_creation.cdb_maker import CDBMaker
from medcat.tokenizing.regex_impl.tokenizer import Document, RegexTokenizer, Token
from medcat.tokenizing.tokenizers import MutableDocument, register_tokenizer
from medcat.vocab import Vocab

from yaksa.atomicio import fsync_dir, fsync_tree, write_json
from yaksa.extraction.concepts import CONCEPT_TYPES, read_concept_map, write_concept_map

logger = logging.getLogger(__name__)

TOKENIZER_NAME = "kiwi"
TAGGER_NAME = "hangul"
MEDCAT_DIR = "medcat"          # the saved model pack inside a pack dir
USER_WORDS_FILE = "user_words.txt"
CONCEPT_MAP_FILE = "concept_map.json"
BUILD_INFO_FILE = "build_info.json"
# The guide's score: a user word must beat Kiwi's own split of an unknown brand (타/이레/놀).
USER_WORD_SCORE = 10.0

_HANGUL_PUNCT = re.compile(r"[^a-z0-9\uac00-\ud7a3\u1100-\u11ff\u3130-\u318f]+")
_HANGUL_WORD = re.compile(r"[가-힣]{2,}")
# Kiwi tags of particles (J*), endings (E*) and suffixes (XS*): grammar, not part of a concept name.
_GRAMMAR_TAG = re.compile(r"^(?:J|E|XS)")


class KiwiToken(Token):
    """A MedCAT token for one Kiwi morpheme: surface text from the input, norm = dictionary form."""

    def __init__(self, document: Document, text: str, text_with_ws: str, start: int, index: int,
                 form: str, tag: str) -> None:
        self._form = form.lower()
        self._kiwi_tag = tag
        super().__init__(document, text, text_with_ws, start, index, False, False)

    @property
    def norm(self) -> str:
        return self._form

    @norm.setter
    def norm(self, new_val: str) -> None:
        pass  # fixed by Kiwi; MedCAT's base class assigns '' on creation

    @property
    def tag(self) -> str | None:
        return self._kiwi_tag


@functools.lru_cache(maxsize=2)
def _kiwi_with(words: tuple[str, ...]) -> Any:
    """One ready Kiwi per user-word set, shared by the tokenizers MedCAT creates in this process.

    A new Kiwi costs ~3 s (model load, then a first analysis that builds its search state); a pack
    build and a load of the same pack (or a hot reload) need the same analyser.
    """
    import kiwipiepy

    kiwi = kiwipiepy.Kiwi(num_workers=-1)  # one text per call: no thread pool
    for word in words:
        kiwi.add_user_word(word, "NNP", USER_WORD_SCORE)
    kiwi.tokenize("두통")
    return kiwi


class KiwiTokenizer(RegexTokenizer):
    """MedCAT tokenizer backed by Kiwi: one token per morpheme, original character offsets."""

    def __init__(self) -> None:
        self._words: tuple[str, ...] = ()

    def set_user_words(self, words: Iterable[str]) -> None:
        self._words = tuple(sorted(set(words)))

    def __call__(self, text: str) -> MutableDocument:
        doc = Document(text)
        for index, tok in enumerate(_kiwi_with(self._words).tokenize(text)):
            end = tok.start + tok.len
            surface = text[tok.start:end]
            with_ws = surface + (" " if end < len(text) and text[end].isspace() else "")
            doc._tokens.append(KiwiToken(doc, surface, with_ws, tok.start, index, tok.form, tok.tag))
            doc._char_indices.append(tok.start)
        return doc

    @classmethod
    def create_new_tokenizer(cls, config: Config) -> KiwiTokenizer:
        return cls()


class HangulTagger(TagAndSkipTagger):
    """The stock tagger with a punctuation test that keeps Hangul, and Korean grammar skipped."""

    name = "hangul-tagger"

    def __init__(self, preprocessing: Any) -> None:
        super().__init__(preprocessing)
        self.punct_checker = _HANGUL_PUNCT

    def __call__(self, doc: MutableDocument) -> MutableDocument:
        doc = super().__call__(doc)
        for token in doc:
            tag = token.base.tag
            if tag and _GRAMMAR_TAG.match(tag):
                token.to_skip = True
        return doc


_registered = False


def register_korean() -> None:
    """Register the tokenizer and tagger with MedCAT once per process (needed before loading)."""
    global _registered
    if _registered:
        return
    register_tokenizer(TOKENIZER_NAME, KiwiTokenizer.create_new_tokenizer)
    register_core_component(CoreComponentType.tagging, TAGGER_NAME, HangulTagger.create_new_component)
    _registered = True


def korean_config() -> Config:
    """A MedCAT config with the four Korean fixes and pure dictionary matching."""
    cfg = Config()
    cfg.general.nlp.provider = TOKENIZER_NAME
    cfg.components.tagging.comp_name = TAGGER_NAME
    cfg.general.spell_check = False
    cfg.cdb_maker.min_letters_required = 0
    cfg.cdb_maker.remove_parenthesis = 0  # the concept table lists those variants itself, with owners
    cfg.components.ner.min_name_len = 2
    cfg.components.ner.upper_case_limit_len = 1
    cfg.components.linking.disamb_length_limit = 1
    return cfg


def user_words(names: Iterable[str]) -> list[str]:
    """Single-word Hangul names to teach Kiwi; "...다" names are verbs and stay with Kiwi's analysis."""
    return sorted({n for n in names if _HANGUL_WORD.fullmatch(n) and not n.endswith("다")})


@dataclass(frozen=True)
class Entity:
    """One concept mention: character offsets into the analysed text and the surface span."""

    concept_id: str
    type: str
    preferred: str
    start: int
    end: int
    text: str


def longest_spans(entities: Iterable[Entity]) -> list[Entity]:
    """Drop every entity that overlaps a longer one (ties: the earlier), in text order.

    Dictionary NER reports "타이레놀" and "타이레놀정500밀리그람" for the same words; the longer
    match is the more specific concept.
    """
    kept: list[Entity] = []
    for ent in sorted(entities, key=lambda e: (-(e.end - e.start), e.start)):
        if all(ent.end <= k.start or ent.start >= k.end for k in kept):
            kept.append(ent)
    return sorted(kept, key=lambda e: e.start)


class KoreanMedCAT:
    """A loaded pack: `entities(text)` returns non-overlapping concept mentions.

    Thread safety: the server runs each turn in a worker thread and all turns share one pack, but
    MedCAT 2 documents no thread safety for `CAT.get_entities` (it resets `config.linking.train`,
    runs stateful pipeline components and appends to its usage-monitor buffer), so calls are
    serialised by a lock. A call takes a few milliseconds, so the lock costs little.
    """

    def __init__(self, cat: CAT, concept_map: dict[str, tuple[str, str]]) -> None:
        self._cat = cat
        self._lock = threading.Lock()
        # MedCAT upper-cases ids when it reads the CSV ("YK:SYM:headache" → "YK:SYM:HEADACHE").
        self._concepts = {cid.upper(): (cid, *info) for cid, info in concept_map.items()}

    def entities(self, text: str) -> list[Entity]:
        if not isinstance(text, str):
            raise TypeError(f"entities() expects str, got {type(text).__name__}")
        if not text.strip():
            return []
        with self._lock:
            result = self._cat.get_entities(text)
        found = []
        for ent in result["entities"].values():
            if ent["cui"] not in self._concepts:
                raise ValueError(f"pack returned concept {ent['cui']!r} missing from {CONCEPT_MAP_FILE}")
            cid, ctype, preferred = self._concepts[ent["cui"]]
            start, end = int(ent["start"]), int(ent["end"])
            found.append(Entity(cid, ctype, preferred, start, end, text[start:end]))
        return longest_spans(found)


def _read_medcat_csv(path: Path) -> tuple[dict[str, tuple[str, str]], list[str]]:
    """The concept map (id → (type, preferred)) and all names of a MedCAT-format concept CSV."""
    concept_map: dict[str, tuple[str, str]] = {}
    names: list[str] = []
    with Path(path).open(encoding="utf-8", newline="") as fh:
        reader = csv.DictReader(fh)
        missing = {"cui", "name", "name_status", "type_ids"} - set(reader.fieldnames or [])
        if missing:
            raise ValueError(f"{path}: not a MedCAT concept CSV, missing columns {sorted(missing)}")
        for lineno, row in enumerate(reader, start=2):
            if row["type_ids"] not in CONCEPT_TYPES:
                raise ValueError(f"{path}:{lineno}: unknown type {row['type_ids']!r}")
            names.extend(row["name"].split("|"))
            if row["name_status"] == "P":
                concept_map[row["cui"]] = (row["type_ids"], row["name"])
    if not concept_map:
        raise ValueError(f"{path}: no concepts with a preferred (P) name")
    return concept_map, names


def build_pack(concepts_csv: Path, out_dir: Path) -> dict[str, int]:
    """Build a Korean MedCAT pack from a concept CSV into `out_dir`, atomically.

    Everything is written to a temp dir beside `out_dir` and renamed into place, so a reader never
    sees half a pack (a directory cannot be renamed over another: when replacing a pack there is an
    instant with none, which `load_pack` reports as an error). Returns counts, including `ambiguous_names`: names that link to more than one
    concept (an untrained pack cannot disambiguate them, so the concept table should have none).
    """
    concepts_csv, out_dir = Path(concepts_csv), Path(out_dir)
    concept_map, names = _read_medcat_csv(concepts_csv)
    words = user_words(names)
    register_korean()
    cfg = korean_config()
    maker = CDBMaker(cfg)
    maker.pipeline.tokenizer.set_user_words(words)
    cdb = maker.prepare_csvs([str(concepts_csv)])
    vocab = Vocab()
    vocab.add_word("약", cnt=1, vec=[1.0, 0.0, 0.0])  # untrained: linking never uses context vectors
    cat = CAT(cdb=cdb, vocab=vocab, config=cfg)
    ambiguous = sum(1 for info in cdb.name2info.values() if len(info["per_cui_status"]) > 1)

    out_dir.parent.mkdir(parents=True, exist_ok=True)
    tmp = out_dir.with_name(f".{out_dir.name}.{uuid.uuid4().hex[:12]}.tmp")
    try:
        tmp.mkdir()
        cat.save_model_pack(str(tmp), pack_name=MEDCAT_DIR, make_archive=False, add_hash_to_pack_name=False)
        (tmp / USER_WORDS_FILE).write_text("".join(f"{w}\n" for w in words), encoding="utf-8")
        write_concept_map(tmp / CONCEPT_MAP_FILE, concept_map)
        counts = {"concepts": len(cdb.cui2info), "names": len(cdb.name2info),
                  "user_words": len(words), "ambiguous_names": ambiguous}
        write_json(tmp / BUILD_INFO_FILE, counts)
        fsync_tree(tmp)
        old = out_dir.with_name(f".{out_dir.name}.{uuid.uuid4().hex[:12]}.old")
        if out_dir.exists():
            os.replace(out_dir, old)
        os.replace(tmp, out_dir)
        fsync_dir(out_dir.parent)
        shutil.rmtree(old, ignore_errors=True)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    if ambiguous:
        logger.warning("%d concept names link to more than one concept", ambiguous)
    return counts


_LOADED_PACK: tuple[tuple[str, int, int], KoreanMedCAT] | None = None
_LOADED_PACK_LOCK = threading.Lock()


def load_pack(pack_dir: Path) -> KoreanMedCAT:
    """Load a pack written by `build_pack` (registers the Korean shim first).

    The last pack loaded is kept for this process and handed out again while its directory is the
    same one on disk (`build_pack` replaces the whole directory, so a rebuilt pack is a new inode).
    Why: a server hot-swapping bundle versions builds a new agent each time, and loading MedCAT
    costs seconds; the model is read-only once loaded, as the agent's threads already share it.
    """
    global _LOADED_PACK
    pack_dir = Path(pack_dir)
    try:
        info = pack_dir.resolve().stat()
    except OSError as exc:
        raise ValueError(f"not a yaksa MedCAT pack: {pack_dir}: {exc}") from exc
    key = (str(pack_dir.resolve()), info.st_ino, info.st_mtime_ns)
    with _LOADED_PACK_LOCK:
        if _LOADED_PACK is not None and _LOADED_PACK[0] == key:
            return _LOADED_PACK[1]
        model = _load_pack(pack_dir)
        _LOADED_PACK = (key, model)
        return model


def _load_pack(pack_dir: Path) -> KoreanMedCAT:
    for name in (MEDCAT_DIR, USER_WORDS_FILE, CONCEPT_MAP_FILE):
        if not (pack_dir / name).exists():
            raise ValueError(f"not a yaksa MedCAT pack: {pack_dir} has no {name}")
    register_korean()
    cat = CAT.load_model_pack(str(pack_dir / MEDCAT_DIR))
    tokenizer = cat.pipe.tokenizer
    if not isinstance(tokenizer, KiwiTokenizer):
        raise ValueError(f"{pack_dir}: pack tokenizer is {type(tokenizer).__name__}, not KiwiTokenizer")  # noqa: TRY004 (bad pack)
    tokenizer.set_user_words((pack_dir / USER_WORDS_FILE).read_text(encoding="utf-8").split())
    model = KoreanMedCAT(cat, read_concept_map(pack_dir / CONCEPT_MAP_FILE))
    model.entities("두통")  # build the analyser now rather than in the first user turn
    return model
