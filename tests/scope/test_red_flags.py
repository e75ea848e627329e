"""Issue 23: messages that need care now are recognised (a rule table with its clinical sources), by
meaning, with negation and age; ordinary questions that share their words are not. The committed
phrasings and the hand labels of real posts are checked here too (the posts' text only when the shared
folder is present: it has no content licence and is never committed)."""

from __future__ import annotations

import re
import time
import unicodedata
from importlib import resources

import pytest

from yaksa.evaluation.korean import SYMPTOM_QUESTIONS
from yaksa.evaluation.natural_ko import load_questions as natural_questions
from yaksa.evaluation.urgent import URGENT
from yaksa.llm.safety import MIND_LINE_KO, SWALLOWED_LINE_EN, SWALLOWED_LINE_KO, URGENT_LINE_KO, urgent_line
from yaksa.scope.crisis import crisis_kind
from yaksa.scope.decision import ScopeDecision
from yaksa.scope.exemplars import load_questions as scope_questions
from yaksa.scope.red_flag_eval import (
    NONE,
    ORIGINS,
    SPLITS,
    evaluate,
    labelled_posts,
    load_phrasings,
    load_post_labels,
    load_posts,
    parse_phrasings,
    parse_post_labels,
    posts_file,
    triage,
)
from yaksa.scope.red_flags import (
    CLOSING_MIND,
    CLOSING_SWALLOWED,
    CLOSING_URGENT,
    CLOSINGS,
    EMERGENCY,
    RED_FLAG_RULES,
    SOON,
    TODAY,
    RedFlagTable,
    _ages,
    _durations,
    _temperatures,
    closing_of,
    load_table,
    read_message,
    red_flag,
    red_flag_decision,
    rule_ids,
)

TABLE = load_table()


def rule_of(text: str) -> str | None:
    flag = red_flag(text)
    return flag.rule_id if flag else None


# --- the table -------------------------------------------------------------------------------------

def test_every_rule_names_a_clinical_source_and_advice_in_both_languages() -> None:
    assert len(TABLE.rules) >= 20 and len(set(rule_ids())) == len(TABLE.rules)
    for rule in TABLE.rules:
        flag = rule.flag
        assert flag.urgency in (EMERGENCY, TODAY, SOON)
        assert re.search(r"NICE|NHS|Resuscitation|Society|대한|Korean", flag.source), flag.rule_id
        assert re.search(r"[가-힣]", flag.advice_ko) and not re.search(r"[가-힣]", flag.advice_en)
        if flag.urgency == EMERGENCY:   # emergencies say 119 / the emergency department in both languages
            assert "119" in flag.advice_ko or "응급실" in flag.advice_ko, flag.rule_id
            assert "119" in flag.advice_en or "emergency" in flag.advice_en, flag.rule_id
        elif flag.urgency == TODAY:
            assert "오늘" in flag.advice_ko and "today" in flag.advice_en, flag.rule_id
        else:   # "see a doctor soon" says so, and nothing an evaluation reads as urgent (119, 응급실, today)
            assert "진료" in flag.advice_ko and "doctor" in flag.advice_en, flag.rule_id
            assert not URGENT.search(flag.advice_ko) and "today" not in flag.advice_en, flag.rule_id
            assert not flag.is_urgent
        assert not re.search(r"\d+\s?(mg|ml|정|알|캡슐)", flag.advice_ko + flag.advice_en)  # never a dose
    used = set().union(*(rule.terms() for rule in TABLE.rules)) | {"child"}   # `child: true` reads "child"
    assert used == set(TABLE.terms), set(TABLE.terms) - used                  # no dead terms


def test_the_table_is_packaged_and_a_broken_table_is_refused() -> None:
    assert resources.files("yaksa.scope").joinpath("data", "red_flags.yaml").is_file()
    good = ("version: 1\nterms:\n  t: {ko: ['열']}\nrules:\n  - {id: r, urgency: today, title: T, source: NICE, "
            "all: [t], advice_ko: 오늘 진료, advice_en: today}\n")
    assert RedFlagTable.parse(good).check("열이 나요").rule_id == "r"
    with pytest.raises(ValueError, match="unknown terms"):
        RedFlagTable.parse(good.replace("all: [t]", "all: [nope]"))
    with pytest.raises(ValueError, match="urgency"):
        RedFlagTable.parse(good.replace("urgency: today", "urgency: later"))
    with pytest.raises(ValueError, match="unknown keys"):
        RedFlagTable.parse(good.replace("all: [t]", "all: [t], max_age: 3"))
    # a term's other sense is read before it (`not_after`), and a broken one is refused
    warm = RedFlagTable.parse(good.replace("{ko: ['열']}", "{ko: ['열'], not_after: '고환에\\s?'}"))
    assert warm.check("고환에 열이 나요") is None and warm.check("몸에 열이 나요").rule_id == "r"
    with pytest.raises(ValueError, match="not_after"):
        RedFlagTable.parse(good.replace("{ko: ['열']}", "{ko: ['열'], not_after: '('}"))
    # a rule's closing line is one the safety module words
    assert RedFlagTable.parse(good).check("열이 나요").closing == CLOSING_URGENT
    assert RedFlagTable.parse(good.replace("all: [t]", "all: [t], closing: mind")).check("열이 나요").closing == "mind"
    with pytest.raises(ValueError, match="closing must be one of"):
        RedFlagTable.parse(good.replace("all: [t]", "all: [t], closing: calm"))


