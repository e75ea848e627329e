"""A fake Tavily API on 127.0.0.1 for the real tavily-python client (and the fixture that points at it).

tavily-python takes its endpoint from `api_base_url`, which `search_web` fills from `TAVILY_BASE_URL`,
so no monkeypatching of the library is needed.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar

import pytest

PAGES = [
    {"title": "타이레놀 복용법", "url": "https://example.org/a", "content": "아세트아미노펜 " * 200, "score": 0.9},
    {"title": "bad link", "url": "javascript:alert(1)", "content": "x"},
    {"title": "두통", "url": "https://example.org/b", "content": "두통 설명"},
]


class FakeTavily(BaseHTTPRequestHandler):
    requests: ClassVar[list[dict[str, Any]]] = []
    mode = "ok"

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        FakeTavily.requests.append({"path": self.path, "auth": self.headers.get("Authorization"), "body": body})
        if FakeTavily.mode == "slow":
            time.sleep(1.5)
        status, payload = (500, {"detail": "boom"}) if FakeTavily.mode == "error" else (200, {"results": PAGES})
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture()
def fake_tavily(monkeypatch: pytest.MonkeyPatch) -> Iterator[type[FakeTavily]]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), FakeTavily)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    FakeTavily.requests, FakeTavily.mode = [], "ok"
    monkeypatch.setenv("TAVILY_API_KEY", "tvly-test-key")
    monkeypatch.setenv("TAVILY_BASE_URL", f"http://127.0.0.1:{server.server_address[1]}")
    yield FakeTavily
    server.shutdown()
    server.server_close()
