"""Context injection: the generator's prompt, built section by section inside a token budget.

Why budgets per section: a long profile or chat history must never push the evidence out of the
context window, and the evidence must leave room for the answer. Shares of the total (default 4096
tokens): system 5%, profile 10%, evidence 50%, history 15%, question 5%, generation 15% (passed as
`max_tokens`). The system prompt (the six principles) is never cut; every other section is truncated
to its share (history keeps the most recent turns; each document gets an equal part of what is left).
Token counts come from `yaksa.llm.tokens.estimate_tokens` and are returned for the trace.

A long post (`post`, `yaksa.extraction.post_reader`) adds what was read from it — whom it is about,
its question sentences, symptoms, medicines, what was tried, the questions no label answers — as a
"facts" section before the evidence, inside the profile's share: the model then answers the asked
questions for that person, as the offline answer does, even where the post itself is cut to fit.

    prompt = assemble_prompt("타이레놀 하루 몇 번?", evidence, profile_summary="75세, 당뇨병")
    client.stream("generator", prompt.messages, usage=ledger, on_token=print, max_tokens=prompt.max_tokens)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from yaksa.extraction.post_reader import PostReading
from yaksa.llm.evidence import Citation
from yaksa.llm.offline.age_limits import (
    ChildAge,
    age_limit_facts,
    forbidden_for,
    offered_products,
)
from yaksa.llm.offline.assumed_person import assumed_person
from yaksa.llm.offline.extractive import answer_population, label_reading
from yaksa.llm.tokens import estimate_tokens, truncate_to_tokens

DEFAULT_TOTAL_TOKENS = 4096
MIN_TOTAL_TOKENS = 1024
SHARES: dict[str, float] = {"system": 0.05, "profile": 0.10, "evidence": 0.50, "history": 0.15,
                            "question": 0.05, "generation": 0.15}  # fmt: skip
HISTORY_ROLES = ("user", "assistant")

SYSTEM_PROMPT = """You are yaksa, a careful pharmacist assistant. Rules:
1. Cite every claim with its document number as [문서 N].
2. Use only the evidence documents; if they do not answer the question, say so.
3. Never invent doses, frequencies or other numbers: copy them from the cited document.
4. Personalise the answer to the user profile and point out contraindications and interactions that apply to it.
5. Always advise consulting a pharmacist or doctor; end with "전문가와 꼭 상담하세요".
6. Answer in the language of the question.
7. If the message shows low mood, worry or anxiety, first say where to get help for it (정신건강의학과; 정신건강위기상담전화 1577-0199).
8. If a medicine was taken and did not help, first say not to take more of it or add another and to ask a pharmacist or doctor; then quote the evidence's line on when to stop and ask, if it has one."""


@dataclass(frozen=True)
class AssembledPrompt:
    """Chat messages for the generator, its `max_tokens`, and what each section used (for the trace)."""

    messages: list[dict[str, str]]
    max_tokens: int
    tokens_by_section: dict[str, int]
    question: str
    evidence: tuple[Citation, ...]
    profile_summary: str
    evidence_blocks: tuple[str, ...] = ()  # the documents exactly as the prompt carries them
    post: PostReading | None = None        # a long post's reading: the offline answer uses it too
    remembered: tuple[str, ...] = ()       # whom the remembered profile describes (the offline answer's fallback)
    child_age: ChildAge | None = None      # the child's age the turn is judged by (None: read from the text)


def section_budgets(total_tokens: int) -> dict[str, int]:
    """Tokens per section for a context window of `total_tokens`."""
    if total_tokens < MIN_TOTAL_TOKENS:
        raise ValueError(f"total_tokens must be >= {MIN_TOTAL_TOKENS}, got {total_tokens}")
    return {name: int(total_tokens * share) for name, share in SHARES.items()}


def evidence_blocks(evidence: Sequence[Citation], budget: int) -> list[str]:
    """One block per document, "[문서 N] title — section (관련도 s)" + text, sharing `budget` tokens fairly.

    Why a list: the answer evaluation scores faithfulness against exactly these blocks (RAGAS sees
    what the generator saw, truncation included), so the prompt and the evaluation share them.
    """
    parts: list[str] = []
    remaining = budget
    for i, c in enumerate(evidence):
        header = f"[문서 {c.n}] {c.title} — {c.section} (관련도 {c.score:.2f})"
        share = remaining // (len(evidence) - i)
        body = truncate_to_tokens(c.text, share - estimate_tokens(header) - 1)
        block = f"{header}\n{body}"
        parts.append(block)
        remaining -= estimate_tokens(block)
    return parts


