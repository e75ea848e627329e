"""Fixtures for the retrieval tests: a tiny randomly initialised BERT cross-encoder on disk.

No reranker weights exist offline, so the real CrossEncoder / FlagReranker loading and scoring
code runs on a 1-layer, 32-wide BERT saved into a temp dir. Its scores mean nothing; the tests
check shapes, ordering, filtering and determinism, never relevance.
"""

from __future__ import annotations

from pathlib import Path

import pytest

VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "타이레놀", "두통", "간", "약", "손상", "위", "소화",
         "부작용", "용량", "aspirin", "dose", "pain", "liver", "?", ".",
         *"abcdefghijklmnopqrstuvwxyz", *(f"##{c}" for c in "abcdefghijklmnopqrstuvwxyz")]


@pytest.fixture(scope="session")
def tiny_cross_encoder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Path of a saved BertForSequenceClassification (num_labels=1) with its WordPiece tokenizer."""
    import torch
    from transformers import BertConfig, BertForSequenceClassification, BertTokenizer

    path = tmp_path_factory.mktemp("tiny-cross-encoder")
    (path / "vocab.txt").write_text("\n".join(VOCAB) + "\n", encoding="utf-8")
    # do_lower_case=False: lower-casing also strips accents, which decomposes Hangul into jamo
    tokenizer = BertTokenizer(vocab_file=str(path / "vocab.txt"), do_lower_case=False)
    torch.manual_seed(0)
    config = BertConfig(vocab_size=len(VOCAB), hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
                        intermediate_size=37, max_position_embeddings=128, num_labels=1,
                        initializer_range=0.5)  # wide init so the random scores actually differ
    BertForSequenceClassification(config).save_pretrained(path)
    tokenizer.save_pretrained(path)
    return path
