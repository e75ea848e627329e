"""Every environment variable yaksa reads, in one place: its name, what it means, and a typed reader.

Why one module: settings that differ per host or are secret (endpoints, keys, the database, where the
shared data lies) come from the environment, never from the committed params.yaml; read in ten modules
they could not be listed, and a typo in one name went unnoticed. Here each variable is declared once
(`VARIABLES`, the table in docs/configuration.md) and read when asked for, so a test's monkeypatch or
an operator's change reaches the next call. The service's own variables (keys, rate limits, deadlines)
are parsed into its typed `ServiceConfig` (`serving.config`) from the mapping `environ()` returns.

Writes are not reads: the offline defaults (`yaksa.host`) and a build worker's thread budget
(`yaksa.pipeline.process_pool`) set variables for the engines they start.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Variable:
    name: str
    meaning: str


LLM_PREFIX = "YAKSA_LLM_"
SHARED_DATA = "YAKSA_SHARED_DATA"
DATABASE_URL = "YAKSA_DATABASE_URL"
REUSE_CONTENT = "YAKSA_REUSE_CONTENT"
WORKER_THREADS = "YAKSA_WORKER_THREADS"
EMBED_BASE_URL = "YAKSA_EMBED_BASE_URL"
EMBED_API_KEY = "YAKSA_EMBED_API_KEY"
BGE_M3_MODEL = "YAKSA_BGE_M3_MODEL"
TAVILY_API_KEY = "TAVILY_API_KEY"
TAVILY_BASE_URL = "TAVILY_BASE_URL"
# the service's own variables: parsed by `serving.config`, named here so both read one spelling
PARAMS = "YAKSA_PARAMS"
API_KEYS = "YAKSA_API_KEYS"
ADMIN_KEY = "YAKSA_ADMIN_KEY"
ALLOW_VARIANT_CHOICE = "YAKSA_ALLOW_VARIANT_CHOICE"
ALLOW_PROFILE_CHOICE = "YAKSA_ALLOW_PROFILE_CHOICE"   # its old name, still read
RATE_PER_SEC = "YAKSA_RATE_PER_SEC"
RATE_BURST = "YAKSA_RATE_BURST"
RATE_FILE = "YAKSA_RATE_FILE"
ADMIN_PER_MIN = "YAKSA_ADMIN_PER_MIN"
AUTH_FAILURES_PER_MIN = "YAKSA_AUTH_FAILURES_PER_MIN"
MAX_BODY_BYTES = "YAKSA_MAX_BODY_BYTES"
MAX_INFLIGHT_PER_KEY = "YAKSA_MAX_INFLIGHT_PER_KEY"
REQUEST_DEADLINE_S = "YAKSA_REQUEST_DEADLINE_S"
CRITIQUE_DEADLINE_S = "YAKSA_CRITIQUE_DEADLINE_S"
FOLLOW_SECONDS = "YAKSA_FOLLOW_SECONDS"
PROMETHEUS_MULTIPROC_DIR = "PROMETHEUS_MULTIPROC_DIR"

VARIABLES: tuple[Variable, ...] = (
    Variable(f"{LLM_PREFIX}BASE_URL, {LLM_PREFIX}API_KEY, {LLM_PREFIX}MODEL, {LLM_PREFIX}MODEL_<ROLE>, "
             f"{LLM_PREFIX}TIMEOUT, {LLM_PREFIX}MAX_RETRIES, {LLM_PREFIX}BACKOFF",
             "the OpenAI-compatible LLM endpoint and a model per role (unset: the offline roles answer)"),
    Variable(f"{LLM_PREFIX}MODEL_EVALUATOR", "the RAGAS judge's model (default: the generator's)"),
    Variable(EMBED_BASE_URL, "the `openai` embedder's /v1/embeddings endpoint"),
    Variable(EMBED_API_KEY, "its key"),
    Variable(BGE_M3_MODEL, "a local copy of BAAI/bge-m3 for params.gpu.yaml (no model hub)"),
    Variable(TAVILY_API_KEY, "web references (unset: none)"),
    Variable(TAVILY_BASE_URL, "another Tavily endpoint (tests: a local fake)"),
    Variable("NCBI_API_KEY, NCBI_EMAIL, NCBI_TOOL", "PubMed E-utilities identity (the critique)"),
    Variable("YAKSA_PUBMED_BASE_URL, YAKSA_PUBMED_TIMEOUT_S, YAKSA_PUBMED_MAX_RETRIES, YAKSA_PUBMED_BACKOFF_S, "
             "YAKSA_PUBMED_CACHE", "PubMed endpoint, retries and on-disk cache"),
    Variable(DATABASE_URL, "postgresql:// URL of the store shared by several hosts (unset: this host's SQLite files)"),
    Variable(SHARED_DATA, "the shared data folder (default ../shared/data)"),
    Variable(REUSE_CONTENT, "0: rebuild a bundle's derived tables at every swap (default 1: reuse by checksum)"),
    Variable(WORKER_THREADS, "threads a build worker's C engines may start (set by the process pool)"),
    Variable(PARAMS, "params.yaml the service reads (default ./params.yaml)"),
    Variable(f"{API_KEYS}, {ADMIN_KEY}, {ALLOW_VARIANT_CHOICE}",
             "the service's client keys (key=user,...;...), the operator's key, ablation variants for clients "
             f"({ALLOW_PROFILE_CHOICE}: the old name, still read)"),
    Variable(f"{RATE_PER_SEC}, {RATE_BURST}, {RATE_FILE}, {ADMIN_PER_MIN}, {AUTH_FAILURES_PER_MIN}",
             "rate limits and the file the workers share them through"),
    Variable(f"{MAX_BODY_BYTES}, {MAX_INFLIGHT_PER_KEY}, {REQUEST_DEADLINE_S}, {CRITIQUE_DEADLINE_S}, "
             f"{FOLLOW_SECONDS}",
             "request size, concurrency and deadlines; how often a worker checks CURRENT"),
    Variable(PROMETHEUS_MULTIPROC_DIR, "where the workers' metrics meet (`yaksa serve` makes one)"),
)


def environ() -> Mapping[str, str]:
    """The process environment, for the readers that take a whole family of variables (LLM, PubMed,
    the service) and accept a mapping in tests."""
    return os.environ


def value(name: str, env: Mapping[str, str] | None = None) -> str:
    """The variable's value without surrounding blanks; "" when unset."""
    return (os.environ if env is None else env).get(name, "").strip()


def shared_data_dir(project_root: Path, env: Mapping[str, str] | None = None) -> Path:
    """`$YAKSA_SHARED_DATA`, else ../shared/data beside the project."""
    configured = value(SHARED_DATA, env)
    return Path(configured) if configured else project_root.parent / "shared" / "data"


def content_reuse(env: Mapping[str, str] | None = None) -> bool:
    """Whether tables derived from a bundle's content may be reused across bundles (`yaksa.retrieval.loader`)."""
    return value(REUSE_CONTENT, env) != "0"


def worker_threads(env: Mapping[str, str] | None = None) -> int | None:
    """The thread budget a build worker was given, or None (use every core)."""
    configured = value(WORKER_THREADS, env)
    return int(configured) if configured.isdigit() and int(configured) > 0 else None
