from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.text.conftest import POS_FILTER
from yaksa.text import BACKENDS, Tokenizer, UserWord, build_tokenizer, write_userdict


@pytest.fixture(scope="module")
def headache_dict(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("tok") / "userdict.tsv"
    write_userdict(path, [UserWord("두통"), UserWord("타이레놀")])
    return path


def test_unknown_backend_names_the_options() -> None:
    with pytest.raises(ValueError, match=r"'sentencepiece'.*kiwi, mecab"):
        build_tokenizer("sentencepiece", POS_FILTER, None)
    assert BACKENDS == ("kiwi", "mecab")


@pytest.mark.parametrize("backend", BACKENDS)
def test_backends_share_the_contract(backend: str, headache_dict: Path) -> None:
    if backend == "mecab":
        pytest.importorskip("mecab")
    tok = build_tokenizer(backend, POS_FILTER, headache_dict)
    assert isinstance(tok, Tokenizer)
    assert tok.name == backend
    ident = tok.identity()
    assert set(ident) == {"name", "version", "pos_filter", "userdict_hash"}
    assert ident["pos_filter"] == list(POS_FILTER) and len(str(ident["userdict_hash"])) == 64
    # the same rules on both sides: particles gone, stems with 다, Latin lower-cased
    assert tok.tokenize("두통에 먹는 약") == ["두통", "먹다", "약"]
    assert tok.tokenize("타이레놀 Tablet") == ["타이레놀", "tablet"]
    assert tok.tokenize_many(["두통이", "the"]) == [["두통"], []]


def test_import_stays_light() -> None:
    code = "import sys, yaksa.text; print(sorted(m for m in ('kiwipiepy', 'mecab') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
