"""A message that names nothing medical, passed the scope stage narrowly and matched only unrelated drug
labels is told the data has nothing on it, not answered from an antacid's dosing ("알람 7시에 맞춰줘")."""

from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace

import pytest

from yaksa.agent.nodes.retrieve import (
    asks_about_a_disease,
    asks_about_a_prescription_class,
    labels_do_not_answer,
    side_effects_only,
    unanswered_by_labels,
    unlabelled_post,
    unrelated_labels,
)
from yaksa.extraction.post_reader import read_post
from yaksa.lexicon.focus import Focus
from yaksa.lexicon.linking import Linking
from yaksa.lexicon.section_intent import SectionIntent
from yaksa.llm.evidence import Citation
from yaksa.scope.decision import ScopeDecision
from yaksa.scope.stage import MIND_CONCERN

ANTACID = Citation(1, "mfds:1:usage", "drugs", "알드린현탁액(알마게이트)", "용법용량",
                   "성인 및 12세 이상의 소아는 1회 1~1.5 g을 1일 3회 식후 30분~1시간에 복용합니다.", 0.4,
                   {"section_key": "usage"})
SUPPOSITORY = Citation(1, "mfds:2:usage", "drugs", "써스펜좌약", "용법용량", "좌약을 항문에 깊숙이 넣습니다.", 0.4,
                       {"section_key": "usage"})
PASSAGE = Citation(1, "health:1", "health", "Fever", "", "A fever is a body temperature above normal.", 0.4, {})


def scope(p: float, terms: list[str] | None = None, density: float = 0.0) -> ScopeDecision:
    return ScopeDecision(True, "scope_model:whole", {"medical_terms": terms or [], "density": density,
                                                     "p_in_scope": p, "threshold": 0.15}, "m")


def test_a_narrow_pass_naming_nothing_and_sharing_no_word_is_not_answered_from_labels() -> None:
    assert unanswered_by_labels("알람 7시에 맞춰줘", scope(0.16), [ANTACID])


def test_each_condition_keeps_the_answer() -> None:
    assert not unanswered_by_labels("알람 7시에 맞춰줘", scope(0.5), [ANTACID])                # a clear pass
    assert not unanswered_by_labels("알람 7시에 맞춰줘", scope(0.16, ["약"], 0.2), [ANTACID])  # names medicine
    assert not unanswered_by_labels("좌약 넣는 방법 알려주세요", scope(0.16), [SUPPOSITORY])    # shares a word
    assert not unanswered_by_labels("알람 7시에 맞춰줘", scope(0.16), [PASSAGE])               # not a label
    assert not unanswered_by_labels("알람 7시에 맞춰줘", None, [ANTACID])                       # no scope stage
    assert not unanswered_by_labels("알람 7시에 맞춰줘", scope(0.16), [])
    # a medicine word the lexicon missed ("가루약") still names medicine
    assert not unanswered_by_labels("가루약 물에 타서 먹여도 돼요?", scope(0.16), [ANTACID])


def test_a_mental_health_question_naming_no_drug_is_sent_to_a_psychiatrist(make_runner) -> None:
    """It got a naproxen side-effect list (its 의식장애 matched the 장애 of the asker's 공황장애)."""
    runner = make_runner(enforce_safety=False)   # the guard is not what this tests
    result = runner.run("중학생 아들이 게임 중독 같은데 치료가 필요할까요?", "mind", variant="self_refine_heuristic")
    assert "정신건강의학과" in result.answer and "1577-0199" in result.answer
    assert not result.citations and result.trace["post_answer"] == "mind_care"
    assert not result.trace.get("retrieval")   # decided before any search
    assert "임의로 끊지 마세요" not in result.answer
    # already on a prescribed medicine: how long and how to stop is the prescriber's to say
    on_one = runner.run("공황장애 약을 먹고 있는데 언제까지 먹어야 하나요?", "mind-rx", variant="self_refine_heuristic")
    assert on_one.trace["post_answer"] == "mind_care" and "임의로 끊지 마세요" in on_one.answer
    # a drug question keeps its label answer
    drug = runner.run("두통에 먹는 약", "mind2", variant="self_refine_heuristic")
    assert drug.citations and drug.trace["retrieval"]


