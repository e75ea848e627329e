"""Rank drug label sections under a question's focus: named products only, or products for a symptom.

Why not fused scores: fusion ranks sections by how much they sound like the question, so a 부작용
list that names 두통 beats the 효능효과 of a headache product, and a product the dense model prefers
beats the one the question named. Here the focus decides *which products* may answer and *which
sections* answer the intent; similarity only orders what is left.

  drug mode     candidates = the linked products (for a brand not in the data: products of its
                ingredient, single-ingredient first; for an adult, a drug whose every product is for
                children also gets its ingredient's adult products); products are taken round-robin over the drugs the
                question named, ordered by the form and strength it asked for ("부루펜정": tablets
                first), route and population fit, then by the dense similarity of their intent section; the intent's primary sections of every candidate come first, then
                the secondary ones, then the first product's other sections. For a pregnant,
                nursing or elderly person the first product's 주의사항 follows its primary sections.
  symptom mode  candidates = products whose 효능효과 names one of the symptom terms (none: the nearest
                효능효과 sections by dense similarity), one entry per product, ordered by terms
                matched, route and population fit, and similarity; each product contributes the
                sections that answer the intent (default: 효능효과, then 용법용량; and its 주의사항 for a
                pregnant, nursing or elderly person).

Scores are synthetic and strictly decreasing in rank order (they are not comparable with fused scores).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from yaksa.lexicon.focus import CAREFUL_POPULATIONS, CHILD_POPULATIONS, Focus, FocusRules, load_focus_rules
from yaksa.lexicon.linking import DrugCatalog, Product

Key = tuple[str, int]
ROUTE_MISMATCH = 0.3        # product used another way than the question says (먹는 약 vs 파스)
RECTAL_UNASKED = 1.0        # enemas and suppositories never lead unless the question asks for them
POPULATION_FIT = 0.15       # 용법용량 doses the asked group (소아, 개월)
POPULATION_UNASKED = 0.15   # the product's name says it is for a group the question is not about (어린이…)
POPULATION_MISMATCH = 1.0   # dosed only for another age group: a child's answer never leads with an adults-only
                            # product (페니라민정), an adult's never with a children's-only one (세토펜정80)
CHILD_DOSE_WORDS = ("소아", "어린이", "개월", "영아", "유아", "세 미만", "세 이하", "세미만", "세이하")
AGE_RULED = CHILD_POPULATIONS | {"adult"}   # groups with a population rule of their own below (`_fit`)
CAUTIONS = "precautions"    # the section that names whom a medicine needs care for (임부, 수유부, 고령자)
TERM_MATCH = 0.3            # per symptom term the 효능효과 names (the first-named one fully)
ONE_INGREDIENT = 0.1        # symptom mode: a product of one ingredient before a combination (`rank_symptom`)
# a syndrome of several symptoms, for which combination products are made ("감기약 추천해줘": 바스칼캡슐, "감기의
# 여러 증상"); for it the one-ingredient preference does not apply
SEVERAL_SYMPTOMS = frozenset({"감기"})
MAX_SYMPTOM_PRODUCTS = 20
MAX_ADULT_ALTERNATIVES = 8  # products of an ingredient looked at for an adult's children's-only drug


def _fit(p: Product, focus: Focus, rules: FocusRules) -> float:
    """Route and population adjustment of one product for this question."""
    score = 0.0
    if p.route == "rectal" and focus.route != "rectal":
        score -= RECTAL_UNASKED
    elif focus.route in ("oral", "topical", "eye") and p.route != focus.route:
        score -= ROUTE_MISMATCH
    groups = [g for g in focus.population if g in rules.population_usage]
    if groups and any(w in p.usage for g in groups for w in rules.population_usage[g]):
        score += POPULATION_FIT
    if any(w in p.name and not set(suits) & set(focus.population) for w, suits in rules.population_products.items()):
        score -= POPULATION_UNASKED
    elif not AGE_RULED & set(focus.population) and children_only(p, rules):
        # no age said: the asker is most often an adult ("타이레놀 하루 최대 몇 알?" led with 트라몰정160's
        # children's doses), and a pregnant, nursing or elderly one is; a child's product still answers, after the adults'
        score -= POPULATION_UNASKED
    for_child = bool(CHILD_POPULATIONS & set(focus.population))
    if (adults_only(p, rules) if for_child else "adult" in focus.population and children_only(p, rules)):
        score -= POPULATION_MISMATCH
    return score


def adults_only(p: Product, rules: FocusRules) -> bool:
    """The product's 용법용량 doses adults and names no child group ("성인은 1회 1~3정": 페니라민정).
    "15세 이상" is an adult's age, so it does not count as a child group here."""
    adult = rules.population_usage.get("adult", ())
    return any(w in p.usage for w in adult) and not any(w in p.usage for w in CHILD_DOSE_WORDS)


