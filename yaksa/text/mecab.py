"""MeCab-ko tokenizer (python-mecab-ko): the optional second analyser, behind the `mecab` extra.

Same POS filter and term rules as Kiwi (see `yaksa.text.filters`), so the two are interchangeable
for BM25 and can be compared on the dev sets.

User dictionary: MeCab only reads user words from a *compiled* dictionary. python-mecab-ko ships
MeCab's compiler (`python -m mecab dict-index`), so the TSV user dictionary is converted to a
mecab-ko-dic CSV (context ids and costs left empty: the compiler estimates them from the bundled
model) and compiled once per dictionary hash into a cache directory (default: the system temp dir,
`yaksa-mecab-userdic/<hash>.dic`). The TSV score is not used: MeCab's costs come from its model.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from yaksa.text.filters import (
    RULES_VERSION,
    base_tag,
    check_texts,
    morpheme_terms,
    normalize_pos_filter,
    tokenizer_identity,
)
from yaksa.text.userdict import UserWord, read_userdict, userdict_hash

_INSTALL_HINT = "the mecab tokenizer needs python-mecab-ko: pip install 'yaksa[mecab]'"


def _import_mecab() -> Any:
    try:
        import mecab
    except ImportError as exc:
        raise ImportError(f"{_INSTALL_HINT} ({exc})") from exc
    return mecab


def _has_final_consonant(word: str) -> str:
    """mecab-ko-dic's 종성 column: T when the last syllable has a final consonant."""
    last = word[-1]
    if "가" <= last <= "힣":
        return "T" if (ord(last) - 0xAC00) % 28 else "F"
    return "*"


def userdict_csv(words: Sequence[UserWord]) -> str:
    """mecab-ko-dic user-dictionary rows; empty ids/costs are filled in by the compiler."""
    rows = []
    for w in words:
        if "," in w.word:
            raise ValueError(f"user word {w.word!r} contains a comma, which MeCab CSV cannot hold")
        rows.append(f"{w.word},,,,{w.tag},*,{_has_final_consonant(w.word)},{w.word},*,*,*,*\n")
    return "".join(rows)


def compile_userdict(userdict_path: Path, cache_dir: Path | None = None) -> Path:
    """Compile the TSV user dictionary into a MeCab `.dic`, reusing an earlier build of the same file."""
    digest = userdict_hash(userdict_path)
    cache = Path(cache_dir) if cache_dir is not None else Path(tempfile.gettempdir()) / "yaksa-mecab-userdic"
    target = cache / f"{digest[:24]}.dic"
    if target.is_file():
        return target
    words = read_userdict(userdict_path)
    cache.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=cache) as tmp:
        csv_path = Path(tmp) / "user.csv"
        dic_path = Path(tmp) / "user.dic"
        csv_path.write_text(userdict_csv(words), encoding="utf-8")
        cmd = [sys.executable, "-m", "mecab", "dict-index", "--userdic", str(dic_path),
               "-f", "utf-8", "-t", "utf-8", str(csv_path)]  # fmt: skip
        proc = subprocess.run(cmd, check=False, capture_output=True, text=True, timeout=300)
        if proc.returncode != 0 or not dic_path.is_file():
            raise RuntimeError(
                f"compiling MeCab user dictionary from {userdict_path} failed "
                f"(exit {proc.returncode}): {proc.stderr.strip() or proc.stdout.strip()}"
            )
        os.replace(dic_path, target)
    return target


class MecabTokenizer:
    """MeCab-ko morphemes filtered by POS, as index terms.

    The binding holds the GIL while parsing, so threads would not help: `tokenize_many` runs
    sequentially (~1,900 MFDS sections/s on this machine, about Kiwi's two-thread speed).
    """

    name = "mecab"

    def __init__(
        self,
        pos_filter: Sequence[str],
        userdict_path: Path | None = None,
        cache_dir: Path | None = None,
    ) -> None:
        mecab = _import_mecab()
        self._pos = normalize_pos_filter(pos_filter)
        self._keep = frozenset(self._pos)
        self._version = f"{mecab.__version__}+rules{RULES_VERSION}"
        self._userdict_hash = ""
        user_dic = None
        if userdict_path is not None:
            user_dic = compile_userdict(Path(userdict_path), cache_dir)
            self._userdict_hash = userdict_hash(Path(userdict_path))
        self._mecab = mecab.MeCab(user_dictionary_path=user_dic)

    def identity(self) -> dict[str, object]:
        return tokenizer_identity(self.name, self._version, self._pos, self._userdict_hash)

    def tokenize(self, text: str) -> list[str]:
        if not isinstance(text, str):
            raise TypeError(f"tokenize() expects str, got {type(text).__name__}")
        out: list[str] = []
        for morph in self._mecab.parse(text):
            form, tag = morph.surface, morph.pos
            expression = morph.feature.expression
            if "+" in tag and expression:
                # A fused surface ("아파요" VA+EF): the first part of the expression is the lemma.
                form, tag = expression.split("+", 1)[0].split("/")[:2]
            tag = base_tag(tag)
            if tag in self._keep:
                out.extend(morpheme_terms(form, tag))
        return out

    def tokenize_many(self, texts: Sequence[str], progress: bool = False) -> list[list[str]]:
        items = check_texts(texts)
        if progress:
            from tqdm import tqdm

            return [self.tokenize(t) for t in tqdm(items, desc="mecab", unit="doc")]
        return [self.tokenize(t) for t in items]
