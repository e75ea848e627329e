"""One remembered fact as the profile shows it: the SlotItem, when it was last stated, its weight now.

Why its own module: the store produces entries, the summary renders them and the API serialises them.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from yaksa.extraction.slots import SlotItem
from yaksa.memory.decay import is_active


@dataclass(frozen=True)
class ProfileEntry:
    item: SlotItem
    stored_at: datetime  # timezone-aware; refreshed whenever the fact is stated again
    weight: float        # decay weight at the time the entry was read

    @property
    def active(self) -> bool:
        return is_active(self.weight)

    def to_json(self) -> dict[str, Any]:
        return {
            **self.item.to_json(),
            "stored_at": self.stored_at.isoformat(),
            "weight": round(self.weight, 4),
            "active": self.active,
        }