def test_a_short_question_asking_only_the_cause_is_sent_to_a_doctor(make_runner) -> None:
    """A real parent's "4살 ... 입냄새가 심하게 납니다 원인은 무엇일까요?" got a lozenge's cautions and
    painkillers' side-effect lists; an examination answers it, no label does."""
    runner = make_runner(enforce_safety=False)   # the guard is not what this tests
    result = runner.run("4살 유아인데 아침에 입냄새가 심하게 납니다 원인은 무엇일까요?", "cause",
                        variant="self_refine_heuristic")
    assert result.trace["post_answer"] == "cause_care" and not result.citations
    assert "소아청소년과" in result.answer and not result.trace.get("retrieval")
    adult = runner.run("입냄새 원인이 뭘까요?", "cause2", variant="self_refine_heuristic")
    assert adult.trace["post_answer"] == "cause_care" and "소아청소년과" not in adult.answer
    # a symptom the labels treat, or a medicine asked about, keeps its label answer
    assert runner.run("두통 원인이 뭐예요?", "cause3", variant="self_refine_heuristic").citations


def test_a_dose_brought_up_is_not_answered_from_labels(make_runner) -> None:
    """"해열제 먹고 바로 토했는데 다시 먹여야 하나요?" got antipyretics' uses and doses, and "약 먹고 10분 만에
    토했어요 다시 먹어도 되나요?" was asked which medicine: no label says, and a second dose may be a double one."""
    runner = make_runner()
    child = runner.run("아이가 해열제 먹고 바로 토했는데 다시 먹여야 하나요?", "redose1")
    assert child.trace["post_answer"] == "redose_care" and not child.citations
    assert "다시 먹이기 전에" in child.answer and "소아청소년과" in child.answer and "전문가와 꼭 상담하세요" in child.answer
    adult = runner.run("약 먹고 10분 만에 토했어요 다시 먹어도 되나요?", "redose2")
    assert adult.trace["post_answer"] == "redose_care" and "다시 먹기 전에" in adult.answer
    assert "소아청소년과" not in adult.answer


def test_an_expired_medicine_is_not_answered_from_a_storage_section(make_runner) -> None:
    """"유통기한 지난 타이레놀 먹어도 되나요?" got a storage section ("실온에서 보관하십시오")."""
    result = make_runner().run("사용기한 지난 페니라민정 먹어도 되나요?", "expiry1")
    assert result.trace["post_answer"] == "expiry_care" and not result.citations
    assert "폐의약품 수거함" in result.answer and "전문가와 꼭 상담하세요" in result.answer


SIDE_EFFECTS = Citation(1, "mfds:3:side_effects", "drugs", "나프록센정", "부작용",
                        "가슴쓰림, 두근거림 등이 나타나는 경우 복용을 즉각 중지하십시오.", 0.4, {"section_key": "side_effects"})
USES = Citation(2, "mfds:3:efficacy", "drugs", "나프록센정", "효능효과", "두통, 치통에 사용합니다.", 0.4,
                {"section_key": "efficacy"})


def _focus(mode: str = "general", mentions: tuple[str, ...] = ()) -> Focus:
    return Focus("q", "ko", mode, SectionIntent(None), Linking(mentions=mentions))