def children_only(p: Product, rules: FocusRules) -> bool:
    """The product is made for children: its name says so (어린이, 소아 …), or its 용법용량 doses
    children and never adults (트라몰정160, 세토펜정80)."""
    if any(w in p.name for w in rules.population_products):
        return True
    adult = rules.population_usage.get("adult", ())
    child = rules.population_usage.get("child", ())
    return bool(p.usage) and not any(w in p.usage for w in adult) and any(w in p.usage for w in child)


def _for_adults(group: list[Product], catalog: DrugCatalog, rules: FocusRules) -> list[Product]:
    """An adult's drug group whose every product is for children ("타스펜" linked only to
    어린이용타스펜정160): the products of its ingredients that dose adults join it, single-ingredient
    first, so an adult is not answered with a child's dose. Otherwise the group as it is."""
    if not all(children_only(p, rules) for p in group):
        return group
    extra: list[Product] = []
    for ingredient in dict.fromkeys(i for p in group for i in p.ingredients[:1]):
        for seq in catalog.ingredient_products(ingredient)[:MAX_ADULT_ALTERNATIVES]:
            q = catalog.products[seq]
            if q not in group and q not in extra and not children_only(q, rules):
                extra.append(q)
    return group + extra


def _similarity(vectors: np.ndarray, qvec: np.ndarray, rows: Sequence[int]) -> np.ndarray:
    if not rows:
        return np.zeros(0, dtype=np.float32)
    return vectors[np.asarray(rows, dtype=np.int64)] @ np.asarray(qvec, dtype=np.float32).reshape(-1)


def _section_rows(p: Product, sections: Sequence[str]) -> list[int]:
    return [p.rows[s] for s in sections if s in p.rows]


def _emit(order: list[tuple[int, float]], out: list[tuple[int, float]], seen: set[int]) -> None:
    for row, score in order:
        if row not in seen:
            seen.add(row)
            out.append((row, score))


def rank_drug(focus: Focus, catalog: DrugCatalog, vectors: np.ndarray, qvec: np.ndarray, collection: str,
              need: int) -> tuple[list[tuple[Key, float]], Focus]:
    """Sections of the products the question named (module doc); empty with a reason when there are none."""
    rules = load_focus_rules()
    groups = [[catalog.products[s] for s in g if s in catalog.products] for g in focus.linking.groups]
    groups = [g for g in groups if g]
    if "adult" in focus.population:
        groups = [_for_adults(g, catalog, rules) for g in groups]
    if not groups:
        reason = "; ".join(focus.linking.notes) or (
            f"no product of the data matches {', '.join(focus.linking.mentions)}")
        return [], focus.with_outcome((), False, reason)
    intent = focus.intent
    primary = list(intent.sections) or ["efficacy"]

    asked = focus.linking.asked_form

    def product_key(p: Product, position: int) -> tuple[int, float, float, int]:
        rows = _section_rows(p, primary) or list(p.rows.values())
        sim = float(_similarity(vectors, qvec, rows).max()) if rows else 0.0
        # the form the question named comes first: "부루펜정" is the tablet even where the syrup's
        # label sounds more like the question
        return (0 if not asked or p.item_seq in asked else 1, -_fit(p, focus, rules), -sim, position)

    ordered = [sorted(g, key=lambda p, g=g: product_key(p, g.index(p))) for g in groups]
    products: list[Product] = []
    for i in range(max(len(g) for g in ordered)):  # round-robin over the named drugs
        products.extend(g[i] for g in ordered if i < len(g) and g[i] not in products)
    out: list[tuple[int, float]] = []
    seen: set[int] = set()
    if CAREFUL_POPULATIONS & set(focus.population) and CAUTIONS not in primary:
        # a pregnant, nursing or elderly person asking the dose ("하루에 몇 번까지 돼요?" after saying "임신
        # 20주예요") hears what the label says for them beside it: the first product's cautions follow its
        # own primary sections, before the other products' (they got the dose alone)
        _emit([(r, 0.0) for r in _section_rows(products[0], [*primary, CAUTIONS])], out, seen)
    for sections in (primary, list(intent.secondary)):
        _emit([(r, 0.0) for p in products for r in _section_rows(p, sections)], out, seen)
        if len(out) >= need:
            break
    if len(out) < need:  # the first product's remaining sections, most similar first
        rest = [r for r in products[0].rows.values() if r not in seen]
        sims = _similarity(vectors, qvec, rest)
        _emit([(r, 0.0) for _, r in sorted(zip(sims.tolist(), rest), key=lambda t: -t[0])], out, seen)
    ranked = [((collection, row), 1.0 - i / (len(out) + 1)) for i, (row, _) in enumerate(out[:need])]
    return ranked, focus.with_outcome(tuple(p.item_seq for p in products), True, None)