def test_every_closing_has_its_words_and_the_table_uses_them() -> None:
    assert {urgent_line("열이 나요", c) for c in CLOSINGS} == {URGENT_LINE_KO, SWALLOWED_LINE_KO, MIND_LINE_KO}
    assert urgent_line("my baby has a fever", CLOSING_SWALLOWED) == SWALLOWED_LINE_EN
    closings = {r.flag.rule_id: r.flag.closing for r in load_table().rules}
    assert closings["suicidal_thoughts"] == CLOSING_MIND and closings["poison_swallowed"] == CLOSING_SWALLOWED
    assert closings["chest_pain_red"] == CLOSING_URGENT
    assert closing_of({"rule": "poison_swallowed", "urgency": EMERGENCY}) == CLOSING_SWALLOWED
    assert closing_of(None) == CLOSING_URGENT


# --- one positive per rule, Korean and English ------------------------------------------------------

@pytest.mark.parametrize("text, rule", [
    ("50일 된 아기가 열이 38.2도이고 CRP가 높다고 해요", "fever_under_3_months"),
    ("생후 2개월 아기 열이 38도 넘게 나요", "fever_under_3_months"),
    ("신생아인데 열이 나요", "fever_under_3_months"),
    ("my 6 week old baby has a fever of 38.4", "fever_under_3_months"),
    ("태어난 지 10일 된 아기가 젖을 안 먹고 계속 자요", "newborn_unwell"),
    ("15개월 아기가 6일째 39~40도 열이 나고 일어나지를 못해요", "child_fever_red"),
    ("열이 40도인 아이가 입술이 파랗게 변했어요", "child_fever_red"),
    ("아이가 경련을 하고 있어요", "child_red_signs"),
    ("아버지가 쓰러지셨는데 깨워도 반응이 없어요", "unresponsive"),
    ("생후 4개월 아기가 열이 39.2도예요", "fever_3_to_6_months"),
    ("4살 아이가 열이 39.5도인데 평소보다 축 처져 있어요", "child_fever_amber"),
    ("아이가 열이 5일째 안 떨어져요", "child_fever_5_days"),
    ("머리를 세게 부딪힌 뒤로 계속 토해요", "head_injury"),
    ("열이 나고 두통이 심한데 목이 뻣뻣해서 숙여지지 않아요", "meningitis_signs"),
    ("갑자기 머리가 깨질 듯이 아파요 태어나서 처음 겪는 두통이에요", "headache_red"),
    ("worst headache of my life came on suddenly", "headache_red"),
    ("아버지 한쪽 팔다리에 힘이 빠지고 말이 어눌해졌어요", "stroke_signs"),
    ("my mother's face is drooping and her speech is slurred", "stroke_signs"),
    ("약을 먹고 나서 입술이 붓고 숨쉬기가 힘들어요", "anaphylaxis"),
    ("임신 8주인데 피가 비쳐요", "pregnancy_bleeding_pain"),
    ("I am 10 weeks pregnant and bleeding with cramps", "pregnancy_bleeding_pain"),
    ("가슴이 쥐어짜듯 아프고 식은땀이 나요", "chest_pain_red"),
    # "어려워요", the commonest way to say it, was not read (a real post: a 16-year-old's chest pain with sweating)
    ("가슴 중앙이 아프고 약간 숨쉬기가 어려워요", "chest_pain_red"),
    ("27개월 아들이 열이 41도까지 오르고 입이 새파래져요", "child_fever_red"),
    ("2주 전부터 우측하복부 통증이 지속되고 열이 39도까지 올라갔어요 맹장염 초기증상인가요?", "right_lower_abdomen_fever"),
    ("my lower right belly hurts and I keep vomiting", "right_lower_abdomen_fever"),
    ("가슴 통증이 왼팔까지 퍼지고 숨이 차요", "chest_pain_red"),
    ("가슴이 아프고 손가락이 저려요", "chest_pain_red"),      # numb fingers still spread from the chest
    ("chest tightness and shortness of breath since this morning", "chest_pain_red"),
    ("왼쪽가슴위쪽이쿡쿡쑤시는듯아프고 숨쉬기가힘듭니다", "chest_pain_red"),      # 힘듭니다 (a real post's words)
    ("왼쪽 가슴에 가끔씩 통증이 있고 숨이찹니다", "chest_pain_red"),       # 찹니다, a real post's (2026-11-30)
    ("가슴이 아프고 숨마저 쉬기 벅찰 때도 있어요", "chest_pain_red"),
    ("왼쪽 가슴이 욱씬거리고 숨이 차요", "chest_pain_red"),                   # 욱씬, as many write 욱신
    ("가슴이 답답하면서 숨이 깊이 쉬어지지 않아 고통스러워요", "chest_pain_red"),  # its 않 is the complaint's
    ("가슴이 꼬옥 눌리는 것 같고 숨을 쉬어도 답답해요", "chest_pain_red"),
    ("흉통과 숨쉬는불편한감까지 있어요", "chest_pain_red"),
    ("열이 39도까지 올랐는데 심박수가 몇시간동안 145 아래로 안 떨어져요", "sepsis_signs"),
    # the 아닌 is the running's: a sentence ending (요, 다) closes the breathlessness's clause
    ("갑자기 가슴이 답답하고 숨이차요 뛰거나 운동을 한것도 아닌데 왜 그럴까요", "chest_pain_red"),
    ("심방세동이 있는데 가만히 있어도 가슴이 아파요", "chest_pain_heart_rest"),
    ("협심증 약을 먹고 있는데 요즘 가슴이 자주 아파요", "chest_pain_heart_history"),
    ("심장이 너무 빨리 뛰고 숨이 차고 어지러워요", "palpitations_red"),
    ("열이 39도인데 맥박이 140이고 정신이 오락가락해요", "sepsis_signs"),
    ("항암 치료 중인데 열이 38도예요", "sepsis_signs"),
    ("숨을 못 쉬겠어요", "breathing_difficulty"),
    ("열이 나고 숨이 차요", "fever_breathless"),
    ("피를 토했어요", "vomiting_blood_or_black_stool"),
    ("I vomited blood this morning", "vomiting_blood_or_black_stool"),
    ("설사에 피가 섞여 나와요", "blood_in_stool"),
    ("벌레 물린 곳이 빨갛게 번지고 열이 나요", "skin_infection_spreading"),
    ("동생이 수면제를 몇 알 먹었는지 모르겠는데 비틀거려요", "overdose_impaired"),
    ("요즘 삶을 포기하고 싶다는 생각이 들어요", "suicidal_thoughts"),
    # a single parent's "다 놓아버리고 싶어요" (a message we wrote) was refused as off-topic
    # "아픕니다", the formal ending, was no pain: a real post's chest pain with a cold sweat and a pulse of 120 got none
    ("심박수가 120대이고 식은땀이 나고 왼쪽 가슴이 아픕니다", "chest_pain_red"),
    ("혼자 애 키우는데 다 놓아버리고 싶어요", "suicidal_thoughts"),
    ("모든 걸 내려놓고 싶어요", "suicidal_thoughts"),
    ("혼자 있으면 자꾸 나쁜 생각이 들어요", "suicidal_thoughts"),    # 나쁜 생각: how Korean says it
    # carbon monoxide: "중독" here is a poisoning, never a psychiatrist's question
    ("연탄가스 중독 같아요 머리가 아프고 어지러워요", "carbon_monoxide_exposure"),
    ("캠핑 텐트에서 난로 켜고 잤는데 두통이 심하고 토할 것 같아요", "carbon_monoxide_exposure"),
    ("I think I have carbon monoxide poisoning", "carbon_monoxide_exposure"),
    # found by probing on 2026-11-29: each was refused as off-topic (a pet or a pest word is a housework cue)
    ("아이가 쥐약을 먹었어요", "poison_swallowed"), ("바퀴벌레 약 먹었어요 어떡해요", "poison_swallowed"),
    ("I swallowed bleach", "poison_swallowed"),
    ("뱀에 물렸어요", "snake_bite"), ("I was bitten by a snake", "snake_bite"),
    ("강아지한테 물렸어요", "animal_bite"), ("고양이한테 긁혔는데 괜찮을까요", "animal_bite"), ("my dog bit me", "animal_bite"),
    # a wound that looks infected (a real post's 68-year-old, stitches that were hot and weeping pus, asked only
    # how long healing takes), and a tick bite followed by fever (another asked only why), written again
    ("할아버지 손가락 꿰맨 부위에서 고름이 나오고 열감이 있어요", "wound_infected"),
    ("수술 부위가 빨갛게 부어오르고 뜨거워요", "wound_infected"),
    ("My stitches are red and swollen and there is pus", "wound_infected"),
    ("산책하다 진드기 같은 것에 다리를 물린 뒤 열이 나요", "tick_bite_fever"),
    ("I was bitten by a tick last week and now I have a fever", "tick_bite_fever"),
])
def test_each_rule_is_recognised(text: str, rule: str) -> None:
    assert rule_of(text) == rule


