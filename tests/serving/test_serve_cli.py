"""`yaksa serve` finds params.yaml the way the app factory does: --params, else $YAKSA_PARAMS."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from typer.testing import CliRunner

from serving.config import HTTP_PROTOCOL, MULTIPROC_ENV, WORKER_HEALTHCHECK_S
from serving.logs import uvicorn_log_config
from yaksa_cli import app


@pytest.fixture()
def uvicorn_calls(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """Record what `serve` would start instead of starting a server."""
    calls: list[dict[str, Any]] = []
    monkeypatch.setattr(uvicorn, "run", lambda target, **kw: calls.append({"target": target, **kw}))
    return calls


@pytest.fixture()
def rate_files(monkeypatch: pytest.MonkeyPatch, uvicorn_calls: list[dict[str, Any]]) -> list[Path]:
    """The YAKSA_RATE_FILE and the metrics directory each recorded `uvicorn.run` would have given its
    workers (the directory only while it exists and is empty: a fresh one)."""
    files: list[Path] = []
    monkeypatch.delenv("YAKSA_RATE_FILE", raising=False)
    monkeypatch.delenv(MULTIPROC_ENV, raising=False)

    def run(target: str, **kw: Any) -> None:
        files.append(Path(os.environ["YAKSA_RATE_FILE"]))
        metrics_dir = Path(os.environ[MULTIPROC_ENV])
        if metrics_dir.is_dir() and not any(metrics_dir.iterdir()):
            files.append(metrics_dir)
        uvicorn_calls.append({"target": target, **kw})

    monkeypatch.setattr(uvicorn, "run", run)
    return files


def test_serve_uses_yaksa_params(tiny_project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                 uvicorn_calls: list[dict[str, Any]], rate_files: list[Path]) -> None:
    monkeypatch.chdir(tmp_path)  # no ./params.yaml here
    monkeypatch.setenv("YAKSA_PARAMS", str(tiny_project / "params.yaml"))
    result = CliRunner().invoke(app, ["serve", "--port", "8123"])
    assert result.exit_code == 0, result.output
    assert uvicorn_calls == [{"target": "serving.app:create_app", "factory": True, "host": "127.0.0.1",
                              "port": 8123, "workers": 1, "timeout_worker_healthcheck": WORKER_HEALTHCHECK_S,
                              "http": HTTP_PROTOCOL, "log_config": uvicorn_log_config(), "access_log": False}]
    assert os.environ["YAKSA_PARAMS"] == str((tiny_project / "params.yaml").resolve())
    assert rate_files[0].name == "ratelimit.sqlite" and not rate_files[0].parent.exists()  # one per run, removed
    assert rate_files[1].parent == rate_files[0].parent  # the metrics directory: fresh, removed with the run
    assert MULTIPROC_ENV not in os.environ
    assert "YAKSA_RATE_FILE" not in os.environ


def test_serve_reports_a_missing_params_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                             uvicorn_calls: list[dict[str, Any]]) -> None:
    monkeypatch.setenv("YAKSA_PARAMS", str(tmp_path / "missing.yaml"))
    result = CliRunner().invoke(app, ["serve"])
    assert result.exit_code == 2 and uvicorn_calls == []
    assert "params file not found" in result.output and "missing.yaml (from YAKSA_PARAMS)" in result.output
    result = CliRunner().invoke(app, ["serve", "--params", str(tmp_path / "other.yaml")])
    assert result.exit_code == 2 and "other.yaml (from --params)" in result.output
