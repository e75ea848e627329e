"""A child's question: products dosed for adults only leave the evidence unless the parent named them
(`yaksa.agent.nodes.retrieve._for_a_child`)."""

from __future__ import annotations

from yaksa.agent.nodes.retrieve import _for_a_child
from yaksa.llm.evidence import Citation


def _cite(n: int, title: str, seq: str, key: str, text: str) -> Citation:
    return Citation(n, f"mfds:{seq}:{key}", "drugs", title, key, text, 1.0, {"section_key": key, "item_seq": seq})


EVIDENCE = [_cite(1, "뇌선", "1", "usage", "성인 1회 1포, 1일 3회까지 복용합니다."),
            _cite(2, "뇌선", "1", "efficacy", "이 약은 두통, 발열 시의 해열에 사용합니다."),
            _cite(3, "세토펜정80밀리그램", "2", "usage", "만 12세 이하의 소아는 1회 권장용량을 복용합니다.")]


def test_adult_only_products_leave_a_childs_evidence_renumbered() -> None:
    kept, dropped = _for_a_child(EVIDENCE, ("child",), frozenset())
    assert [c.title for c in kept] == ["세토펜정80밀리그램"] and [c.n for c in kept] == [1] and dropped == 2


def test_a_named_product_an_adult_and_an_all_adult_list_keep_everything() -> None:
    assert _for_a_child(EVIDENCE, ("child",), frozenset({"1"})) == (EVIDENCE, 0)    # the parent named 뇌선
    assert _for_a_child(EVIDENCE, ("adult",), frozenset()) == (EVIDENCE, 0)
    assert _for_a_child(EVIDENCE[:2], ("infant",), frozenset()) == (EVIDENCE[:2], 0)  # nothing else to say


def test_a_follow_up_naming_no_one_is_for_the_remembered_child() -> None:
    """"시럽 하루에 몇 번 먹여요?" after "7살 아들이 기침을 심하게 해요": the message and its focus name no one, so the
    remembered child's (its age was not read, and a syrup dosed from 12 years was quoted first)."""
    from types import SimpleNamespace

    from yaksa.agent.nodes.retrieve import _population

    nobody = SimpleNamespace(population=())
    state = {"analysis": SimpleNamespace(focus=nobody), "profile_population": ("child",)}
    assert _population(state, nobody) == ("child",)
    assert _population(state, SimpleNamespace(population=("adult",))) == ("adult",)   # the message's own first
    assert _population({"analysis": SimpleNamespace(focus=None)}, None) == ()
