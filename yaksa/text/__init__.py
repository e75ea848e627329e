"""Korean/English morphological tokenization for BM25 and the drug-name user dictionary."""

from yaksa.text.tokenizer import BACKENDS, Tokenizer, build_tokenizer
from yaksa.text.userdict import UserWord, build_user_words, read_userdict, userdict_hash, write_userdict

__all__ = [
    "BACKENDS",
    "Tokenizer",
    "UserWord",
    "build_tokenizer",
    "build_user_words",
    "read_userdict",
    "userdict_hash",
    "write_userdict",
]
