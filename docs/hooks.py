"""mkdocs hooks (mkdocs.yml `hooks:`): generated pages.

- `results.md` is regenerated from `metrics/*.json` by `scripts/docs_results.py` before every build, so
  the site never shows figures the metrics files no longer hold (the file is committed too, so it reads
  on GitHub; the hook only rewrites it when its content changed).
- `changelog.md` is the repository's `CHANGELOG.md`, added to the site in memory (nothing is written),
  with its links into `docs/` made relative to the docs directory.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parent.parent


def _docs_results():
    spec = importlib.util.spec_from_file_location("docs_results", ROOT / "scripts" / "docs_results.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def on_pre_build(config, **kwargs) -> None:
    _docs_results().write(Path(config["docs_dir"]) / "results.md")


def changelog_markdown() -> str:
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    text = re.sub(r"\]\(docs/", "](", text)          # links into docs/ become page links
    return text


def on_files(files: Files, config, **kwargs) -> Files:
    files.append(File.generated(config, "changelog.md", content=changelog_markdown()))
    return files
