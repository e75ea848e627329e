"""For a child, a cited product's unretrieved 주의사항 joins the evidence when it forbids the child's age."""

from __future__ import annotations

from yaksa.agent.nodes.retrieve import _with_age_limits
from yaksa.llm.evidence import Citation
from yaksa.retrieval.searcher import SearchHit

SEQ = "200401234"
USES = Citation(1, f"mfds:{SEQ}:efficacy", "drugs", "이지롱내복액", "효능효과", "이 약은 멀미에 의한 어지러움에 사용합니다.",
                0.9, {"section_key": "efficacy", "item_seq": SEQ})
CAUTION = SearchHit(f"mfds:{SEQ}:precautions", "drugs", 0.0, "이지롱내복액", "주의사항",
                    "수유부, 만 3세 미만의 영·유아는 이 약을 복용하지 마십시오.", {"section_key": "precautions", "item_seq": SEQ})


class Sections:
    """The one method of the searcher the step asks (`Searcher.product_section`), over one product."""

    def __init__(self) -> None:
        self.asked: list[tuple[str, str]] = []

    def product_section(self, item_seq: str, section_key: str) -> SearchHit | None:
        self.asked.append((item_seq, section_key))
        return CAUTION if (item_seq, section_key) == (SEQ, "precautions") else None


def test_a_two_year_olds_evidence_gains_the_caution_that_forbids_the_product() -> None:
    citations, added = _with_age_limits([USES], Sections(), 24.0)
    assert added == 1 and citations[-1].doc_id == CAUTION.doc_id and citations[-1].n == 2
    assert [c.n for c in citations] == [1, 2]


def test_an_older_child_or_an_adult_gets_nothing_added() -> None:
    assert _with_age_limits([USES], Sections(), 60.0) == ([USES], 0)     # a five-year-old is past it
    searcher = Sections()
    assert _with_age_limits([USES], searcher, None) == ([USES], 0)       # not a child: nothing asked
    assert searcher.asked == []


def test_a_caution_already_cited_is_not_fetched_again() -> None:
    cited = Citation(2, CAUTION.doc_id, "drugs", CAUTION.title, CAUTION.section, CAUTION.text, 0.5, CAUTION.metadata)
    searcher = Sections()
    assert _with_age_limits([USES, cited], searcher, 24.0) == ([USES, cited], 0)
    assert searcher.asked == []


def test_a_product_only_its_side_effects_were_found_for_is_not_looked_up() -> None:
    side = Citation(1, f"mfds:{SEQ}:side_effects", "drugs", "이지롱내복액", "부작용", "졸음이 올 수 있습니다.", 0.9,
                    {"section_key": "side_effects", "item_seq": SEQ})
    searcher = Sections()
    assert _with_age_limits([side], searcher, 24.0) == ([side], 0) and searcher.asked == []
