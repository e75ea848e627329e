import pytest

from yaksa.scope.windows import MAX_WINDOWS, WINDOW_CHARS, sentences, text_windows


def test_short_text_is_one_window() -> None:
    assert text_windows("  열이 나요  ") == ["열이 나요"]


def test_unpunctuated_korean_splits_after_sentence_endings() -> None:
    assert sentences("어제부터 머리가 아파요 그리고 열도 있어요 약을 먹어도 될까요") == [
        "어제부터 머리가 아파요", "그리고 열도 있어요", "약을 먹어도 될까요"]


def test_long_post_windows_cover_the_end_and_respect_the_size() -> None:
    story = "저희 아이가 어제 놀이터에서 놀다가 넘어졌어요. " * 30
    post = story + "지금 해열제를 먹여도 되나요?"
    windows = text_windows(post)
    assert all(len(w) <= WINDOW_CHARS for w in windows)
    assert 1 < len(windows) <= MAX_WINDOWS
    assert windows[-1].endswith("해열제를 먹여도 되나요?")   # the question at the end is always read


def test_a_sentence_longer_than_a_window_is_cut_at_spaces() -> None:
    windows = text_windows("가나다 " * 100, window_chars=40)
    assert all(len(w) <= 40 for w in windows)
    assert "".join(windows).replace(" ", "") == ("가나다" * 100)


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="empty"):
        text_windows("   ")
    with pytest.raises(ValueError, match="window_chars"):
        text_windows("열", window_chars=5)