# --- negation, age, and what stays out --------------------------------------------------------------

@pytest.mark.parametrize("text", [
    "아이 열은 없어요, 콧물만 나요",                   # negated fever
    "열은 없고 기침만 해요",
    "열은 안 나는데 목이 아파요",
    "가슴이 아픈데 숨차지는 않아요",                   # negated breathlessness
    "가슴이 아픈데 숨차거나 식은땀은 없어요",
    "가슴이 아파요 숨은 안 차요",
    "피는 안 나는데 잇몸이 부었어요",                   # negated bleeding
    "혈변은 없고 배만 아파요",
    "no fever, just a runny nose",
    "my 5 year old has a cold but no fever",
])
def test_a_negated_sign_raises_nothing(text: str) -> None:
    assert red_flag(text) is None


@pytest.mark.parametrize("text", [
    "29살인데 열이 나요 타이레놀 먹어도 되나요",          # an adult with a fever
    "20대 여자인데 열이 38.3도 나고 목이 아파요",
    "30대 남성인데 3일째 38도 열이 나요",                # 3 days, an adult
    "5살 아이가 열이 38도인데 물도 잘 마시고 잘 놀아요",   # a child, no amber sign, 1 day
    "생후 4개월 아기 열이 38.5도예요",                  # 3-6 months needs 39
    "생후 2개월 아기가 37.5도 미열이 있어요",             # a temperature under 38 is stated
    "50일 아기 예방접종 후에 보채요",                    # a baby, no fever
    "임신 중에 타이레놀 먹어도 되나요",
    "임신 테스트기 두 줄인데 감기약 먹어도 돼요",
    "감기 후에 가슴이 좀 답답한데 숨차지는 않아요",
    "숨 쉴 때 가슴이 살짝 결려요",                      # pain on breathing in only
    "며칠째 머리가 살짝 아픈데 진통제 먹어도 되나요",
    "어릴 때 열성경련을 한 적이 있는데 해열제 뭐가 좋아요",
    "치질 때문에 휴지에 피가 살짝 묻어요",
    "두드러기가 났는데 항히스타민제 먹어도 되나요",
    "타이레놀 2알 먹어도 되나요",
    "아이가 열이 나요",                                 # a fever alone, no age or sign
    "일산화탄소 경보기 추천해줘",                        # a detector, not an exposure
    "오래전에 연탄가스를 마신 적이 있는데 폐가 약해요",     # long ago (a real post's wording)
    # a real post: painful fingers and toes are joints, not pain spreading from the chest
    "아침에 잠자고 일어 날때 가슴 가운데 통증이 있고 발가락 손가락 통증이 심합니다",
    "나쁜 생각은 안 들어요 그냥 잠이 안 와요",             # denied
    "회사 일은 다 내려놓고 푹 쉬고 싶어요",                 # rest, not letting go of everything
    "고개를 숙이면 코가 막혀요",                            # posture, no headache
    "머리 감을 때 고개를 숙이면 허리가 아파요",
    "오른쪽 아랫배가 살짝 아파요 열은 없어요",               # no fever, no vomiting
    "한의원에서 위에 열이 있다고 했는데 긴장하면 빈맥도 일어나요",   # the stomach's heat of Korean medicine
    # what a doctor said might happen (two real posts on a cold, appendicitis ruled out by ultrasound)
    "열이 나는데 의사선생님이 오른쪽 아랫배 많이 아프면 맹장염 일수도 있다고 했어요",
])
def test_ordinary_questions_that_share_the_words_raise_nothing(text: str) -> None:
    assert red_flag(text) is None


