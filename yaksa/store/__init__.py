"""Where the serving state lives: embedded SQLite files (one host, the default) or PostgreSQL.

Why one setting: profiles, conversation history, the response cache and the rate-limit buckets
must all live in the same place, or a second host would read one from the shared database and
another from its own disk. `YAKSA_DATABASE_URL=postgresql://...` moves all four into that
database (`yaksa.store.postgres`); unset, each stays in its file on this host, as before.
"""

from __future__ import annotations

from collections.abc import Mapping

from yaksa import environment

DATABASE_URL_ENV = environment.DATABASE_URL
_SCHEMES = ("postgresql://", "postgres://")


def database_url(env: Mapping[str, str] | None = None) -> str | None:
    """The PostgreSQL URL from `YAKSA_DATABASE_URL`, or None (the SQLite files); a ValueError for
    anything else, so a typo is reported at start-up instead of silently using local files."""
    raw = environment.value(DATABASE_URL_ENV, env)
    if not raw:
        return None
    if not raw.startswith(_SCHEMES):
        raise ValueError(f"{DATABASE_URL_ENV} must be a postgresql:// URL, got one starting "
                         f"{raw.split('://', 1)[0]!r}")
    return raw
