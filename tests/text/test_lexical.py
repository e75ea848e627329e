from __future__ import annotations

from yaksa.text.lexical import grams, is_korean, mentions, overlap, sentences, terms


def test_terms_are_content_words() -> None:
    assert terms("타이레놀을 먹으면 두통이 나을까요?") == ["타이레놀", "두통"]
    assert terms("What are the side effects of aspirin for headache?") == ["side", "effects", "aspirin", "headache"]


def test_grams_match_across_particles() -> None:
    q = grams("두통에 좋은 약")
    assert overlap(q, "이 약은 두통, 치통에 사용합니다.") > 0 and overlap(set(), "x") == 0.0
    assert {"aspirin", "adult", "pain"} <= grams("Aspirin relieves pain in adults")


def test_sentences_and_helpers() -> None:
    assert sentences("첫 문장입니다. 둘째 문장!\n\n셋째 줄") == ["첫 문장입니다.", "둘째 문장!", "셋째 줄"]
    assert is_korean("타이레놀 500mg") and not is_korean("Tylenol")
    assert mentions("당뇨", "당뇨병 환자는") and mentions("Aspirin", "aspirin is")


def test_sentences_split_mfds_text_glued_at_periods() -> None:
    from yaksa.text.lexical import sentences

    text = "임부는 복용하지 마십시오.이 약에 과민증 환자는 상의하십시오. 1회 37.5 mL를 드세요."
    assert sentences(text) == ["임부는 복용하지 마십시오.", "이 약에 과민증 환자는 상의하십시오.", "1회 37.5 mL를 드세요."]
    # a list's middle dot written as a full stop is no sentence end
    assert sentences("이 약은 위.십이지장궤양, 위염에 사용합니다.") == ["이 약은 위.십이지장궤양, 위염에 사용합니다."]
    assert sentences("만 7세 이하의 영.유아에게는 투여하지 않습니다.") == ["만 7세 이하의 영.유아에게는 투여하지 않습니다."]
    # glued to a figure: an adult dose and the children's ages of 이바펜400밀리그람정 were one sentence
    glued = "성인 1회 1/2정~1정(200~400 mg), 1일 3~4회 복용합니다.11~14세는 1회 200~250 mg을 복용합니다."
    assert sentences(glued) == ["성인 1회 1/2정~1정(200~400 mg), 1일 3~4회 복용합니다.", "11~14세는 1회 200~250 mg을 복용합니다."]
