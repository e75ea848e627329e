"""Prescription medicine classes named in a message (`yaksa.lexicon.prescription_classes`)."""

from __future__ import annotations

import pytest

from yaksa.lexicon.prescription_classes import prescription_classes_named


@pytest.mark.parametrize(("text", "expected"), [
    ("혈압약 먹어도 운동해도 되나요", ("혈압약",)),
    ("고혈압약이랑 콜레스테롤약 같이 먹어도 돼요?", ("혈압약", "고지혈증약")),   # the preferred name, in order
    ("혈당약 먹는데 술 마셔도 되나요", ("당뇨약",)),
    ("피 묽게 하는 약 먹고 있어요", ("항응고제",)),                              # spaces ignored
    ("항생제 먹는데 술 마셔도 돼요?", ("항생제",)),
    ("저혈압약 먹어요", ()),                 # a low-blood-pressure medicine is not 혈압약
    ("수면제 먹어도 되나요", ()),            # sold over the counter too (the data's doxylamine sleep aids)
    ("스테로이드 연고 발라도 돼요?", ()),    # the data's steroid ointments
    ("타이레놀 먹어도 되나요", ()),
])
def test_prescription_classes_named(text: str, expected: tuple[str, ...]) -> None:
    assert prescription_classes_named(text) == expected
