"""Everything the agent's nodes use, built once per loaded bundle and shared by all turns.

Why one object: the graph is compiled once and its nodes close over these; a hot index swap builds
a new AgentDeps (and graph) beside the old one, so a turn never mixes two bundles.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from yaksa.config import AgentFlags, AgentParams
from yaksa.extraction.extractor import SlotExtractor
from yaksa.llm.client import LLMClient
from yaksa.memory.profile_store import NullProfileStore, ProfileStore
from yaksa.memory.response_cache import ResponseCache
from yaksa.retrieval.searcher import Searcher
from yaksa.scope.stage import ScopeStage


@dataclass
class AgentDeps:
    params: AgentParams
    scope: ScopeStage                 # decided first on every turn (yaksa.scope)
    searcher: Searcher                # one per bundle: the agent's and /v1/search's
    extractor: SlotExtractor          # MedCAT + regex (regex only when no pack was built)
    regex_extractor: SlotExtractor    # for profiles with medcat_enabled: false
    profiles: ProfileStore
    cache: ResponseCache | None
    llm: LLMClient | None
    no_memory: NullProfileStore = field(default_factory=NullProfileStore)
    answers_id: str = ""              # code + settings identity (yaksa.agent.answers_id); "" in unit tests

    @property
    def bundle_version(self) -> str:
        return self.searcher.loaded.version

    @property
    def cache_version(self) -> str:
        """The response cache's key: a cached answer is valid for one bundle, code and settings."""
        return f"{self.bundle_version}-{self.answers_id}" if self.answers_id else self.bundle_version

    def store_for(self, flags: AgentFlags) -> ProfileStore | NullProfileStore:
        return self.profiles if flags.memory_mode == "persistent" else self.no_memory

    def extractor_for(self, flags: AgentFlags) -> SlotExtractor:
        return self.extractor if flags.medcat_enabled else self.regex_extractor
