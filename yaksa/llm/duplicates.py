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

from yaksa.llm.evidence import Citation
from yaksa.memory.profile_summary import MEDICATIONS_LABEL
from yaksa.retrieval.linking import load_brand_rules
from yaksa.text.hangul import has_final

MEDICATIONS = re.compile(rf"{re.escape(MEDICATIONS_LABEL)}:\s*([^.]*)")
MIN_INGREDIENT = 2  # characters: shorter names are not ingredients
PARENS = re.compile(r"\(([^()]*)\)")  # "세리콘정(아세트아미노펜)": the label's own ingredient note


def _compact(text: str) -> str:
    return re.sub(r"\s+", "", text).lower()


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


def duplicate_cautions(summary: str, evidence: Sequence[Citation]) -> list[str]:
    """One cited sentence per cited product holding an ingredient the user already takes."""
    taken = [(m, i) for m in profile_medications(summary) for i in ingredients_of(m)
             if len(_compact(i)) >= MIN_INGREDIENT]
    out: list[str] = []
    seen: set[str] = set()
    for c in evidence:
        product = str(c.metadata.get("product_name") or c.title)
        contents = _compact(str(c.metadata.get("ingredient") or "") or " ".join(PARENS.findall(c.title)))
        if not contents or product in seen:
            continue
        shared = [(m, i) for m, i in taken if _compact(i) in contents and _compact(m) not in _compact(product)]
        if not shared:
            continue
        seen.add(product)
        med, ingredient = shared[0]
        what = (f"{ingredient}{'이' if has_final(ingredient) else '가'}" if _compact(med) == _compact(ingredient)
                else f"{med}의 성분({ingredient})이")
        out.append(f"주의: {product}에는 회원님이 복용 중인 {what} 들어 있어, 함께 먹으면 같은 성분을 겹쳐 먹게 "
                   f"됩니다. 약사와 상의하세요. [문서 {c.n}]")
    return out
