"""Everyday symptom wording in rules/focus_ko.yaml: what the scope stage and the symptom focus read."""

from __future__ import annotations

import pytest

from yaksa.lexicon.focus import (
    brings_on_pain,
    everyday_symptoms,
    find_symptoms,
    load_focus_rules,
    named_symptoms,
    names_a_pain,
    without_pain_triggers,
)


@pytest.mark.parametrize(("question", "term"), [
    ("아이가 열이 39도예요", "발열"),          # a temperature is a fever (found by the nightly regression:
    ("어제부터 열이 38도야", "발열"),          # it was answered from naproxen side effects)
    ("신물이 올라와요", "속쓰림"),
    ("머리가 지끈지끈 아파요", "두통"),
    ("머리카락이 많이 빠져요", "탈모"),        # was answered from a naproxen side-effect list
    ("장이 안 좋은데 먹을 약 있어요?", "정장"),      # probiotics' 효능효과 says 정장 (was an unrelated answer)
    ("살 빼는 약 있어요?", "체중감량"),         # was answered from ibuprofen side effects; no label names
    ("헬스장에서 운동하면 윗배가 아파요", "위통"),  # was refused as off-topic (a gym is a sports cue)
    ("아랫배가 살살 아파요", "복통"),
    ("벌레한테 물려서 부었어요", "벌레물린"),
    ("벌에 쏘였는데 어떡해요", "벌레물린"),     # got a naproxen side-effect list (2026-11-27)
    ("밤에 자다가 자꾸 깨요", "불면"),          # was refused as off-topic: no word of it was medical
    ("요즘 속이 자주 쓰려요", "속쓰림"),        # an adverb between: "the data has nothing on this" (2026-11-27)
    ("머리가 너무 아파요", "두통"),
    ("코피가 자주 나요", "비출혈"),           # got 코푸시럽's doses by its 코 (2026-11-27)
    ("밤에 다리에 쥐가 나요", "근육경련"),      # was refused as off-topic (P 0.08); no label names 근육경련
    ("어지럽고 메스꺼워요", "구역"),            # 메스꺼워요 found nothing (2026-11-27)
    ("목이 따끔거리고 침 삼키기 힘들어", "인후통"),  # got a piroxicam patch's dosing
    ("요즘 잠을 잘 못 자요", "불면"),            # found nothing
    ("속 쓰린데 뭐 먹지", "속쓰림"),             # passed the scope stage on a post word only (2026-11-29)
    ("생리 전에 배 아픈데 진통제 언제 먹어야 효과 좋아요", "월경통"),   # got trimebutine's dose (2026-12-01)
    ("설사를 하루에 4~5번 해요 배도 아프구요", "복통"),   # named no belly ache (2026-12-01)
])                                          # 체중감량, so the focus finds nothing and the agent says so
def test_everyday_wording_names_the_symptom(question: str, term: str) -> None:
    assert term in named_symptoms(question)


def test_a_drug_class_alone_is_not_a_named_symptom() -> None:
    assert named_symptoms("진통제 추천해 주세요") == ()
    assert find_symptoms("진통제 추천해 주세요")[0]   # the focus still reads the class's symptoms
    assert named_symptoms("오늘 서울 기온이 30도래") == ()
    assert named_symptoms("항생제 먹는 중에 유산균 먹어도 돼요?") == ()   # 유산균 is a class: 정장 products
    assert "정장" in find_symptoms("항생제 먹는 중에 유산균 먹어도 돼요?")[0]


def test_a_sprain_is_named_as_tablets_and_plasters_name_it() -> None:
    """Tablets write 염좌, plasters and gels 삠: "발목을 삐끗했는데 뭐 바르면 돼요" must reach the plasters."""
    assert {"염좌", "삠"} <= set(named_symptoms("발목을 삐끗했는데 뭐 바르면 돼요"))
    assert named_symptoms("코가 꽉 막혀서 잠을 못 자요")[0] == "코막힘"   # was answered from a sleeping pill


def test_a_likeness_is_no_symptom() -> None:
    """"냉이 노랗고 콧물처럼 나와요" (a vaginal discharge) got cold medicines."""
    assert "콧물" not in named_symptoms("냉이 노랗고 콧물처럼 나오다가 지금은 치즈같이 나와요")
    assert named_symptoms("감기처럼 열이 나요") == ("발열",)
    assert "콧물" in named_symptoms("기침이랑 콧물 같이 나요")
    # "콧물 같은" what comes from elsewhere (24 shared posts on stool, discharge or semen got cold medicines)
    assert "콧물" not in named_symptoms("변을 보면 흰색 콧물같은 점액이 조금씩 묻어나옵니다")
    assert "콧물" not in named_symptoms("콧물같이 끈끈한 투명한 액체가 묻어있더라구요")
    assert "콧물" not in named_symptoms("어저께 토너(약간 콧물형 토너)를 샀는데 순서가 맞나요?")
    assert "콧물" in named_symptoms("재채기, 콧물 같은 감기 기운은 조금 있습니다.")


