"""Kiwi (kiwipiepy) morphological tokenizer: the default analyser for BM25 over Korean text.

Kiwi ships its language model in `kiwipiepy_model`, takes user words at run time (our drug brands
and ingredients) and analyses a list of texts on a thread pool, which is what makes indexing ~30k
documents on two cores take seconds rather than minutes.

Thread safety: the server tokenizes each turn's query in its own worker thread with one shared
tokenizer. A built Kiwi may analyse from several threads at once (kiwipiepy's documentation,
"멀티스레딩", shares one instance between Python threads), but it builds itself lazily on the
first analysis (and again after `add_user_word`), and that build is not guarded. So the first
analysis runs under a lock, once, before any caller sees the analyser.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from yaksa.host import engine_threads
from yaksa.text.filters import (
    RULES_VERSION,
    base_tag,
    check_texts,
    latin_terms,
    morpheme_terms,
    needs_analyser,
    normalize_pos_filter,
    plain_terms,
    tokenizer_identity,
)
from yaksa.text.userdict import read_userdict, userdict_hash

QUERY_MEMO_SIZE = 256  # recent query texts whose terms a tokenizer remembers


class KiwiTokenizer:
    """Kiwi morphemes filtered by POS, as index terms.

    >>> tok = KiwiTokenizer(["NNG", "NNP", "VV", "SL", "SN"])
    >>> tok.tokenize("두통이 심할 때 Tylenol 500mg을 먹어요")
    ['두통', '때', 'tylenol', '500', 'mg', '먹다']
    """

    name = "kiwi"

    def __init__(
        self,
        pos_filter: Sequence[str],
        userdict_path: Path | None = None,
        num_workers: int | None = None,
    ) -> None:
        import kiwipiepy  # heavy (model load ~1 s): only when a Kiwi tokenizer is really built

        self._pos = normalize_pos_filter(pos_filter)
        self._keep = frozenset(self._pos)
        self._version = f"{kiwipiepy.__version__}+rules{RULES_VERSION}"
        # Batch analysis needs at least one worker thread (num_workers=0 disables it).
        workers = num_workers if num_workers is not None else engine_threads()
        self._kiwi = kiwipiepy.Kiwi(num_workers=workers)
        self._userdict_hash = ""
        if userdict_path is not None:
            path = Path(userdict_path)
            for w in read_userdict(path):
                self._kiwi.add_user_word(w.word, w.tag, w.score)
            self._userdict_hash = userdict_hash(path)
        self._ready = False
        self._ready_lock = threading.Lock()
        self._memo: OrderedDict[str, tuple[str, ...]] = OrderedDict()   # text -> terms (tokenize only)
        self._memo_lock = threading.Lock()

    def _analyser(self) -> Any:
        """The Kiwi instance, built (under the lock, once) before its first concurrent use."""
        if not self._ready:
            with self._ready_lock:
                if not self._ready:
                    self._kiwi.tokenize("준비")
                    self._ready = True
        return self._kiwi

    def identity(self) -> dict[str, object]:
        return tokenizer_identity(self.name, self._version, self._pos, self._userdict_hash)

    def tokenize(self, text: str) -> list[str]:
        """The terms of one text (a query). The last `QUERY_MEMO_SIZE` results are remembered: one turn
        reads the same question in the scope stage, the search and the lexical checks, and a 2,000-
        character post costs Kiwi 45-60 ms each time, holding the GIL (every other turn waits)."""
        if not isinstance(text, str):
            raise TypeError(f"tokenize() expects str, got {type(text).__name__}")
        if not needs_analyser(text):
            return plain_terms(text, self._keep)
        with self._memo_lock:
            known = self._memo.get(text)
            if known is not None:
                self._memo.move_to_end(text)
                return list(known)
        terms = self._terms(text, self._analyser().tokenize(text))
        with self._memo_lock:
            self._memo[text] = tuple(terms)
            if len(self._memo) > QUERY_MEMO_SIZE:
                self._memo.popitem(last=False)
        return terms

    def tokenize_many(self, texts: Sequence[str], progress: bool = False) -> list[list[str]]:
        items = check_texts(texts)
        if not items:
            return []
        out: list[list[str] | None] = [None] * len(items)
        korean = [i for i, text in enumerate(items) if needs_analyser(text)]
        korean_set = set(korean)
        for i, text in enumerate(items):
            if i not in korean_set:
                out[i] = plain_terms(text, self._keep)
        # Passing the whole list lets Kiwi analyse on its worker pool; results come back in order.
        results = self._analyser().tokenize([items[i] for i in korean]) if korean else []
        if progress:
            from tqdm import tqdm

            results = tqdm(results, total=len(korean), desc="kiwi", unit="doc")
        for i, tokens in zip(korean, results, strict=True):
            out[i] = self._terms(items[i], tokens)
        return [terms if terms is not None else [] for terms in out]

    def _terms(self, text: str, tokens: Sequence[Any]) -> list[str]:
        """Filter morphemes; re-join adjacent Latin pieces from the original text first.

        Kiwi splits some Latin words before a full stop ("Aspirin." → "Aspi" + "rin."), so runs of
        touching SL tokens are cut back out of the source text and split by `latin_terms`.
        """
        out: list[str] = []
        keep_latin = "SL" in self._keep
        span: list[int] | None = None  # [start, end) of the current run of touching Latin tokens
        for tok in tokens:
            tag = base_tag(tok.tag)
            if tag == "SL" and span is not None and tok.start == span[1]:
                span[1] = tok.end
                continue
            if span is not None:
                out.extend(latin_terms(text[span[0] : span[1]]))
                span = None
            if tag == "SL":
                if keep_latin:
                    span = [tok.start, tok.end]
            elif tag.startswith("W_"):  # serials ("1/3"), URLs, e-mails: letters and numbers only
                out.extend(plain_terms(tok.form, self._keep))
            elif tag in self._keep:
                out.extend(morpheme_terms(tok.form, tag))
        if span is not None:
            out.extend(latin_terms(text[span[0] : span[1]]))
        return out
