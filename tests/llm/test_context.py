from __future__ import annotations

import pytest

from yaksa.llm.context import SYSTEM_PROMPT, assemble_prompt, section_budgets
from yaksa.llm.evidence import Citation
from yaksa.llm.offline.age_limits import ChildAge
from yaksa.llm.tokens import estimate_tokens


def test_messages_carry_principles_profile_evidence_history_and_question(tylenol: list[Citation]) -> None:
    history = [{"role": "user", "content": "안녕하세요"}, {"role": "assistant", "content": "무엇을 도와드릴까요?"}]
    prompt = assemble_prompt("타이레놀은 하루 몇 번 먹어요?", tylenol, "75세, 당뇨병", history)
    system, *turns, user = prompt.messages
    assert system["role"] == "system" and system["content"].startswith(SYSTEM_PROMPT)
    assert "[문서 N]" in system["content"] and "전문가와 꼭 상담하세요" in system["content"]
    assert "75세, 당뇨병" in system["content"]
    assert turns == history
    assert "[문서 2] 타이레놀정500밀리그람(아세트아미노펜) — 용법용량 (관련도 0.84)" in user["content"]
    assert "1회 1~2정씩" in user["content"] and user["content"].endswith("타이레놀은 하루 몇 번 먹어요?")
    assert prompt.max_tokens == section_budgets(4096)["generation"] == 614
    assert set(prompt.tokens_by_section) == {"system", "profile", "evidence", "history", "question", "generation"}
    assert prompt.evidence == tuple(tylenol) and prompt.question == "타이레놀은 하루 몇 번 먹어요?"


def test_every_section_stays_within_its_budget(tylenol: list[Citation]) -> None:
    long_docs = [Citation(c.n, c.doc_id, c.collection, c.title, c.section, c.text * 80, c.score, c.metadata)
                 for c in tylenol]  # fmt: skip
    history = [{"role": "user", "content": f"{i}번째 질문입니다. " * 30} for i in range(20)]
    prompt = assemble_prompt("두통" * 500, long_docs, "고혈압 " * 1000, history, total_tokens=2048)
    budgets = section_budgets(2048)
    for name in ("profile", "evidence", "history", "question"):
        assert prompt.tokens_by_section[name] <= budgets[name], name
    assert prompt.messages[-2]["content"].startswith("19번째")  # the most recent turn is kept
    assert prompt.tokens_by_section["system"] == estimate_tokens(SYSTEM_PROMPT)  # never cut
    assert all(f"[문서 {c.n}]" in prompt.messages[-1]["content"] for c in tylenol)  # every doc keeps a share


def test_no_evidence_is_said_plainly() -> None:
    prompt = assemble_prompt("What is aspirin?", [])
    assert "no documents were found" in prompt.messages[-1]["content"]


@pytest.mark.parametrize("kwargs, message", [
    ({"question": " "}, "question must be a non-empty string"),
    ({"question": "q", "total_tokens": 100}, "total_tokens must be >= 1024"),
    ({"question": "q", "history": [{"role": "system", "content": "x"}]}, "history turns"),
])  # fmt: skip
def test_bad_input(kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        assemble_prompt(evidence=[], **kwargs)


def test_a_long_posts_facts_go_into_the_prompt() -> None:
    """The LLM path gets what the offline answer uses: who the post is about and what it asks."""
    from yaksa.extraction.post_reader import read_post

    post = read_post("32살 엄마인데 4살 아들이 어제 저녁부터 열이 39도까지 올라요. 해열제를 먹였는데 잘 안 "
                     "떨어지네요. 체중은 16kg이에요. 부루펜 시럽 얼마나 먹여야 하나요?")
    prompt = assemble_prompt(post.text, [], post=post)
    user = prompt.messages[-1]["content"]
    assert "## 글에서 읽은 내용" in user and "4세 남아" in user and "부루펜 시럽 얼마나 먹여야 하나요?" in user
    assert "해열제" in user and prompt.tokens_by_section["facts"] > 0 and prompt.post is post
    short = assemble_prompt("부루펜 먹어도 되나요?", [], post=read_post("부루펜 먹어도 되나요?"))
    assert "글에서 읽은 내용" not in short.messages[-1]["content"] and "facts" not in short.tokens_by_section


def test_a_childs_age_limit_is_told_to_the_generator() -> None:
    """The LLM path gets what the offline answer says first: the label that forbids the child's age, cited."""
    caution = Citation(1, "mfds:1:precautions", "drugs", "이지롱내복액", "주의사항",
                       "수유부, 만 3세 미만의 영·유아는 이 약을 복용하지 마십시오.", 0.5,
                       {"section_key": "precautions", "item_seq": "1"})
    dose = Citation(2, "mfds:1:usage", "drugs", "이지롱내복액", "용법용량", "만 3세 이상~만 7세 미만은 1회 1/3병을 복용합니다.",
                    0.5, {"section_key": "usage", "item_seq": "1"})
    child = assemble_prompt("2살 아기가 멀미를 해요 멀미약 먹여도 되나요?", [caution, dose])
    user = child.messages[-1]["content"]
    assert "## 나이 제한" in user and '"수유부, 만 3세 미만의 영·유아는 이 약을 복용하지 마십시오." [문서 1]' in user
    assert user.index("## 나이 제한") < user.index("## 근거 문서") and "age_limits" in child.tokens_by_section
    for question in ("멀미약 먹어도 되나요?", "5살 아이가 멀미를 해요 멀미약 먹여도 되나요?"):
        assert "## 나이 제한" not in assemble_prompt(question, [caution, dose]).messages[-1]["content"]
    # the remembered person: a follow-up naming no one after a question about a 2-year-old
    follow = assemble_prompt("멀미약 먹여도 되나요?", [caution, dose], profile_summary="(자녀) 2세.")
    assert "## 나이 제한" in follow.messages[-1]["content"]
    # a product found only by its cautions is nothing the answer offers (`offered_products`)
    follow = assemble_prompt("멀미약 먹여도 되나요?", [caution], profile_summary="(자녀) 2세.")
    assert "## 나이 제한" not in follow.messages[-1]["content"]
    # the age the retrieve node read for the turn is the one judged by: no reading of the text again
    given = assemble_prompt("멀미약 먹여도 되나요?", [caution, dose], child_age=ChildAge(24.0))
    assert "## 나이 제한" in given.messages[-1]["content"] and given.child_age == ChildAge(24.0)
    assert "## 나이 제한" not in assemble_prompt("2살 아기가 멀미를 해요 멀미약 먹여도 되나요?", [caution, dose],
                                             child_age=ChildAge(None)).messages[-1]["content"]
