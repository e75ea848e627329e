"""The one exception a bundle reader, writer or publisher raises when it refuses to go on.

Serving reloads indexes while answering questions: a single exception type lets the caller keep the
old bundle on any refusal, and the message always names the bundle path and what is wrong.
"""

from __future__ import annotations


class BundleError(RuntimeError):
    """A bundle is missing, incomplete, corrupted, or built with a different tokenizer/embedder."""
