"""The build stages by name: one entry point shared by the CLI (and so DVC) and the Prefect tasks."""

from __future__ import annotations

from dataclasses import asdict
from datetime import date
from typing import Any

from yaksa.config import Settings
from yaksa.pipeline.build_report import stage_clock

STAGES: tuple[str, ...] = ("synthea", "ingest", "concepts", "tokenize", "embed", "index", "scope")


def run_stage(stage: str, settings: Settings, progress: bool = True, publish: bool = True) -> dict[str, Any]:
    """Run one stage, record its wall and CPU time in the build report, and return its summary."""
    if stage not in STAGES:
        raise ValueError(f"unknown stage {stage!r}; stages: {', '.join(STAGES)}")
    with stage_clock(settings, stage):
        return _run(stage, settings, progress, publish)


def _run(stage: str, settings: Settings, progress: bool, publish: bool) -> dict[str, Any]:
    if stage == "synthea":
        from yaksa.corpus.synthea import generate

        out = settings.paths.raw / settings.sources.get("synthea", "synthea")
        syn = settings.synthea
        ref = date.fromisoformat(syn.reference_date)
        # the build's worker count (not a synthea param: the files are the same for any count)
        processes = 1 if settings.build.runner == "local" else settings.build.worker_count
        patients = generate(out, syn.patients, syn.seed, syn.state, reference_date=ref, processes=processes)
        return {"patients": patients}
    if stage == "ingest":
        from yaksa.corpus.ingest import run_ingest

        return run_ingest(settings, progress=progress).to_dict()
    if stage == "concepts":
        from yaksa.extraction.build import build_concepts

        return build_concepts(settings.paths.documents, settings.paths.concepts)
    if stage == "tokenize":
        from yaksa.pipeline.tokenize_stage import run_tokenize

        return asdict(run_tokenize(settings, progress=progress))
    if stage == "embed":
        from yaksa.pipeline.embed_stage import run_embed

        return asdict(run_embed(settings, progress=progress))
    if stage == "index":
        from yaksa.pipeline.index_stage import run_index

        return asdict(run_index(settings, publish_bundle=publish))
    if stage == "scope":  # the learned scope model, on the published bundle's embedder (yaksa/scope/fit.py)
        from yaksa.scope.fit import fit_scope

        return fit_scope(settings, progress=(print if progress else None))
    raise ValueError(f"unknown stage {stage!r}; stages: {', '.join(STAGES)}")
