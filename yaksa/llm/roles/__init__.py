"""The LLM steps the agent calls; each degrades to its offline fallback and says so in the result."""

from yaksa.llm.roles.corrector import correct
from yaksa.llm.roles.generator import generate
from yaksa.llm.roles.judge import judge
from yaksa.llm.roles.rewriter import rewrite
from yaksa.llm.roles.verifier import verify

__all__ = ["correct", "generate", "judge", "rewrite", "verify"]
