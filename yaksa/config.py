"""Typed build settings read from `params.yaml`.

DVC tracks `params.yaml` per stage and the Prefect flow reads the same file, so both orchestrators
build from one description. Paths in the file are relative to the file's own directory, which lets a
test point a whole build at a temporary project.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import yaml


class ConfigError(ValueError):
    """params.yaml is missing, malformed, or names something that does not exist."""


@dataclass(frozen=True)
class Paths:
    root: Path
    raw: Path
    processed: Path
    indexes: Path
    embedding_cache: Path

    @property
    def documents(self) -> Path:
        return self.processed / "documents.parquet"

    @property
    def rejects(self) -> Path:
        return self.processed / "rejects.parquet"

    @property
    def ingest_summary(self) -> Path:
        return self.processed / "ingest_summary.json"

    @property
    def tokens(self) -> Path:
        return self.processed / "tokens.parquet"

    @property
    def userdict(self) -> Path:
        return self.processed / "userdict.tsv"

    @property
    def embeddings(self) -> Path:
        return self.processed / "embeddings"

    @property
    def build_report(self) -> Path:
        return self.processed / "build_report.json"

    @property
    def eval_snapshots(self) -> Path:
        """Every evaluation run appends here (DuckDB), so quality can be followed across bundles."""
        return self.processed / "eval" / "snapshots.duckdb"

    @property
    def retrieval_metrics(self) -> Path:
        """Committed to git so `dvc metrics diff` compares retrieval quality across revisions."""
        return self.root / "metrics" / "retrieval.json"


@dataclass(frozen=True)
class SyntheaParams:
    patients: int = 80
    seed: int = 20261122
    state: str = "Massachusetts"
    reference_date: str = "2026-01-01"  # pinned: Synthea's default is today, which changes every note daily


@dataclass(frozen=True)
class IngestParams:
    max_reject_rate: float = 0.10
    limit_per_source: int = 0


@dataclass(frozen=True)
class TokenizerParams:
    backend: str = "kiwi"
    pos_filter: tuple[str, ...] = ("NNG", "NNP", "NNB", "NR", "NP", "VV", "VA", "XR", "SL", "SN", "SH")


@dataclass(frozen=True)
class EmbedParams:
    default: str = "usem3"
    per_collection: dict[str, str] = field(default_factory=dict)
    batch_size: int = 32
    models: dict[str, dict[str, Any]] = field(default_factory=dict)

    def backend_for(self, collection: str) -> str:
        return self.per_collection.get(collection, self.default)

    def options_for(self, backend: str) -> dict[str, Any]:
        return dict(self.models.get(backend) or {})


@dataclass(frozen=True)
class IndexParams:
    faiss: str = "flat"
    hnsw_m: int = 32
    hnsw_ef_search: int = 64
    bm25_k1: float = 1.5
    bm25_b: float = 0.75
    bm25_method: str = "lucene"
    keep_versions: int = 3


FUSION_METHODS = ("weighted", "rrf", "bm25", "dense")


@dataclass(frozen=True)
class RetrievalParams:
    """How a query becomes ranked documents; `bm25` / `dense` are the single-retriever baselines."""

    fusion: str = "rrf"
    bm25_weight: float = 0.8
    dense_weight: float = 0.2
    rrf_k: int = 60
    pool: int = 20  # candidates taken from each retriever per collection before fusion
    k: int = 5
    per_collection: dict[str, dict[str, Any]] = field(default_factory=dict)  # tuned overrides

    def for_collection(self, name: str) -> RetrievalParams:
        """The settings one collection is searched with (its overrides applied)."""
        overrides = self.per_collection.get(name)
        return replace(self, per_collection={}, **overrides) if overrides else self

    def __post_init__(self) -> None:
        if self.fusion not in FUSION_METHODS:
            raise ValueError(f"retrieval.fusion must be one of {FUSION_METHODS}, got {self.fusion!r}")
        if self.bm25_weight < 0 or self.dense_weight < 0 or self.bm25_weight + self.dense_weight <= 0:
            raise ValueError("retrieval weights must be >= 0 and not both 0")
        if self.rrf_k < 1 or self.pool < 1 or self.k < 1:
            raise ValueError("retrieval.rrf_k, pool and k must be >= 1")
        for name, overrides in self.per_collection.items():
            if not isinstance(overrides, dict) or {"per_collection", "k"} & set(overrides):
                raise ValueError(f"retrieval.per_collection.{name} must map settings (not k) to values")
            try:
                replace(self, per_collection={}, **overrides)
            except (TypeError, ValueError) as exc:
                raise ValueError(f"retrieval.per_collection.{name}: {exc}") from exc


@dataclass(frozen=True)
class Settings:
    paths: Paths
    sources: dict[str, str]
    synthea: SyntheaParams
    ingest: IngestParams
    tokenizer: TokenizerParams
    embed: EmbedParams
    index: IndexParams
    retrieval: RetrievalParams
    raw_params: dict[str, Any]

    def source_path(self, name: str) -> Path | None:
        rel = self.sources.get(name)
        return (self.paths.raw / rel) if rel else None


def _section(data: dict[str, Any], name: str, cls: type, path: Path) -> Any:
    raw = data.get(name) or {}
    if not isinstance(raw, dict):
        raise ConfigError(f"{path}: section '{name}' must be a mapping")
    try:
        if cls is TokenizerParams and "pos_filter" in raw:
            raw = {**raw, "pos_filter": tuple(raw["pos_filter"])}
        return cls(**raw)
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"{path}: section '{name}': {exc}") from exc


def load_settings(params_path: str | Path = "params.yaml") -> Settings:
    """Read params.yaml; relative paths resolve against the file's directory."""
    path = Path(params_path)
    if not path.is_file():
        raise ConfigError(f"params file not found: {path}")
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: not valid YAML: {exc}") from exc
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: top level must be a mapping")
    root = path.resolve().parent
    p = data.get("paths") or {}

    def rel(key: str, default: str) -> Path:
        return (root / str(p.get(key, default))).resolve()

    paths = Paths(
        root=root,
        raw=rel("raw", "data/raw"),
        processed=rel("processed", "data/processed"),
        indexes=rel("indexes", "indexes"),
        embedding_cache=rel("embedding_cache", "data/cache/embeddings"),
    )
    sources = {str(k): str(v) for k, v in (data.get("sources") or {}).items() if v}
    settings = Settings(
        paths=paths,
        sources=sources,
        synthea=_section(data, "synthea", SyntheaParams, path),
        ingest=_section(data, "ingest", IngestParams, path),
        tokenizer=_section(data, "tokenizer", TokenizerParams, path),
        embed=_section(data, "embed", EmbedParams, path),
        index=_section(data, "index", IndexParams, path),
        retrieval=_section(data, "retrieval", RetrievalParams, path),
        raw_params=data,
    )
    if settings.tokenizer.backend not in ("kiwi", "mecab"):
        raise ConfigError(f"{path}: tokenizer.backend must be kiwi or mecab, got {settings.tokenizer.backend!r}")
    if settings.index.faiss not in ("flat", "hnsw"):
        raise ConfigError(f"{path}: index.faiss must be flat or hnsw, got {settings.index.faiss!r}")
    return settings
