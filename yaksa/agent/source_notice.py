"""What the answer says about the drug it answers from, before anything else.

Why: a question about 타이레놀 answered from 세토펜정 must say so in its first sentence, or the user
believes they read 타이레놀's label; and a question about a drug the data does not hold must be told
that plainly, not answered from an unrelated product. The facts come from the search's `Focus`
(`yaksa.lexicon.focus`); the sentences are fixed text, so no dose or claim is added.

Usage:
    notice(focus)          # "타이레놀은 자료에 없어 같은 성분(아세트아미노펜) 제품의 허가 정보로 답합니다."
    no_evidence(focus)     # for a named drug with no product in the data
    nothing_named(question)  # for a question that names nothing medical, answered only by labels
    supplement_reply(["오메가3"], [], ("pregnant",))   # for supplements the data holds no label of
"""

from __future__ import annotations

from yaksa.lexicon.focus import CHILD_POPULATIONS, Focus
from yaksa.lexicon.supplements import named_supplements
from yaksa.llm.evidence import Citation
from yaksa.llm.safety import SAFETY_LINE_EN, SAFETY_LINE_KO
from yaksa.retrieval.relevance import is_about
from yaksa.text.hangul import with_particle
from yaksa.text.lexical import is_korean, mentions


def _answered_from(ingredients: tuple[str, ...], citations: list[Citation] | None) -> bool:
    """Whether a cited label names one of `ingredients` (in its title or text); True when the
    citations are not known."""
    if citations is None:
        return True
    return any(mentions(i, f"{c.title} {c.text}") for c in citations for i in ingredients)


def _brand_notice(brand: str, ingredients: tuple[str, ...], citations: list[Citation] | None) -> str:
    """One brand's sentence. A combination none of whose cited labels names all its ingredients is answered
    from products of some of them, and says so: "펜잘 하루에 몇 번" was told "answered from products of the
    same ingredients (아세트아미노펜, 에텐자미드, 카페인)" above an acetaminophen-only tablet's dose, which is not
    펜잘's."""
    topic = with_particle(brand, "은", "는")
    whole = f"{topic} 자료에 없어 같은 성분({', '.join(ingredients)}) 제품의 허가 정보로 답합니다."
    if len(ingredients) < 2 or citations is None:
        return whole
    texts = [f"{c.title} {c.text}" for c in citations]
    if any(all(mentions(i, t) for i in ingredients) for t in texts):
        return whole
    cited = [i for i in ingredients if any(mentions(i, t) for t in texts)]
    found = with_particle(", ".join(cited), "이", "가")
    return (f"{topic} 자료에 없어, 그 성분({', '.join(ingredients)}) 가운데 {found} 든 "
            f"제품의 허가 정보로 답합니다. 복합제인 {brand}의 용법·용량은 이와 다를 수 있으니 약사에게 확인하세요.")


def notice(focus: Focus | None, citations: list[Citation] | None = None) -> str:
    """The first sentence for brands answered from their ingredient's products; "" when none. With the
    answer's `citations`, only for a brand whose ingredient a cited label names: a long post naming
    타미플루 among five medicines was told "타미플루 is answered from oseltamivir products" above an
    answer that cited 페니라민정 only; and a combination answered from products of some of its
    ingredients says which (`_brand_notice`)."""
    if focus is None or not focus.item_seqs:
        return ""
    if focus.lang == "en":
        return _english_notice(focus, citations)
    missing = list({b.brand: b for b in focus.linking.brands   # once per brand, however often named
                    if not b.in_data and _answered_from(b.ingredients, citations)}.values())
    sentences = [_brand_notice(b.brand, b.ingredients, citations) for b in missing]
    absent = [name for name in focus.linking.absent if name not in {b.brand for b in missing}]
    supplements = [name for name in named_supplements(focus.question) if name not in focus.linking.mentions]
    if supplements:  # "타이레놀이랑 오메가3 같이 먹어도 돼요?": answered from 타이레놀's labels, 오메가3 said to be missing
        sentences.append(f"{_supplements_named(supplements)} 자료에 없어 답에 넣지 못했습니다. 함께 드셔도 되는지는 "
                         "약사에게 제품을 보여 주고 확인하세요.")
    if absent:  # "타이레놀이랑 독시정 같이 먹어도 되나요?": answered from 타이레놀's ingredient, silent on 독시정
        sentences.append(f"{with_particle(', '.join(absent), '은', '는')} 자료에 허가 정보가 없어 답에 넣지 못했습니다. "
                         "그 약은 약사에게 확인하세요.")
    return " ".join(sentences)


LABELS_IN_KOREAN_EN = "The product labels in the data are Korean (MFDS); what they say is quoted as written."


def _english_notice(focus: Focus, citations: list[Citation] | None) -> str:
    """The notice for an English question answered from the Korean labels: that they are Korean and quoted as
    written, and, as in Korean, a brand answered from its ingredient's products or a named drug left out."""
    sentences = [LABELS_IN_KOREAN_EN]
    for b in {b.brand: b for b in focus.linking.brands if not b.in_data}.values():
        if _answered_from(b.ingredients, citations):
            sentences.append(f"{b.brand} itself is not in the data; this answer quotes products of the same "
                             f"ingredient ({', '.join(b.ingredients)}).")
    if focus.linking.absent:
        sentences.append(f"The data has no label of {', '.join(focus.linking.absent)}; ask a pharmacist about it.")
    return " ".join(sentences)