def test_facts_ages_temperatures_and_durations() -> None:
    assert [round(d) for d, _, _ in _ages("50일 된 아기")] == [50]
    assert [round(d) for d, _, _ in _ages("생후 2개월")] == [61]
    assert [round(d) for d, _, _ in _ages("15개월 아기")] == [456]
    assert [round(d / 365) for d, _, _ in _ages("6살 아이")] == [6]
    assert [round(d / 365) for d, _, _ in _ages("29세 남성")] == [29]
    assert [round(d / 365) for d, _, _ in _ages("중학생 아들")] == [14]
    assert _ages("3개월 전부터 아파요") == [] and _ages("임신 9개월차") == []   # a duration, a pregnancy
    assert [round(d / 365, 1) for d, _, _ in _ages("만 4년 6개월 된 어린이")] == [4.5]   # was no age at all
    assert _ages("2년 6개월 전부터 기침해요") == []
    # a warm spot of one part of the body, or a warm constitution, is no fever; the body and the head are
    for warm in ("고환에 열이 나요", "정강이 부분에 열이 나는 증상", "오른쪽어깨에 열이좀나고요", "얼굴 홍조라서 열이 많아서 그래요"):
        assert not read_message(warm).has("fever"), warm
    for fever in ("몸에 열이 나요", "아이 머리에 열이 나요", "목이 아프고 열이 나요", "열이 많이 나요"):
        assert read_message(fever).has("fever"), fever
    assert max(t for t, _ in _temperatures("39~40도")) == 40.0
    assert max(t for t, _ in _temperatures("체온 38.2")) == 38.2
    assert max(t for t, _ in _temperatures("38도 미만")) < 38.0
    assert _temperatures("몸무게 38kg") == [] and _temperatures("40대 남성") == []
    assert max(d for d, _ in _durations("6일째 열이 나요")) == 6
    assert max(d for d, _ in _durations("일주일 동안")) == 7
    assert _durations("3일 된 아기") == []


def test_the_adult_age_of_a_child_word_is_read_as_an_adult() -> None:
    assert red_flag("20살 딸아이가 열이 5일째 나요") is None
    assert rule_of("35살 엄마입니다. 아이가 열이 5일째 나요") == "child_fever_5_days"


def test_a_son_is_not_read_inside_a_verb() -> None:
    """아들 inside 잦아들다 ("subside") made an adult's post about a flushed face a child's: it got the child fever
    list (a real post, 2026-12-02); 받아들이다 and 알아듣다 too. A son is still a child."""
    from yaksa.scope.red_flags import read_message

    assert not read_message("얼굴에 열이 오르다가 저녁쯤 지나니 잦아들고 괜찮아졌어요").is_child()
    assert not read_message("진단을 받아들이기 힘들어요").is_child()
    assert read_message("우리 아들이 열이 나요").is_child() and read_message("큰아들이 열이 나요").is_child()


def test_a_today_rule_never_hides_an_emergency() -> None:
    text = "아이가 열이 5일째 나고 머리를 부딪힌 뒤 토해요"           # child_fever_5_days comes first in the table
    assert rule_of(text) == "head_injury" and red_flag(text).urgency == EMERGENCY
    assert {f.rule_id for f in TABLE.check_all(text)} >= {"child_fever_5_days", "head_injury"}


def test_decomposed_hangul_is_read_as_composed() -> None:
    text = "50일 된 아기가 열이 38.2도예요"
    nfd = unicodedata.normalize("NFD", text)
    assert nfd != text and rule_of(nfd) == "fever_under_3_months"


def test_a_case_already_in_care_written_as_an_exam_raises_no_flag() -> None:
    """135 of the 1,218 shared exam stems met a rule and would have opened with "call 119"; a case written as an
    exam writes it (an age and a sex as subject, brought to a hospital, "진단은?") is a clinician's question."""
    vignette = "58세 남자가 갑자기 숨이 차고 왼쪽 가슴이 아파서 병원에 왔다. 식은땀을 흘렸다. 진단은?"
    assert red_flag(vignette) is None
    # the same complaint from the person, or from a relative who is there now, still gets the advice first
    assert red_flag("58세 남자인데 갑자기 숨이 차고 왼쪽 가슴이 아프고 식은땀이 나요").rule_id == "chest_pain_red"
    assert red_flag("아버지(70세 남자)가 가슴이 아프고 식은땀을 흘려서 응급실에 왔어요. 진단은?") is not None
    assert red_flag(vignette.replace(" 진단은?", "")) is not None     # no exam question: not read as one
    # operated on in the past tense is in care too (three shared exam stems: a wound on day 7, delirium after surgery)
    assert red_flag("25세 남자가 탈장 수술을 받았다. 7일째 수술부위에 열감이 느껴졌고 고름이 나왔다. 치료는?") is None


