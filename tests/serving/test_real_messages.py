"""Issue 23 end to end through `POST /v1/chat` with the production agent on the tiny bundle: a long post
is answered (cited), a red-flag post gets the urgent advice first, a non-medical question is refused.
The messages were written by the team in the style of real posts (real posts are never committed)."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.serving.conftest import ALICE, serving_client
from yaksa.agent.factory import build_runner
from yaksa.config import Settings

LONG_POST = (
    "안녕하세요 처음 글 올려봐요. 저는 29살 여자고 회사 다니고 있어요. 지난주에 출장을 다녀와서 좀 피곤하긴 했는데 "
    "주말에 친구 결혼식도 있어서 쉬지를 못했어요. 그러다 어제 저녁부터 으슬으슬 춥고 온몸이 쑤시더니 밤에 재보니 "
    "열이 38.3도까지 올랐어요. 목도 조금 칼칼하고 콧물도 살짝 나요. 집에 타이레놀이 있는데 회사에 나가야 해서 "
    "빨리 낫고 싶어서요. 타이레놀 먹어도 되나요? 먹는다면 한 번에 몇 알 먹어야 하나요?")
RED_FLAG_POST = ("생후 50일 된 아기 엄마예요. 아침부터 아기가 좀 칭얼대서 재봤더니 열이 38.2도예요. 분유는 조금 먹었어요. "
                 "해열제를 먹여도 되는지 궁금해요.")
NON_MEDICAL = "체스에서 캐슬링을 할 때 킹과 룩 중에 무엇을 먼저 움직여야 하나요?"


@pytest.fixture(scope="module")
def chat(settings: Settings, tmp_path_factory: pytest.TempPathFactory) -> Any:
    tmp = tmp_path_factory.mktemp("real-messages")
    with serving_client(settings.with_state_in(tmp), build_runner) as client:
        def ask(question: str) -> dict[str, Any]:
            response = client.post("/v1/chat", json={"question": question, "user_id": "alice", "stream": False,
                                                     "web": False}, headers=ALICE)
            assert response.status_code == 200, response.text
            return response.json()
        yield ask


def _answer(body: dict[str, Any]) -> dict[str, Any]:
    """The non-streaming body's answer text and whether the turn was refused."""
    return {"text": body["answer"], "blocked": body["blocked"]}


def test_a_long_post_is_answered_with_citations(chat: Any) -> None:
    body = chat(LONG_POST)
    answer = _answer(body)
    assert answer["blocked"] is False
    assert re.search(r"\[문서 \d+\]", answer["text"])          # cited from the labels
    assert "자료에 없" in answer["text"] or "타이레놀" in answer["text"]  # about the medicine asked


def test_a_red_flag_post_gets_the_urgent_advice_first(chat: Any) -> None:
    answer = _answer(chat(RED_FLAG_POST))
    assert answer["blocked"] is False
    first = answer["text"].split("\n\n")[0]
    assert "119" in first or "응급실" in first


def test_a_non_medical_question_is_refused(chat: Any) -> None:
    assert _answer(chat(NON_MEDICAL))["blocked"] is True


def test_an_english_question_naming_a_product_is_answered_from_its_korean_label(chat: Any) -> None:
    """"What are the side effects of naproxen?" was answered from MedQuAD and an abstract though the labels hold
    naproxen's; on the tiny bundle ibuprofen (부루펜정) stands for it."""
    body = chat("What are the side effects of ibuprofen?")
    assert body["blocked"] is False
    assert body["answer"].startswith("The product labels in the data are Korean (MFDS)")
    assert "부루펜" in body["answer"] and re.search(r"\[문서 \d+\]", body["answer"])
