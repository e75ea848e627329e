"""What the server logs about a request: ids, lengths, versions and timings — never user text.

Why: a question often says who is asking and what they take ("저는 임신 중인데 ..."), and logs
are kept longer and read by more people than the profile store, which users can erase. So the
handlers log no question, answer or web query (see `serving.turns`), and the uvicorn access log,
which would print `/v1/search?q=...`, keeps the path and drops the query string. There is no
switch to log question text: reproduce a problem from the ids and the trace instead. User ids are
personal data too: the service's log lines name a turn by its request id, and a path by its route
template (`/v1/profile/{user_id}`, `route_of`), never by the user id in it.

JSON: every record the service's processes log is one JSON object on one line (`JsonFormatter`:
time, level, logger, message, worker, request id, the traceback if any, and the `extra` fields of
the record, such as the access line's method, route, status and duration). Non-ASCII text is written
as itself, not as \\u escapes, so a grep for a Korean word finds it (and a check that none is logged
means something).

Request ids: every HTTP request gets one (`serving.observe`): the client's `X-Request-ID` when it is a
short, safe token (`accept_request_id`), else a fresh one; it is returned in the `X-Request-ID`
header of every response (errors and SSE streams included) and set on every record logged while
the request runs, in the worker threads of a turn too (`install_request_id_records`).
"""

from __future__ import annotations

import contextvars
import json
import logging
import re
import uuid
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from litestar.logging.config import LoggingConfig

from serving.headers import worker_id

ACCESS_LOGGER = "uvicorn.access"
SERVICE_ACCESS_LOGGER = "serving.access"   # the service's own access line: route template, request id
QUERY_OMITTED = "?[query omitted]"
REQUEST_ID_HEADER = "X-Request-ID"
# a client's id is kept only when it cannot carry anything else: no spaces, quotes or control characters
REQUEST_ID_PATTERN = re.compile(r"[A-Za-z0-9._-]{1,64}")
UNMATCHED_ROUTE = "unmatched"               # no route matched: the raw path is never logged or labelled
_request_id: contextvars.ContextVar[str | None] = contextvars.ContextVar("yaksa_request_id", default=None)
# what a LogRecord has of itself; anything else on it came through `extra=` and goes into the JSON
_RECORD_FIELDS = frozenset(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {
    "message", "asctime", "request_id", "color_message"}  # uvicorn's coloured copy of the message


class DropQueryStrings(logging.Filter):
    """Rewrites uvicorn's access-log record (client, method, path?query, http version, status)."""

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        if isinstance(args, tuple) and len(args) == 5 and isinstance(args[2], str) and "?" in args[2]:
            record.args = (*args[:2], args[2].split("?", 1)[0] + QUERY_OMITTED, *args[3:])
        return True


def install_access_log_redaction() -> None:
    """Idempotent: each app (and each uvicorn worker) may call it."""
    logger = logging.getLogger(ACCESS_LOGGER)
    if not any(isinstance(f, DropQueryStrings) for f in logger.filters):
        logger.addFilter(DropQueryStrings())


def accept_request_id(value: str | None) -> str:
    """The client's request id when it is a short safe token, else a new random one (32 hex digits)."""
    if value is not None and REQUEST_ID_PATTERN.fullmatch(value):
        return value
    return uuid.uuid4().hex


def current_request_id() -> str | None:
    return _request_id.get()


def set_request_id(request_id: str | None) -> contextvars.Token[str | None]:
    """Name the request this context serves (pair with `reset_request_id`)."""
    return _request_id.set(request_id)


def reset_request_id(token: contextvars.Token[str | None]) -> None:
    _request_id.reset(token)


def route_of(scope: Mapping[str, Any]) -> str:
    """What may be logged (or be a metric label) of a request's path: the matched route's template."""
    return scope.get("path_template") or UNMATCHED_ROUTE


_base_factory = logging.getLogRecordFactory()


def _record_with_request_id(*args: Any, **kwargs: Any) -> logging.LogRecord:
    record = _base_factory(*args, **kwargs)
    record.request_id = _request_id.get()
    return record


def install_request_id_records() -> None:
    """Idempotent: every LogRecord created from now on carries the request id of its context.

    Why at creation: a record may be formatted later on another thread (Litestar's queue handler),
    where the request's context is gone. anyio copies the context into the thread a turn runs in."""
    if logging.getLogRecordFactory() is not _record_with_request_id:
        logging.setLogRecordFactory(_record_with_request_id)


class JsonFormatter(logging.Formatter):
    """One JSON object per record (see the module docstring)."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            "worker": worker_id(),
            "request_id": getattr(record, "request_id", None),
        }
        entry.update((k, v) for k, v in vars(record).items() if k not in _RECORD_FIELDS and not k.startswith("_"))
        if record.exc_info:
            entry["exc_info"] = self.formatException(record.exc_info)
        elif record.exc_text:
            entry["exc_info"] = record.exc_text
        if record.stack_info:
            entry["stack_info"] = self.formatStack(record.stack_info)
        return json.dumps(entry, ensure_ascii=False, default=str)


# libraries that log every call at INFO: MedCAT wrote four "Running component ..." lines per turn (each
# formatted as JSON and queued), which say nothing an operator needs; their warnings still come through
QUIET_LIBRARIES = ("medcat",)


def service_logging_config() -> LoggingConfig:
    """Litestar's logging set-up (root and `litestar` loggers through its queue handler, so a log line
    never blocks the event loop) with every line in JSON, chatty libraries at WARNING."""
    config = LoggingConfig(formatters={"standard": {"()": JsonFormatter}})
    for name in QUIET_LIBRARIES:
        config.loggers[name] = {"level": "WARNING", "propagate": True}
    return config


def uvicorn_log_config(level: str = "info") -> dict[str, Any]:
    """uvicorn's own loggers in JSON too (`yaksa serve` passes this to `uvicorn.run`; each worker applies
    it). uvicorn's access log is off there: the service writes its own (`serving.observe`)."""
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {"drop_query_strings": {"()": DropQueryStrings}},
        "formatters": {"json": {"()": JsonFormatter}},
        "handlers": {"default": {"class": "logging.StreamHandler", "formatter": "json", "stream": "ext://sys.stderr",
                                 "filters": ["drop_query_strings"]}},
        "loggers": {
            "uvicorn": {"handlers": ["default"], "level": level.upper(), "propagate": False},
            "uvicorn.error": {"level": level.upper()},
            ACCESS_LOGGER: {"handlers": ["default"], "level": level.upper(), "propagate": False},
        },
    }