def test_crisis_messages_stay_with_the_crisis_stage() -> None:
    """The crisis rules run first (yaksa.scope.crisis); what they take keeps its crisis reply."""
    for text in ("죽고 싶어요", "수면제 50알 먹었어요"):
        assert crisis_kind(text) is not None and triage(text).startswith("crisis:")


def test_a_red_flag_decision_is_answered_and_keeps_the_scope_models_verdict() -> None:
    flag = red_flag("50일 된 아기가 열이 38.2도예요")
    refused = ScopeDecision(False, "model", {"p": 0.1}, "scope-lr-v1")
    overridden = red_flag_decision(flag, refused)
    assert overridden.in_scope and overridden.model == RED_FLAG_RULES
    assert overridden.signals["scope_model"]["in_scope"] is False and overridden.signals["red_flag"] == flag.rule_id
    kept = red_flag_decision(flag, ScopeDecision(True, "model", {"p": 0.9}, "scope-lr-v1"))
    assert kept.in_scope and kept.model == "scope-lr-v1" and kept.signals["red_flag"] == flag.rule_id


def test_no_committed_question_trips_the_rules() -> None:
    """The scope exemplars, the natural Korean set and the MFDS symptom questions: none needs care now
    (two are told to see a doctor soon: frequent nosebleeds, which a doctor should look into)."""
    texts = [q.text for q in scope_questions()] + [q.question for q in natural_questions()]
    texts += [q for _, q in SYMPTOM_QUESTIONS]
    assert len(texts) > 1000
    assert [t for t in texts if (flag := red_flag(t)) and flag.is_urgent] == []
    soon = {t: flag.rule_id for t in texts if (flag := red_flag(t))}
    assert soon == {"코피가 자주 나요": "nosebleed_recurrent", "What causes frequent nosebleeds?": "nosebleed_recurrent"}


@pytest.mark.parametrize("text", [
    ("타이레놀 2알 먹어도 되나요? 두통이 심해서요. " * 80)[:2000],
    ("가슴이 아프고 숨이 차요. " * 200)[:2000],
    ("아기 15개월 생후 50일 39.5도 40도 " * 100)[:2000],
    ("약 먹었 " * 400)[:2000],
    ("3" * 1999) + "도",
    ("I took pills and my chest hurts, baby fever 38.5, " * 50)[:2000],
    ("열 열 열 열이 38도 " * 200)[:2000],
])
def test_a_long_message_is_read_in_a_few_milliseconds(text: str) -> None:
    """Every turn runs the rules: a 2,000-character message costs a few ms (about 2-5 ms on a loaded
    2-core machine; typical questions about 0.1 ms). Best of 5; the bound leaves room for a busy CI."""
    red_flag(text)
    best = min(_timed(text) for _ in range(5))
    assert best < 0.025


def test_a_typical_question_costs_well_under_a_millisecond() -> None:
    questions = [q.question for q in natural_questions()][:200]
    for q in questions:
        red_flag(q)
    start = time.perf_counter()
    for q in questions:
        red_flag(q)
    assert (time.perf_counter() - start) / len(questions) < 0.002


def _timed(text: str) -> float:
    start = time.perf_counter()
    red_flag(text)
    return time.perf_counter() - start


# --- the committed phrasings -----------------------------------------------------------------------

PHRASINGS = load_phrasings()


def test_the_phrasings_are_packaged_large_and_cover_both_splits() -> None:
    assert resources.files("yaksa.scope").joinpath("data", "red_flag_phrasings.tsv").is_file()
    assert len(PHRASINGS) >= 80 and sum(not r.flagged for r in PHRASINGS) >= 30
    assert len({r.text for r in PHRASINGS}) == len(PHRASINGS)
    for split in SPLITS:
        rows = [r for r in PHRASINGS if r.split == split]
        assert any(r.flagged for r in rows) and any(not r.flagged for r in rows)


def test_a_phrasing_cannot_move_between_splits() -> None:
    row = next(r for r in PHRASINGS if r.split == "tune")
    with pytest.raises(ValueError, match="disagrees"):
        parse_phrasings(f"{row.rid}\theld_out\t{row.expected}\t{row.text}\n")
    with pytest.raises(ValueError, match="rule id"):
        parse_phrasings(f"{row.rid}\ttune\tnot_a_rule\t{row.text}\n")


@pytest.mark.parametrize("row", [r for r in PHRASINGS if r.split == "tune"], ids=lambda r: r.rid)
def test_every_tuning_phrasing_gets_its_rule(row) -> None:
    got = triage(row.text)
    assert (got or NONE) == row.expected or (got or "").startswith("crisis:"), row.text


def test_figures_per_split(capsys: pytest.CaptureFixture[str]) -> None:
    """Held-out rows are not tuned on: held to a floor, not row by row (printed with -s)."""
    reports = evaluate(PHRASINGS, prefix="phrasings/")
    with capsys.disabled():
        print()
        for split in SPLITS:
            print(reports[split].line())
    assert reports["tune"].recall == 1.0 and reports["tune"].false_alarms == 0
    assert reports["held_out"].recall >= 0.9 and reports["held_out"].false_alarms == 0


# --- the hand labels of real posts -----------------------------------------------------------------

LABELS = load_post_labels()


def test_the_post_labels_hold_ids_labels_and_notes_only() -> None:
    """The posts have no content licence: the committed file has three columns and no post text."""
    assert len(LABELS) >= 150
    text = resources.files("yaksa.scope").joinpath("data", "red_flag_post_labels.tsv").read_text("utf-8")
    for line in text.splitlines():
        if line and not line.startswith("#"):
            assert line.count("\t") == 2
    for lab in LABELS:
        assert re.fullmatch(r"(hidoc-C\d{10}|kin-kin\d+)", lab.post_id), lab.post_id
        assert lab.note.split(":")[0] in ORIGINS and len(lab.note) < 140
    assert sum(lab.label != NONE for lab in LABELS) >= 50
    with pytest.raises(ValueError, match="duplicate"):
        parse_post_labels(f"{LABELS[0].post_id}\tnone\trandom: x\n" * 2)


