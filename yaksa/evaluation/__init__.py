"""Retrieval evaluation: gold sets, ranking metrics, a runner, and snapshots for tracking over time.

Regressions are gated on these deterministic retrieval metrics rather than on LLM-judged scores,
which vary from run to run.
"""
