"""A cited product that contains what the user already takes: the duplicate-ingredient caution.

Why: the classic over-the-counter overdose is the same ingredient twice — 타이레놀 every day, then a
cold medicine that also holds 아세트아미노펜. The profile knows what the user takes; the MFDS
documents say what each product contains (`metadata["ingredient"]`, else the ingredient in the
title's parentheses, "세리콘정(아세트아미노펜)"; a product whose documents name none gets no caution). A product that shares an
ingredient with a medication of the profile gets one cited sentence saying so, built only from those
two facts (no dose, nothing the documents do not hold).

Medications are read from the profile summary's "복용 중인 약:" list; a brand (brands_ko.yaml) stands
for its ingredients, any other name for itself. Names compare without spaces, and an ingredient
matches its salts ("클로르페니라민" in "클로르페니라민말레산염").
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from yaksa.lexicon.linking import load_brand_rules, without_spaces
from yaksa.llm.evidence import Citation
from yaksa.memory.profile_summary import MEDICATIONS_LABEL
from yaksa.text.hangul import has_final

MEDICATIONS = re.compile(rf"{re.escape(MEDICATIONS_LABEL)}:\s*([^.]*)")
MIN_INGREDIENT = 2  # characters: shorter names are not ingredients
PARENS = re.compile(r"\(([^()]*)\)")  # "세리콘정(아세트아미노펜)": the label's own ingredient note


def _compact(text: str) -> str:
    return without_spaces(text).lower()


def profile_medications(summary: str) -> list[str]:
    """The medications a profile summary lists ("복용 중인 약: 타이레놀, 와파린." → [타이레놀, 와파린])."""
    found = MEDICATIONS.search(summary or "")
    if not found:
        return []
    return [m.strip() for m in found.group(1).split(",") if m.strip()]


def ingredients_of(medication: str) -> tuple[str, ...]:
    """A brand's ingredients (principal first), or the name itself."""
    rule = load_brand_rules().brands.get(medication.replace(" ", ""))
    return rule.ingredients if rule else (medication,)


def _ingredients_in(contents: str) -> list[str]:
    """The product's ingredients as the label lists them ("아세트아미노펜,카페인무수물" → two)."""
    return [part for part in re.split(r"[,/·+]", contents) if part]


def _holds(product_ingredients: list[str], ingredient: str) -> bool:
    """One of the product's ingredients is `ingredient` or a salt of it."""
    return any(_compact(ingredient) in p for p in product_ingredients)


def _standin(product_ingredients: list[str], medication_ingredients: Sequence[str]) -> bool:
    """Every ingredient of the product is one of the medication's (a salt counts as its base)."""
    meds = [_compact(i) for i in medication_ingredients]
    return bool(product_ingredients) and all(any(m in p for m in meds) for p in product_ingredients)


def _caution(product: str, med: str, ingredient: str, n: int) -> str:
    what = (f"{ingredient}{'이' if has_final(ingredient) else '가'}" if _compact(med) == _compact(ingredient)
            else f"{med}의 성분({ingredient})이")
    # "복용 중이라고 하신", not "회원님이": the medicines may be a parent's the asker wrote about
    return (f"주의: {product}에는 복용 중이라고 하신 {what} 들어 있어, 함께 먹으면 같은 성분을 겹쳐 먹게 됩니다. "
            f"약사와 상의하세요. [문서 {n}]")


def duplicate_cautions(summary: str, evidence: Sequence[Citation], question: str = "") -> list[str]:
    """One cited sentence per cited product holding an ingredient the user already takes.

    A question that names a medication of the profile ("나프록센 먹고 술 마셔도 돼요?") is about that
    medication: the products quoted for it are the medication itself or stand-ins with nothing else in
    them, and telling the user they would take it twice is wrong. Those products get no caution; a
    product with other ingredients besides still does ("타이레놀 먹는데 감기약": 판콜 holds more than
    아세트아미노펜). A brand the question names (brands_ko.yaml) that contains the medication's
    ingredient is cautioned by name ("판피린 먹어도 되나요?" with 타이레놀 in the profile → "판피린에는 …
    타이레놀의 성분(아세트아미노펜)", cited to the first quoted product holding the ingredient), and the
    products quoted as its stand-ins are then not cautioned one by one.
    """
    q = _compact(question)
    medications = profile_medications(summary)
    named = {m for m in medications if q and any(_compact(x) in q for x in (m, *ingredients_of(m))
                                                 if len(_compact(x)) >= MIN_INGREDIENT)}
    taken = [(m, i) for m in medications for i in ingredients_of(m) if len(_compact(i)) >= MIN_INGREDIENT]
    quoted: list[tuple[Citation, str, list[str]]] = []  # (citation, product, its ingredients)
    for c in evidence:
        contents = _compact(str(c.metadata.get("ingredient") or "") or " ".join(PARENS.findall(c.title)))
        if contents:
            quoted.append((c, str(c.metadata.get("product_name") or c.title), _ingredients_in(contents)))
    brand_cautions, standins_of = _asked_brand_cautions(q, taken, quoted)
    out: list[str] = []
    seen: set[str] = set()
    for c, product, listed in quoted:
        if product in seen or any(_standin(listed, ingredients) for ingredients in standins_of):
            continue
        shared = [(m, i) for m, i in taken if _holds(listed, i) and _compact(m) not in _compact(product)
                  and not (m in named and _standin(listed, ingredients_of(m)))]
        if not shared:
            continue
        seen.add(product)
        med, ingredient = shared[0]
        out.append(_caution(product, med, ingredient, c.n))
    return [*brand_cautions, *out]


def _asked_brand_cautions(q: str, taken: Sequence[tuple[str, str]],
                          quoted: Sequence[tuple[Citation, str, list[str]]]) -> tuple[list[str], list[tuple[str, ...]]]:
    """Cautions for brands the question names that hold a medication's ingredient, and their ingredients."""
    rules = load_brand_rules().brands
    asked = [b for b in rules if q and _compact(b) in q]
    # "우먼스타이레놀" names one brand, not also the 타이레놀 inside it
    asked = [b for b in asked if not any(b != o and _compact(b) in _compact(o) for o in asked)]
    out: list[str] = []
    cautioned: list[tuple[str, ...]] = []
    for brand in asked:
        rule = rules[brand]
        for m, i in taken:
            same = _compact(m) == _compact(brand) or _compact(brand) in _compact(m) or _compact(m) in _compact(brand)
            holder = next((c.n for c, _, listed in quoted if _holds(listed, i)), None)
            if same or _compact(i) not in {_compact(x) for x in rule.ingredients} or holder is None:
                continue
            out.append(_caution(brand, m, i, holder))
            cautioned.append(rule.ingredients)
            break
    return out, cautioned