@pytest.fixture(scope="module")
def posts() -> dict[str, dict]:
    path = posts_file()
    if path is None:
        pytest.skip("the shared real-questions pool is not here (its text is never committed)")
    return load_posts(path)


def test_no_note_quotes_its_post(posts: dict[str, dict]) -> None:
    for lab in LABELS:
        post = posts[lab.post_id]["question"]
        for run in re.findall(r"[가-힣]{6,}", lab.note):
            assert run not in post, (lab.post_id, run)


def test_figures_on_the_labelled_posts(posts: dict[str, dict], capsys: pytest.CaptureFixture[str]) -> None:
    """Recall on posts labelled before the rules were written; the pool's false-alarm rate on the
    random sample (printed with -s). Floors a little under the committed figures."""
    rows, missing = labelled_posts(LABELS, posts)
    assert not missing
    before = evaluate([r for r in rows if r.origin in ("random", "keyword")], prefix="posts/before-rules/")
    sample = [r for r in rows if r.origin == "random"]
    random_report = evaluate(sample, prefix="posts/random/")
    with capsys.disabled():
        print()
        for split in SPLITS:
            print(before[split].line())
            print(random_report[split].line())
    assert before["tune"].recall >= 0.9
    false_alarms = sum(r.false_alarms for r in random_report.values())
    assert false_alarms / sum(r.n_none for r in random_report.values()) <= 0.1


# --- see a doctor soon (urgency `soon`) and pre-eclampsia --------------------------------------------

@pytest.mark.parametrize(("text", "rule"), [
    ("65세 어머니가 혈압약을 드시는데 3주째 마른 기침이 계속돼요. 감기약을 사다 드려도 될까요?", "cough_three_weeks"),
    ("기침한 지 한 달 넘었어요", "cough_three_weeks"),
    ("두 달째 기침이 안 멈춰요", "cough_three_weeks"),
    ("I have had a cough for four weeks now", "cough_three_weeks"),
    ("기침이 30일째 계속돼요", "cough_three_weeks"),
    ("기침이 조금 줄긴 했는데 아직도 한 달째 계속돼요", "cough_three_weeks"),   # less, but still there
    # the long post of the closing note: breathless for 40 days, asking about tonics
    ("40일째 숨이 차는데 비타민이랑 쌍화탕 같이 먹어도 되나요?", "breathless_weeks"),
    ("한 달 넘게 숨이 차요. 계단 오를 때 특히 그래요", "breathless_weeks"),
    ("약 40일전쯤 낮잠을 자고 일어난 후부터 숨이 차는 느낌이 있었습니다", "breathless_weeks"),
    ("I've been short of breath for several weeks", "breathless_weeks"),
    # a real post's 16-year-old: chest pain for three years, "가래나오는데 피가 섞여나올때가 많구요"
    ("양치할때보면은 가래나오는데 피가 섞여나올때가 많구요", "haemoptysis_soon"),
    ("기침할 때 피가 나와요", "haemoptysis_soon"),
    ("가래에 핏줄이 보여요", "haemoptysis_soon"),
    # a real post (weeks of phlegm after antibiotics, chest and back pain) wrote the blood as a colour
    ("누런색과 약간붉은색이 섞인 가래가 지속돼요", "haemoptysis_soon"),
    ("가래가 빨간색이에요", "haemoptysis_soon"),
    ("I have been coughing up blood since yesterday", "haemoptysis_soon"),
    ("두 달째 명치가 쓰리고 신물이 올라와요. 체중도 좀 빠진 것 같아요.", "upper_gi_alarm"),
    ("밥을 삼키기 힘들고 살이 빠졌어요", "upper_gi_alarm"),
    ("어제부터 오른쪽 가슴이 찌르듯이 아파요. 숨을 크게 쉬면 더 아파요.", "chest_pain_on_breathing"),
    ("오른쪽 가슴이 숨을 쉴때마다 통증이 오는데 왜 그런가요.", "chest_pain_on_breathing"),   # 쉴 is no 쉬
    ("가슴이 아프고 숨을 들이쉴 때 따끔해요", "chest_pain_on_breathing"),
    # a real post (pain on breathing in after hitting the chest, 8 days): the pain said 20 characters on
    ("숨을 들이마시면 왼쪽 가슴 윗부분에 조여드는 듯한 느낌이 심하고 아파요", "chest_pain_on_breathing"),
    ("숨을 들이마시면 가슴 한쪽이 조여드는 느낌이 들면서 아파요", "chest_pain_on_breathing"),
    ("왼쪽 가슴에 통증이 며칠째 계속돼요. 깊은 숨 쉴 때 더욱더 심해요", "chest_pain_on_breathing"),
    # effort brings it on (NHS Angina): a real post's 49-year-old on blood-pressure tablets, tight chest and
    # dizzy on hikes, got "no label matches" (written again, shorter)
    ("산행시 운동시 가슴이 답답하고 머리가 어지럽고 현기증이 발생합니다", "chest_pain_exertion"),
    ("운동할 때마다 가슴이 조이는 느낌이 들어요", "chest_pain_exertion"),
    ("등산할 때 가슴이 답답하고 쉬면 괜찮아져요", "chest_pain_exertion"),
    ("계단을 오를 때 가슴이 뻐근하게 아파요", "chest_pain_exertion"),
    ("빨리 걸으면 가슴 가운데가 묵직하게 눌리는 느낌이 나요", "chest_pain_exertion"),
    ("I get chest tightness when I exercise and it goes away when I rest", "chest_pain_exertion"),
    # heartburn's words with effort (two real posts, written again: on climbing, and "반드시" with exercise)
    ("등산을 하면 가슴이 쓰리고 쉬면 괜찮아져요", "chest_burning_exertion"),
    ("운동이나 활동이 있을때 가슴쓰림이 나타나요", "chest_burning_exertion"),
    ("I get heartburn while walking uphill", "chest_burning_exertion"),
    ("My chest feels tight when I walk uphill", "chest_pain_exertion"),     # the verb's plain form
    ("I get a pressure in my chest if I climb the stairs", "chest_pain_exertion"),
    ("임신 20주인데 두통이 심해요. 타이레놀 먹어도 되나요?", "pregnancy_pre_eclampsia"),
    ("임신 32주인데 눈앞이 번쩍거리고 머리가 아파요", "pregnancy_pre_eclampsia"),
    ("I'm 30 weeks pregnant with a severe headache", "pregnancy_pre_eclampsia"),
    ("코피가 자주 나요", "nosebleed_recurrent"),   # got 코푸시럽's doses, then vitamin C labels alone
    ("초등학생 아들이 거의 매일 코피가 나요", "nosebleed_recurrent"),
    ("요즘 코피가 일주일에 몇 번씩 나는데 병원 가야 하나요?", "nosebleed_recurrent"),
    ("아스피린 먹고 나서 코피가 자주 나요", "nosebleed_recurrent"),
    ("My son gets nosebleeds almost every day", "nosebleed_recurrent"),
    ("숨을 쉴때마다 등과 가슴 중간이 아픈데 병원 가봐야 할까요?", "chest_pain_on_breathing"),   # 아픈, 14 characters on
    # a headache that posture or straining changes (NICE CG150): a real post, worse on bending and walking, got
    # painkillers' doses; the issue's sudden headache on turning the head got acetaminophen's contraindications
    ("머리가 너무 아프고 고개를 숙일 때 심해져요", "headache_posture_or_strain"),
    ("고개를 돌릴 때 갑자기 두통이 생기고 어지러워요 아스피린도 안 들어요", "headache_posture_or_strain"),
    ("누우면 두통이 심해지고 토할 것 같아요", "headache_posture_or_strain"),
    ("My headache gets worse when I bend over", "headache_posture_or_strain"),
    # a real post (lupus nephritis, the legs swelling more for two days on a new prescription) got no line on it
    ("신장내과 다니는데 그제부터 다리 부종이 많이 심해졌어요", "swelling_worse_kidney_heart"),
    ("투석 받는 아버지 다리가 점점 더 부어요", "swelling_worse_kidney_heart"),
    ("심부전 진단 받았는데 요즘 발목이 계속 부어요", "swelling_worse_kidney_heart"),
    ("단백뇨가 있는데 붓기가 며칠째 안 빠져요", "swelling_worse_kidney_heart"),
    ("I have kidney disease and my legs are getting more swollen", "swelling_worse_kidney_heart"),
])
def test_lasting_symptoms_and_alarm_features_are_sent_to_a_doctor(text: str, rule: str) -> None:
    assert rule_of(text) == rule