def test_a_complaint_no_label_treats_is_not_answered_from_side_effect_lists() -> None:
    """"가슴이 답답하고 심장이 벌렁거려요" got naproxen's side-effect lists (a real post, 2026-11-27)."""
    question = "가슴이 답답하고 심장이 벌렁거려요"
    assert side_effects_only(question, _focus(), None, [SIDE_EFFECTS])
    related_uses = replace(USES, text="가슴이 답답하고 두근거릴 때 사용합니다.")
    assert not side_effects_only(question, _focus(), None, [SIDE_EFFECTS, related_uses])  # a label's uses found
    # uses that name nothing it said are no answer ("가슴이 찌릿해요" got a gas remedy's uses beside them)
    assert side_effects_only(question, _focus(), None, [SIDE_EFFECTS, USES])
    assert not side_effects_only(question, _focus("symptom"), None, [SIDE_EFFECTS])      # a symptom labels treat
    assert not side_effects_only(question, _focus(mentions=("나프록센",)), None, [SIDE_EFFECTS])   # a drug named
    assert not side_effects_only("약 먹고 가슴이 두근거려요", _focus(), None, [SIDE_EFFECTS])   # about a medicine
    assert not side_effects_only(question, _focus(), None, [])


def test_a_short_question_no_found_label_shares_a_word_with_is_not_answered_from_them() -> None:
    """"고막체온만 높을 수 있나요?" got an eye ointment's dosing and a tonic's storage (full bundle, 2026-11-27)."""
    question = "고막체온만 높을 수 있나요?"
    assert unrelated_labels(question, _focus(), None, [ANTACID, SUPPOSITORY])
    assert not unrelated_labels("좌약 넣는 방법이 궁금해요", _focus(), None, [ANTACID, SUPPOSITORY])  # 좌약 shared
    assert not unrelated_labels(question, _focus("symptom"), None, [ANTACID])           # a symptom labels treat
    assert not unrelated_labels(question, _focus(mentions=("타이레놀",)), None, [ANTACID])  # a drug named
    assert not unrelated_labels("이 약 먹고 고막체온이 높아요", _focus(), None, [ANTACID])   # about a medicine
    assert not unrelated_labels(question, _focus(), None, [])


def test_a_textbook_question_is_not_answered_from_labels_that_share_a_chance_word() -> None:
    """"지역사회 간호진단 시 우선순위 결정 기준은?" got an ibuprofen syrup's side effects and an inhalation
    solution's dosing, which share 진단 and 기준 with it (full bundle, 2026-11-30)."""
    diagnostic = Citation(1, "mfds:3:usage", "drugs", "누코미트액(아세틸시스테인)", "용법용량",
                          "진단용 기관지 조영 시 투여 기준에 따릅니다.", 0.4, {"section_key": "usage"})
    question = "지역사회 간호진단 시 우선순위 결정 기준은?"
    assert unrelated_labels(question, _focus(), None, [diagnostic])
    assert not unrelated_labels("지역사회 간호진단 시 우선순위를 어떻게 정해요", _focus(), None, [diagnostic])
    assert not unrelated_labels("진해거담제 복용 기준은?", _focus(), None, [diagnostic])    # about a medicine
    assert not unrelated_labels(question, _focus("symptom"), None, [diagnostic])


def test_the_unrelated_labels_answer_says_the_data_has_nothing(make_runner, monkeypatch) -> None:
    """End to end, with the search narrowed to drug-label sections that share no word with the question
    (what the full bundle found); the answer quotes none of them."""
    from yaksa.scope.nothing_near import shares_a_word

    runner = make_runner(enforce_safety=False)   # the guard is not what this tests
    search = runner.deps.searcher.search
    question = "고막체온만 높을 수 있나요?"

    def unrelated_found(*args, **kwargs):
        result = search(*args, **kwargs)
        hits = [h for h in result.hits if h.collection == "drugs" and not shares_a_word(question, [f"{h.title} {h.text}"])]
        assert hits, "the tiny bundle has label sections sharing no word with the question"
        return replace(result, hits=hits)

    monkeypatch.setattr(runner.deps.searcher, "search", unrelated_found)
    result = runner.run(question, "ear", variant="self_refine_heuristic")
    assert result.trace["post_answer"] == "unrelated_labels" and not result.citations
    assert "[문서" not in result.answer and "찾지 못해" in result.answer


