"""Slot extraction for one user message: regex slots plus, when enabled, MedCAT concepts.

The agent calls `extract` to update the patient profile and the response cache calls `medications`
so a cached answer about one drug is never served for a question about another. `medcat_enabled`
is the ablation switch: off means regex slots only (demographics, vitals, labs), on adds symptoms,
conditions and medications from the Korean MedCAT pack.

Asking about a drug is not taking it: `extract` keeps a medication only when its clause says the
user takes it ("와파린을 먹고 있어요", "혈압약 복용 중", "I'm on lisinopril"), not when it asks
about it ("타이레놀 먹어도 되나요", "판콜에스 하루에 몇 번 먹어요") or denies it ("안 먹어요",
"끊었어요"); see `yaksa.extraction.speech_act.takes_medication`. `medications` still reports every
drug mentioned, because a cache key must tell a question about 타이레놀 from one about 이부프로펜.
"""

from __future__ import annotations

import logging
import re
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from yaksa.extraction.regex_slots import regex_slots
from yaksa.extraction.slots import SlotItem
from yaksa.extraction.speech_act import clause_at, takes_medication
from yaksa.lexicon.focus import brings_on_pain, in_its_other_sense
from yaksa.text.hangul import has_hangul

if TYPE_CHECKING:
    from yaksa.extraction.medcat_ko import Entity

logger = logging.getLogger(__name__)

# One agent turn runs MedCAT over the same message up to four times (the cache's statement check and
# key, slot extraction, the key's drug list); a few hundred recent messages are remembered per extractor.
ENTITY_MEMO_SIZE = 512

SLOT_OF_TYPE: dict[str, str] = {"medication": "medications", "symptom": "symptoms", "condition": "conditions"}

# "당뇨는 없어요", "두통은 전혀 없고", "임신은 아니": a denied fact must not enter the profile. Only the
# words right after the mention are checked; negation further away is left alone (rare in chat).
_NEGATION_AFTER = re.compile(r"^\s*(?:은|는|이|가|도|을|를)?\s*(?:전혀|별로|딱히)?\s*(?:없|아니|않)")


# "예방접종은 Diphtheria/Tetanus … booster로 맞았습니다": a disease named in a clause about a vaccination is what
# the person was vaccinated against, not a condition they have (a 4½-year-old was remembered with diphtheria)
_VACCINATION = re.compile(r"접종|백신|예방\s?주사|vaccin|booster|immuni[sz]", re.IGNORECASE)


# a condition asked about, not stated: "우울증? 불안증? 3달전에 여자친구와 헤어졌습니다" (a real post's title),
# "공황장애일까요?", "화병인가요", "심장병 같아요" is what the writer wonders, and was remembered as a diagnosis
_ASKED_AFTER = re.compile(r"^\s*(?:\?|인가|일까|인지|인\s*것\s*같|일\s*수도|이\s*아닐까|아닐까|같아|같은데|같기도|의심)")


# a test or a measurement of it, not a diagnosis: "creatinine 수치는 정상이에요" (a real post) was remembered with the
# condition Creatinine (a MedQuAD focus name), "간염 검사 결과 정상" would be hepatitis
_A_MEASURE_AFTER = re.compile(r"^\s*(?:의\s*)?(?:수치|검사|결과|농도|레벨|level|test|count|clearance)", re.IGNORECASE)


# a complaint or disease put forward as a possible cause: "등 근육통때문에 가슴통증이 느껴질수도 있나요?", "위염 때문인가요"
# (a real post's muscle ache, which the writer wondered about, was remembered as a symptom). Narrower than the
# post reader's cause question (`post_reader._CARE`) on purpose: that one also matches "두통 때문에 타이레놀 먹어도
# 되나요?" ("때문에 … 나요"; a medicine named makes it a medicine question there), where the headache is the writer's
_CAUSE_ASKED_AFTER = re.compile(r"^\s*(?:때문|탓)(?:인가|일까|인\s*(?:건|걸|거)|일\s*수도|에[^.?!,]{0,30}?(?:수도|건가|걸까|인가|일까))")


def _negated(text: str, end: int) -> bool:
    return bool(_NEGATION_AFTER.match(text[end:end + 16]))