def test_sleeping_in_a_bad_position_is_no_insomnia() -> None:
    assert "불면" not in named_symptoms("잠을 잘못 자서 목이 결려요")
    assert "불면" not in named_symptoms("어제 잠을 잘못 잤더니 어깨가 아파요")


def test_a_neck_that_hurts_beside_its_posture_is_no_sore_throat() -> None:
    """"거북목 때문에 목이 아파요" got sore-throat lozenges (`not_with`), then nothing: the labels for muscle pain
    (patches, analgesics) answer it."""
    assert named_symptoms("거북목 때문에 목이 아파요") == ("근육통",)
    assert named_symptoms("뒷목이 당기고 목이 아파요") == ("근육통",)
    assert named_symptoms("뒷목이 아파요") == ("근육통",)
    assert "인후통" in named_symptoms("목이 아프고 침 삼킬 때 따가워요")
    assert set(load_focus_rules().not_with) <= set(load_focus_rules().symptoms)


def test_a_workplace_health_check_is_not_the_guts_health() -> None:
    """A real post on daily chest pain ("정기적인 직장건강검진") got probiotics' uses and doses."""
    assert "정장" not in named_symptoms("흉통이 자주 있어요. 정기적인 직장건강검진 수치는 좋습니다")
    assert "정장" in named_symptoms("장건강이 안 좋아서 유산균을 먹어요")


def test_heat_of_the_skin_is_no_fever() -> None:
    """A real post on eczema ("피부에 열이나면서 땀이 차다 … 까맣게 변했습니다") got acetaminophen's adult doses."""
    assert "발열" not in named_symptoms("피부에 열이나면서 땀이 차고 가려워요")
    assert "발열" not in named_symptoms("얼굴에 열이 나고 빨개져요")
    # flushing of the face or cheeks (two real posts, 2026-12-02)
    assert "발열" not in named_symptoms("퇴근하면 얼굴에서 열이 나는데 특히 볼에서 열이나요")
    assert "발열" not in named_symptoms("밖에 나갔다 오면 얼굴에서 열이 나요")
    assert "발열" in named_symptoms("열이 나고 얼굴이 빨개요")
    assert "발열" in named_symptoms("어제부터 열이 나고 몸살이 있어요")


def test_eyes_closing_are_no_cold() -> None:
    """"졸려서 눈이 감기면서 가슴이 두근" (a real post) got cold medicines' side effects and a profile of 감기."""
    assert "감기" not in named_symptoms("졸려서 눈이 감기면서 가슴이 두근거렸어요")
    assert "감기" in named_symptoms("감기에 걸려서 콧물이 나요")


def test_a_rat_is_no_cramp() -> None:
    assert named_symptoms("집에 쥐가 나왔어요 어떻게 잡죠?") == ()
    assert named_symptoms("배가 쥐어짜듯 아파요") == ("복통",)


def test_a_cockroach_is_no_insect_bite() -> None:
    """"바퀴벌레 약" is an insecticide: it must not read as the symptom 벌레 물린 데 (it passed the scope
    stage on that word and was answered from a steroid cream)."""
    assert "벌레물린" not in named_symptoms("바퀴벌레 약 어디서 사요?")


def test_a_month_count_is_a_babys_age_only_when_it_is_one() -> None:
    """"임신9개월인데요" was read as an infant, and a pregnant woman's answer was filtered for babies;
    "3개월째 기침" is how long, not how old."""
    from yaksa.lexicon.focus import find_population

    assert find_population("임신9개월인데요 열이 나요") == ("pregnant",)
    assert find_population("임신한지 3개월인데 감기약 먹어도 돼요?") == ("pregnant",)
    assert find_population("3개월째 기침이 나요") == () and find_population("6개월 동안 두통이 있어요") == ()
    assert find_population("6개월 아기가 열이 나요") == ("infant",)
    assert "infant" in find_population("생후 3개월인데 코가 막혀요")
    assert set(find_population("임신 중인데 8개월 된 첫째가 열이 나요")) == {"pregnant", "infant"}


