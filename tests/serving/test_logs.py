"""The uvicorn access log keeps paths and drops query strings (`/v1/search?q=<question>`)."""

from __future__ import annotations

import logging

from serving.logs import ACCESS_LOGGER, DropQueryStrings, install_access_log_redaction


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
