"""Realistic evidence (MFDS-style Korean label sections, an English MedQuAD-style passage) and a
real `LLMClient` pointed at the fake server, one model name per role so scripts can match on it."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.fake_openai import FakeOpenAI, fake_openai  # noqa: F401 - fixture re-exported for tests/llm
from yaksa.llm.client import LLMClient
from yaksa.llm.config import ROLES, LLMConfig
from yaksa.llm.evidence import Citation

TYLENOL = "타이레놀정500밀리그람(아세트아미노펜)"


def mfds(n: int, key: str, section: str, text: str, score: float) -> Citation:
    meta = {"item_seq": "200000001", "product_name": "타이레놀정500밀리그람", "ingredient": "아세트아미노펜",
            "company": "한국얀센", "section_key": key}  # fmt: skip
    return Citation(n, f"mfds:200000001:{key}", "drugs", TYLENOL, section, text, score, meta)


@pytest.fixture()
def tylenol() -> list[Citation]:
    return [
        mfds(1, "efficacy", "효능효과", "이 약은 두통, 치통, 발열, 생리통에 사용합니다.", 0.91),
        mfds(2, "usage", "용법용량",
             "만 12세 이상 소아 및 성인은 1회 1~2정씩 1일 3~4회 (4~6시간 마다) 필요시 복용합니다. "
             "1일 최대 4그램(8정)을 초과하여 복용하지 마십시오.", 0.84),
        mfds(3, "precautions", "주의사항",
             "매일 세 잔 이상 정기적으로 술을 마시는 사람이 이 약이나 다른 해열진통제를 복용해야 할 경우 "
             "반드시 의사 또는 약사와 상의하십시오. 이러한 사람이 이 약을 복용하면 간 손상이 유발될 수 있습니다.\n\n"
             "고령자, 간장애 환자, 당뇨병 환자는 이 약을 복용하기 전에 의사 또는 약사와 상의하십시오.", 0.77),
    ]  # fmt: skip


@pytest.fixture()
def aspirin_en() -> list[Citation]:
    text = ("Aspirin is used to reduce fever and relieve mild to moderate pain. Adults may take 325 mg "
            "every 4 hours as needed. Do not give aspirin to children or teenagers with a viral illness "
            "because of the risk of Reye syndrome. People with stomach ulcers should ask a doctor first.")  # fmt: skip
    return [Citation(1, "medquad:aspirin:usage", "health", "Aspirin", "usage", text, 0.8, {})]


@pytest.fixture()
def make_client(fake_openai: FakeOpenAI) -> Callable[..., LLMClient]:  # noqa: F811 - the fixture above
    """`make_client(max_retries=0, timeout_s=1)` → a client on the fake server; role models "<role>-model"."""
    def make(**overrides: object) -> LLMClient:
        settings = {"model": "default-model", "role_models": {r: f"{r}-model" for r in ROLES},
                    "backoff_s": 0.0, "timeout_s": 5.0, **overrides}
        return LLMClient(LLMConfig(base_url=fake_openai.base_url, **settings))  # type: ignore[arg-type]

    return make
