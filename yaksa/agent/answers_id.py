"""What a cached answer depends on besides the bundle: the code and the settings that made it.

Why: the response cache keeps one file per bundle version and outlives the process. Keyed by the
bundle alone, a deployed fix to retrieval or to the answer (a ranking rule, a dropped dose line)
did not reach any question answered before it: the old answer kept coming back from the cache
until the next bundle. Keyed by the bundle and this identity, a new build of the code or a change of
params.yaml starts a fresh cache file (the cache keeps the newest few files and deletes older ones,
`yaksa.memory.cache_file.KEEP_FILES`).
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from pathlib import Path

import yaksa
from yaksa.config import Settings

ID_LENGTH = 12
# what shapes an answer: code, rule tables, lexicons and question sets shipped in the package
SOURCE_SUFFIXES = frozenset({".py", ".yaml", ".yml", ".csv", ".jsonl", ".json", ".tsv"})
@lru_cache(maxsize=1)
def code_fingerprint() -> str:
    """sha256 of the `yaksa` package's source files (paths and bytes), computed once per process."""
    root = Path(yaksa.__file__).resolve().parent
    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.suffix in SOURCE_SUFFIXES and p.is_file()
                       and "__pycache__" not in p.parts):
        digest.update(path.relative_to(root).as_posix().encode("utf-8") + b"\0")
        digest.update(path.read_bytes())
        digest.update(b"\0")
    return digest.hexdigest()


def answers_id(settings: Settings) -> str:
    """Short id of the code and the settings that shape an answer (`ID_LENGTH` hex characters).

    The settings are retrieval, scope and the agent's, as loaded (the build's settings are already in
    the bundle version). Where the profile store and the cache live (`settings.paths`) does not change an
    answer, so it is not part of the id: a private copy (`Settings.with_state_in`) answers like the service."""
    text = repr((settings.retrieval, settings.scope, settings.agent))
    return hashlib.sha256(f"{code_fingerprint()}\n{text}".encode()).hexdigest()[:ID_LENGTH]
