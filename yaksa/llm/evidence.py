"""The evidence an answer is built from and cites: one numbered passage per `[문서 n]`.

Why here, below the agent: the generator, verifier, corrector, judge, prompt assembly and the
offline fallbacks all read citations; the agent only numbers search hits into them. Defining the
type in the lowest layer that uses it keeps `yaksa.llm` free of imports from `yaksa.agent`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

# how many tokens of evidence the verifier, corrector and judge prompts carry (one budget for all)
EVIDENCE_TOKENS = 3000


@dataclass(frozen=True)
class Citation:
    """A source the answer cites as `[문서 n]`."""

    n: int
    doc_id: str
    collection: str
    title: str
    section: str
    text: str
    score: float
    metadata: dict[str, Any] = field(default_factory=dict)
