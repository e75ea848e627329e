"""The one tuning/held-out split of every question set (retrieval dev sets, scope questions).

Why one definition: a mechanism is tuned on one half and reported on the other; two copies of the
rule could drift apart and quietly report on tuning questions. Why a hash: stable across runs,
machines and reorderings of the files.
"""

from __future__ import annotations

import hashlib


def is_held_out(qid: str) -> bool:
    """True for the reporting half, False for the tuning half."""
    return hashlib.sha256(qid.encode("utf-8")).digest()[0] % 2 == 1
