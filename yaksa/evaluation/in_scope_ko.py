"""Conversational Korean questions that are in scope: what the guard must never refuse.

Why a set without gold documents: the MFDS-ko dev set is generated from templates ("<제품> 부작용이
뭐예요?"), while people ask "두통이 있는데 타이레놀 먹어도 돼요?". Retrieval metrics need gold
documents; the out-of-scope guard only needs to know the question is in scope, so these measure its
false-block rate on the way people really ask.
"""

from __future__ import annotations

from yaksa.evaluation.goldsets import GoldQuestion

_QUESTIONS: tuple[str, ...] = (
    "두통이 있는데 타이레놀 먹어도 돼요?", "타이레놀 먹어도 되나요", "타이레놀 먹으면 안 되나요",
    "머리가 아픈데 무슨 약 먹어요?", "소화가 안 될 때 먹는 약 알려줘", "감기약 먹고 술 마셔도 되나요?",
    "임신 중인데 진통제 먹어도 돼요?", "변비약 추천해 주세요", "눈이 침침해요", "눈이 뻑뻑한데 안약 써도 돼요?",
    "아이가 열이 나요 해열제 얼마나 먹여요?", "게보린 부작용", "속쓰림에 좋은 약", "고혈압약이랑 감기약 같이 먹어도 되나요?",
    "당뇨 있는데 감기약 먹어도 되나요?", "생리통이 심한데 이부프로펜 먹어도 돼요?", "설사가 멈추지 않아요",
    "기침이 계속 나는데 약 있나요?", "콧물이 계속 나요", "체한 것 같아요 뭐 먹어야 돼요?", "잠이 안 와요 수면제 사도 되나요?",
    "모기 물린 데 바르는 연고", "허리가 아파서 파스 붙여도 돼요?", "멀미약은 언제 먹어요?", "입병 났을 때 바르는 약",
    "무좀 약 얼마나 발라야 해요?", "아스피린이랑 이부프로펜 같이 먹어도 돼요?", "65세인데 진통제 먹어도 되나요?",
    "간이 안 좋은데 타이레놀 괜찮을까요?", "위궤양 있는데 소염진통제 먹어도 돼요?",
)


def in_scope_conversational_ko() -> list[GoldQuestion]:
    """Realistic Korean in-scope questions: empty gold, kind "in_scope_conversational"."""
    return [GoldQuestion(qid=f"inscope:ko:{i:02d}", question=q, gold=frozenset(), lang="ko",
                         kind="in_scope_conversational") for i, q in enumerate(_QUESTIONS, start=1)]
