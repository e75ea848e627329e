"""Out-of-scope questions as gold questions: the committed set `yaksa/scope/questions/out_of_scope.jsonl`.

Why a gold-question view of the scope set: the retrieval suite and the benchmarks handle every
question as a `GoldQuestion`; out-of-scope ones have empty gold and kind "oos". Half of them (by id,
`yaksa.scope.exemplars.is_held_out`) fit the scope model, so rates are reported on the other half.
"""

from __future__ import annotations

from yaksa.evaluation.goldsets import GoldQuestion
from yaksa.scope.exemplars import ScopeQuestion, load_questions


def as_gold(q: ScopeQuestion, kind: str) -> GoldQuestion:
    return GoldQuestion(qid=q.qid, question=q.text, gold=frozenset(), lang=q.lang, kind=kind)


def out_of_scope_ko_en() -> list[GoldQuestion]:
    """Korean and English out-of-scope questions (finance, food, jobs, … harmful requests, decoys)."""
    return [as_gold(q, "oos") for q in load_questions() if not q.in_scope]
