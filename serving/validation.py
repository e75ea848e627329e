"""Checks on what clients send, each failing with a 400 that names the field and the problem.

Types are checked by Litestar (msgspec) before these run; these catch what types cannot: empty or
whitespace-only text, over-long input, characters that cannot be valid text, malformed ids.

Why so picky about invisible characters: a question made only of zero-width or format characters
looks empty to a person but not to `str.strip`, and bidirectional overrides make the text a
pharmacist (or a log reader) sees differ from the text the agent reads.
"""

from __future__ import annotations

import re
from typing import Any

from litestar import Request
from litestar.exceptions import ValidationException

from yaksa.agent.api import MAX_QUESTION_CHARS
from yaksa.memory.profile_store import validate_user_id
from yaksa.text.user_input import UserTextError, normalize_user_text

__all__ = [
    "MAX_K",
    "MAX_QUERY_CHARS",
    "MAX_QUESTION_CHARS",
    "check_k",
    "check_path_params",
    "check_user_id",
    "check_variant_name",
    "clean_text",
]

MAX_QUERY_CHARS = 500
MAX_K = 50
VARIANT_NAME = re.compile(r"[a-z0-9_]{1,64}")
PATH_CONTROL_CHARS = re.compile(r"[\x00-\x1f\x7f-\x9f\ufffd]")


def clean_text(name: str, value: str, max_chars: int) -> str:
    """`value` as every later stage reads it (`yaksa.text.user_input`: NFC, format characters such as
    tag characters removed, stripped), or a 400 when it is empty, invisible, too long or not clean text."""
    try:
        text = normalize_user_text(value, name)
    except UserTextError as exc:
        raise ValidationException(detail=str(exc)) from None
    if len(text) > max_chars:
        raise ValidationException(detail=f"{name} is {len(text)} characters long; the limit is {max_chars}")
    return text


def check_user_id(user_id: str) -> str:
    """The library's one rule (`yaksa.memory.profile_store.USER_ID`), as a 400."""
    try:
        return validate_user_id(user_id)
    except ValueError as exc:
        raise ValidationException(detail=str(exc)) from None


def check_variant_name(variant: str | None, old_name: str | None = None) -> str | None:
    """The ablation variant a request names, by `variant` or by its old name `profile` (`old_name`):
    400 when the two differ or a name is not 1-64 characters of a-z, 0-9 and '_'."""
    if variant is not None and old_name is not None and variant != old_name:
        raise ValidationException(detail=f"variant {variant!r} and profile {old_name!r} differ: "
                                         "send one ('profile' is the old name of 'variant')")
    chosen = variant if variant is not None else old_name
    if chosen is not None and not VARIANT_NAME.fullmatch(chosen):
        raise ValidationException(detail="variant must be 1-64 characters of a-z, 0-9 and '_'")
    return chosen


def check_k(k: int | None) -> int | None:
    if k is not None and not 1 <= k <= MAX_K:
        raise ValidationException(detail=f"k must be between 1 and {MAX_K}")
    return k


def check_path_params(request: Request[Any, Any, Any]) -> None:
    """App-wide `before_request`: a path parameter with control characters is a 400, on any route.

    Why app-wide: a `%0A` decoded into an id must never reach a handler that would log it or hand
    it to a store (a regex with `$` would even let a trailing newline through).
    """
    for name, value in request.path_params.items():
        if isinstance(value, str) and PATH_CONTROL_CHARS.search(value):
            raise ValidationException(detail=f"path parameter {name!r} contains control characters")
