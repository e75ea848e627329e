"""Build the production agent for a loaded bundle: `build_runner(loaded, settings)`.

What it wires (each part documented in its own module): the hybrid searcher with the configured
retrieval settings; the slot extractor over the concept pack the build wrote
(`data/processed/concepts/pack`, regex only when it is missing); the persistent ProfileStore; the
semantic response cache (both in PostgreSQL when `YAKSA_DATABASE_URL` is set: `yaksa.store`),
embedded with the `drugs` collection's query model (through the searcher's query-vector cache, so
a turn embeds its question once) and emptied when the
bundle version differs from the one it was filled under; and the LLM client from `YAKSA_LLM_*`
(None offline: every role then uses its offline fallback).
"""

from __future__ import annotations

import logging
from typing import Any

from yaksa.agent.answers_id import answers_id
from yaksa.agent.deps import AgentDeps
from yaksa.agent.nodes.similarity import cache_entities
from yaksa.agent.runner import AgentRunner
from yaksa.config import Settings
from yaksa.extraction.build import PACK_DIR
from yaksa.extraction.extractor import SlotExtractor
from yaksa.llm.client import client_from_env
from yaksa.memory.profile_store import ProfileStore
from yaksa.memory.response_cache import ResponseCache
from yaksa.retrieval.loader import LoadedBundle
from yaksa.retrieval.searcher import Searcher
from yaksa.scope.stage import ScopeStage
from yaksa.store import database_url
from yaksa.text.lexical import terms

log = logging.getLogger(__name__)


def build_runner(loaded: LoadedBundle, settings: Settings, enforce_safety: bool = True) -> AgentRunner:
    """The agent for `loaded`. `enforce_safety=False` is for the evaluation code only (ablations of
    the scope stage and verification); the service and the CLI never pass it."""
    pack = settings.paths.concepts / PACK_DIR
    if not pack.is_dir():
        log.warning("no concept pack at %s (run `yaksa build concepts`): slot extraction is regex only", pack)
    extractor = SlotExtractor(pack if pack.is_dir() else None, medcat_enabled=pack.is_dir())
    params = settings.agent
    searcher = Searcher(loaded, settings.retrieval)
    cache_collection = "drugs" if "drugs" in loaded.embedders else next(iter(loaded.embedders))
    url = database_url()
    if url is not None:
        from yaksa.store.profiles import PostgresProfileDB
    deps = AgentDeps(
        params=params,
        scope=ScopeStage(loaded, searcher.query_vector, scope_params=settings.scope,
                         catalog=searcher.catalog, cache_dir=settings.paths.embedding_cache,
                         learned_dir=settings.paths.scope_model),
        searcher=searcher,
        extractor=extractor,
        regex_extractor=SlotExtractor(None, medcat_enabled=False),
        profiles=ProfileStore(settings.paths.memory if url is None else PostgresProfileDB(url)),
        cache=None,
        llm=client_from_env(),
        answers_id=answers_id(settings),
    )
    cache_args: dict[str, Any] = {
        "embed": lambda text: searcher.query_vector(cache_collection, text),
        "entities": lambda text: cache_entities(deps, text), "threshold": params.cache_threshold,
        "max_size": params.cache_max_size, "ttl_s": params.cache_ttl_hours * 3600,
        "style_variation": any(f.cache_style_variation for f in params.variants.values())}
    if url is None:
        deps.cache = ResponseCache(settings.paths.response_cache, **cache_args)
    else:
        from yaksa.store.cache import PostgresResponseCache

        deps.cache = PostgresResponseCache(url, **cache_args)
    deps.cache.set_bundle_version(deps.cache_version)
    terms("두통에 먹는 약")  # the offline roles' Kiwi loads on first use (~2 s): not on a user's turn
    return AgentRunner(deps, enforce_safety=enforce_safety)
