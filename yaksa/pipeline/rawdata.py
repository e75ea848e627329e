"""Link the shared development data into `data/raw/` without copying it into the project.

The shared folder sits beside the checkout (`../shared/data`); relative symlinks keep `data/raw/`
readable by DVC and the adapters while git never sees the data itself.
"""

from __future__ import annotations

import os
from pathlib import Path

from yaksa import environment

PLACEHOLDER = "NOT_AVAILABLE.txt"

SHARED_FOLDERS = (
    "mfds-easy-drug-500",
    "mfds-pill-idntfc-sample",
    "medquad",
    "pubmedqa",
    "mtsamples-first400",
    "real-questions",     # the scope model's real questions (read at build time, never copied: licences)
    "medmcqa-test",       # English exam questions, in scope (the scope model)
)


def default_shared_dir(project_root: Path) -> Path:
    return environment.shared_data_dir(project_root)


def link_shared_data(raw_dir: Path, shared_dir: Path) -> tuple[list[str], list[str]]:
    """Create `raw_dir/<folder>` → shared folder links; returns (linked, missing) folder names.

    Existing real directories are left alone (someone put a full dump there on purpose)."""
    raw_dir.mkdir(parents=True, exist_ok=True)
    linked: list[str] = []
    missing: list[str] = []
    for name in SHARED_FOLDERS:
        target = shared_dir / name
        link = raw_dir / name
        if not target.is_dir():
            missing.append(name)
            if not link.exists():
                # an empty folder keeps DVC's dependency list valid; ingest reports the source as absent
                link.mkdir()
                (link / PLACEHOLDER).write_text(f"{name} was not found in the shared data folder.\n", "utf-8")
            continue
        if link.is_symlink():
            link.unlink()
        elif link.exists():
            if sorted(p.name for p in link.iterdir()) != [PLACEHOLDER]:
                linked.append(name)  # a real dump someone put here on purpose
                continue
            (link / PLACEHOLDER).unlink()
            link.rmdir()
        link.symlink_to(os.path.relpath(target.resolve(), raw_dir.resolve()), target_is_directory=True)
        linked.append(name)
    return linked, missing