def test_a_parents_ae_is_a_child_but_not_inside_other_words() -> None:
    """"애가 열이 나는데" got adult acetaminophen doses; 애 alone is also in 장애 and 애매."""
    from yaksa.lexicon.focus import find_population

    assert find_population("애가 열이 나는데 해열제 교차복용 해도 되나요?") == ("child",)
    assert find_population("우리 애 기침이 안 멈춰요") == ("child",)
    assert find_population("장애가 있는데 감기약 먹어도 돼요?") == ()
    assert find_population("효과가 애매해요") == ()


def test_a_fever_that_was_is_a_fever() -> None:
    assert "발열" in named_symptoms("어제 밤에 열이 났어요") and "발열" in named_symptoms("열난 지 이틀째예요")


def test_terms_a_label_writes_for_one_complaint_are_one_complaint() -> None:
    """Labels write "월경통(생리통)"; counted as two symptoms, it put 뇌선 first for "생리통 약"."""
    rules = load_focus_rules()
    assert rules.complaints(("생리통", "월경통", "복통")) == (("생리통", "월경통"), ("복통",))
    assert rules.complaints(("인두염", "인후통")) == (("인두염", "인후통"),)   # the same phrasings
    assert rules.complaints(("삠", "염좌", "두통")) == (("삠", "염좌"), ("두통",))
    assert rules.complaints(("콧물", "인후통")) == (("콧물",), ("인후통",))


def test_dizziness_is_no_anaemia() -> None:
    """"어지러워요 무슨 약" read as 빈혈 and got folic acid; dizziness has many causes and no label treats it."""
    assert named_symptoms("어지러워요 무슨 약 먹어요?") == ("어지럼증",)
    assert named_symptoms("빈혈 때문에 어지러워요")[0] == "빈혈"
    assert named_symptoms("차만 타면 어지러워요")[0] == "멀미"


def test_swollen_tonsils_and_a_stye_are_named() -> None:
    """"편도가 부었어요" (P 0.17) and "눈 다래끼 저절로 나아요?" (nothing near) were refused as off-topic."""
    assert named_symptoms("편도가 부었어요") == ("편도염",)
    assert named_symptoms("눈 다래끼 저절로 나아요?") == ("다래끼",)
    assert named_symptoms("서울 부산 편도 기차표 얼마야?") == ()


def test_tired_eyes_are_not_a_tired_body() -> None:
    """"피로" named eye drops' 눈의 피로 too: "… 잠을 못 자요. 낮에는 피곤해서" was answered from 스완안약."""
    assert named_symptoms("요즘 너무 피곤해요") == ("육체피로",)
    assert named_symptoms("눈이 피곤하고 침침해요") == ("눈의피로",)                 # hidden_by
    assert named_symptoms("눈이 피곤하고 몸도 피곤해요") == ("눈의피로", "육체피로")   # said of the body too
    assert set(named_symptoms("목감기 걸렸어요")) >= {"감기", "인후통"}                # no rule hides these
    assert load_focus_rules().hidden_by == {"육체피로": ("눈의피로",)}


@pytest.mark.parametrize(("summary", "groups"), [
    ("임신 중.", ("pregnant",)), ("29세 여성 임신 중. 질환: 고혈압.", ("pregnant",)), ("수유 중.", ("breastfeeding",)),
    ("72세 남성. 질환: 고혈압.", ("elderly",)), ("29세 여성. 질환: 고혈압.", ()), ("(자녀) 5세.", ("child",)),
    ("(자녀) 영아.", ("infant",)), ("(부모) 70대.", ("elderly",)),
    ("(자녀) 증상: 구토, 설사.", ("child",)), ("(자녀) 31세 여성.", ()), ("최근 체중 60 kg (3개월 전).", ()), ("", ()),
])
def test_profile_population_of_a_remembered_profile(summary: str, groups: tuple[str, ...]) -> None:
    """The person of a remembered profile, as the memory summary says it; a measurement's age is no baby's, and
    an adult is the default already (saying so would swap a children's product the person named)."""
    from yaksa.lexicon.focus import profile_population

    assert profile_population(summary) == groups


def test_everyday_words_name_a_symptom_and_a_bare_term_in_another_sense_does_not() -> None:
    assert everyday_symptoms("신물이 올라와요") == ("속쓰림",)
    assert named_symptoms("금강산의 세 구역 중") == ("구역",) and everyday_symptoms("금강산의 세 구역 중") == ()
    assert everyday_symptoms("핸드백 선물 해도 될까") == ()