def test_the_side_effect_only_answer_is_a_care_reply(make_runner, monkeypatch) -> None:
    """End to end, with the search narrowed to what it found on the full bundle for this real message
    (side-effect sections only; the tiny bundle also has a dosing section near it)."""
    runner = make_runner(enforce_safety=False)   # the guard is not what this tests
    search = runner.deps.searcher.search

    def side_effects_found(*args, **kwargs):
        result = search(*args, **kwargs)
        return replace(result, hits=[h for h in result.hits if h.metadata.get("section_key") == "side_effects"])

    monkeypatch.setattr(runner.deps.searcher, "search", side_effects_found)
    result = runner.run("가슴이 답답하고 심장이 벌렁거려요 심박수도 113까지 올라가요", "palp",
                        variant="self_refine_heuristic")
    assert result.trace["post_answer"] == "symptom_care" and not result.citations
    assert "병원에서 진료" in result.answer and "[문서" not in result.answer
    assert result.trace["retrieval"]   # decided after the search, on what it found


# a real post's shape (written again here, not copied): stabbing chest pain, no medicine, no question
CHEST_POST = ("26살 남자입니다. 키 178에 몸무게가 90키로 정도 나갑니다. 살이 급하게 쪄서 그런지 밥을 먹고 났을 때, 또 "
              "자려고 누웠을 때 왼쪽 가슴이 조금 답답합니다. 가만히 있는데 바늘로 찌르는 듯한 통증이 순간적으로 생길 때가 "
              "있습니다. 두어 달 전에는 하루에 한 번도 안 그랬는데 요즘은 하루에 몇 번 그래요. 걱정이 많이 되네요.")


def test_a_long_post_naming_and_asking_no_medicine_is_not_answered_from_labels() -> None:
    """A cream's efficacy and a syrup's dosing were quoted for that post (its everyday words matched)."""
    post = read_post(CHEST_POST)
    assert post.long and not post.medicines
    assert unlabelled_post(_focus(), post)
    assert not unlabelled_post(_focus("symptom"), post)                        # a symptom labels treat
    assert not unlabelled_post(_focus(mentions=("타이레놀",)), post)            # a drug named
    assert not unlabelled_post(_focus(), read_post(CHEST_POST + " 진통제 먹어도 될까요?"))   # a medicine question
    assert not unlabelled_post(_focus(), read_post("가슴이 찌르듯 아파요"))       # short: `side_effects_only`
    assert not unlabelled_post(_focus(), None)


def test_the_unlabelled_post_gets_a_care_reply(make_runner, monkeypatch) -> None:
    runner = make_runner(enforce_safety=False)
    search = runner.deps.searcher.search

    def general(*args, **kwargs):   # the focus the full bundle gave it: no drug, symptom or class
        result = search(*args, **kwargs)
        return replace(result, focus=_focus())

    monkeypatch.setattr(runner.deps.searcher, "search", general)
    result = runner.run(CHEST_POST, "chest", variant="self_refine_heuristic")
    assert result.trace["post_answer"] == "post_care" and not result.citations
    assert "병원에서 진료" in result.answer and "[문서" not in result.answer


def test_when_a_childs_fever_needs_a_doctor_is_answered_from_the_red_flag_table(make_runner) -> None:
    """"아기 열이 몇 도부터 병원 가야 해요?" got "the data has nothing on this"; the table's NICE NG143
    rules answer it. A medicine asked about keeps its label answer; one only tried does not."""
    runner = make_runner(enforce_safety=False)   # the guard is not what this tests
    result = runner.run("아기 열이 몇 도부터 병원 가야 해요?", "fever", variant="self_refine_heuristic")
    assert result.trace["post_answer"] == "fever_care" and not result.citations
    assert "생후 3개월 미만" in result.answer and "NICE NG143" in result.answer
    assert result.trace["fever_rules"][0] == "fever_under_3_months"   # what the answer checks ground it in
    assert not result.trace.get("retrieval")   # decided before any search
    tried = runner.run("타이레놀 먹였는데 열이 안 내려요 병원 가야 하나요?", "fever2", variant="self_refine_heuristic")
    assert tried.trace.get("post_answer") == "fever_care"
    dose = runner.run("타이레놀 몇 알 먹이고 언제 병원 가요?", "fever3", variant="self_refine_heuristic")
    assert dose.trace.get("post_answer") != "fever_care"


