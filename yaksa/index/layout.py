"""Names and rules of the `indexes/` directory, shared by the writer, the reader and the publisher.

    indexes/
      CURRENT                 one line: the published version name
      .publish.lock           flock'ed while publishing or pruning
      .tmp-<version>-<pid>/   a bundle being written (never read)
      <version>/              a complete bundle: manifest.json is written last, so its presence
                              marks a finished build

Keeping these rules in one module stops the three roles from drifting apart (e.g. the reader
treating a half-written directory as a version).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from yaksa.index.errors import BundleError

MANIFEST_NAME = "manifest.json"
CURRENT_NAME = "CURRENT"
LOCK_NAME = ".publish.lock"
TMP_PREFIX = ".tmp-"
USERDICT_NAME = "userdict.tsv"
# inside a bundle, per collection: <collection>/bm25/, <collection>/dense.faiss, <collection>/docs.duckdb,
# and (bundles written since issue 25) <collection>/docs.arrow, the docstore's memory-mapped copy, and
# for a large flat index <collection>/dense.fp16.faiss, its float16 search copy (`yaksa.index.reader`)
BM25_DIR = "bm25"
DENSE_FILE = "dense.faiss"
DENSE_FP16_FILE = "dense.fp16.faiss"
DOCS_FILE = "docs.duckdb"
DOCS_ARROW_FILE = "docs.arrow"

# Version names become directory names and the content of CURRENT: keep them to one safe path part.
_VERSION_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")


def validate_version_name(version: str) -> str:
    """Reject names that could escape `indexes/`, hide as dot-dirs, or collide with CURRENT."""
    if not isinstance(version, str) or not _VERSION_RE.match(version) or version == CURRENT_NAME:
        raise ValueError(
            f"invalid bundle version name {version!r}: use letters, digits, '.', '_' or '-', "
            "starting with a letter or digit"
        )
    return version


def current_version(indexes_root: Path) -> str | None:
    """The version CURRENT points at, or None when nothing has been published yet."""
    path = Path(indexes_root) / CURRENT_NAME
    try:
        text = path.read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise BundleError(f"{path}: cannot read CURRENT: {exc}") from exc
    try:
        return validate_version_name(text)
    except ValueError as exc:
        raise BundleError(f"{path}: CURRENT holds an invalid version name: {exc}") from exc


def _created_at(bundle_dir: Path) -> str:
    try:
        data = json.loads((bundle_dir / MANIFEST_NAME).read_text(encoding="utf-8"))
        return str(data.get("created_at", "")) if isinstance(data, dict) else ""
    except (OSError, ValueError):
        return ""  # unreadable manifests sort first, i.e. are pruned first


def list_versions(indexes_root: Path) -> list[str]:
    """Complete bundles, oldest first (by manifest created_at, then name).

    Only directories holding manifest.json count: the writer renames a bundle into place after the
    manifest is written, and in-progress or half-deleted bundles live under dot-names.
    """
    root = Path(indexes_root)
    if not root.is_dir():
        return []
    found = [
        p
        for p in root.iterdir()
        if p.is_dir() and not p.name.startswith(".") and (p / MANIFEST_NAME).is_file()
    ]
    found.sort(key=lambda p: (_created_at(p), p.name))
    return [p.name for p in found]
