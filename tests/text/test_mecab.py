from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.text.conftest import POS_FILTER
from yaksa.text.filters import RULES_VERSION
from yaksa.text.userdict import UserWord, userdict_hash, write_userdict

pytest.importorskip("mecab", reason="python-mecab-ko (the `mecab` extra) is not installed")

from yaksa.text.mecab import MecabTokenizer, compile_userdict, userdict_csv


@pytest.fixture(scope="module")
def mecab_plain() -> MecabTokenizer:
    return MecabTokenizer(POS_FILTER)


@pytest.fixture(scope="module")
def mecab_dict(drug_userdict: Path, tmp_path_factory: pytest.TempPathFactory) -> MecabTokenizer:
    return MecabTokenizer(POS_FILTER, drug_userdict, cache_dir=tmp_path_factory.mktemp("mecab-dic"))


def test_basic_tokenization(mecab_plain: MecabTokenizer) -> None:
    assert mecab_plain.tokenize("두통에 먹는 약") == ["두통", "먹다", "약"]
    assert {"간", "위", "약"} <= set(mecab_plain.tokenize("간, 위에 좋은 약"))


def test_fused_surfaces_use_the_lemma(mecab_plain: MecabTokenizer) -> None:
    # "아파요" is one MeCab node tagged VA+EF whose expression starts with 아프/VA.
    assert mecab_plain.tokenize("머리가 아파요") == ["머리", "아프다"]
    assert mecab_plain.tokenize("걸어서") == ["걷다"]


def test_latin_and_numbers(mecab_plain: MecabTokenizer) -> None:
    assert mecab_plain.tokenize("Tylenol 500mg is the brand") == ["tylenol", "500", "mg", "brand"]


def test_user_dictionary_is_compiled_and_used(mecab_plain: MecabTokenizer, mecab_dict: MecabTokenizer) -> None:
    assert "타이레놀" not in mecab_plain.tokenize("타이레놀정500밀리그람")  # 타/이레/놀 without it
    tokens = mecab_dict.tokenize("타이레놀정500밀리그람")
    assert "타이레놀" in tokens and "500" in tokens


def test_compiled_dictionary_is_reused(drug_userdict: Path, tmp_path: Path) -> None:
    first = compile_userdict(drug_userdict, tmp_path)
    mtime = first.stat().st_mtime_ns
    assert compile_userdict(drug_userdict, tmp_path) == first
    assert first.stat().st_mtime_ns == mtime
    assert first.name.startswith(userdict_hash(drug_userdict)[:24])


def test_userdict_csv_rows() -> None:
    assert userdict_csv([UserWord("타이레놀"), UserWord("두통", "NNG")]) == (
        "타이레놀,,,,NNP,*,T,타이레놀,*,*,*,*\n두통,,,,NNG,*,T,두통,*,*,*,*\n"
    )
    assert userdict_csv([UserWord("활명수")]).split(",")[6] == "F"  # no final consonant
    with pytest.raises(ValueError, match="comma"):
        userdict_csv([UserWord("a,b")])


def test_identity(mecab_plain: MecabTokenizer, mecab_dict: MecabTokenizer, drug_userdict: Path) -> None:
    import mecab

    assert mecab_plain.identity() == {"name": "mecab", "version": f"{mecab.__version__}+rules{RULES_VERSION}",
                                      "pos_filter": list(POS_FILTER), "userdict_hash": ""}  # fmt: skip
    assert mecab_dict.identity()["userdict_hash"] == userdict_hash(drug_userdict)


def test_batched_equals_single(mecab_dict: MecabTokenizer, mfds_documents) -> None:
    texts = [d.index_text for d in mfds_documents[:100]]
    assert mecab_dict.tokenize_many(texts) == [mecab_dict.tokenize(t) for t in texts]


def test_bad_dictionary_line_is_reported(tmp_path: Path) -> None:
    path = tmp_path / "u.tsv"
    path.write_text("타이레놀\tNNP\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"u\.tsv:1:"):
        MecabTokenizer(POS_FILTER, path, cache_dir=tmp_path / "cache")


def test_missing_library_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "mecab", None)  # makes `import mecab` raise ImportError
    with pytest.raises(ImportError, match=r"yaksa\[mecab\]"):
        MecabTokenizer(POS_FILTER)


def test_hash_changes_with_dictionary(tmp_path: Path) -> None:
    path = tmp_path / "u.tsv"
    write_userdict(path, [UserWord("타이레놀")])
    first = MecabTokenizer(["NNP"], path, cache_dir=tmp_path).identity()["userdict_hash"]
    write_userdict(path, [UserWord("타이레놀"), UserWord("게보린")])
    second = MecabTokenizer(["NNP"], path, cache_dir=tmp_path).identity()["userdict_hash"]
    assert first != second and len(list(tmp_path.glob("*.dic"))) == 2