def test_one_decision_names_why_the_labels_do_not_answer() -> None:
    """The four readings, tried in order by `labels_do_not_answer`; a drug question is none of them."""
    from yaksa.agent.nodes.retrieve import labels_do_not_answer

    general = Focus("알람 7시에 맞춰줘", "ko", "general", SectionIntent(None), Linking())
    assert labels_do_not_answer("알람 7시에 맞춰줘", scope(0.16), general, None, [ANTACID]) == "nothing_named"
    assert labels_do_not_answer("가슴이 답답하고 심장이 벌렁거려요", scope(0.9, ["가슴"]), general, None,
                                [SIDE_EFFECTS]) == "symptom_care"
    drug = replace(general, mode="drug")
    assert labels_do_not_answer("알람 7시에 맞춰줘", scope(0.16), drug, None, [ANTACID]) is None


def test_cold_medicines_for_what_brings_a_pain_on_do_not_answer_the_pain() -> None:
    """"재채기를 하거나 기침을 해도 왼쪽가슴이 아파요" (a real post's sentence, alone) got cold medicines' uses for
    재채기 and 기침 beside naproxen's side effects: those words bring the pain on, and the pain is the complaint."""
    question = "재채기를 하거나 기침을 해도 왼쪽가슴이 아파요"
    cold = Citation(2, "mfds:4:efficacy", "drugs", "판콜에스내복액", "효능효과",
                    "감기의 여러 증상(콧물, 코막힘, 재채기, 인후통, 기침)의 완화", 0.4, {"section_key": "efficacy"})
    chest = replace(SIDE_EFFECTS, text="가슴 통증이 나타나는 경우 복용을 즉각 중지하십시오.")
    assert side_effects_only(question, _focus(), None, [chest, cold])
    assert labels_do_not_answer(question, None, _focus(), None, [chest, cold]) == "symptom_care"
    # a cough said as a complaint of its own is answered from the labels that treat it
    assert not side_effects_only("기침이 나고 가슴이 아파요", _focus(), None, [chest, cold])


def test_a_prescription_medicine_named_by_its_class_is_not_answered_from_other_labels() -> None:
    """"혈압약 먹어도 운동해도 되나요?" got naproxen's side effects (혈압강하, 혈압상승): no label of the data is a
    blood-pressure medicine; the prescriber or the dispensing pharmacy answers it."""
    from yaksa.agent.replies import prescription_class_reply

    question = "혈압약 먹어도 운동해도 되나요?"
    assert asks_about_a_prescription_class(question, _focus(), None)
    assert labels_do_not_answer(question, scope(0.9), _focus(), None, [SIDE_EFFECTS]) == "prescription_class"
    assert not asks_about_a_prescription_class(question, _focus(mentions=("타이레놀",)), None)   # a product named
    assert not asks_about_a_prescription_class(question, _focus("symptom"), None)   # a complaint the labels treat
    assert not asks_about_a_prescription_class("타이레놀 먹어도 되나요?", _focus(), None)
    reply = prescription_class_reply(("혈압약",))
    assert reply.startswith("혈압약은 자료에 허가 정보가 없어") and "약을 지어 준 약국" in reply and "[문서" not in reply
    assert "진료" not in reply and "진료" in prescription_class_reply(("혈압약",), a_complaint=True)