@pytest.mark.parametrize(("question", "pain"), [
    ("한번씩 우측가슴이 찌릿한데 왜그런가요?", True), ("요즘들어 종종 가슴이 아플때가 있습니다", True),
    ("어깨가 너무 결려요", True), ("이별해서 마음이 아파", False), ("두통 등이 있어요", False),
])
def test_a_part_of_the_body_that_hurts_is_a_complaint(question: str, pain: bool) -> None:
    assert names_a_pain(question) == pain


@pytest.mark.parametrize(("text", "complaint"), [
    ("밤에 가슴이 답답한 느낌이나 통증이 가끔 납니다", True),
    ("왼쪽 가슴과 팔사이 즉 겨드랑이 위쪽이 너무 아픈데", True),
    ("심장이 두근두근 거리고 토가 나올꺼 같습니다", True),
    ("가슴이 조금 아프기도 하고", True),
    ("퇴근하고 집에 오면 얼굴에서 열이 나요 왜 그런가요?", True),   # heat felt, no fever named (2026-12-02)
    ("마음이 아파요", False),               # not a part of the body
    ("등산 가서 경치가 너무 아름다웠어요", False),
    ("장마철에 우산이 필요해요", False),     # 장 inside a word
])
def test_a_body_complaint_is_a_part_of_the_body_and_how_it_feels(text: str, complaint: bool) -> None:
    from yaksa.lexicon.focus import describes_a_body_complaint

    assert describes_a_body_complaint(text) is complaint


@pytest.mark.parametrize("text", [
    "축구공에 왼쪽가슴을 맞았는데 누르니까 그곳이 너무 아파요",   # real posts the stage refused (2026-11-30)
    "가슴쪽에 혹같은게 잡히는데 괜찮은걸까요?",
    "억울한 일을 당하면 맥박수가 올라가고 가슴이 막히는 것 같아요",
    "요즘들어 종종 가슴이 아플때가 있습니다",
])
def test_a_body_complaint_as_real_posts_say_it(text: str) -> None:
    from yaksa.lexicon.focus import describes_a_body_complaint

    assert describes_a_body_complaint(text)


def test_the_child_profile_label_is_the_one_the_memory_summary_writes() -> None:
    from datetime import UTC, datetime

    from yaksa.extraction.slots import SlotItem
    from yaksa.lexicon.focus import CHILD_PROFILE_LABEL
    from yaksa.memory.entry import ProfileEntry
    from yaksa.memory.profile_summary import render_summary

    now = datetime(2026, 11, 30, tzinfo=UTC)
    entry = ProfileEntry(SlotItem("symptoms", "구토", about="child"), stored_at=now, weight=1.0)
    assert render_summary([entry], now).startswith(CHILD_PROFILE_LABEL)



@pytest.mark.parametrize("question", ["6개월 아기 열날 때 먹이는 약", "열도 나고 기침도 해요"])
def test_a_fever_said_in_a_contracted_form_is_a_fever(question: str) -> None:
    """"6개월 아기 열날 때 먹이는 약" (열날: the 이 dropped) named no symptom and got ibuprofen syrups' side effects."""
    assert "발열" in named_symptoms(question)


def test_heat_rising_in_the_body_is_no_fever() -> None:
    """A real post, "몸에 열이 오르면 미친듯이 가려운 증상이 2년넘게 …", got acetaminophen while 열이 오르다 was a fever
    phrasing (tried and dropped the same day): the itch is the complaint."""
    assert "발열" not in named_symptoms("몸에 열이 오르면 미친듯이 가려워요")


@pytest.mark.parametrize("question", ["아기가 열이 올라요", "아이 열이 안 떨어져요", "열이 계속 올라요", "아기가 몸이 뜨거워요"])
def test_a_childs_rising_fever_or_one_that_stays_is_a_fever(question: str) -> None:
    """"아기가 열이 올라요" named no symptom and was remembered as a statement about an infant, with no answer:
    a child's 열이 오르다, or a fever that keeps rising or will not come down, is a fever (heat in an adult's body
    is not, above)."""
    assert "발열" in named_symptoms(question)


def test_a_symptom_said_as_the_measure_of_another_is_no_complaint() -> None:
    """"밤에 잠을 못 잘 정도로 기침이 나요" led with 불면 (the first-named symptom leads the search): a sleep aid came
    before the cough. Said as a measure ("…ㄹ 정도로", "…ㄹ 만큼"), it is left out, unless it is all that is named."""
    assert named_symptoms("밤에 잠을 못 잘 정도로 기침이 나요") == ("기침",)
    assert named_symptoms("잠을 못 잘 만큼 배가 아파요") == ("복통",)
    assert named_symptoms("토할 정도로 머리가 아파요") == ("두통",)
    assert named_symptoms("잠을 못 잘 정도예요") == ("불면",)                    # the only one named
    assert named_symptoms("허리가 아파서 잠을 못 자요") == ("요통", "불면")       # a consequence, not a measure
    assert "감기" in named_symptoms("감기로 두달정도 고생했어요 가래가 있어요")   # a noun before 정도
    assert "기침" in named_symptoms("기침과 콧물 정도예요")


