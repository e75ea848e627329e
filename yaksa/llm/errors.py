"""What can go wrong in an LLM step; every role catches `LLMError` and degrades to its fallback."""

from __future__ import annotations


class LLMError(Exception):
    """Base of every LLM fault the agent degrades on."""


class LLMUnavailable(LLMError):
    """No usable answer from the endpoint: unreachable, timed out, HTTP error, or retries used up."""


class LLMOutputError(LLMError):
    """The endpoint answered, but the content is not what the step needs (bad JSON, failed validation)."""
