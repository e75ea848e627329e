"""Serving settings from the environment: API keys, limits. Secrets never live in params.yaml.

    YAKSA_API_KEYS   "key1=user-a,user-b;key2=*"  bearer keys for /v1/*, each bound to the user ids
                     it may act for (chat as, see and erase the profile of); "*" means any user.
    YAKSA_ADMIN_KEY  bearer key for /v1/admin/* (bundle reload); separate from the user keys.
    YAKSA_RATE_PER_SEC, YAKSA_RATE_BURST   per-key token bucket (default 10/s, burst 30);
                     YAKSA_RATE_PER_SEC=0 turns rate limiting off (load tests).
    YAKSA_RATE_FILE  the SQLite file the buckets live in, shared by every worker that names it;
                     `yaksa serve` sets a fresh one per run. Unset: buckets in this process only.
    YAKSA_DATABASE_URL   postgresql://user@host:port/db: profiles, conversation history, the response
                     cache and the rate-limit buckets live in that PostgreSQL database, shared by every
                     worker of every host that names it (`yaksa.store`; YAKSA_RATE_FILE is then unused).
                     Unset (the default): the SQLite files of this host.
    YAKSA_FOLLOW_SECONDS   how often each worker reads indexes/CURRENT and swaps to a new version
                     (default 0.5); 0 = never by itself, only on POST /v1/admin/reload (one worker).
    YAKSA_MAX_BODY_BYTES   request body limit (default 65536) → 413.
    YAKSA_AUTH_FAILURES_PER_MIN   failed API/admin keys a client address may send per minute (default
                     10, the burst too) before every request from it gets 429 for a while; 0 = no limit.
    YAKSA_ADMIN_PER_MIN   admin calls (bundle reloads) per minute, burst the same (default 6); 0 = no limit.
    YAKSA_MAX_INFLIGHT_PER_KEY   chat, critique and search requests one key may have running at once
                     (default 4; per worker process) → 429 with Retry-After: 1; 0 = no limit
                     (`serving.concurrency`; open mode is not limited).
    YAKSA_REQUEST_DEADLINE_S, YAKSA_CRITIQUE_DEADLINE_S   seconds a chat turn (default 30) or a critique
                     (default 60) may run; checked between its steps, then an `error` event (504);
                     0 = no deadline.
    YAKSA_ALLOW_VARIANT_CHOICE=1   let any caller choose an ablation variant of the agent other than the
                     configured one (`agent.variant`); without it only a request with the admin key may
                     (else 403). YAKSA_ALLOW_PROFILE_CHOICE, its old name, is still read.
    YAKSA_PARAMS     params.yaml of the project (default ./params.yaml; `yaksa serve --params` sets it).
    PROMETHEUS_MULTIPROC_DIR   where the workers of one server write their metrics, so GET /metrics on
                     any of them reports all (`serving.metrics`); `yaksa serve` sets a fresh one per run.
                     An operator who sets it must give each run an empty directory. Unset: the
                     metrics of this process only.

GET /metrics (Prometheus) follows the admin rule below: with YAKSA_ADMIN_KEY it needs that key (a
scrape does not spend the admin-call bucket); in open mode without one, loopback clients only; with
API keys but no admin key it is disabled. Metrics are operator data, not a user's.

Open mode (the local default): with no YAKSA_API_KEYS, /v1/* needs no key but only answers clients
on the loopback interface (127.0.0.1, ::1) and may act for any user id; every other client gets
403. Admin endpoints follow the same rule when YAKSA_ADMIN_KEY is unset and no API keys are set;
with API keys but no admin key, reload is disabled. So `yaksa serve` (bound to 127.0.0.1) works out
of the box for the chat page, and exposing the port without keys exposes nothing. A warning is
logged at start-up in open mode. Behind a reverse proxy on the same host every client looks local:
configure keys there. Open mode also refuses, on every route, a `Host` that is not a loopback name
(DNS rebinding), an `Origin` that is not the page's own loopback origin (CSRF), and a POST body that
is not `application/json` (see `serving.origin`).

Why variants are not a client's choice: an ablation variant decides which mechanisms of the agent
run; a variant is an operator's tool (evaluation, comparisons), not a user preference.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from yaksa import environment
from yaksa.config import ConfigError
from yaksa.store import database_url

ANY_USER = "*"
PARAMS_ENV = environment.PARAMS
RATE_FILE_ENV = environment.RATE_FILE
# prometheus_client's multiprocess directory (serving.metrics); named here, where nothing imports
# prometheus_client, because its mode is fixed when it is first imported
MULTIPROC_ENV = environment.PROMETHEUS_MULTIPROC_DIR
# uvicorn restarts a worker that does not answer its supervisor's ping within this many seconds
# (default 5). A worker loading a bundle spends seconds inside C extensions that hold the GIL (Kiwi's
# model, the embedders, MedCAT); on a busy machine that passed 5 s and uvicorn killed every worker
# mid-load, over and over, so `--workers 2` never became ready. A hung worker is still replaced.
WORKER_HEALTHCHECK_S = 60
# uvicorn's HTTP protocol with TCP_NODELAY on every connection (serving/nodelay.py: why)
HTTP_PROTOCOL = "serving.nodelay:NoDelayHTTPProtocol"
DEFAULT_PARAMS = Path("params.yaml")
_TRUE, _FALSE = frozenset({"1", "true", "yes", "on"}), frozenset({"", "0", "false", "no", "off"})


@dataclass(frozen=True)
class KeyGrant:
    """What one API key may do; `label` names the key in logs without revealing it."""

    label: str
    users: frozenset[str]

    def allows(self, user_id: str) -> bool:
        return ANY_USER in self.users or user_id in self.users


@dataclass(frozen=True)
class ServingConfig:
    api_keys: dict[str, KeyGrant] = field(default_factory=dict)
    admin_key: str | None = None
    rate_per_sec: float = 10.0
    rate_burst: int = 30
    rate_file: Path | None = None
    database_url: str | None = field(default=None, repr=False)  # YAKSA_DATABASE_URL (may hold a password)
    follow_seconds: float = 0.5
    max_body_bytes: int = 65536
    allow_variant_choice: bool = False
    max_inflight_per_key: int = 4         # chat/critique/search running per key (0 = no limit)
    request_deadline_s: float = 30.0      # a chat turn (0 = none)
    critique_deadline_s: float = 60.0     # a critique (0 = none)
    auth_failures_per_min: float = 10.0   # failed keys per client address before 429 (0 = no limit)
    admin_per_min: float = 6.0            # admin calls (bundle reloads) per minute (0 = no limit)

    @property
    def open_mode(self) -> bool:
        return not self.api_keys


def key_label(key: str) -> str:
    """A stable, non-reversible name for a key (for logs and rate-limit buckets)."""
    return "key:" + hashlib.sha256(key.encode()).hexdigest()[:10]


def parse_api_keys(spec: str) -> dict[str, KeyGrant]:
    """Parse `YAKSA_API_KEYS`; the error names the entry by position, never by its secret."""
    grants: dict[str, KeyGrant] = {}
    for i, entry in enumerate(part.strip() for part in spec.split(";")):
        if not entry:
            continue
        key, sep, users = entry.partition("=")
        key = key.strip()
        names = frozenset(u.strip() for u in users.split(",") if u.strip())
        if not sep or not key or not names:
            raise ValueError(f"YAKSA_API_KEYS entry #{i + 1} must look like 'key=user-a,user-b' or 'key=*'")
        if key in grants:
            raise ValueError(f"YAKSA_API_KEYS entry #{i + 1} repeats a key")
        grants[key] = KeyGrant(label=key_label(key), users=names)
    return grants


def _number(env: Mapping[str, str], name: str, default: float, minimum: float) -> float:
    raw = env.get(name, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        raise ValueError(f"{name} must be a number, got {raw!r}") from None
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {raw!r}")
    return value


def _flag(env: Mapping[str, str], name: str) -> bool:
    raw = env.get(name, "").strip().lower()
    if raw not in _TRUE | _FALSE:
        raise ValueError(f"{name} must be 1 or 0, got {raw!r}")
    return raw in _TRUE


def params_path(explicit: Path | None = None, env: Mapping[str, str] | None = None) -> Path:
    """The params.yaml to serve: `explicit` (`--params`), else `$YAKSA_PARAMS`, else ./params.yaml.

    Raises ConfigError naming where the path came from when the file does not exist, so a typo in
    `YAKSA_PARAMS` is reported at start-up, not as a missing bundle later.
    """
    env = environment.environ() if env is None else env
    from_env = env.get(PARAMS_ENV, "").strip()
    path, source = ((explicit, "--params") if explicit is not None
                    else (Path(from_env), PARAMS_ENV) if from_env
                    else (DEFAULT_PARAMS, "the default"))
    if not path.is_file():
        raise ConfigError(f"params file not found: {path} (from {source})")
    return path


def load_serving_config(env: Mapping[str, str] | None = None) -> ServingConfig:
    """Read the serving settings from `env` (default: the process environment)."""
    env = environment.environ() if env is None else env
    return ServingConfig(
        api_keys=parse_api_keys(env.get(environment.API_KEYS, "")),
        admin_key=env.get(environment.ADMIN_KEY, "").strip() or None,
        rate_per_sec=_number(env, environment.RATE_PER_SEC, 10.0, 0.0),
        rate_burst=int(_number(env, environment.RATE_BURST, 30, 1)),
        rate_file=Path(env[RATE_FILE_ENV].strip()) if env.get(RATE_FILE_ENV, "").strip() else None,
        database_url=database_url(env),
        follow_seconds=_number(env, environment.FOLLOW_SECONDS, 0.5, 0.0),
        max_body_bytes=int(_number(env, environment.MAX_BODY_BYTES, 65536, 1024)),
        allow_variant_choice=(_flag(env, environment.ALLOW_VARIANT_CHOICE)
                              or _flag(env, environment.ALLOW_PROFILE_CHOICE)),
        max_inflight_per_key=int(_number(env, environment.MAX_INFLIGHT_PER_KEY, 4, 0)),
        request_deadline_s=_number(env, environment.REQUEST_DEADLINE_S, 30.0, 0.0),
        critique_deadline_s=_number(env, environment.CRITIQUE_DEADLINE_S, 60.0, 0.0),
        auth_failures_per_min=_number(env, environment.AUTH_FAILURES_PER_MIN, 10.0, 0.0),
        admin_per_min=_number(env, environment.ADMIN_PER_MIN, 6.0, 0.0),
    )
