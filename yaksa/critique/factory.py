"""Build the critique agent for a published bundle (the CLI; later the service)."""

from __future__ import annotations

from yaksa.config import Settings
from yaksa.critique.agent import CritiqueAgent
from yaksa.critique.analysis import ConceptIndex, load_concept_names
from yaksa.critique.pubmed import PubMedClient, PubMedConfig
from yaksa.llm.client import LLMClient, client_from_env
from yaksa.retrieval.loader import LoadedBundle
from yaksa.retrieval.searcher import Searcher


def build_critique_agent(loaded: LoadedBundle, settings: Settings, searcher: Searcher | None = None,
                         llm: LLMClient | None = None) -> CritiqueAgent:
    """The agent over `loaded`: the concept table when the build made one, PubMed when configured, the
    LLM roles when an endpoint is configured (`llm`, else from the environment)."""
    concepts_dir = settings.paths.concepts
    names = load_concept_names(concepts_dir) if (concepts_dir / "concepts.csv").is_file() else None
    config = PubMedConfig.from_env()
    pubmed = PubMedClient(config, config.cache_dir or settings.paths.pubmed_cache) if config.configured else None
    return CritiqueAgent(loaded, searcher or Searcher(loaded, settings.retrieval), settings.critique,
                         ConceptIndex(names) if names else None, pubmed, llm or client_from_env())
