"""dvc.yaml's model and evaluation stages list every yaksa package their code reads.

A stage whose deps miss a package it imports is not rerun when that package changes, so `dvc status`
says "up to date" over stale metrics (the regression stage once lacked yaksa/lexicon and yaksa/extraction,
which decide what a turn reads in a message). Single-file modules (config.py, atomicio.py …) are plumbing
and exempt.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from tests.conftest import REPO

PACKAGE = REPO / "yaksa"
_IMPORT = re.compile(r"^\s*(?:from|import)\s+yaksa\.([a-z_]+)", re.MULTILINE)
# the package whose code each stage's command runs
ENTRY: dict[str, tuple[str, ...]] = {
    "scope": ("scope",),
    "evaluate": ("evaluation",),
    "evaluate_scope": ("evaluation", "scope"),
    "regress": ("regression",),
}


def _imports(package: str) -> set[str]:
    found: set[str] = set()
    for source in (PACKAGE / package).rglob("*.py"):
        found.update(_IMPORT.findall(source.read_text(encoding="utf-8")))
    return {name for name in found if (PACKAGE / name).is_dir()}


def _closure(entries: tuple[str, ...]) -> set[str]:
    seen: set[str] = set()
    todo = list(entries)
    while todo:
        package = todo.pop()
        if package not in seen:
            seen.add(package)
            todo.extend(_imports(package) - seen)
    return seen


def _stage_deps(stage: str) -> set[str]:
    stages = yaml.safe_load((REPO / "dvc.yaml").read_text(encoding="utf-8"))["stages"]
    deps = [str(dep).split("#")[0].strip() for dep in stages[stage]["deps"]]
    return {Path(dep).parts[1] for dep in deps if dep.startswith("yaksa/") and len(Path(dep).parts) > 1}


@pytest.mark.parametrize("stage", sorted(ENTRY))
def test_stage_lists_every_package_its_code_imports(stage: str) -> None:
    missing = _closure(ENTRY[stage]) - _stage_deps(stage)
    assert not missing, f"dvc.yaml stage {stage!r} lacks deps: {sorted(f'yaksa/{m}' for m in missing)}"


def test_closure_follows_imports_through_packages() -> None:
    # regression → agent → extraction: reached only through the agent
    assert {"agent", "extraction", "lexicon"} <= _closure(("regression",))
