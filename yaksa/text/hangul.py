"""Hangul detection, defined once for every module that asks "is this Korean?".

Why one definition: routing, the reply language, token estimates and the lexical helpers each had
their own pattern, and they disagreed on jamo ("ㅋㅋㅋ" was Korean to one and not to another).
"""

from __future__ import annotations

import re

# syllables, conjoining jamo and compatibility jamo ("ㅋㅋ", "ㅠㅠ" are Korean text too)
HANGUL = re.compile(r"[\uac00-\ud7a3\u1100-\u11ff\u3130-\u318f]")
HANGUL_SYLLABLE_RUN = re.compile(r"[\uac00-\ud7a3]+")


def has_hangul(text: str) -> bool:
    return HANGUL.search(text) is not None
