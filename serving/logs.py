"""What the server logs about a request: ids, lengths, versions and timings — never user text.

Why: a question often says who is asking and what they take ("저는 임신 중인데 ..."), and logs
are kept longer and read by more people than the profile store, which users can erase. So the
handlers log no question, answer or web query (see `serving.turns`), and the uvicorn access log,
which would print `/v1/search?q=...`, keeps the path and drops the query string. There is no
switch to log question text: reproduce a problem from the ids and the trace instead.
"""

from __future__ import annotations

import logging

ACCESS_LOGGER = "uvicorn.access"
QUERY_OMITTED = "?[query omitted]"


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
