"""The chat page in a real browser (Debian's chromium via Playwright) against uvicorn on 127.0.0.1.

The server runs in open mode (no keys: loopback only), exactly as `yaksa serve` does by default.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from serving.app import create_app
from serving.config import ServingConfig
from tests.serving.conftest import live_server
from tests.serving.fakes import fake_factory
from yaksa.config import Settings

CHROMIUM = shutil.which("chromium")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="chromium not installed (apt-get install -y chromium)")
QUESTION = "두통에 먹는 약 알려줘"


@pytest.fixture()
def server_url(settings: Settings) -> Iterator[str]:
    with live_server(create_app(settings, fake_factory(token_delay=0.05), ServingConfig(rate_per_sec=0.0))) as url:
        yield url


@pytest.fixture()
def real_agent_url(settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """The production agent (offline: no LLM endpoint) on the tiny bundle, memory and cache in tmp."""
    monkeypatch.delenv("YAKSA_LLM_BASE_URL", raising=False)
    with live_server(create_app(settings.with_state_in(tmp_path), None, ServingConfig(rate_per_sec=0.0))) as url:
        yield url


def test_ask_stream_and_open_a_citation(server_url: str, tmp_path: Path) -> None:
    from playwright.sync_api import expect, sync_playwright

    top = httpx.get(server_url + "/v1/search", params={"q": QUESTION, "k": 3}).json()["results"][0]
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--headless"])
        page = browser.new_page(locale="ko-KR")
        page.goto(server_url)
        user_id = page.locator("#user-id").text_content()
        assert user_id.startswith("web-")
        page.fill("#question", QUESTION)
        page.press("#question", "Enter")
        answer = page.locator(".msg.bot").last
        # streamed: text shows up while the turn is still running (send button disabled)
        page.wait_for_function(
            "() => { const m = [...document.querySelectorAll('.msg.bot')].pop();"
            " return m && m.textContent.length > 0 && document.getElementById('send').disabled; }"
        )
        assert len(answer.inner_text()) < len(top["title"]) + 80  # not the whole answer yet
        cite = answer.locator("button.cite[data-n='1']")
        expect(cite).to_be_visible(timeout=30_000)
        assert "전문가와 꼭 상담하세요" in answer.inner_text()
        cite.click()
        modal = page.locator("#modal")
        expect(modal).to_be_visible()
        assert page.locator("#modal-title").inner_text() == f"[문서 1] {top['title']}"
        assert top["section"] in page.locator("#modal-meta").inner_text()
        modal_text = page.locator("#modal-text").inner_text()
        assert len(modal_text) > 20 and modal_text.split()[0] in answer.inner_text()
        page.screenshot(path=str(tmp_path / "citation.png"))
        page.click("#modal-close")
        expect(modal).to_be_hidden()
        page.click("#tab-web")
        expect(page.locator("#panel-web")).to_contain_text("no TAVILY_API_KEY")
        page.click("#tab-trace")
        expect(page.locator("#panel-trace")).to_contain_text("generate_answer")
        page.screenshot(path=str(tmp_path / "chat.png"), full_page=True)
        page.reload()
        assert page.locator("#user-id").text_content() == user_id  # the session continues
        browser.close()
    assert (tmp_path / "chat.png").stat().st_size > 10_000


def test_real_agent_answers_with_cited_mfds_sections(real_agent_url: str, tmp_path: Path) -> None:
    from playwright.sync_api import expect, sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--headless"])
        page = browser.new_page(locale="ko-KR")
        page.goto(real_agent_url)
        page.fill("#question", "두통이 있는데 타이레놀 먹어도 되나요?")
        page.press("#question", "Enter")
        answer = page.locator(".msg.bot").last
        cite = answer.locator("button.cite[data-n='1']")
        expect(cite).to_be_visible(timeout=60_000)
        expect(page.locator("#send")).to_be_enabled(timeout=60_000)
        assert "전문가와 꼭 상담하세요" in answer.inner_text()
        cite.click()
        expect(page.locator("#modal")).to_be_visible()
        meta = page.locator("#modal-meta").inner_text()
        assert "mfds:" in meta or "drugs" in meta
        assert len(page.locator("#modal-text").inner_text()) > 10
        page.screenshot(path=str(tmp_path / "real-agent.png"), full_page=True)
        browser.close()
