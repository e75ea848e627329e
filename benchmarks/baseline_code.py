"""Load modules as they were at an earlier git revision, beside today's, for side-by-side benchmarks.

Why: a speed-up is only measured honestly against the real earlier code run in the same process
on the same inputs at the same time (machine noise hits both alike). `git show <rev>:<path>`
gives the earlier source; it is executed as a fresh module object under a private name, with the
other earlier modules it imports (`yaksa.memory.history` for the old profile store) substituted
for today's while it executes. Nothing in the checkout or in `sys.modules` changes.

    old = load_baseline("65f2aae", ["yaksa/memory/history.py", "yaksa/memory/profile_store.py"])
    OldStore = old["yaksa.memory.profile_store"].ProfileStore
"""

from __future__ import annotations

import importlib
import subprocess
import sys
import types
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# The code before the cheaper turn (issue 14 part 3): DuckDB profile store per operation, one
# response-cache file for every bundle, DuckDB queries per document fetch, MedCAT per call.
BASELINE_REV = "65f2aae"


def source_at(rev: str, path: str) -> str:
    """The file's text at `rev` (SystemExit with git's message when it cannot be read)."""
    try:
        return subprocess.run(["git", "show", f"{rev}:{path}"], cwd=ROOT, capture_output=True, text=True,
                              check=True).stdout
    except subprocess.CalledProcessError as exc:
        raise SystemExit(f"cannot read {path} at {rev}: {exc.stderr.strip()}") from exc


def load_baseline(rev: str, paths: Sequence[str]) -> dict[str, types.ModuleType]:
    """Modules of `paths` (in dependency order) at `rev`, keyed by their dotted name."""
    loaded: dict[str, types.ModuleType] = {}
    saved_modules: dict[str, types.ModuleType | None] = {}
    saved_attrs: list[tuple[types.ModuleType, str, object]] = []
    try:
        for path in paths:
            name = path.removesuffix(".py").replace("/", ".")
            package_name, _, leaf = name.rpartition(".")
            module = types.ModuleType(f"_baseline_{rev}_{name.replace('.', '_')}")
            module.__file__ = f"{rev}:{path}"
            sys.modules[module.__name__] = module   # dataclasses look their module up by name
            exec(compile(source_at(rev, path), module.__file__, "exec"), module.__dict__)  # noqa: S102
            loaded[name] = module
            # later baseline modules importing this one get the baseline version
            saved_modules.setdefault(name, sys.modules.get(name))
            sys.modules[name] = module
            package = importlib.import_module(package_name)
            saved_attrs.append((package, leaf, getattr(package, leaf, None)))
            setattr(package, leaf, module)
    finally:
        for package, leaf, value in reversed(saved_attrs):
            setattr(package, leaf, value)
        for name, module in saved_modules.items():
            if module is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module
    return loaded
