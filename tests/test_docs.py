"""The documentation: README stays short and keeps the two commands; `mkdocs build --strict` succeeds.

The strict build fails on any warning, which includes a relative link or anchor in docs/ that does not
resolve (mkdocs.yml `validation`). README's own relative links are checked here, since mkdocs does not
read README.md. The build runs the docs hook, which regenerates docs/results.md from metrics/*.json;
the committed page must equal what the hook writes.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
COMMANDS = ("bash scripts/run.sh", "bash scripts/test.sh")


def test_readme_is_short_and_keeps_the_two_commands() -> None:
    text = README.read_text(encoding="utf-8")
    assert text.splitlines()[0] == "# yaksa (약사)"
    assert len(text.splitlines()) <= 200
    for command in COMMANDS:
        assert command in text


def test_readme_relative_links_resolve() -> None:
    text = README.read_text(encoding="utf-8")
    missing = []
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue
        if not (ROOT / target.split("#", 1)[0]).exists():
            missing.append(target)
    assert not missing


def test_no_machine_paths_in_docs() -> None:
    pages = [README, ROOT / "CHANGELOG.md", *sorted((ROOT / "docs").rglob("*.md"))]
    hits = [p.name for p in pages if re.search(r"(?<![\w.])/(work|home|tmp)/", p.read_text(encoding="utf-8"))]
    assert not hits


def test_results_page_is_up_to_date() -> None:
    spec = importlib.util.spec_from_file_location("docs_results", ROOT / "scripts" / "docs_results.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert (ROOT / "docs" / "results.md").read_text(encoding="utf-8") == module.render(), (
        "docs/results.md is stale: run python scripts/docs_results.py")


def test_mkdocs_build_strict(tmp_path: Path) -> None:
    missing = [m for m in ("mkdocs", "material") if importlib.util.find_spec(m) is None]
    assert not missing, f"{missing} not installed: the venv needs the docs extra (pip install -e '.[docs]')"
    site = tmp_path / "site"
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        check=False, cwd=ROOT, capture_output=True, text=True, timeout=300,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    for page in ("index.html", "architecture/index.html", "results/index.html", "changelog/index.html"):
        assert (site / page).is_file(), page
