"""The bge_m3 backend on CPU with a tiny random XLM-R saved to disk: CLS vectors, options, model path."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from yaksa.embed import make_embedder
from yaksa.embed.bge_m3_backend import MODEL_ENV, BgeM3Embedder, expand_model

torch = pytest.importorskip("torch")


@pytest.fixture(scope="module")
def tiny_xlmr_dir(tmp_path_factory: pytest.TempPathFactory, minilm_tokenizer_file: str) -> Path:
    """A tiny XLMRobertaModel with random weights and a fast tokenizer, as a local model directory."""
    from tokenizers import Tokenizer
    from transformers import PreTrainedTokenizerFast, XLMRobertaConfig, XLMRobertaModel

    path = tmp_path_factory.mktemp("tiny-bge-m3")
    tok = Tokenizer.from_file(minilm_tokenizer_file)
    tok.no_padding()
    tok.no_truncation()
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, pad_token="[PAD]", cls_token="[CLS]", sep_token="[SEP]",
                                   unk_token="[UNK]")
    fast.save_pretrained(path)
    torch.manual_seed(0)
    config = XLMRobertaConfig(vocab_size=tok.get_vocab_size(), hidden_size=16, num_hidden_layers=2, num_attention_heads=2,
                              intermediate_size=32, max_position_embeddings=130, pad_token_id=0)
    XLMRobertaModel(config, add_pooling_layer=False).save_pretrained(path)
    return path


def test_vectors_are_the_normalised_cls_state(tiny_xlmr_dir: Path) -> None:
    from transformers import AutoModel, AutoTokenizer

    emb = make_embedder("bge_m3", {"model": str(tiny_xlmr_dir), "device": "cpu", "max_length": 64,
                                   "token_budget": 128})
    assert isinstance(emb, BgeM3Embedder) and emb.dim == 16
    assert emb.id.startswith(f"bge_m3:{tiny_xlmr_dir}@transformers-") and emb.id.endswith("/max64")
    texts = ["fever", "aspirin relieves headache " * 8, "두통에는 아세트아미노펜"]
    got = emb.embed_passages(texts)
    model = AutoModel.from_pretrained(tiny_xlmr_dir).eval()
    tok = AutoTokenizer.from_pretrained(tiny_xlmr_dir)
    with torch.inference_mode():
        for i, text in enumerate(texts):
            ids = tok(text, truncation=True, max_length=64, return_tensors="pt")["input_ids"]
            cls = model(input_ids=ids).last_hidden_state[0, 0].numpy()
            np.testing.assert_allclose(got[i], cls / np.linalg.norm(cls), atol=1e-5)
    np.testing.assert_allclose(emb.embed_query("fever"), got[0], atol=1e-5)  # no query prefix in BGE-M3


def test_model_path_from_the_environment(tiny_xlmr_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(MODEL_ENV, str(tiny_xlmr_dir))
    emb = make_embedder("bge_m3", {"model": f"${MODEL_ENV}", "device": "cpu"})
    assert emb.model == str(tiny_xlmr_dir) and str(tiny_xlmr_dir) in emb.id


def test_unset_variable_and_empty_model_are_errors(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(MODEL_ENV, raising=False)
    with pytest.raises(ValueError, match="environment variable not set"):
        expand_model(f"${MODEL_ENV}")
    with pytest.raises(ValueError, match="needs `model`"):
        expand_model("  ")


@pytest.mark.parametrize(("options", "match"), [
    ({"dtype": "float16"}, "needs a CUDA device"),
    ({"max_length": 10_000}, "max_length must be an integer from 16 to 8192"),
    ({"token_budget": 0}, "token_budget"),
    ({"batch_size": 0}, "max_rows"),
])  # fmt: skip
def test_bad_options_fail_before_loading(options: dict[str, object], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        make_embedder("bge_m3", {"model": "/nonexistent", "device": "cpu", **options})
