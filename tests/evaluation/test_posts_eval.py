"""`yaksa eval posts`: the label file, each scoring rule passing and failing, the split, and one run
through the tiny project (the posts themselves come from ../shared, never from the repo)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import SHARED, shared_or_skip
from yaksa.agent.api import TurnResult
from yaksa.config import load_settings
from yaksa.evaluation.posts_eval import (
    COLUMNS,
    LABELS_FILE,
    DrugInfo,
    PostLabel,
    load_labels,
    parse_labels,
    read_posts,
    run_posts_eval,
    score_post,
    select,
    summarise,
)
from yaksa.llm.evidence import Citation
from yaksa.split import is_held_out

HEADER = "\t".join(COLUMNS)
QUOTE_CHARS = 12
TUNE_ID = next(f"post-{i}" for i in range(100) if not is_held_out(f"post-{i}"))
HELD_ID = next(f"post-{i}" for i in range(100) if is_held_out(f"post-{i}"))

DRUGS = {
    "1": DrugInfo("트라몰정160밀리그람", ("아세트아미노펜",), "만 12세 이하의 소아는 1회 1정 복용합니다."),
    "2": DrugInfo("세토펜정325밀리그램", ("아세트아미노펜",), "성인은 1회 1~2정, 만 12세 이하 소아는 1회 1정."),
    "3": DrugInfo("젤콤정", ("플루벤다졸",), "성인 및 소아는 1정을 1회 복용합니다."),
    "4": DrugInfo("부루펜정400밀리그램", ("이부프로펜",), "성인은 1회 1정, 1일 3회 복용합니다."),
    "5": DrugInfo("어린이부루펜시럽", ("이부프로펜",), "성인 및 15세 이상은 1회 20 mL, 1~2세는 1회 5 mL."),
    # the label of an adult 400 mg tablet that never says 성인 and adds a line for children
    "6": DrugInfo("조아이부프로펜400밀리그람정", ("이부프로펜",),
                  "경증 및 중등도의 동통(통증), 감기는 1회 200-400 mg 1일 3-4회 복용하십시오.\n\n"
                  "어린이는 1회 권장용량을 1일 3-4회 복용하십시오."),
}


def _row(pid: str = TUNE_ID, split: str = "tune", who: str = "adult", red_flag: str = "0", product: str = "",
         ingredient: str = "", age: str = "") -> str:
    return f"{pid}\t{split}\ttopic\t{who}\t{age}\t\t약 먹어도 되는지\t{red_flag}\t{product}\t{ingredient}\t\t1"


def _label(who: str = "adult", red_flag: bool = False, products: tuple[str, ...] = (), ingredient: str = "") -> PostLabel:
    return PostLabel(TUNE_ID, "tune", "topic", who, None, "", "약 먹어도 되는지", red_flag, products, ingredient, "", True)


def _cite(n: int, seq: str) -> Citation:
    return Citation(n, f"mfds:{seq}:usage", "drugs", DRUGS[seq].name, "용법용량", DRUGS[seq].usage, 1.0,
                    {"item_seq": seq, "product_name": DRUGS[seq].name})


def _turn(answer: str, citations: list[Citation] | None = None, blocked: bool = False, intent: str = "question",
          red_flag: str | None = None) -> TurnResult:
    trace = {"intent": intent, "scope": {"reason": "scope_model:test"}}
    if red_flag:
        trace["red_flag"] = {"rule": red_flag, "urgency": "emergency"}
    return TurnResult(answer, citations or [], blocked, "v1", trace)


def _score(label: PostLabel, result: TurnResult):
    return score_post(label, "열", result, 12.0, DRUGS)


# ---- labels ---------------------------------------------------------------------------------------

def test_the_committed_labels_parse_and_cover_the_protocol() -> None:
    labels = load_labels()
    assert len(labels) >= 160
    assert sum(lb.red_flag for lb in labels) >= 25
    assert {lb.split for lb in labels} == {"tune", "held_out"}
    assert all((lb.split == "held_out") == is_held_out(lb.id) for lb in labels)
    assert all(len(lb.asks) <= 80 for lb in labels)  # the labeller's short words, not the post


def test_the_committed_labels_quote_no_post() -> None:
    labels = load_labels()
    posts = read_posts(shared_or_skip("real-questions", "posts_ko.jsonl"), [lb.id for lb in labels])
    assert set(posts) == {lb.id for lb in labels}
    for lb in labels:  # no run of QUOTE_CHARS characters (spaces aside) of the label is in its post
        asks, post = lb.asks.replace(" ", ""), posts[lb.id][0].replace(" ", "")
        runs = [asks[i:i + QUOTE_CHARS] for i in range(max(1, len(asks) - QUOTE_CHARS + 1))]
        assert not any(run in post for run in runs), lb.id


@pytest.mark.parametrize(("row", "message"), [
    (_row()[: -2], "columns, expected"),
    (_row(who="teenager"), "who 'teenager' is not one of"),
    (_row(split="held_out"), "is in the tune half"),
    (_row(red_flag="yes"), "red_flag must be 0 or 1"),
    (_row(age="two"), "age must be a number"),
])
def test_a_bad_row_is_an_error_naming_its_line(row: str, message: str) -> None:
    with pytest.raises(ValueError, match=rf"post_labels.tsv:3: .*{message}"):
        parse_labels(f"# comment\n{HEADER}\n{row}\n")


def test_a_repeated_id_and_a_missing_header_are_errors() -> None:
    with pytest.raises(ValueError, match=r":3: id .* is labelled twice"):
        parse_labels(f"{HEADER}\n{_row()}\n{_row()}\n")
    with pytest.raises(ValueError, match="the header must be"):
        parse_labels(_row() + "\n")


def test_products_split_on_bars_and_ages_parse() -> None:
    (label,) = parse_labels(f"{HEADER}\n{_row(product='그린관장약|성광관장약', age='0.1')}\n")
    assert label.products == ("그린관장약", "성광관장약") and label.age == 0.1 and label.names_drug


# ---- the split ------------------------------------------------------------------------------------

def test_select_takes_one_half_in_file_order_and_limits() -> None:
    labels = parse_labels(f"{HEADER}\n{_row()}\n{_row(pid=HELD_ID, split='held_out')}\n")
    assert [lb.id for lb in select(labels, "tune")] == [TUNE_ID]
    assert [lb.id for lb in select(labels, "held_out")] == [HELD_ID]
    assert [lb.id for lb in select(labels, "all", limit=1)] == [TUNE_ID]
    with pytest.raises(ValueError, match="unknown split"):
        select(labels, "test")


# ---- the rules ------------------------------------------------------------------------------------

def test_refused_counts_the_off_topic_refusal_not_the_crisis_reply() -> None:
    refusal = _score(_label(), _turn("죄송합니다. 범위를 벗어나", blocked=True, intent="out_of_scope"))
    assert refusal.values["refused"] == 1.0 and "scope_model:test" in refusal.reasons["refused"]
    crisis = _score(_label(red_flag=True), _turn("지금 바로 119에 전화하세요.", blocked=True, intent="crisis"))
    assert crisis.values["refused"] == 0.0 and crisis.values["red_flag_first"] == 1.0
    assert "person_ok" not in crisis.values  # a blocked turn is not scored for the person


def test_red_flag_first_and_false_alarm_read_the_first_paragraph() -> None:
    urgent = "열이 나는 아기는 지금 바로 응급실로 가세요.\n\n세토펜정 (효능효과): 발열 [문서 1]"
    late = "세토펜정 (효능효과): 발열 [문서 1]\n\n증상이 심하면 응급실로 가세요."
    assert _score(_label(red_flag=True), _turn(urgent, red_flag="fever_under_3_months")).values["red_flag_first"] == 1.0
    miss = _score(_label(red_flag=True), _turn(late))
    assert miss.values["red_flag_first"] == 0.0 and "no rule" in miss.reasons["red_flag_first"]
    alarm = _score(_label(), _turn(urgent, red_flag="chest_pain_red"))
    assert alarm.values["false_alarm"] == 1.0 and "chest_pain_red" in alarm.reasons["false_alarm"]
    assert _score(_label(), _turn(late)).values["false_alarm"] == 0.0
    today = "오늘 소아청소년과 진료를 받으세요.\n\n..."
    assert _score(_label(red_flag=True), _turn(today)).values["red_flag_first"] == 1.0


def test_product_first_reads_the_first_marker_of_the_text() -> None:
    cites = [_cite(1, "4"), _cite(2, "3")]
    named = _label(products=("젤콤정",))
    assert _score(named, _turn("젤콤정: 구충 [문서 2]\n\n부루펜정 [문서 1]", cites)).values["product_first"] == 1.0
    miss = _score(named, _turn("부루펜정 [문서 1]\n\n젤콤정 [문서 2]", cites))
    assert miss.values["product_first"] == 0.0 and "부루펜정400밀리그램" in miss.reasons["product_first"]
    by_ingredient = _label(ingredient="아세트아미노펜")
    assert _score(by_ingredient, _turn("세토펜정 [문서 1]", [_cite(1, "2")])).values["product_first"] == 1.0
    assert _score(by_ingredient, _turn("부루펜정 [문서 1]", [_cite(1, "4")])).values["product_first"] == 0.0
    assert "product_first" not in _score(_label(products=("없는약정",)), _turn("...", cites)).values


def test_person_ok_for_an_adult_fails_on_a_childrens_product_or_a_child_dose_first() -> None:
    adult = _label(ingredient="아세트아미노펜")
    first_child = _score(adult, _turn("트라몰정160밀리그람 [문서 1]\n\n세토펜정 [문서 2]", [_cite(1, "1"), _cite(2, "2")]))
    assert first_child.values["person_ok"] == 0.0 and "children's product" in first_child.reasons["person_ok"]
    by_name = _score(adult, _turn("어린이부루펜시럽 [문서 1]", [_cite(1, "5")]))
    assert by_name.values["person_ok"] == 0.0
    dose = "세토펜정 (효능효과) [문서 1]\n\n(용법용량): 만 12세 이하의 소아는 1회 1정 [문서 1]"
    child_dose = _score(adult, _turn(dose, [_cite(1, "2")]))
    assert child_dose.values["person_ok"] == 0.0 and "child's dose" in child_dose.reasons["person_ok"]
    ok = "세토펜정 (용법용량): 성인은 1회 1~2정 [문서 2]\n\n트라몰정 [문서 1]"
    assert _score(adult, _turn(ok, [_cite(1, "1"), _cite(2, "2")])).values["person_ok"] == 1.0
    # a dose for everyone (no 성인, no child named) beside a line for children: an adult product
    tablet = _score(_label(ingredient="이부프로펜"), _turn("조아이부프로펜400밀리그람정 [문서 1]", [_cite(1, "6")]))
    assert tablet.values["person_ok"] == 1.0, tablet.reasons


def test_person_ok_for_a_child_fails_on_an_adult_only_product() -> None:
    child = _label(who="child")
    assert _score(child, _turn("부루펜정 [문서 1]", [_cite(1, "4")])).values["person_ok"] == 0.0
    assert _score(child, _turn("어린이부루펜시럽 [문서 1]", [_cite(1, "5")])).values["person_ok"] == 1.0
    assert "person_ok" not in _score(_label(who="unknown"), _turn("부루펜정 [문서 1]", [_cite(1, "4")])).values


def test_person_ok_for_pregnancy_needs_a_pregnancy_caution() -> None:
    pregnant = _label(who="pregnant")
    bare = _score(pregnant, _turn("세토펜정 (효능효과): 발열 [문서 1]", [_cite(1, "2")]))
    assert bare.values["person_ok"] == 0.0 and "pregnancy" in bare.reasons["person_ok"]
    careful = "세토펜정 (주의사항): 임부 또는 임신하고 있을 가능성이 있는 여성은 상담 [문서 1]"
    assert _score(pregnant, _turn(careful, [_cite(1, "2")])).values["person_ok"] == 1.0
    feeding = _score(_label(who="breastfeeding"), _turn(careful, [_cite(1, "2")]))
    assert feeding.values["person_ok"] == 0.0 and "breastfeeding" in feeding.reasons["person_ok"]


def test_summarise_reports_each_split_and_topic() -> None:
    labels = {TUNE_ID: _label(), HELD_ID: PostLabel(HELD_ID, "held_out", "topic", "adult", None, "", "x", True, (), "",
                                                    "", False)}
    scores = [score_post(labels[TUNE_ID], "열", _turn("no", blocked=True, intent="out_of_scope"), 10.0, DRUGS),
              score_post(labels[HELD_ID], "흉통", _turn("지금 119에 전화하세요."), 30.0, DRUGS)]
    out = summarise(scores, labels)
    assert set(out) == {"tune", "held_out", "all"}
    assert out["all"]["refused"] == {"rate": 0.5, "n": 2} and out["tune"]["refused"]["rate"] == 1.0
    assert out["held_out"]["red_flag_first"] == {"rate": 1.0, "n": 1} and out["all"]["refused_red_flag"] == 0
    assert out["all"]["per_topic"]["흉통"]["n"] == 1 and out["all"]["latency_p95_ms"] == 30.0


# ---- one run through the tiny project -------------------------------------------------------------

def test_a_small_run_through_the_tiny_project(tiny_project: Path, tmp_path: Path) -> None:
    shared_or_skip("real-questions", "posts_ko.jsonl")
    settings = load_settings(tiny_project / "params.yaml")
    out = tmp_path / "posts.json"
    report = run_posts_eval(settings, "held_out", 3, shared_dir=SHARED, metrics_path=out)
    written = json.loads(out.read_text("utf-8"))
    assert written["splits"]["held_out"]["n"] == 3 and "tune" not in written["splits"]
    assert written["splits"]["all"]["latency_p50_ms"] > 0
    posts = read_posts(SHARED / "real-questions" / "posts_ko.jsonl", [lb.id for lb in load_labels()])
    text = out.read_text("utf-8")
    assert not any(body[:40] in text for body, _ in posts.values())  # no post text in the committed report
    assert report.n_labels == len(load_labels(LABELS_FILE))
