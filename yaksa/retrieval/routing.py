"""Pick the collections a question is searched in.

Why route at all: the Korean drug label sections (`drugs`) and the English collections (`health`,
`literature`, `cases`) are analysed and embedded differently, and searching a collection in the
wrong language only adds noise to the fusion. The rules are deliberately few:

  * task "critique" (reviewing a case answer) -> cases + literature;
  * any Hangul in the question -> drugs (Korean questions with English drug names included);
  * an English question the labels answer (`asks_the_labels`: a label's question of a medicine the focus
    linked, "What are the side effects of naproxen?", or which medicine to take for a complaint, "What can I take
    for a headache?") -> drugs: the labels are the products' own text, and MedQuAD holds nothing on naproxen but a
    "Pain Relievers" overview; the focus decides (`yaksa.lexicon.focus`: not for one asking what studies found,
    "Is caffeine associated with miscarriage?");
  * otherwise -> health, plus literature when the question reads like a research question:
    it starts with "Does/Do/Did", or mentions "associated/association", "effect(s) of", or a
    study word (trial, study, studies, randomized, meta-analysis, cohort, evidence), or is
    title-style ("X: does Y?"), or is a yes/no question not about the asker ("Is the INR
    reliable?", not "Can I take ibuprofen?" nor MedQuAD's "Is X inherited?").

Never returns a collection the bundle lacks: if none of the wanted ones exists, all available
collections are searched rather than none.

Usage:
    route("타이레놀 부작용", ["drugs", "health"])                          # ["drugs"]
    route("Is statin use associated with diabetes?", ["health", "literature"])  # both
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from yaksa.lexicon.research_question import is_research_question

HANGUL = re.compile(r"[\uac00-\ud7a3\u3131-\u318e]")
TASKS: tuple[str, ...] = ("qa", "critique")


def route(question: str, available: Sequence[str], task: str = "qa", asks_the_labels: bool = False) -> list[str]:
    """Collections to search for `question`, in search order, all of them in `available`. `asks_the_labels`:
    the question asks of a medicine the linker knows, or which medicine treats a complaint (the searcher's focus
    says so; routing has no catalog): the labels, or the drugs collection's empty result saying the data has
    none."""
    if task not in TASKS:
        raise ValueError(f"task: unknown task {task!r}; expected one of {TASKS}")
    if not isinstance(question, str) or not question.strip():
        raise ValueError(f"question must be a non-empty string, got {question!r}")
    if not available:
        raise ValueError("available is empty: the bundle has no collections to search")
    if task == "critique":
        wanted = ["cases", "literature"]
    elif HANGUL.search(question) or asks_the_labels:
        wanted = ["drugs"]
    else:
        wanted = ["health", "literature"] if is_research_question(question) else ["health"]
    chosen = [c for c in wanted if c in available]
    return chosen or list(available)


def scope_collections(question: str, available: Sequence[str]) -> list[str]:
    """Every collection that could hold an answer in the question's language.

    The out-of-scope guard asks "does the corpus cover this at all?", which is wider than "where is
    the best answer?": an English research question routed to `health` alone is still in scope
    when `literature` covers it.
    """
    wanted = ["drugs"] if HANGUL.search(question) else ["health", "literature"]
    return [c for c in wanted if c in available]
