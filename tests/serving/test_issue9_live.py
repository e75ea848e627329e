"""Issue 9 replayed end to end: the production agent on the tiny bundle behind a real uvicorn in open
mode (loopback), web references against the fake Tavily server. One test, marked slow."""

from __future__ import annotations

import json

import httpx
import pytest

from serving.app import create_app
from serving.config import ServingConfig
from serving.runtime import default_runner_factory
from tests.serving.conftest import live_server
from tests.web.fake_tavily import FakeTavily
from yaksa.config import Settings

pytestmark = pytest.mark.slow
DECOYS = ("크림 파스타 레시피", "감기약 회사 주식 사도 될까요", "파스 회사 채용 공고", "오늘 저녁 메뉴 추천",
          "비타민 주식 전망", "삼성전자 주가 어떻게 될까요")


def chat(url: str, question: str, user: str, **extra) -> dict:
    body = {"question": question, "user_id": user, "stream": False, "web": extra.pop("web", False), **extra}
    r = httpx.post(url + "/v1/chat", json=body, timeout=120)
    assert r.status_code == 200, r.text
    return r.json()


def test_issue9_rows_against_a_live_server(settings: Settings, tmp_path, fake_tavily: type[FakeTavily]) -> None:
    app = create_app(settings.with_state_in(tmp_path), default_runner_factory, ServingConfig(rate_per_sec=0.0))
    with live_server(app) as url:
        # 7 (and 1): decoys are refused, before the cache; a drug question about a baby is answered
        for question in DECOYS:
            out = chat(url, question, "user-a")
            assert out["blocked"] and not out["citations"] and not out["trace"]["cache_hit"], question
        baby = chat(url, "만 3개월 아기에게 먹이면 안 되는 소화액", "user-a2")
        assert not baby["blocked"]
        # 2: a client cannot pick a variant that turns safety off
        r = httpx.post(url + "/v1/chat", json={"question": DECOYS[-1], "user_id": "x", "variant": "baseline"})
        assert r.status_code in (400, 403)
        # 3: identifiers are never cached; erasure reaches the cache; no response carries another's words
        dave = chat(url, "제 이름은 홍길동이고 010-1234-5678 인데 65세 남성 당뇨 환자가 이부프로펜 먹어도 되나요?", "dave")
        assert not dave["trace"]["stored_in_cache"]
        carol = chat(url, "콧물에 페니라민정 먹어도 되나요?", "carol")
        erin = chat(url, "콧물에 페니라민정 먹어도 되나요", "erin")
        assert carol["trace"]["stored_in_cache"] and erin["trace"]["cache_hit"]
        assert "홍길동" not in json.dumps(erin, ensure_ascii=False) and "cached_query" not in erin["trace"]["cache"]
        assert httpx.delete(url + "/v1/profile/carol").json()["forgotten"]
        assert not chat(url, "콧물에 페니라민정 먹어도 되나요", "gina")["trace"]["cache_hit"]
        # 5: web references only for in-scope questions, identifiers and self-statements removed
        FakeTavily.requests.clear()
        assert not chat(url, "삼성전자 주가 어떻게 될까요", "w", web=True)["web_refs"]["results"]
        chat(url, "안녕하세요", "w", web=True)
        chat(url, "65세 남성이고 당뇨가 있어요", "w", web=True)
        assert FakeTavily.requests == []
        chat(url, "제 이름은 홍길동이에요. 저는 HIV 양성이며 우울증약을 먹고 있어요. 페니라민정 먹어도 되나요?", "w2", web=True)
        sent = json.dumps([r["body"] for r in FakeTavily.requests], ensure_ascii=False)
        assert "페니라민정" in sent and not any(s in sent for s in ("HIV", "홍길동", "우울증"))
        # 6: open mode refuses non-JSON bodies, foreign origins and foreign Host names
        r = httpx.post(url + "/v1/chat", content='{"question": "두통", "user_id": "c"}',
                       headers={"Content-Type": "text/plain"})
        assert r.status_code == 415
        r = httpx.post(url + "/v1/chat", json={"question": "두통", "user_id": "c"}, headers={"Origin": "http://evil.test"})
        assert r.status_code == 403
        assert httpx.get(url + "/v1/indexes", headers={"Host": "evil.test"}).status_code == 403
        # 8: questions are answered; a drug asked about is not a medication taken; a stated one is
        for question in ("페니라민정 하루에 몇 번 먹어요", "클로르페니라민 하루 최대 용량", "콧물이 계속 나요"):
            out = chat(url, question, "asker")
            assert out["trace"]["intent"] == "question" and not out["blocked"], question
        meds = [i for i in httpx.get(url + "/v1/profile/asker").json()["items"] if i["slot_type"] == "medications"]
        assert meds == []
        chat(url, "와파린을 먹고 있어요", "taker")
        items = httpx.get(url + "/v1/profile/taker").json()["items"]
        assert any(i["slot_type"] == "medications" for i in items)
        # 9: bad input is a 400 with a message, never a 500
        assert httpx.get(url + "/v1/profile/x%0A").status_code == 400
        nested = '{"question": ' + "[" * 5000 + "]" * 5000 + ', "user_id": "n"}'
        r = httpx.post(url + "/v1/chat", content=nested, headers={"Content-Type": "application/json"})
        assert r.status_code == 400 and r.json()["detail"]
        for bad in ("\u200b\u200b", "두통\u202e약", "두통\u0085약", "두통\x7f약"):
            r = httpx.post(url + "/v1/chat", json={"question": bad, "user_id": "n"})
            assert r.status_code == 400 and r.json()["detail"], repr(bad)
