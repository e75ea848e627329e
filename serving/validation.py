"""Checks on what clients send, each failing with a 400 that names the field and the problem.

Types are checked by Litestar (msgspec) before these run; these catch what types cannot: empty or
whitespace-only text, over-long input, characters that cannot be valid text, malformed ids.
"""

from __future__ import annotations

import re

from litestar.exceptions import ValidationException

MAX_QUESTION_CHARS = 2000
MAX_QUERY_CHARS = 500
MAX_K = 50
USER_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.@-]{0,63}$")
PROFILE_NAME = re.compile(r"^[a-z0-9_]{1,64}$")
# NUL and the other C0 controls except tab/newline; U+FFFD is what an undecodable byte becomes
BAD_CHARS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\ufffd]")


def clean_text(name: str, value: str, max_chars: int) -> str:
    """`value` stripped, or a 400 when it is empty, too long, or not clean text."""
    text = value.strip()
    if not text:
        raise ValidationException(detail=f"{name} must not be empty or whitespace only")
    if len(text) > max_chars:
        raise ValidationException(detail=f"{name} is {len(text)} characters long; the limit is {max_chars}")
    if BAD_CHARS.search(text):
        raise ValidationException(detail=f"{name} contains control characters or invalid UTF-8")
    return text


def check_user_id(user_id: str) -> str:
    if not USER_ID.match(user_id):
        raise ValidationException(
            detail="user_id must be 1-64 characters of letters, digits, '_', '.', '@' or '-'"
        )
    return user_id


def check_profile_name(profile: str | None) -> str | None:
    if profile is not None and not PROFILE_NAME.match(profile):
        raise ValidationException(detail="profile must be 1-64 characters of a-z, 0-9 and '_'")
    return profile


def check_k(k: int | None) -> int | None:
    if k is not None and not 1 <= k <= MAX_K:
        raise ValidationException(detail=f"k must be between 1 and {MAX_K}")
    return k
