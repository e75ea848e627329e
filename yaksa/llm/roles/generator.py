"""Generate the answer: streamed from the LLM, or the extractive answer when there is none.

Why the fallback also streams: the chat page shows tokens as they come; offline the extractive answer
is emitted sentence by sentence through the same `on_token`, so callers have one code path. (It was
emitted word by word, ~100 events a turn, each an SSE event the server writes and the client parses,
for an answer that exists whole before the first is sent.) If the LLM
stream breaks after some tokens were sent, the extractive answer follows them; the final `answer`
event (the returned text) is what the client must keep.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from yaksa.llm.client import LLMClient
from yaksa.llm.context import AssembledPrompt
from yaksa.llm.errors import LLMError
from yaksa.llm.offline.extractive import extractive_answer
from yaksa.llm.results import Generation
from yaksa.llm.usage import UsageLedger

FALLBACK = "extractive"
# after a sentence's end (다. 요. ! ? or a citation "[문서 1]") and the spaces or newlines that follow it
_SENTENCE_BOUNDARY = re.compile(r"(?<=[.!?\]]\s)(?=\S)|(?<=\n)(?=[^\n])")


def _emit_sentences(text: str, on_token: Callable[[str], None] | None) -> None:
    if on_token is not None:
        for piece in _SENTENCE_BOUNDARY.split(text):
            if piece:
                on_token(piece)


def generate(client: LLMClient | None, prompt: AssembledPrompt, *, usage: UsageLedger,
             on_token: Callable[[str], None] | None = None) -> Generation:  # fmt: skip
    """The answer to `prompt.question`, from the generator model or extracted from `prompt.evidence`."""
    error: str | None = None
    if client is not None:
        try:
            text = client.stream("generator", prompt.messages, usage=usage, max_tokens=prompt.max_tokens,
                                 on_token=on_token or (lambda _t: None))  # fmt: skip
            return Generation(text, "llm", None, dict(prompt.tokens_by_section))
        except LLMError as exc:
            error = str(exc)
    usage.mark_fallback("generator", FALLBACK, error)
    text = extractive_answer(prompt.question, prompt.evidence, prompt.profile_summary, post=prompt.post,
                             remembered=prompt.remembered or None, child_age=prompt.child_age)
    _emit_sentences(text, on_token)
    return Generation(text, FALLBACK, error, dict(prompt.tokens_by_section))
