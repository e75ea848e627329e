from __future__ import annotations

from pathlib import Path

from litestar.testing import TestClient

from serving.app import create_app
from yaksa.config import RetrievalParams, load_settings


def test_health_ready_and_search_on_the_published_bundle(tiny_project: Path) -> None:
    indexes = load_settings(tiny_project / "params.yaml").paths.indexes
    with TestClient(app=create_app(indexes, RetrievalParams())) as client:
        assert client.get("/healthz").json() == {"status": "ok"}
        ready = client.get("/readyz")
        assert ready.status_code == 200
        version = ready.json()["version"]
        assert client.get("/v1/indexes").json()["serving"] == version
        body = client.get("/v1/search", params={"q": "두통에 먹는 약", "k": 3}).json()
        assert body["version"] == version and body["collections"] == ["drugs"]
        assert len(body["results"]) == 3
        assert client.get("/v1/search", params={"q": "   "}).status_code == 400
        assert client.get("/v1/search", params={"q": "x", "collection": "nope"}).status_code == 400


def test_not_ready_without_a_bundle(tmp_path: Path) -> None:
    with TestClient(app=create_app(tmp_path / "indexes", RetrievalParams())) as client:
        assert client.get("/healthz").status_code == 200
        ready = client.get("/readyz")
        assert ready.status_code == 503
        assert "index not loaded" in ready.text
