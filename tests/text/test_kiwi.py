from __future__ import annotations

from pathlib import Path

import pytest

from tests.text.conftest import POS_FILTER
from yaksa.text.filters import RULES_VERSION
from yaksa.text.kiwi import KiwiTokenizer
from yaksa.text.userdict import UserDictError, UserWord, userdict_hash, write_userdict


def test_particles_are_stripped(kiwi_plain: KiwiTokenizer) -> None:
    assert "두통" in kiwi_plain.tokenize("두통이")
    assert kiwi_plain.tokenize("두통이 심할 때 먹어요") == ["두통", "심하다", "때", "먹다"]


def test_user_word_fixes_sentence_initial_split(kiwi_dict: KiwiTokenizer) -> None:
    # Without 두통 as a user word Kiwi reads the sentence-initial 두통에 as 두(MM)+통 ("two cans").
    tokens = kiwi_dict.tokenize("두통에 먹는 약")
    assert tokens == ["두통", "먹다", "약"]


def test_product_name_keeps_brand_and_strength(kiwi_dict: KiwiTokenizer) -> None:
    tokens = kiwi_dict.tokenize("타이레놀정500밀리그람")
    assert "타이레놀" in tokens and "500" in tokens
    tokens = kiwi_dict.tokenize("로프민캡슐(로페라미드염산염)을 먹었어요")
    assert {"로프민", "로페라미드", "염산염", "먹다"} <= set(tokens)


def test_one_syllable_nouns_survive(kiwi_plain: KiwiTokenizer) -> None:
    tokens = kiwi_plain.tokenize("간, 위, 열이 나요. 약을 먹어도 돼요?")
    assert {"간", "위", "열", "약"} <= set(tokens)


def test_verb_stems_get_da(kiwi_plain: KiwiTokenizer) -> None:
    assert kiwi_plain.tokenize("먹어도") == ["먹다"]
    assert kiwi_plain.tokenize("머리가 아파요") == ["머리", "아프다"]  # irregular VA-I
    assert kiwi_plain.tokenize("걸어서") == ["걷다"]


def test_latin_lowercased_and_cleaned(kiwi_plain: KiwiTokenizer) -> None:
    # Kiwi itself splits "Aspirin." into "Aspi" + "rin.": the pieces are re-joined from the source.
    assert kiwi_plain.tokenize("Aspirin. The pain of COVID-19.") == ["aspirin", "pain", "covid", "19"]
    assert kiwi_plain.tokenize("혈압약(Amlodipine) 5mg") == ["혈압", "약", "amlodipine", "5", "mg"]


def test_pos_filter_is_applied() -> None:
    nouns_only = KiwiTokenizer(["NNG"])
    assert nouns_only.tokenize("두통이 심해서 Tylenol 500mg을 먹었다") == ["두통"]


def test_batched_equals_single(kiwi_dict: KiwiTokenizer, mfds_documents) -> None:
    texts = [d.index_text for d in mfds_documents[:150]] + ["", "Aspirin. fever."]
    assert kiwi_dict.tokenize_many(texts) == [kiwi_dict.tokenize(t) for t in texts]
    assert kiwi_dict.tokenize_many([]) == []


def test_progress_bar(kiwi_plain: KiwiTokenizer, capsys: pytest.CaptureFixture[str]) -> None:
    assert kiwi_plain.tokenize_many(["약", "두통이"], progress=True) == [["약"], ["두통"]]
    assert "kiwi" in capsys.readouterr().err


def test_identity(kiwi_plain: KiwiTokenizer, kiwi_dict: KiwiTokenizer, drug_userdict: Path) -> None:
    import kiwipiepy

    ident = kiwi_plain.identity()
    assert ident == {"name": "kiwi", "version": f"{kiwipiepy.__version__}+rules{RULES_VERSION}", "pos_filter": list(POS_FILTER),
                     "userdict_hash": ""}  # fmt: skip
    assert kiwi_dict.identity()["userdict_hash"] == userdict_hash(drug_userdict)


def test_identity_hash_changes_with_dictionary(tmp_path: Path) -> None:
    path = tmp_path / "u.tsv"
    write_userdict(path, [UserWord("타이레놀")])
    first = KiwiTokenizer(["NNP"], path).identity()["userdict_hash"]
    write_userdict(path, [UserWord("타이레놀"), UserWord("게보린")])
    second = KiwiTokenizer(["NNP"], path).identity()["userdict_hash"]
    assert first and second and first != second


def test_bad_input(kiwi_plain: KiwiTokenizer, tmp_path: Path) -> None:
    with pytest.raises(TypeError, match="expects str"):
        kiwi_plain.tokenize(None)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="not a single string"):
        kiwi_plain.tokenize_many("두통")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="text #1"):
        kiwi_plain.tokenize_many(["두통", 3])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="invalid POS tag"):
        KiwiTokenizer(["NNG", "noun"])
    with pytest.raises(ValueError, match="empty"):
        KiwiTokenizer([])
    with pytest.raises(UserDictError, match="not found"):
        KiwiTokenizer(["NNG"], tmp_path / "missing.tsv")


def test_a_repeated_query_is_analysed_once_and_returns_a_fresh_list() -> None:
    """Issue 22: one turn reads its question several times; Kiwi analyses it once."""
    from yaksa.text.kiwi import KiwiTokenizer

    tok = KiwiTokenizer(["NNG", "NNP"], num_workers=1)
    calls = []
    real = tok._analyser()
    original = real.tokenize

    class Counting:
        def tokenize(self, text):
            calls.append(text)
            return original(text)

    tok._kiwi = Counting()
    first = tok.tokenize("두통이 심할 때 먹는 약")
    first.append("changed")
    second = tok.tokenize("두통이 심할 때 먹는 약")
    assert len(calls) == 1 and "changed" not in second and second == first[:-1]
