"""The open-mode checks on their own: Host and Origin parsing, what counts as a JSON body."""

from __future__ import annotations

import pytest
from litestar.exceptions import HTTPException, PermissionDeniedException

from serving.origin import check_content_type, check_host, check_origin, is_json_media_type, split_host


@pytest.mark.parametrize("value, parsed", [
    ("127.0.0.1:8000", ("127.0.0.1", 8000)), ("LOCALHOST", ("localhost", 80)), ("[::1]:9", ("[::1]", 9)),
    ("[::1]", ("[::1]", 80)), ("127.0.0.1:", None), ("127.0.0.1:99999", None), ("127.0.0.1:8000, evil", None),
    ("[::1", None), ("", None), ("127.0.0.1:８０", None), (":80", None),
])
def test_split_host(value: str, parsed: tuple[str, int] | None) -> None:
    assert split_host(value) == parsed


@pytest.mark.parametrize("host", ["evil.example", "127.0.0.1.nip.io:8000", "10.0.0.1:8000", "", "0.0.0.0:8000",
                                  "localhost.evil:80", "127.0.0.1:8000, evil.example"])
def test_foreign_host_names_are_refused(host: str) -> None:
    with pytest.raises(PermissionDeniedException, match="DNS rebinding"):
        check_host(host)


def test_origin_must_be_a_loopback_http_origin_on_the_same_port() -> None:
    for origin in ("http://127.0.0.1:8000", "http://localhost:8000", "http://[::1]:8000", "http://127.0.0.1:8000/"):
        check_origin(origin, 8000)
    check_origin("http://localhost", 80)
    for origin in ("http://127.0.0.1:8001", "https://127.0.0.1:8000", "null", "", "http://evil.example:8000",
                   "http://127.0.0.1:8000/path", "file://", "http://user@127.0.0.1:8000"):
        with pytest.raises(PermissionDeniedException, match="CSRF"):
            check_origin(origin, 8000)


@pytest.mark.parametrize("content_type, ok", [
    ("application/json", True), ("Application/JSON; charset=UTF-8", True), ('application/json;charset="utf-8"', True),
    ("application/json; charset=latin-1", False), ("application/json; boundary=x", False), ("text/plain", False),
    ("", False), ("application/json-patch+json", False),
])
def test_json_media_type(content_type: str, ok: bool) -> None:
    assert is_json_media_type(content_type) is ok


def test_content_type_is_checked_only_for_bodies() -> None:
    check_content_type("POST", {})  # bodiless: nothing to misdeclare
    check_content_type("POST", {"content-length": "0", "content-type": "text/plain"})
    check_content_type("GET", {"content-length": "5", "content-type": "text/plain"})
    for headers in ({"content-length": "5", "content-type": "text/plain"}, {"transfer-encoding": "chunked"}):
        with pytest.raises(HTTPException) as refused:
            check_content_type("POST", headers)
        assert refused.value.status_code == 415
