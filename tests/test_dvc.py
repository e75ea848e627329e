"""`dvc repro` over the real dvc.yaml on a tiny project; a second repro does nothing."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO, make_tiny_project
from yaksa.config import load_settings
from yaksa.index.publish import current_version, list_versions

pytestmark = pytest.mark.slow


def _dvc(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    return subprocess.run(
        [str(Path(sys.executable).parent / "dvc"), *args],
        cwd=root, env=env, capture_output=True, text=True, timeout=600, check=False,
    )


def test_dvc_repro_builds_then_skips(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    params = make_tiny_project(root, drug_rows=8)
    shutil.copy(REPO / "dvc.yaml", root)
    shutil.copy(REPO / ".dvcignore", root)
    (root / "yaksa").symlink_to(REPO / "yaksa", target_is_directory=True)
    assert _dvc(root, "init", "--no-scm", "-q").returncode == 0
    first = _dvc(root, "repro")
    assert first.returncode == 0, first.stdout + first.stderr
    settings = load_settings(params)
    version = current_version(settings.paths.indexes)
    assert version is not None
    second = _dvc(root, "repro")
    assert second.returncode == 0, second.stdout + second.stderr
    out = second.stdout
    for stage in ("synthea", "ingest", "tokenize", "embed", "index"):
        assert f"Stage '{stage}' didn't change, skipping" in out
    assert list_versions(settings.paths.indexes) == [version]
    shown = _dvc(root, "metrics", "show")
    assert shown.returncode == 0 and "build_report.json" in shown.stdout
