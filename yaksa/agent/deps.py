"""Everything the agent's nodes use, built once per loaded bundle and shared by all turns.

Why one object: the graph is compiled once and its nodes close over these; a hot index swap builds
a new AgentDeps (and graph) beside the old one, so a turn never mixes two bundles.
"""

from __future__ import annotations

import threading
from collections import deque
from dataclasses import dataclass, field

from yaksa.config import AgentFlags, AgentParams
from yaksa.extraction.extractor import SlotExtractor
from yaksa.llm.client import LLMClient
from yaksa.memory.profile_store import NullProfileStore, ProfileStore
from yaksa.memory.response_cache import ResponseCache
from yaksa.retrieval.searcher import Searcher


@dataclass
class History:
    """The last few question/answer pairs per user, in process memory (the profile is what persists)."""

    turns: int
    _by_user: dict[str, deque] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def recent(self, user_id: str) -> list[dict[str, str]]:
        with self._lock:
            return [m for pair in self._by_user.get(user_id, ()) for m in pair]

    def add(self, user_id: str, question: str, answer: str) -> None:
        with self._lock:
            q = self._by_user.setdefault(user_id, deque(maxlen=max(self.turns, 1)))
            q.append(({"role": "user", "content": question}, {"role": "assistant", "content": answer}))

    def forget(self, user_id: str) -> None:
        with self._lock:
            self._by_user.pop(user_id, None)


@dataclass
class AgentDeps:
    params: AgentParams
    searcher: Searcher
    extractor: SlotExtractor          # MedCAT + regex (regex only when no pack was built)
    regex_extractor: SlotExtractor    # for profiles with medcat_enabled: false
    profiles: ProfileStore
    cache: ResponseCache | None
    llm: LLMClient | None
    history: History
    no_memory: NullProfileStore = field(default_factory=NullProfileStore)

    @property
    def bundle_version(self) -> str:
        return self.searcher.loaded.version

    def store_for(self, flags: AgentFlags) -> ProfileStore | NullProfileStore:
        return self.profiles if flags.memory_mode == "persistent" else self.no_memory

    def extractor_for(self, flags: AgentFlags) -> SlotExtractor:
        return self.extractor if flags.medcat_enabled else self.regex_extractor