def rank_symptom(focus: Focus, catalog: DrugCatalog, vectors: np.ndarray, qvec: np.ndarray, collection: str,
                 need: int) -> tuple[list[tuple[Key, float]], Focus]:
    """Products whose 효능효과 names the symptom, one entry per product (module doc)."""
    rules = load_focus_rules()
    with_efficacy = catalog.with_efficacy
    # the first-named complaint counts fully, later ones half ("속이 쓰려서 잠을 못 자요": 속쓰림 leads); a
    # complaint's terms count once (a label's "월경통(생리통)" is one complaint, `FocusRules.complaints`)
    complaints = rules.complaints(focus.symptoms)
    weights = [1.0 if i == 0 else 0.5 for i in range(len(complaints))]
    naming = [frozenset().union(*(catalog.products_naming(t) for t in c)) for c in complaints]
    candidates = [(catalog.products[s], sum(w for seqs, w in zip(naming, weights) if s in seqs))
                  for s in catalog.in_catalog_order(frozenset().union(*naming))]
    reason = None
    if not candidates:  # no label names the words: the nearest 효능효과 sections
        sims = _similarity(vectors, qvec, [p.rows["efficacy"] for p in with_efficacy])
        top = np.argsort(-sims)[:MAX_SYMPTOM_PRODUCTS]
        candidates = [(with_efficacy[i], 0) for i in top]
        reason = f"no 효능효과 names {', '.join(focus.symptoms)}; nearest efficacy sections instead"
    sims = _similarity(vectors, qvec, [p.rows["efficacy"] for p, _ in candidates])
    # one complaint, one ingredient: "해열제 먹어야 돼요?" led with 뇌선 (four ingredients, caffeine among
    # them) and sneezing with 판콜에스; a pharmacist offers what treats the complaint and nothing more. A
    # combination still leads when it names more of the question's symptoms (TERM_MATCH outweighs this).
    one = ONE_INGREDIENT if focus.symptoms[:1] and focus.symptoms[0] not in SEVERAL_SYMPTOMS else 0.0
    scored = sorted(((float(s) + TERM_MATCH * n + _fit(p, focus, rules) + one * p.single_ingredient, p)
                     for (p, n), s in zip(candidates, sims)), key=lambda t: -t[0])
    intent = focus.intent
    sections = list(intent.sections) or ["efficacy"]
    if intent.name in (None, "efficacy"):
        sections = ["efficacy", "usage"]
    if CAREFUL_POPULATIONS & set(focus.population) and CAUTIONS not in sections:
        # a pregnant, nursing or elderly person hears each product's cautions with it: fewer products, each
        # with what its label says for them (an NSAID's "임신 후기 … 복용하지 마십시오")
        sections = [*sections, CAUTIONS]
    out: list[tuple[int, float]] = []
    seen: set[int] = set()
    for score, p in scored[:MAX_SYMPTOM_PRODUCTS]:
        rows = _section_rows(p, sections) or _section_rows(p, intent.secondary) or [p.rows["efficacy"]]
        _emit([(r, score) for r in rows], out, seen)
        if len(out) >= need:
            break
    ranked = [((collection, row), 1.0 - i / (len(out) + 1)) for i, (row, _) in enumerate(out[:need])]
    seqs = tuple(p.item_seq for p, n in candidates if n) if reason is None else ()
    return ranked, focus.with_outcome(seqs, reason is None, reason)


def symptom_products(catalog: DrugCatalog, terms: Sequence[str]) -> set[str]:
    """item_seqs whose 효능효과 names any of `terms` (the gold of a symptom question)."""
    return set().union(*(catalog.products_naming(t) for t in terms))


def names_symptom(text: str, terms: Sequence[str]) -> bool:
    return any(re.search(re.escape(t), text) for t in terms)
