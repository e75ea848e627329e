from __future__ import annotations

import re
from pathlib import Path

import pytest

from yaksa.text.userdict import (
    UserDictError,
    UserWord,
    brand_stem,
    build_user_words,
    ingredient_words,
    read_userdict,
    userdict_hash,
    write_userdict,
)


@pytest.mark.parametrize(
    ("product", "stem"),
    [
        ("타이레놀정500밀리그람", "타이레놀"),
        ("타이레놀정500mg", "타이레놀"),
        ("대웅우루사연질캡슐", "대웅우루사"),
        ("이바펜400밀리그람정", "이바펜"),
        ("겔포스현탁액(인산알루미늄겔)", "겔포스"),
        ("미보(MEBO)연고", "미보"),
        ("포스테리산좌제", "포스테리산"),
        ("보미롱산", "보미롱"),
        ("판콜에이내복액", "판콜에이"),
        ("옵타젠트점안액(포비돈)", "옵타젠트"),
        ("베스타제당의정", "베스타제"),
        ("벤투룩스30mg캡슐", "벤투룩스"),
        ("누마렌점안액(1회용),누마렌점안액", "누마렌"),
        ("고려아시클로버크림(아시클로버)(수출명:바이락스크림(VIRAXCream)", "고려아시클로버"),
        ("활명수", "활명수"),
        ("위정", ""),  # one syllable left: not a word
        ("SWAN EYE DROPS", ""),
    ],
)
def test_brand_stem(product: str, stem: str) -> None:
    assert brand_stem(product) == stem


@pytest.mark.parametrize(
    ("ingredient", "words"),
    [
        ("아세트아미노펜", ["아세트아미노펜"]),
        ("로페라미드염산염", ["로페라미드", "염산염"]),
        ("아세트아미노펜, 카페인무수물", ["아세트아미노펜", "카페인", "무수물"]),
        ("글루타티온(환원형)", ["글루타티온"]),
        ("히알루론산 나트륨", ["히알루론산", "나트륨"]),
        ("L-아르기닌염산염", []),
        ("", []),
    ],
)
def test_ingredient_words(ingredient: str, words: list[str]) -> None:
    assert ingredient_words(ingredient) == words


def test_build_user_words_from_drug_documents(drug_docs, make_drug_doc) -> None:
    docs = [*drug_docs, make_drug_doc("건강뉴스약", "비밀성분", collection="health")]
    words = build_user_words(docs)
    vocab = [w.word for w in words]
    assert vocab == sorted(set(vocab))
    for expected in ("타이레놀", "아세트아미노펜", "대웅우루사", "로페라미드", "염산염", "로프민", "카페인", "판콜에이"):
        assert expected in vocab
    # company + generic name: left to the analyser so 트리메부틴 stays a separate term
    assert "신일트리메부틴말레산염" not in vocab and "트리메부틴" in vocab
    # only the drugs collection contributes
    assert "건강뉴스" not in vocab and "비밀성분" not in vocab
    assert all(w.tag == "NNP" for w in words)


def test_build_user_words_on_real_mfds(mfds_documents) -> None:
    words = build_user_words(mfds_documents)
    vocab = {w.word for w in words}
    assert 300 <= len(vocab) <= 1500
    assert all(re.fullmatch(r"[가-힣]{2,}", w) for w in vocab)
    for expected in ("겔포스", "타치온", "글루타티온", "클로르페니라민", "로페라미드", "게보린", "세토펜"):
        assert expected in vocab
    assert "아세트아미노펜" in vocab


def test_build_user_words_falls_back_to_title(make_drug_doc) -> None:
    doc = make_drug_doc("게보린정")
    no_meta = type(doc)(**{**doc.__dict__, "metadata": {}, "content_hash": ""})
    assert [w.word for w in build_user_words([no_meta])] == ["게보린"]


def test_round_trip_sorted_deduplicated(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "userdict.tsv"
    words = [UserWord("타이레놀", "NNP", 0.0), UserWord("두통", "NNG", 1.5), UserWord("타이레놀", "NNP", 2.0)]
    write_userdict(path, words)
    assert path.read_text(encoding="utf-8") == "두통\tNNG\t1.5\n타이레놀\tNNP\t2.0\n"
    assert read_userdict(path) == [UserWord("두통", "NNG", 1.5), UserWord("타이레놀", "NNP", 2.0)]
    assert [p.name for p in path.parent.iterdir()] == ["userdict.tsv"]  # no temp file left behind


def test_hash_follows_content(tmp_path: Path) -> None:
    path = tmp_path / "userdict.tsv"
    write_userdict(path, [UserWord("타이레놀")])
    first = userdict_hash(path)
    write_userdict(path, [UserWord("타이레놀")])
    assert userdict_hash(path) == first
    write_userdict(path, [UserWord("타이레놀"), UserWord("게보린")])
    assert userdict_hash(path) != first and len(first) == 64


@pytest.mark.parametrize(
    ("content", "lineno", "fragment"),
    [
        ("타이레놀\tNNP\t0.0\n두통\tNNG\n", 2, "expected 'word<TAB>tag<TAB>score'"),
        ("# comment\n\n타이레놀\tNNP\tabc\n", 3, "score is not a number"),
        ("타이레놀\tnnp\t0\n", 1, "invalid POS tag"),
        ("타이 레놀\tNNP\t0\n", 1, "without spaces"),
        ("타이레놀\tNNP\tnan\n", 1, "not finite"),
    ],
)
def test_malformed_line_names_file_and_line(tmp_path: Path, content: str, lineno: int, fragment: str) -> None:
    path = tmp_path / "bad.tsv"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(UserDictError, match=re.escape(fragment)) as info:
        read_userdict(path)
    assert f"{path}:{lineno}:" in str(info.value)


def test_missing_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(UserDictError, match="not found"):
        read_userdict(tmp_path / "nope.tsv")


@pytest.mark.parametrize("word", [UserWord(""), UserWord("두 통"), UserWord("두통", "bad"), UserWord("두통", score=float("inf"))])
def test_write_rejects_bad_words(tmp_path: Path, word: UserWord) -> None:
    with pytest.raises(ValueError):
        write_userdict(tmp_path / "u.tsv", [word])
    assert not (tmp_path / "u.tsv").exists()
