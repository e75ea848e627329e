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


_DIGIT_FINAL = frozenset("013678")      # 영, 일, 삼, 육, 칠, 팔
_LATIN_FINAL = frozenset("lmnr")        # 엘, 엠, 엔, 알
# units read as words: 200mg → 밀리그램을, 3% → 퍼센트를, 10mL → 밀리리터를
_UNIT_FINAL = re.compile(r"(?P<unit>mg|g|kg|mL|ml|L|%|IU|iu)\s*$")
_UNIT_HAS_FINAL = {"mg": True, "g": True, "kg": True, "ml": False, "l": False, "%": False, "iu": False}


def has_final(word: str) -> bool:
    """Does the word end in a consonant when read aloud? It decides the particle (은/는, 이/가, 을/를,
    과/와) wherever a sentence is built around a drug name, a number or a dose."""
    if (unit := _UNIT_FINAL.search(word)) and re.search(r"\d\s*$", word[:unit.start()]):
        return _UNIT_HAS_FINAL[unit.group("unit").lower()]
    word = re.sub(r"[^0-9A-Za-z가-힣]+$", "", word)
    if not word:
        return False
    last = word[-1]
    if "가" <= last <= "힣":
        return (ord(last) - 0xAC00) % 28 != 0
    if last.isdigit():
        return last in _DIGIT_FINAL
    return last.lower() in _LATIN_FINAL


def particle(word: str, with_final: str, without_final: str) -> str:
    """The particle of a pair that agrees with the last sound of `word`, read past trailing punctuation
    ("어떤 증상인가요?" takes 는). Why: a fixed "을(를)" after a name the sentence knows ("항생제을(를) 써
    보셨는데도") reads as a machine's."""
    return with_final if has_final(word) else without_final


RIEUL = 8                                # the final-consonant index of ㄹ in a syllable
SSANG_SIOT = 20                          # the final-consonant index of ㅆ (했, 겠)


def syllables_with_final(final: int) -> str:
    """Every Hangul syllable whose final consonant has index `final` (8 ㄹ, 20 ㅆ), for a regex class: an
    ending such as -ㄹ까 attaches to any verb ("바꿀까", "있을까"), so it is matched by the sound, not a list."""
    return "".join(chr(0xAC00 + i) for i in range(0xD7A4 - 0xAC00) if i % 28 == final)
_DIGIT_RIEUL = frozenset("178")          # 일, 칠, 팔


def ends_in_rieul(word: str) -> bool:
    """Does the word end in ㄹ when read aloud ("타이레놀", "1", "oil")? It takes 로, like a vowel."""
    word = re.sub(r"[^0-9A-Za-z가-힣]+$", "", word)
    if not word:
        return False
    last = word[-1]
    if "가" <= last <= "힣":
        return (ord(last) - 0xAC00) % 28 == RIEUL
    return last in _DIGIT_RIEUL or last.lower() == "l"


def with_ro(word: str) -> str:
    """`word` with 으로/로 (by, as, to): 로 after a vowel or ㄹ ("타이레놀로", "시럽으로", "해열제로")."""
    return word + ("으로" if has_final(word) and not ends_in_rieul(word) else "로")


def with_particle(word: str, with_final: str, without_final: str) -> str:
    """`word` followed by its particle (`particle`): "타이레놀" + 은/는 → "타이레놀은", "항생제" + 을/를 → "항생제를"."""
    return word + particle(word, with_final, without_final)

