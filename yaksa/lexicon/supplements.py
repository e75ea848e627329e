"""Supplements (건강기능식품) people ask about by name, which the drug labels of the data do not hold.

Why: "오메가3 먹어도 되나요?", "루테인이랑 오메가3 같이 먹어도 돼요?" and "밀크씨슬 간에 좋나요?" were refused as off-topic
(the scope model's likeness to the labels is low; supplements are in scope, docs/scope.md), "임신 중에 홍삼 먹어도
되나요?" was answered with an antacid's and albendazole's doses, and "프로틴 보충제 먹으면 신장에 안 좋나요?" with
naproxen's side effects (프로틴 read near 프로트린정): found as a user, 2026-12-02. A supplement the data has no
label of is said so plainly, like a medicine the data lacks (`yaksa.agent.source_notice`), never answered from
another product. Where a word links to a product of the data ("유산균": a Lactobacillus medicine; "비타민D"), the
linking answers it and this list is not consulted.
"""

from __future__ import annotations

import re

# (the name said back, how it is written): health functional foods and sports supplements asked about by name
_NAMES: tuple[tuple[str, str], ...] = (
    ("오메가3", r"오메가\s*-?\s*(?:3|쓰리)"), ("루테인", r"루테인"), ("밀크씨슬", r"밀크\s*[씨시]슬"),
    ("홍삼", r"홍삼"), ("프로폴리스", r"프로폴리스"), ("프로바이오틱스", r"프로바이오틱스"), ("콜라겐", r"콜라겐"),
    ("코엔자임Q10", r"코큐텐|코엔자임\s*(?:Q\s*10|큐텐)?"), ("쏘팔메토", r"[쏘소]팔메토"), ("크릴오일", r"크릴\s*오일"),
    ("스피루리나", r"스피루리나"), ("클로렐라", r"클로렐라"), ("가르시니아", r"가르시니아"), ("녹용", r"녹용"),
    ("흑마늘", r"흑마늘"), ("노니", r"노니(?![가-힣])"), ("비오틴", r"비오틴"), ("보스웰리아", r"보스웰리아"),
    ("감마리놀렌산", r"감마\s*리놀렌산|달맞이\s*꽃\s*종자유"), ("폴리코사놀", r"폴리코사놀"), ("맥주효모", r"맥주\s*효모"),
    ("단백질 보충제", r"(?:단백질|프로틴)\s*(?:보충제|파우더|쉐이크|셰이크)|프로틴(?![가-힣])"),
    ("BCAA", r"\bBCAA\b"), ("MSM", r"\bMSM\b"), ("종합비타민", r"종합\s*비타민|멀티\s*비타민"),
    ("영양제", r"영양제"),
)
_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = tuple((name, re.compile(p, re.IGNORECASE)) for name, p in _NAMES)
# generic words: a supplement of no name ("영양제 먹을까"); also plants' ("화분 영양제"), so no scope rule reads them
GENERIC: frozenset[str] = frozenset({"영양제"})


def named_supplements(text: str) -> tuple[str, ...]:
    """The supplements `text` names, in the order of the list, each once ("오메가 3", "오메가-3" → "오메가3")."""
    return tuple(name for name, pattern in _PATTERNS if pattern.search(text))


# asking about taking one, or what it does ("먹어도 되나요", "같이", "효과 있나", "간에 좋나요", "끊어야 돼요")
_ABOUT_TAKING = re.compile(r"먹|복용|섭취|드시|드셔|챙겨|효과|효능|부작용|좋[나아은을]|괜찮|같이|함께|끊|하루|용량|공복|식후|식전")


def asks_about_a_supplement(text: str) -> bool:
    """Whether `text` asks about taking a supplement it names by name (not only "영양제"): the scope stage
    passes it (`yaksa.scope.stage`). None of the 3,000 shared non-medical Korean questions names one."""
    return any(name not in GENERIC for name in named_supplements(text)) and bool(_ABOUT_TAKING.search(text))