PRESCRIBED = "처방"
PRESCRIBED_LINE_KO = "처방받은 약이라면 처방한 의사나 약을 지어 준 약국에 약 이름을 말하고 물어보세요."


def no_evidence(focus: Focus, then: str = "", message: str | None = None) -> str:
    """The reply when the question names a drug and no product of the data matches it. A medicine the
    message says was prescribed ("독시정과 아시팜정 약을 처방받아") is the prescriber's or the dispensing
    pharmacy's to answer, and the reply says so (`message`: the user's whole message, where a long post's
    search query is not); `then` (a long post's questions for a doctor, `care_reply`, which ends with the
    consult line) follows instead of the consult line."""
    if focus.lang == "en":   # "Is Benadryl safe for my 2 year old?": diphenhydramine has no product in the data
        names_en = ", ".join(dict.fromkeys(focus.linking.mentions)) or "the medicine you named"
        return (f"The data has no product label of {names_en}, so I will not answer from another medicine's. "
                f"{then or SAFETY_LINE_EN}")
    names = ", ".join(dict.fromkeys(focus.linking.mentions)) or "말씀하신 약"
    prescribed = f" {PRESCRIBED_LINE_KO}" if PRESCRIBED in (message or focus.question) else ""
    return (f"{names}에 해당하는 제품의 허가 정보가 자료에 없어 답변드리기 어렵습니다. 다른 약의 정보로 대신 "
            f"답하지 않습니다.{prescribed} {then or SAFETY_LINE_KO}")


def _supplements_named(names: list[str] | tuple[str, ...]) -> str:
    """"오메가3, 루테인은 건강기능식품(영양제)이라": the topic of the sentences about supplements."""
    return f"{with_particle(', '.join(names), '은', '는')} 건강기능식품(영양제)이라"


def supplement_reply(supplements: list[str] | tuple[str, ...], absent: list[str] | tuple[str, ...] = (),
                     population: tuple[str, ...] = ()) -> str:
    """The reply to a question about supplements the data holds no label of (`yaksa.lexicon.supplements`), naming
    no product of the data: said plainly, never answered from another product ("임신 중에 홍삼 먹어도 되나요?" had
    got an antacid's and albendazole's doses). `absent`: medicines it names that the data lacks too. What to do
    is the pharmacist's: the product's own directions, and a check against the person's medicines and state."""
    lines = [(f"{_supplements_named(supplements)} 이 자료(식약처 의약품 허가 정보)에는 정보가 없어 답변드리기 어렵습니다. "
              "다른 약의 정보로 대신 답하지 않습니다.")]
    if absent:
        lines.append(f"{', '.join(absent)}에 해당하는 제품의 허가 정보도 자료에 없습니다.")
    if {"pregnant", "breastfeeding"} & set(population):
        lines.append("임신·수유 중에는 영양제도 드시기 전에 산부인과 의사나 약사와 꼭 상의하세요.")
    elif CHILD_POPULATIONS & set(population):
        lines.append("아이에게 먹이려면 아이 나이에 맞는 제품인지 약사나 소아청소년과 의사에게 확인하세요.")
    lines.append("제품 포장에 적힌 섭취 방법과 주의 사항을 따르시고, 드시는 약이나 앓고 계신 병이 있으면 약사나 의사에게 "
                 "제품을 보여 주고 함께 드셔도 되는지 확인하세요.")
    return " ".join([*lines, SAFETY_LINE_KO])


NO_RELEVANT_EVIDENCE = ("자료에서 질문하신 내용에 맞는 허가 정보를 찾지 못해 답변드리기 어렵습니다. "
                        f"{SAFETY_LINE_KO}")
NO_RELEVANT_EVIDENCE_EN = ("I could not find anything in the data that answers this question, so I will not guess. "
                           f"{SAFETY_LINE_EN}")


def nothing_named(question: str) -> str:
    """The reply when a question names no drug, symptom or medical word and only drug labels matched it
    ("오늘 비 올 확률이 몇 퍼센트야" near the scope threshold): quoting a label would answer what was not asked."""
    return NO_RELEVANT_EVIDENCE if is_korean(question) else NO_RELEVANT_EVIDENCE_EN


def with_notice(answer: str, focus: Focus | None, citations: list[Citation] | None = None) -> str:
    """`answer` led by the notice (joined into its first paragraph, which carries its citation)."""
    lead = notice(focus, citations)
    if not lead or answer.startswith(lead):
        return answer
    return f"{lead} {answer}"


def about_focus(focus: Focus, citations: list[Citation]) -> list[Citation]:
    """The citations about the asked drug or symptom, renumbered from 1."""
    kept = [c for c in citations if is_about(focus, (c.title, c.section, c.text, c.metadata))]
    return [Citation(n=i, doc_id=c.doc_id, collection=c.collection, title=c.title, section=c.section, text=c.text,
                     score=c.score, metadata=c.metadata) for i, c in enumerate(kept, start=1)]