def test_a_complaint_on_a_prescription_medicine_no_label_is_about_goes_to_its_prescriber() -> None:
    """"혈압약 먹는데 어지러워요" got "the data has nothing that answers this": no label treats 어지럼증, and the
    dizziness may be the blood-pressure medicine's, which the prescriber should hear."""
    from yaksa.agent.replies import nothing_relevant_reply
    from yaksa.agent.source_notice import NO_RELEVANT_EVIDENCE

    reply = nothing_relevant_reply("혈압약 먹는데 어지러워요", _focus("symptom"))
    assert reply.startswith("혈압약은 자료에 허가 정보가 없어") and "처방한 의사에게 알리고" in reply
    assert nothing_relevant_reply("오늘 비 올 확률이 몇 퍼센트야", _focus("symptom")) == NO_RELEVANT_EVIDENCE


def test_a_complaint_or_a_cause_question_no_label_is_about_is_sent_to_be_seen() -> None:
    """Two real short posts were told only "the data has nothing that answers this": chest tightness for 4 days with
    "어디 병원을 가봐야되는건가요?", and a 61-year-old's dizziness and chest tightness on standing, nothing asked."""
    from yaksa.agent.replies import cause_care_reply, nothing_relevant_reply, symptom_care_reply
    from yaksa.extraction.post_reader import read_post

    asked = "가슴이 쪼는 느낌이 4일동안 지속되고 있습니다. 어디 병원을 가봐야되는건가요?"
    assert nothing_relevant_reply(asked, _focus("symptom"), read_post(asked)) == cause_care_reply(asked)
    told = "일어서면 어지럽고 가슴이 답답합니다"
    assert nothing_relevant_reply(told, _focus("symptom"), read_post(told)) == symptom_care_reply(told)
    assert "진료" in symptom_care_reply(told)
    # a long post asking nothing of a medicine: its questions for a doctor, named (a real post on daily chest pain got
    # probiotics' doses, its "직장건강검진" read as the gut's health)
    from yaksa.agent.replies import post_care_reply
    post = ("흉통이 보통 하루에 한두번씩 오는데 심장질환일까요? 가슴 정중앙이 싸하고 답답합니다. 대학병원에서 심장 검사를 "
            "다 받았고 이상이 없었습니다. 요즘도 자주 흉통이 있고 어지럼을 동반합니다. 정기적인 직장건강검진 수치는 "
            "좋습니다. 그냥 단순한 공황장애로 인한 심장신경증인걸까요?")
    reading = read_post(post)
    assert reading.long and nothing_relevant_reply(post, _focus("symptom"), reading) == post_care_reply(reading)
    assert "심장질환일까요" in post_care_reply(reading)


def test_the_prescription_class_reply_end_to_end(make_runner) -> None:
    runner = make_runner(enforce_safety=False)   # the guard is not what this tests
    result = runner.run("당뇨약 먹는데 술 마셔도 되나요?", "rx", variant="self_refine_heuristic")
    assert result.trace["post_answer"] == "prescription_class" and not result.citations
    assert result.answer.startswith("당뇨약은 자료에 허가 정보가 없어")
    # a food asked about beside it: the class is the medicine it names (it was asked "which medicine?", the 혈압 of
    # 혈압약 read as a condition), and its prescriber or pharmacy answers, not the food reply's "name your medicine"
    result = runner.run("혈압약 먹는데 자몽 먹어도 되나요?", "rx-food", variant="self_refine_heuristic")
    assert result.trace["post_answer"] == "prescription_class" and result.answer.startswith("혈압약은 자료에")


def test_a_question_about_a_disease_in_general_is_told_where_disease_information_is() -> None:
    """"고혈압 증상이 뭐예요?" heard "no medicine for the complaint you describe", as if the writer had it."""
    from yaksa.agent.replies import DISEASE_INFO_SOURCE, disease_info_reply

    for question in ("고혈압 증상이 뭐예요?", "당뇨 초기 증상", "당뇨병의 원인은?"):
        assert asks_about_a_disease(question, _focus(), None), question
        assert labels_do_not_answer(question, None, _focus(), None, [SIDE_EFFECTS]) == "disease_info"
    for question in ("두통 원인이 뭐예요?", "고혈압약 부작용", "고혈압인데 타이레놀 먹어도 돼요?"):
        assert not asks_about_a_disease(question, _focus(), None), question
    assert not asks_about_a_disease("고혈압 증상이 뭐예요?", _focus(mentions=("타이레놀",)), None)
    reply = disease_info_reply(("고혈압",))
    assert reply.startswith("고혈압의 증상이나 원인") and DISEASE_INFO_SOURCE in reply and "전문가와 꼭 상담" in reply


