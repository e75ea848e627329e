"""The app as a whole: probes, OpenAPI without CDN pages, the static chat page."""

from __future__ import annotations

from litestar.testing import TestClient

from tests.serving.conftest import ALICE


def test_health_readiness_indexes_and_openapi(client: TestClient) -> None:
    assert client.get("/healthz").json() == {"status": "ok"}
    version = client.get("/readyz").json()["version"]
    info = client.get("/v1/indexes", headers=ALICE).json()
    assert info["serving"] == info["current"] == version and version in info["versions"]
    schema = client.get("/schema/openapi.json").json()
    assert {"/v1/chat", "/v1/search", "/v1/profile/{user_id}", "/v1/admin/reload"} <= set(schema["paths"])
    assert client.get("/schema/swagger").status_code == 404  # CDN-backed pages are not served


def test_chat_page_and_its_assets_are_served(client: TestClient) -> None:
    page = client.get("/")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert 'lang="ko"' in page.text and "/static/chat.js" in page.text and "//cdn" not in page.text
    script = client.get("/static/chat.js").text
    assert "new EventSource" not in script and "fetch(\"/v1/chat\"" in script  # SSE over POST needs fetch
    assert client.get("/static/chat.css").status_code == 200
