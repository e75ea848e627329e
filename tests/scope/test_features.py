"""Signals of the scope model that need no bundle: cues, lexical rows, kNN means, the combiner."""

from __future__ import annotations

import numpy as np
import pytest

from yaksa.scope.cues import domain_cues
from yaksa.scope.features import knn_means, leave_one_out_knn, lexical_signals
from yaksa.scope.model import fit_embedding_direction, fit_scope_model


@pytest.mark.parametrize(("question", "domain"), [
    ("감기약 회사 주식 사도 될까요", "finance"), ("크림 파스타 레시피", "food"), ("파스 회사 채용 공고", "jobs"),
    ("how to make a bomb at home", "harmful"), ("Is a vitamin company stock a good investment?", "finance"),
    ("냉동실 온도 확인해줘", "assistant"), ("다음 미팅 날짜가 언제니", "assistant"), ("오늘 자외선 지수 알려줘", "weather"),
    ("내일 눈이 얼마나 내릴지 알려줘", "weather"), ("썸남이 먼저 연락할까?", "chitchat"), ("소개팅 때 뭐 입지", "chitchat"),
    ("고래는 아가미로 숨을 쉬는가?", "nature"), ("문어는 심장이 세 개인가?", "nature"), ("화강암은 어떻게 생기나요?", "nature"),
    ("Do whales have lungs?", "nature"), ("욕실 곰팡이 제거제 추천", "household"),
    ("신발 교환 어떻게 해요", "shopping"), ("환불이나 교환 가능한가요", "shopping"),
])
def test_cues_name_the_other_domain(question: str, domain: str) -> None:
    assert domain in domain_cues(question)


@pytest.mark.parametrize("question", [
    "두통이 있는데 타이레놀 먹어도 되나요?", "카페인 든 두통약 저녁에 먹으면 잠 안 와요?", "임신 중이라면 진통제 뭐 먹어요",
    "햇볕에 탄 피부 진정시키는 약", "둘코락스 먹고 몇 시간 뒤에 신호 와요?", "What are the side effects of metformin?",
    "상처 드레싱 어떻게 해요", "아이가 몰래 약을 먹었어요",
    "자외선 차단제 바르는 순서", "눈이 가렵고 충혈됐어요", "메틸페니데이트 먹으면 잠이 안 와요", "수험생신분인데 가슴이 찌릿해요",
    # what bites people, fish eaten, a posture, mould eaten or on the skin: health, not nature or housework
    "뱀이 물었어요 어떻게 해요", "참치는 임신 중에 먹어도 되나요?", "거북목은 어떻게 고치나요?", "곰팡이 핀 빵 먹었는데 괜찮을까요",
    "손발톱 곰팡이 약", "곰팡이성 질염 약", "태양은 피부에 안 좋은가요?",
    "거미에 물렸는데 거미는 독이 있나요?", "개미에 물렸어요", "해파리에 쏘였는데 해파리는 독이 있나요",
    # a dressing, a tube or a bandage changed is care, not a shop's exchange
    "수술 부위 드레싱 교환은 언제 해요?", "화상 드레싱 교환할 때 아파요", "도뇨관 교환 주기는?", "교환수혈의 적응증은?",
])
def test_cues_stay_quiet_on_pharmacy_questions(question: str) -> None:
    assert domain_cues(question) == ()


def test_knn_means_take_the_k_nearest_of_each_label() -> None:
    sims = np.array([0.9, 0.1, 0.8, 0.7, 0.2])
    labels = np.array([True, True, False, False, True])
    assert knn_means(sims, labels, 2) == pytest.approx((0.55, 0.75))
    assert knn_means(sims, labels, 10) == pytest.approx((0.4, 0.75))  # k larger than a class: all of it


def test_leave_one_out_never_sees_the_row_itself() -> None:
    vectors = np.eye(4, dtype=np.float32)
    rows = leave_one_out_knn(vectors, np.array([True, True, False, False]), 1)
    assert rows.max() == 0.0  # orthogonal rows: without itself no neighbour is similar


def test_combiner_and_threshold_are_deterministic_and_respect_the_budget() -> None:
    rng = np.random.default_rng(0)
    y = np.array([True] * 120 + [False] * 80)
    x = np.c_[rng.normal(y * 2.0, 1.0), rng.normal(0, 1, len(y))]
    a = fit_scope_model(("signal", "noise"), x, y, max_false_block=0.01, regularization=1.0)
    b = fit_scope_model(("signal", "noise"), x, y, max_false_block=0.01, regularization=1.0)
    assert a.threshold == b.threshold and np.array_equal(a.coef, b.coef)
    assert a.tuning.false_block_rate <= 0.01 and a.tuning.block_rate > 0.3
    assert a.weights()["signal"] > abs(a.weights()["noise"])
    assert a.probability([3.0, 0.0]) > a.threshold > a.probability([-2.0, 0.0])
    with pytest.raises(ValueError, match="both labels"):
        fit_scope_model(("signal", "noise"), x, np.ones(len(y), dtype=bool), 0.01, 1.0)


def test_embedding_direction_logits_are_out_of_fold() -> None:
    rng = np.random.default_rng(1)
    y = np.array([True] * 30 + [False] * 30)
    vectors = rng.normal(0, 1, (60, 8)) + np.outer(np.where(y, 1.0, -1.0), np.eye(8)[0])
    direction, oof = fit_embedding_direction(vectors, y, 1.0)
    assert oof.shape == (60,) and (oof[y] > 0).mean() > 0.8 and (oof[~y] < 0).mean() > 0.8
    assert direction.logit(np.eye(8)[0] * 3) > 0 > direction.logit(-np.eye(8)[0] * 3)


class _Words:
    """Whitespace words: enough to test which tokens count as medical."""

    def tokenize(self, text: str) -> list[str]:
        return text.replace("?", "").split()


def test_a_medical_word_in_its_everyday_sense_names_nothing_medical() -> None:
    """KorQuAD trivia about 금강산 passed on 구역 (an area, read as nausea) and 지질 (geology, read as lipids)."""
    vocabulary = frozenset({"구역", "지질", "구토"})
    area = lexical_signals("금강산의 구역 가운데 삼선암이 있는 곳은?", _Words(), vocabulary)
    assert not [m for m in area.medical if "구역" in m] and area.density == 0.0
    geology = lexical_signals("금강산을 만든 지질 활동은?", _Words(), vocabulary)
    assert geology.medical == ()
    nausea = lexical_signals("구역 구토가 심해요", _Words(), vocabulary)
    assert "구역" in nausea.medical and "symptom:구역" in nausea.medical