def test_a_question_about_what_to_eat_is_told_the_labels_hold_nothing_on_food() -> None:
    """"콜레스테롤이 높은데 달걀 먹어도 되나요?" got 우루사's interactions and an ibuprofen tablet's side effects."""
    from yaksa.agent.nodes.retrieve import asks_about_food
    from yaksa.agent.replies import food_info_reply

    question = "콜레스테롤이 높은데 달걀 먹어도 되나요?"
    assert labels_do_not_answer(question, None, _focus(), None, [SIDE_EFFECTS]) == "food_info"
    assert not asks_about_food(question, _focus(mentions=("우루사",)), None)   # a medicine named: its label
    assert not asks_about_food(question, replace(_focus(), classes=("해열제",)), None)
    assert not asks_about_food("Can I eat eggs with high cholesterol?", replace(_focus(), lang="en"), None)
    reply = food_info_reply(("달걀",))
    assert reply.startswith("달걀을 먹어도 되는지") and "임상영양사" in reply and "전문가와 꼭 상담" in reply
    assert food_info_reply(("맥주",)).startswith("맥주를 마셔도 되는지")
    assert food_info_reply(("카페인",)).startswith("카페인을 섭취해도 되는지")   # coffee, tea or a drink: not 먹어도
    assert food_info_reply(("달걀",), ("infant",)).startswith("달걀을 먹여도") and "소아청소년과" in food_info_reply(
        ("달걀",), ("infant",))
    assert "산부인과" in food_info_reply(("회",), ("pregnant",))
    # "당뇨 있는데 뭐 먹어도 돼요?" may ask which medicine is safe: how to ask that is said too
    both = food_info_reply(("음식",), which_medicine="당뇨병")
    assert both.startswith("어떤 음식이 좋은지") and "약의 이름이나 증상을 알려 주세요" in both and "당뇨병에 조심할" in both
    assert "약의 이름이나 증상" not in food_info_reply(("음식",))


def test_a_long_post_asking_what_to_eat_is_told_the_labels_hold_nothing_on_food() -> None:
    """A real post ("하루 세끼를 다 닭가슴살먹는게 근육량 늘리는데 도움이되나요? … 닭가슴살 대체 가능한 식품은 없는건가요")
    got a hydrocortisone ointment's uses and naproxen's doses; written again here."""
    from yaksa.agent.nodes.retrieve import asks_about_food, foods_asked_in

    post = read_post("158cm 45kg인 27살 여성입니다. 오늘 인바디를 했는데 근육량이 적게 나왔어요. 단백질 쉐이크도 먹고 "
                     "있는데요. 하루 세끼를 다 닭가슴살 먹는게 근육량 늘리는데 도움이 되나요? 한 끼만 먹어도 물립니다.")
    assert post.long and foods_asked_in(post) == ("닭가슴살",)
    assert labels_do_not_answer(post.text, None, _focus(), post, [SIDE_EFFECTS]) == "food_info"
    assert not asks_about_food(post.text, _focus("symptom"), post)   # a complaint a label treats: its labels
    doctor = read_post(post.text + " 혹시 근육이 안 느는 게 무슨 병일까요?")
    assert not asks_about_food(doctor.text, _focus(), doctor)   # a doctor's question asked too


