"""In-scope questions without gold documents: the committed set `yaksa/scope/questions/in_scope.jsonl`.

Why a set without gold documents: the MFDS-ko dev set is generated from templates ("<제품> 부작용이
뭐예요?"), while people ask "두통이 있는데 타이레놀 먹어도 돼요?", "배탈 나서 설사해요" or "can kids take
adult cough syrup". Retrieval metrics need gold documents; the scope decision only needs to know the
question is in scope, so these measure its false-block rate on the way people really ask.
"""

from __future__ import annotations

from yaksa.evaluation.goldsets import GoldQuestion
from yaksa.evaluation.oos import as_gold
from yaksa.scope.exemplars import load_questions


def in_scope_questions() -> list[GoldQuestion]:
    """Korean and English in-scope questions: empty gold, kind "in_scope"."""
    return [as_gold(q, "in_scope") for q in load_questions() if q.in_scope]
