"""A short command for a phone's or a home assistant's action is refused; a question asking to be told
something about a medicine is not a command."""

from __future__ import annotations

import json

import pytest

from tests.conftest import shared_or_skip
from yaksa.scope.device_command import device_command


@pytest.mark.parametrize("message", [
    "내일 건강검진 일정 캘린더에 추가해줘",
    "엄마한테 병원 잘 다녀오시라고 문자 보내줘",
    "약 먹을 시간 되면 알려줘",
    "내일 오전 10시에 치과 예약 알림 맞춰줘",
    "병원 가는 길 알려줘",
    "체중 기록해줘",
    "거실 불 좀 켜 줘",
    # record, measure, order, show, where, the device's own record (2026-11-30)
    "체중 기록 좀 해 줄래",
    "심박수 측정해 줘",
    "비타민 주문해 줘",
    "내 혈압 기록 보여 줄래",
    "가까운 약국 어디 있는지 알려 줘",
    "오늘 칼로리 얼마나 먹었는지 알려 줘",
])
def test_a_command_for_the_device(message: str) -> None:
    assert device_command(message)


@pytest.mark.parametrize("message", [
    "타이레놀 용량 알려줘",
    "해열제 먹일 시간 알려줘",
    "아기 열 내리는 방법 알려주세요",
    "병원 가야 할지 알려줘",
    "스트레스 완화법 좀 가르켜주세요",      # 켜 inside 가르켜: no switch
    "아이가 약을 얼마나 먹었는지 몰라요 어떻게 해요?",   # a worry, not the device's record
    "혈압 측정은 언제 하는 게 좋아요?",
])
def test_asking_to_be_told_is_no_command(message: str) -> None:
    assert not device_command(message)


def test_no_shared_post_or_exam_stem_is_a_command() -> None:
    for name in ("posts_ko.jsonl", "med_ko.jsonl"):
        path = shared_or_skip("real-questions", name)
        texts = [json.loads(line)["question"] for line in path.read_text(encoding="utf-8").splitlines()]
        assert not [t for t in texts if device_command(t)], name


@pytest.mark.parametrize("message", [
    "화장실 세면대에 물 틀어져있는지 확인 해줄수있니",   # 3i4K's kind; passed the model left out (화장실)
    "현관문 잠겼어?",
    "거실 에어컨 켜져 있어?",
    "냉장고 문 열려 있는지 확인해줘",
    "창문 닫혀 있는지 봐줘",
    "물 틀어져 있는 거 잠가줘",
])
def test_a_question_on_a_home_devices_state(message: str) -> None:
    assert device_command(message)


@pytest.mark.parametrize("message", [
    "아이가 열이 나는데 문이 잠겼어요",             # told, not asked
    "아이가 열이 나는데 현관문이 잠겨서 못 들어가요",
    "에어컨 켜져 있는 방에서 자고 나면 목이 아파요?",  # a complaint: the writer's, not the house's
    "불 켜져 있는데 잠이 안 와요?",
    "밀크씨슬 간 수치 낮춰줘요?",                   # what a supplement does
])
def test_a_devices_state_beside_a_complaint_or_told_is_no_command(message: str) -> None:
    assert not device_command(message)


@pytest.mark.parametrize("message", [
    "내일 서울 날씨 어때?", "이번 주말에 비 와요?", "장마 언제 끝나?", "내일 우산 챙겨야 해?",
    "오늘 최저 기온 몇 도야", "오늘이 무슨 요일이야", "지금 몇 시야", "거실 온도 좀 알려줘",
])
def test_an_assistants_question_for_the_day(message: str) -> None:
    """The weather, the date, a room's temperature: asked of an assistant, not of a pharmacist (ours, written
    after reading 3i4K's misses: not blind)."""
    assert device_command(message)


@pytest.mark.parametrize("message", [
    "날씨가 추우면 혈압이 올라가나요?",          # a condition beside the weather
    "더운 날씨에 약 보관 어떻게 해요?",          # a medicine beside it
    "비 오는 날 무릎이 쑤셔요",                  # a complaint
    "아기 방 온도 몇 도가 적당해요?",            # a baby's care
    "열이 몇 도부터 위험해요?",                  # a body's temperature
    "눈이 오른쪽이 아파요",                      # the eye, not snow
    "감기 걸리기 딱 좋은 날씨래 내일 기온 몇 도야",
])
def test_the_weather_beside_health_is_left_to_the_model(message: str) -> None:
    assert not device_command(message)