@pytest.mark.parametrize("text", [
    "기침이 2주째예요",                               # not yet three weeks
    # a real post's 29-year-old (written again): the cough is easing, the month is the warm forehead's
    "요즘 기침도 덜하고 콧물도 없는데 이마가 뜨끈한 게 한 달 넘게 그랬어요",
    "기침은 많이 줄었는데 3주째 목이 칼칼해요",
    "My cough is getting better but my nose has been blocked for four weeks",
    "숨이 차요, 3일째예요",                            # breathless for days: not weeks
    "운동 시작한 지 3일째인데 숨이 차요",                 # days, not weeks
    "3개월 된 아기가 기침을 해요",                      # an age, not how long
    "다이어트로 살이 빠졌는데 속쓰림이 있어요",            # weight lost on purpose
    "목이 아파서 침 삼킬 때 아파요",                     # a sore throat, not food sticking
    "임신 10주인데 두통이 심해요",                      # before 20 weeks: no pre-eclampsia rule
    "임신 30주인데 변비가 심해요",
    "양치할 때 잇몸에서 피가 나요",                      # gums, not the lungs
    "가래에 피는 안 섞여 나와요",                        # negated
    "기침이 심하고 가래가 많아요",
    "코감기 때문에 코를 자주 풀어요",                     # 자주 without a nosebleed
    "코피가 났는데 금방 멈췄어요",                        # once, stopped
    "운동 끝나고 가슴 근육이 아파요",                     # after the effort: a strained muscle
    "헬스하고 다음날 가슴이 뻐근해요",
    "운동할 때 숨이 차는 건 정상인가요?",                 # no chest pain
    "밥 먹고 누우면 가슴이 쓰려요",                       # heartburn at rest: no effort
    "운동 끝나고 술 마셨더니 가슴이 쓰려요",                # after the effort
    "숨을 들이마시면 가슴이 시원해져요",
    "신장내과 다니는데 부종은 심해지지 않았어요",          # negated
    "짜게 먹고 잤더니 얼굴이 부었어요",                    # no kidney or heart disease
    "신장 180에 몸무게 80인데 다리가 많이 부었어요",        # 신장 is the height here
    "My chest hurts when I run out of my heartburn pills",   # running out is no effort
    "여드름 짠 상처에 고름이 차요",                        # a pimple's pus
    "뜨거운 물에 데인 상처에 어떤 연고를 발라요?",            # the water was hot, not the wound
    "상처에 연고를 발랐는데 고름은 없어요",                  # negated
    "진드기에 물렸는데 열은 없어요",                         # no fever yet
])
def test_the_see_a_doctor_rules_stay_quiet_where_they_do_not_apply(text: str) -> None:
    assert rule_of(text) is None