def render_evidence(evidence: Sequence[Citation], budget: int) -> str:
    """The evidence section of a prompt: `evidence_blocks` joined, or a no-documents line."""
    blocks = evidence_blocks(evidence, budget)
    return "\n\n".join(blocks) if blocks else "(검색된 근거 문서가 없습니다 / no documents were found)"


def _history(history: Sequence[dict[str, str]], budget: int) -> list[dict[str, str]]:
    """The most recent turns that fit `budget` (the newest one truncated if it alone is too long)."""
    kept: list[dict[str, str]] = []
    remaining = budget
    for turn in reversed(history):
        if turn.get("role") not in HISTORY_ROLES or not isinstance(turn.get("content"), str):
            raise ValueError(f"history turns must be {{'role': 'user'|'assistant', 'content': str}}, got {turn!r}")
        cost = estimate_tokens(turn["content"])
        if cost > remaining:
            if not kept and remaining > 0:
                kept.append({"role": turn["role"], "content": truncate_to_tokens(turn["content"], remaining)})
            break
        kept.append({"role": turn["role"], "content": turn["content"]})
        remaining -= cost
    return kept[::-1]


def assemble_prompt(question: str, evidence: Sequence[Citation], profile_summary: str = "",
                    history: Sequence[dict[str, str]] = (),
                    total_tokens: int = DEFAULT_TOTAL_TOKENS, post: PostReading | None = None,
                    remembered: Sequence[str] = (), child_age: ChildAge | None = None,
                    ) -> AssembledPrompt:  # fmt: skip
    """The generator's messages: system + profile, recent history, then the facts of a long post,
    evidence and question. `child_age`: as the retrieve node read it for the turn; None reads it here."""
    if not isinstance(question, str) or not question.strip():
        raise ValueError(f"question must be a non-empty string, got {question!r}")
    budgets = section_budgets(total_tokens)
    profile = truncate_to_tokens(profile_summary.strip(), budgets["profile"]) or "(없음 / none)"
    blocks = evidence_blocks(evidence, budgets["evidence"])
    evidence_text = "\n\n".join(blocks) if blocks else render_evidence((), 0)
    question_text = truncate_to_tokens(question.strip(), budgets["question"])
    turns = _history(history, budgets["history"])
    system = f"{SYSTEM_PROMPT}\n\n## 사용자 정보 (user profile)\n{profile}"
    facts = truncate_to_tokens(post.facts(), budgets["profile"]) if post is not None and post.long else ""
    facts_part = (f"## 글에서 읽은 내용 (facts read from the message: answer the questions asked, for this person; "
                  f"say which ones the evidence cannot answer)\n{facts}\n\n" if facts else "")
    # a product whose label forbids the child's age is said so first, never dosed (`yaksa.llm.offline.age_limits`)
    reading = label_reading(question, evidence)   # an English question over Korean labels: its Korean gloss
    months = ChildAge.of_turn(child_age, reading, profile_summary,
                              answer_population(reading, post, profile_summary, remembered or None)).months
    limits = age_limit_facts(offered_products(forbidden_for(evidence, months), evidence))
    limits_part = (f"## 나이 제한 (these labels forbid the product at this child's age: say so first, with the "
                   f"citation, and give none of its doses or uses)\n{limits}\n\n" if limits else "")
    # a question naming no one is the remembered person's: the answer says whom it took it to be about first
    who = assumed_person(reading, post, profile_summary, remembered or None)
    person_part = (f"## 답변 대상 (the question names no one: answer it for the person in the user profile, {who}, and "
                   f"say so in the first sentence)\n\n" if who else "")
    user = (f"{person_part}{facts_part}{limits_part}## 근거 문서 (evidence)\n{evidence_text}\n\n"
            f"## 질문 (question)\n{question_text}")
    used = {
        "system": estimate_tokens(SYSTEM_PROMPT),
        "profile": estimate_tokens(profile),
        "evidence": estimate_tokens(evidence_text),
        "history": sum(estimate_tokens(t["content"]) for t in turns),
        "question": estimate_tokens(question_text),
        **({"facts": estimate_tokens(facts)} if facts else {}),
        **({"age_limits": estimate_tokens(limits)} if limits else {}),
        "generation": budgets["generation"],
    }
    messages = [{"role": "system", "content": system}, *turns, {"role": "user", "content": user}]
    return AssembledPrompt(messages, budgets["generation"], used, question.strip(), tuple(evidence),
                           profile_summary, tuple(blocks), post, tuple(remembered), child_age)  # fmt: skip
