"""What the service logs: the uvicorn access log keeps paths and drops query strings
(`/v1/search?q=<question>`); every record is one JSON line with its request id, and neither the
question nor the user id is in any of them."""

from __future__ import annotations

import json
import logging
import sys
from contextlib import AbstractContextManager
from typing import Any

from serving.logs import (
    ACCESS_LOGGER,
    REQUEST_ID_HEADER,
    DropQueryStrings,
    JsonFormatter,
    install_access_log_redaction,
    install_request_id_records,
    reset_request_id,
    set_request_id,
)
from tests.serving.conftest import ALICE, recording, serving_client
from tests.serving.fakes import FakeRunner
from yaksa.config import Settings


def _access_record(path: str) -> logging.LogRecord:
    """A record shaped like uvicorn's: (client, method, path with query, HTTP version, status)."""
    return logging.LogRecord(ACCESS_LOGGER, logging.INFO, __file__, 1, '%s - "%s %s HTTP/%s" %d',
                             ("127.0.0.1:5000", "GET", path, "1.1", 200), None)


def test_query_strings_are_dropped_from_access_log_lines() -> None:
    record = _access_record("/v1/search?q=%EC%9E%84%EC%8B%A0+%ED%83%80%EC%9D%B4%EB%A0%88%EB%86%80&k=3")
    assert DropQueryStrings().filter(record)
    assert record.getMessage() == '127.0.0.1:5000 - "GET /v1/search?[query omitted] HTTP/1.1" 200'
    plain = _access_record("/v1/profile/alice")
    DropQueryStrings().filter(plain)
    assert plain.getMessage() == '127.0.0.1:5000 - "GET /v1/profile/alice HTTP/1.1" 200'


def test_installing_twice_adds_one_filter() -> None:
    install_access_log_redaction()
    install_access_log_redaction()
    assert sum(isinstance(f, DropQueryStrings) for f in logging.getLogger(ACCESS_LOGGER).filters) == 1


# JSON lines with the request id (serving.logs, serving.observe) ------------------------------------

QUESTION = "저는 김민지이고 010-1234-5678 인데 임신 중에 타이레놀 먹어도 되나요?"


def json_lines(*loggers: str) -> AbstractContextManager[list[str]]:
    """Every record of `loggers` as the service's formatter writes it (not caplog: Litestar's logging
    set-up replaces the root logger's handlers when an app is created)."""
    return recording(*loggers, each=JsonFormatter().format)


def test_a_record_is_one_json_line_with_its_request_id_and_extras() -> None:
    install_request_id_records()
    token = set_request_id("req-1")
    try:
        record = logging.getLogger("serving.test").makeRecord(
            "serving.test", logging.ERROR, __file__, 1, "bundle %s: %s", ("v1", "타이레놀"), None,
            extra={"route": "/v1/chat", "status": 200})
        try:
            raise RuntimeError("boom")
        except RuntimeError:
            record.exc_info = sys.exc_info()
    finally:
        reset_request_id(token)
    line = JsonFormatter().format(record)
    assert "\n" not in line and "타이레놀" in line  # one line; Korean as itself, so a grep finds it
    entry = json.loads(line)
    assert entry["message"] == "bundle v1: 타이레놀" and entry["level"] == "ERROR" and entry["logger"] == "serving.test"
    assert entry["request_id"] == "req-1" and entry["route"] == "/v1/chat" and entry["status"] == 200
    assert "RuntimeError: boom" in entry["exc_info"] and entry["worker"]
    assert logging.getLogger("x").makeRecord("x", logging.INFO, __file__, 1, "m", (), None).request_id is None


class LoggingRunner(FakeRunner):
    """Logs from the turn's worker thread, as the agent's own modules may."""

    def run(self, question: str, user_id: str, *args: Any, **kwargs: Any) -> Any:
        logging.getLogger("serving.test.runner").info("turn running in its thread")
        return super().run(question, user_id, *args, **kwargs)


def test_a_turn_logs_json_lines_under_its_request_id_without_question_or_user(settings: Settings) -> None:
    factory = lambda loaded, s: LoggingRunner(loaded, s, {})
    with serving_client(settings, factory) as client, json_lines("serving") as lines:
        chat = client.post("/v1/chat", json={"question": QUESTION, "user_id": "alice", "web": False},
                           headers={**ALICE, REQUEST_ID_HEADER: "req-chat-1"})
        profile = client.get("/v1/profile/alice", headers=ALICE)
    assert chat.status_code == 200 and chat.headers[REQUEST_ID_HEADER] == "req-chat-1"
    entries = [json.loads(line) for line in lines]
    turn = [e for e in entries if e["request_id"] == "req-chat-1"]
    messages = {e["message"] for e in turn}
    assert "turn running in its thread" in messages  # the worker thread logs under the request's id
    assert any(m.startswith("turn done on bundle") for m in messages)
    [access] = [e for e in turn if e["logger"] == "serving.access"]
    assert access["route"] == "/v1/chat" and access["method"] == "POST" and access["status"] == 200
    [profile_access] = [e for e in entries if e["request_id"] == profile.headers[REQUEST_ID_HEADER]]
    assert profile_access["route"] == "/v1/profile/{user_id}"
    logged = "\n".join(lines)
    for secret in ("alice", "김민지", "010-1234-5678", "타이레놀", QUESTION):
        assert secret not in logged, secret


def test_medcat_info_lines_stay_out_of_the_service_log(settings: Settings) -> None:
    """MedCAT logged four "Running component ..." lines per turn at INFO; its warnings still count."""
    from serving.logs import QUIET_LIBRARIES

    with serving_client(settings):
        for name in QUIET_LIBRARIES:
            logger = logging.getLogger(name)
            assert logger.getEffectiveLevel() == logging.WARNING
            assert not logger.isEnabledFor(logging.INFO) and logger.isEnabledFor(logging.WARNING)
        assert logging.getLogger("medcat.pipeline.pipeline").getEffectiveLevel() == logging.WARNING