def test_a_food_question_is_answered_so_through_the_agent(make_runner) -> None:
    result = make_runner(enforce_safety=False).run("당뇨가 있는데 바나나 먹어도 괜찮나요?", "food",
                                                   variant="self_refine_heuristic")
    assert result.trace["post_answer"] == "food_info" and not result.citations
    assert result.answer.startswith("바나나를 먹어도 되는지")
    vague = make_runner(enforce_safety=False).run("당뇨 있는데 뭐 먹어도 돼요?", "food2", variant="self_refine_heuristic")
    assert vague.trace["post_answer"] == "food_info" and not vague.citations and "당뇨병에 조심할" in vague.answer


def test_signs_of_depression_naming_no_condition_are_sent_to_a_psychiatrist(make_runner) -> None:
    """Passed by the scope stage only as a mental-health concern (two PHQ-9 signs, far from every label):
    where to get help, before any search."""
    result = make_runner().run("취업 준비가 길어지면서 자신감이 완전히 없어졌어요. 가족들 보기가 미안하고 방에서 나가기 싫어요.",
                               "mind3", variant="self_refine_heuristic")
    assert result.trace["scope"]["reason"] == MIND_CONCERN
    assert result.trace["post_answer"] == "mind_care" and "1577-0199" in result.answer
    assert not result.trace.get("retrieval")


LONG_GRIEF = ("남자친구와 헤어진 지 석 달이 지났는데 아직도 매일 울어요. 밥도 잘 못 먹고 일에 집중이 안 돼요. 친구들은 "
              "시간이 약이라고 하는데 저는 점점 더 힘들어지는 것 같아요. 주말에는 하루 종일 누워만 있어요. 예전에 "
              "좋아하던 운동도 이제는 재미가 없어요. 시간이 지나면 괜찮아질까요?")
PALPITATIONS = ("공황장애 약을 먹고 있는데 요즘 계속 가슴이 두근거리고 왼쪽 가슴이 찌릿해요. 심전도는 정상이었는데 "
                "불안해서 잠을 못 자요. 심장에 문제가 있는 걸까요? 어느 병원에 가야 하나요?")


@pytest.mark.parametrize(("message", "reason", "mind"), [
    (LONG_GRIEF, MIND_CONCERN, True),
    # the model passed it by itself: a post about the body too (22 shared posts), it keeps its answers
    (PALPITATIONS, "scope_model:whole", False),
    ("게임 중독 치료가 필요할까요?", "scope_model:whole", True),   # a short one naming a condition
    ("엄마가 돌아가신 뒤로 너무 힘들어서 일상생활이 안 돼요", "scope_model:whole", True),   # or showing two signs
])
def test_which_messages_about_the_mind_are_answered_with_where_to_get_help(message: str, reason: str,
                                                                           mind: bool) -> None:
    from yaksa.agent.nodes.retrieve import _care_before_search

    post = read_post(message)
    state = {"question": message, "post": post, "scope": ScopeDecision(True, reason, {}, "m"),
             "analysis": SimpleNamespace(focus=_focus(), fever_rules=None, question_kind="other")}
    care = _care_before_search(state, post)
    assert (care is not None and care[0] == "mind_care") == mind


def test_a_supplement_the_data_lacks_is_said_so_and_no_label_is_quoted(make_runner) -> None:
    """"임신 중에 홍삼 먹어도 되나요?" got an antacid's and albendazole's doses (2026-12-02): a supplement named
    alone is told missing, with the pregnancy line; named beside a medicine of the data it is named as left out."""
    runner = make_runner()
    result = runner.run("임신 중에 홍삼 먹어도 되나요?", "supp1")
    assert result.trace["post_answer"] == "supplement" and not result.citations
    assert result.answer.startswith("홍삼은 건강기능식품(영양제)이라 이 자료")
    assert "임신·수유 중에는" in result.answer and "전문가와 꼭 상담하세요" in result.answer
    both = runner.run("페니라민정이랑 오메가3 같이 먹어도 돼요?", "supp2")
    assert both.citations and "오메가3은 건강기능식품(영양제)이라 자료에 없어 답에 넣지 못했습니다" in both.answer