def test_a_formal_ending_run_into_the_next_sentence_ends_the_clause() -> None:
    """"머리가너무아픕니다열이나는건아니고" (a real post, no spaces): the fever's denial denied the headache."""
    text = "이유없이 머리가너무아픕니다열이나는건아니고 고개를숙일때 심해요"
    assert rule_of(text) == "headache_posture_or_strain"
    assert rule_of("머리가 아픈 건 아니고 고개를 숙일 때 목이 아파요") is None


def test_asking_whether_it_is_normal_denies_nothing() -> None:
    """"운동시 숨이 가쁘면 가슴이 따가게 아픈 정상은" (a real post, 2026-12-02): its "정상" read as a finding said normal
    denied both the pain and the breathlessness; a finding said normal still denies."""
    assert rule_of("운동할 때 숨이 가쁘면 가슴이 따갑게 아픈데 정상인가요?") == "chest_pain_red"
    assert rule_of("운동시 숨이 가쁘면 가슴이 따가게 아픈 정상은") == "chest_pain_red"
    assert rule_of("가슴 통증은 검사해 보니 정상이래요. 숨이 차요") is None


def test_a_more_urgent_rule_wins_over_see_a_doctor_soon() -> None:
    text = "3주째 기침을 하는데 오늘은 가슴이 아프고 숨이 차요"
    assert rule_of(text) == "chest_pain_red" and red_flag(text).urgency == EMERGENCY
    assert red_flag("3주째 기침이 나요").urgency == SOON


def test_a_nosebleed_that_will_not_stop_is_an_emergency_even_if_it_is_frequent() -> None:
    assert rule_of("코피가 자주 나는데 오늘은 30분째 안 멈춰요") == "nosebleed_uncontrolled"
    assert red_flag("코피가 30분째 안 멈춰요").urgency == EMERGENCY
    assert rule_of("My nosebleed won't stop") == "nosebleed_uncontrolled"


def test_see_a_doctor_soon_is_no_red_flag_to_the_evaluation() -> None:
    text = "기침이 3주째 계속돼요"
    assert red_flag(text).rule_id == "cough_three_weeks" and triage(text) is None


@pytest.mark.parametrize(("text", "rule"), [
    # a fall, then a bump and vomiting: a toddler's head injury though the post never says "머리"
    ("15개월 아기가 계단에서 넘어졌어요. 그날 저녁부터 혹이 났고 오늘 토했어요", "head_injury"),
    # discharged last week, now limp and vomiting everything: at home, not "in hospital"
    ("저번주에 입원했다가 퇴원했습니다. 아기가 다 토하고 힘없이 누워만 있어요", "child_red_signs"),
    # breathlessness with words between 숨 and 쉬기 ("숨도요즘 가끔 쉬기힘들어"), beside chest pain
    ("왼쪽 가슴이 가끔 아프고 숨도요즘 가끔 쉬기힘들어질대도 있습니다", "chest_pain_red"),
])
def test_real_posts_wordings_of_a_head_bump_and_a_discharged_child(text: str, rule: str) -> None:
    assert rule_of(text) == rule


def test_a_bump_on_the_knee_and_a_child_still_in_hospital_are_not_these_flags() -> None:
    assert rule_of("넘어져서 무릎에 혹이 났는데 토했어요") is None
    assert rule_of("아기가 입원 중인데 다 토하고 힘없이 누워만 있어요") is None


def test_a_fever_in_pregnancy_needs_a_doctor_today_even_when_it_comes_and_goes() -> None:
    """NICE NG51 / NHS: a fever in pregnancy is checked the same day; "열이 났다 안났다" is a fever that
    comes and goes (its "안났" once read as "no fever")."""
    from yaksa.scope.red_flags import red_flag as flag

    came_and_went = flag("임신9개월인데요, 계속 열이 났다 안났다 반복하고 자면서 땀을 너무흘려요")
    assert came_and_went is not None and (came_and_went.rule_id, came_and_went.urgency) == ("pregnancy_fever", "today")
    assert flag("임신 중인데 열은 없어요 두통만 있어요") is None
    assert flag("열은 안 났어요") is None
    assert flag("출산 후 열이 나요") is None or flag("출산 후 열이 나요").rule_id != "pregnancy_fever"


@pytest.mark.parametrize("text", ["아이가 해열제를 두 배로 먹었어요 어떡해요", "실수로 아이한테 감기약을 두 번 먹였어요",
                                  "아기한테 타이레놀 먹인 걸 잊고 또 먹였어요"])
def test_a_child_given_too_much_medicine_is_told_to_get_advice_today(text: str) -> None:
    """"아이가 해열제를 두 배로 먹었어요 어떡해요" got antipyretics' uses and doses (found as a user, 2026-11-30). NHS:
    call for advice if a child has had too much paracetamol or ibuprofen, even if they seem well."""
    flag = red_flag(text)
    assert flag is not None and flag.rule_id == "child_extra_dose" and flag.urgency == "today"
    assert flag.withhold_doses and "119" in flag.advice(text) and "다음 약을 먹이지 마세요" in flag.advice(text)


@pytest.mark.parametrize("text", ["아이가 밥을 두 배로 먹었어요", "아이 해열제 하루 두 번 먹였어요 괜찮나요",
                                  "아이 해열제 두 배로 먹여도 되나요?", "타이레놀 실수로 두 번 먹었어요"])
def test_food_a_dose_asked_about_or_an_adult_is_not_a_childs_extra_dose(text: str) -> None:
    flag = red_flag(text)
    assert flag is None or flag.rule_id != "child_extra_dose"
