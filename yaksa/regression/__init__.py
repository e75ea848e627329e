"""Nightly answer-quality regression run: suite, runner, metrics, gate, report, storage."""