def _asked_about(text: str, start: int, end: int) -> bool:
    """A Korean condition the writer wonders about (`_ASKED_AFTER`). Not an English one: "What are the treatments
    for Cancer ?" asks about the condition's topic, and its concept leads the search (MedQuAD's context recall
    fell 0.04 in the nightly regression when it was dropped)."""
    return has_hangul(text[start:end]) and (bool(_ASKED_AFTER.match(text[end:end + 16]))
                                            or _wondered_as_cause(text, end))


def _wondered_as_cause(text: str, end: int) -> bool:
    """Whether the mention ending at `end` is put forward as a possible cause (`_CAUSE_ASKED_AFTER`)."""
    return bool(_CAUSE_ASKED_AFTER.match(text[end:end + 48]))


class SlotExtractor:
    """Extract the six slots from a message.

    >>> SlotExtractor(None, medcat_enabled=False).extract("65세 남성, 혈압 150/95")[0].value
    65.0
    """

    def __init__(self, pack_dir: Path | None, medcat_enabled: bool) -> None:
        self._model = None
        if medcat_enabled and pack_dir is None:
            logger.warning("medcat_enabled but no MedCAT pack configured: extracting regex slots only")
        elif medcat_enabled:
            from yaksa.extraction.medcat_ko import load_pack  # imports MedCAT and Kiwi: only when used

            self._model = load_pack(Path(pack_dir))
        # per extractor, so a memo never outlives the pack it was computed with
        self._entities = lru_cache(maxsize=ENTITY_MEMO_SIZE)(self._entities_uncached)

    def _entities_uncached(self, text: str) -> tuple[Entity, ...]:
        return tuple(self._model.entities(text)) if self._model is not None else ()

    @property
    def medcat_active(self) -> bool:
        """True when MedCAT concepts are extracted (for the turn trace and ablation reports)."""
        return self._model is not None

    def extract(self, text: str) -> list[SlotItem]:
        """Regex slots, then MedCAT concepts not followed by a negation, in text order each; a disease named
        where a vaccination is spoken of, asked about ("우울증?", "공황장애일까요"; a symptom too when wondered about as
        a cause: "근육통때문에 가슴통증이 느껴질수도 있나요?") or measured ("간염 검사", "creatinine
        수치": `_A_MEASURE_AFTER`) is not a condition, nor a
        symptom's phrasing beside a word of its other sense (`in_its_other_sense`: "거북목 때문에 목이 아파요"), nor
        a symptom said as what brings a pain on (`brings_on_pain`: "기침을 해도 가슴이 아파요").

        Medications only when the user says they take them (asked-about or denied drugs are left
        out): the profile's medication list feeds interaction cautions in every later answer.
        """
        items = regex_slots(text)
        if self._model is None:
            return items
        for ent in self._entities(text):
            if _negated(text, ent.end):
                continue
            if ent.type == "medication" and takes_medication(clause_at(text, ent.start)) is not True:
                continue
            if ent.type == "condition" and (_VACCINATION.search(clause_at(text, ent.start))
                                            or _asked_about(text, ent.start, ent.end)
                                            or _A_MEASURE_AFTER.match(text[ent.end:ent.end + 16])):
                continue
            if ent.type == "symptom" and _wondered_as_cause(text, ent.end):   # "근육통때문에 … 수도 있나요?"
                continue
            if ent.type == "symptom" and in_its_other_sense(ent.preferred, text):   # 목이 아파 beside 거북목
                continue
            if ent.type == "symptom" and brings_on_pain(text, ent.end):   # "기침을 해도 가슴이 아파요": the pain is
                continue
            items.append(SlotItem(SLOT_OF_TYPE[ent.type], ent.preferred, concept_id=ent.concept_id,
                                  text=ent.text, source="medcat"))
        return items

    def medications(self, text: str) -> frozenset[str]:
        """Concept ids of drugs and ingredients mentioned (negated or not); empty when MedCAT is off."""
        if not isinstance(text, str):
            raise TypeError(f"medications() expects str, got {type(text).__name__}")
        if self._model is None:
            return frozenset()
        return frozenset(e.concept_id for e in self._entities(text) if e.type == "medication")