def test_a_measure_of_pain_is_no_complaint_even_alone() -> None:
    """A real post: "피부가 너무 아프고 고름이 나고 … 잠을 못 잘 정도로 아파서" got sleep aids (불면, the only
    symptom word read; the skin's pain has none). A measure of a pain leaves the pain the complaint."""
    assert named_symptoms("잠을 못 잘 정도로 아파요") == ()
    assert named_symptoms("잠을 못 잘 만큼 쑤셔요") == ()
    assert named_symptoms("밤에 잠을 못 자요") == ("불면",)
    assert named_symptoms("잠을 못 잘 정도예요") == ("불면",)


def test_a_symptom_said_as_what_brings_on_a_pain_is_no_complaint() -> None:
    """A real post (a chest wall bruised by blows): "재채기를 하거나 기침을 해도 왼쪽가슴이 아픕니다" got
    antihistamines and cold medicines. Sneezing and coughing there bring the pain on; the pain is the complaint."""
    assert named_symptoms("재채기를 하거나 기침을 해도 왼쪽가슴이 아픕니다") == ()
    assert named_symptoms("기침할 때마다 가슴이 결려요") == ()
    assert named_symptoms("기침이 나고 가슴이 아파요") == ("기침",)            # a cough, and a pain
    assert named_symptoms("기침을 해도 가래가 안 나와요") == ("기침", "가래")    # no pain follows: a cough


def test_the_words_of_what_brings_on_a_pain_are_blanked_for_comparing_with_labels() -> None:
    """A cold medicine's uses share 재채기 and 기침 with "재채기를 하거나 기침을 해도 왼쪽가슴이 아파요"; without those
    words the message shares only the pain with a label (`side_effects_only`). The slot extractor reads a concept
    ending where a trigger begins the same way (`brings_on_pain`)."""
    blanked = without_pain_triggers("재채기를 하거나 기침을 해도 왼쪽가슴이 아파요")
    assert "재채기" not in blanked and "기침" not in blanked and "왼쪽가슴이 아파요" in blanked
    assert without_pain_triggers("기침이 나고 가슴이 아파요") == "기침이 나고 가슴이 아파요"
    text = "기침을 해도 가슴이 아파요"
    assert brings_on_pain(text, text.index("기침") + 2)
    assert not brings_on_pain("기침이 나고 가슴이 아파요", 2)


@pytest.mark.parametrize(("text", "given"), [("이모디움 하루에 몇 번 먹어요?", False), ("해열제 몇 ml 먹여요?", True),
                                             ("아이한테 먹이면 안 되나요?", True), ("Can I give tylenol with food?", True),
                                             ("How many can I take a day?", False), ("먹이를 줬어요", False)])
def test_giving_a_medicine_to_someone(text: str, given: bool) -> None:
    from yaksa.lexicon.focus import gives_it_to_someone

    assert gives_it_to_someone(text) is given


@pytest.mark.parametrize("text", ["저와 어머니는 한의학적 체질로 열이 많은 소양인입니다. 인삼을 먹으면 열이 납니다.",
                                  "제가 원래 몸에 열이 많은 체질인데 홍삼 먹어도 되나요?"])
def test_a_body_that_runs_hot_is_no_fever(text: str) -> None:
    """Korean medicine's constitution (a real post on honey for a hypertensive mother got antipyretics' side
    effects); a fever said plainly stays one."""
    assert "발열" not in named_symptoms(text)


def test_a_fever_said_plainly_is_one() -> None:
    assert "발열" in named_symptoms("몸에 열이 많이 나고 으슬으슬 추워요")


def test_a_pregnancy_that_is_over_is_no_population() -> None:
    """"예전에 임신한 적이 있는데 타이레놀 먹어도 되나요?" was answered with the pregnancy cautions first."""
    from yaksa.lexicon.focus import find_population
    assert "pregnant" not in find_population("예전에 임신한 적이 있는데 타이레놀 먹어도 되나요?")
    assert "pregnant" not in find_population("임신했었는데 지금은 아니에요. 이부프로펜 먹어도 돼요?")
    assert "pregnant" in find_population("임신했을 때 타이레놀 먹어도 되나요?")
    assert "pregnant" in find_population("임신 중인데 타이레놀 먹어도 되나요?")
