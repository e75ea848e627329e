"""The six profile slots a turn can mention, shared by extraction, memory and the agent.

Why one shared type: the extractor produces these, the ProfileStore persists and decays them, and the
context assembler renders them; declaring them once keeps the three in step.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Literal

SlotType = Literal["demographics", "conditions", "symptoms", "medications", "vitals", "labs"]
SLOT_TYPES: tuple[str, ...] = ("demographics", "conditions", "symptoms", "medications", "vitals", "labs")
# Whom a fact is about. A parent asking for a child states the child's age ("5살 아이 해열제 얼마나
# 먹여요?"); remembered as the writer's own, the next question about the writer was read as a
# 5-year-old's. The writer is "self"; the relatives are the roles the post reader knows.
PERSONS: tuple[str, ...] = ("self", "child", "parent", "spouse", "sibling")


@dataclass(frozen=True)
class SlotItem:
    """One fact about the patient, e.g. ("vitals", "blood_pressure", "150/95", "mmHg").

    `name` is a stable key within the slot type: "age", "age_group", "gender", "pregnancy",
    "blood_pressure", "glucose", "hba1c", or the concept's preferred name for conditions, symptoms
    and medications. `concept_id` is a UMLS CUI or a project id ("YK:...") and never invented.
    """

    slot_type: SlotType
    name: str
    value: str | float | None = None
    unit: str | None = None
    concept_id: str | None = None
    text: str = ""                 # the surface span in the user's message
    source: str = "regex"          # "regex" | "medcat"
    confidence: float = 1.0
    about: str = "self"            # whom the fact is about: the writer, or a relative (PERSONS)

    def __post_init__(self) -> None:
        if self.slot_type not in SLOT_TYPES:
            raise ValueError(f"slot_type must be one of {SLOT_TYPES}, got {self.slot_type!r}")
        if not self.name:
            raise ValueError("name must not be empty")
        if self.about not in PERSONS:
            raise ValueError(f"about must be one of {PERSONS}, got {self.about!r}")

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SlotItem:
        return cls(**data)
