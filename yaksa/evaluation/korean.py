"""A Korean gold set built from MFDS e약은요 section documents: questions a pharmacy customer asks.

There is no public Korean pharmacy QA set, so questions are templated from the documents themselves:
(a) one question per sampled product section ("타이레놀정은 어디에 쓰는 약인가요?" → that product's
효능효과 document) and (b) symptom questions ("변비가 있을 때 먹는 약") whose gold is every efficacy
section naming the symptom. Templates use the right particle for the name's final syllable, because a
wrong 은/는 reads as machine-made and would make a poor calibration set for the language model too.
"""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from collections.abc import Sequence

from yaksa.corpus.document import Document
from yaksa.evaluation.goldsets import GoldQuestion
from yaksa.lexicon.product_names import brand_name, is_oral

_HANGUL_FIRST, _HANGUL_LAST = 0xAC00, 0xD7A3
# How a final digit or Latin letter is read aloud decides the particle: 1 일, 3 삼, 6 육, 7 칠, 8 팔,
# 0 영 end in a consonant; L 엘, M 엠, N 엔, R 알 do too.
_CLOSED_NON_HANGUL = set("0136780lmnrLMNR")


def has_batchim(word: str) -> bool:
    """Whether the word's last sound ends in a consonant (받침), which selects 은/이/을/이랑."""
    last = word.rstrip()[-1:] if word.strip() else ""
    if not last:
        raise ValueError("cannot choose a particle for an empty word")
    code = ord(last)
    if _HANGUL_FIRST <= code <= _HANGUL_LAST:
        return (code - _HANGUL_FIRST) % 28 != 0
    return last in _CLOSED_NON_HANGUL


def josa(word: str, pair: str) -> str:
    """`word` + the right particle of `pair` ("은/는", "이/가", "을/를", "이랑/랑", "과/와")."""
    closed, open_ = pair.split("/")
    return word + (closed if has_batchim(word) else open_)


def section_question(name: str, section_key: str) -> str:
    """The templated question for one section of one product."""
    oral = is_oral(name)
    take, taking = ("먹어야", "먹기") if oral else ("사용해야", "사용하기")
    together = "같이 먹으면" if oral else "같이 쓰면"
    templates = {
        "efficacy": f"{josa(name, '은/는')} 어디에 쓰는 약인가요?",
        "usage": f"{josa(name, '은/는')} 어떻게 {take} 하나요?",
        "warning": f"{josa(name, '을/를')} {taking} 전에 꼭 알아야 할 경고가 있나요?",
        "precautions": f"{josa(name, '을/를')} {taking} 전에 주의할 점은 무엇인가요?",
        "interactions": f"{josa(name, '이랑/랑')} {together} 안 되는 약이 있나요?",
        "side_effects": f"{name} 부작용이 뭐예요?",
        "storage": f"{name} 보관은 어떻게 하나요?",
    }
    if section_key not in templates:
        raise ValueError(f"no question template for MFDS section {section_key!r}")
    return templates[section_key]


# (symptom as written in 효능효과 texts, a customer's question containing it)
SYMPTOM_QUESTIONS: tuple[tuple[str, str], ...] = (
    ("두통", "두통에 먹는 약 추천해 주세요"),
    ("치통", "치통이 심할 때 먹을 수 있는 약이 있나요?"),
    ("생리통", "생리통에 먹는 진통제 뭐가 있어요?"),
    ("근육통", "근육통에 쓰는 약 알려주세요"),
    ("요통", "요통이 있을 때 쓰는 약이 있나요?"),
    ("신경통", "신경통에 먹는 약이 있나요?"),
    ("감기", "감기 걸렸을 때 먹는 약 뭐가 좋아요?"),
    ("기침", "기침이 안 멈춰요. 먹을 만한 약 있나요?"),
    ("가래", "가래가 많이 나올 때 먹는 약"),
    ("콧물", "콧물이 계속 나는데 먹을 약 있나요?"),
    ("코막힘", "코막힘에 쓰는 약 알려주세요"),
    ("발열", "열이 나요. 발열에 먹는 약 있나요?"),
    ("변비", "변비가 있을 때 먹는 약 추천해 주세요"),
    ("설사", "설사할 때 먹는 약 있나요?"),
    ("소화불량", "소화불량에 먹는 약 뭐가 있어요?"),
    ("속쓰림", "속쓰림이 심해요. 먹을 만한 약 있나요?"),
    ("구내염", "입안에 구내염이 생겼어요. 쓸 수 있는 약 있나요?"),
    ("멀미", "멀미할 때 먹는 약 추천해 주세요"),
    ("두드러기", "두드러기가 났을 때 먹는 약"),
    ("무좀", "무좀에 바르는 약 알려주세요"),
    ("여드름", "여드름에 쓰는 약 있나요?"),
    ("화상", "화상 입었을 때 바르는 약"),
    ("치질", "치질에 쓰는 약이 있나요?"),
    ("타박상", "타박상에 붙이거나 바르는 약 추천해 주세요"),
    ("불면", "잠이 안 와요. 불면에 먹는 약 있나요?"),
)


def _section_questions(drugs: list[Document], rng: random.Random, per_kind: int) -> list[GoldQuestion]:
    """Up to `per_kind` questions per section; names shared by several products are skipped, since
    a question about "타이레놀정" could not tell which strength's leaflet is the gold."""
    products: dict[str, str] = {}
    for doc in drugs:
        products.setdefault(doc.metadata["item_seq"], doc.metadata.get("product_name") or doc.title)
    brands = {seq: brand_name(name) for seq, name in products.items()}
    brand_count, full_count = Counter(brands.values()), Counter(products.values())
    by_section: dict[str, list[Document]] = defaultdict(list)
    for doc in drugs:
        by_section[doc.metadata["section_key"]].append(doc)
    out: list[GoldQuestion] = []
    for key in sorted(by_section):
        candidates = sorted(by_section[key], key=lambda d: d.doc_id)
        taken = 0
        for doc in rng.sample(candidates, len(candidates)):
            seq = doc.metadata["item_seq"]
            if taken >= per_kind or full_count[products[seq]] > 1:
                continue
            name = brands[seq] if brand_count[brands[seq]] == 1 else products[seq]
            taken += 1
            out.append(GoldQuestion(qid=f"mfds-ko:{seq}:{key}", question=section_question(name, key),
                                    gold=frozenset({doc.doc_id}), lang="ko", kind=key))
    return out


def mfds_korean(documents: Sequence[Document], seed: int = 13, per_kind: int = 40) -> list[GoldQuestion]:
    """Section questions (kind = section key, at most `per_kind` each) plus symptom questions
    (kind "symptom", every symptom with at least one efficacy section naming it).

    Non-MFDS documents are ignored, so the whole corpus can be passed in. Sampling depends only on
    `seed` and the documents, so the same corpus always yields the same set.
    """
    drugs = [d for d in documents if d.source == "mfds_easy_drug" and d.metadata.get("section_key")]
    if not drugs:
        raise ValueError("no MFDS e약은요 documents given: cannot build the Korean gold set")
    out = _section_questions(drugs, random.Random(seed), per_kind)
    efficacy = [d for d in drugs if d.metadata["section_key"] == "efficacy"]
    for i, (symptom, question) in enumerate(SYMPTOM_QUESTIONS, start=1):
        gold = frozenset(d.doc_id for d in efficacy if symptom in d.text)
        if gold:
            out.append(GoldQuestion(qid=f"mfds-ko:symptom:{i:02d}", question=question,
                                    gold=gold, lang="ko", kind="symptom"))
    return out
