"""The scope verdict of one question: may the system answer it at all?

Why a type of its own: the verdict is taken once, first, and then read by everything after it (the
response cache stores it beside an entry, the trace shows it, `/v1/search` returns it).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class ScopeDecision:
    in_scope: bool
    reason: str                                            # which signal decided, e.g. "service_request:booking"
    signals: dict[str, Any] = field(default_factory=dict)  # every signal's value, for the trace and calibration
    model: str = ""                                        # identity of the deciding model (cache entries keep it)

    @property
    def verdict(self) -> str:
        """What a cache entry stores beside itself: a hit needs the same verdict under the same model."""
        return f"{'in_scope' if self.in_scope else 'out_of_scope'}:{self.model}"

    def to_json(self) -> dict[str, Any]:
        return {"in_scope": self.in_scope, "reason": self.reason, "model": self.model, "signals": self.signals}
