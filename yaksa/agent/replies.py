"""Fixed replies for turns that need no evidence: greetings, profile statements, refusals, crises,
and the urgent advice a red-flag message gets before its answer (`with_red_flag`).

Why fixed text: these turns must not call an LLM (a refusal especially: out-of-scope questions
are refused before any LLM call), and they are the same for every user. Whether a message is a
statement at all is decided by `yaksa.extraction.speech_act.message_kind`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from yaksa.agent.source_notice import NO_RELEVANT_EVIDENCE
from yaksa.extraction.post_reader import PostReading
from yaksa.lexicon.focus import CHILD_POPULATIONS, Focus, describes_a_body_complaint
from yaksa.lexicon.food import DRINKS
from yaksa.lexicon.linking import DIETARY_INGREDIENTS
from yaksa.lexicon.prescription_classes import prescription_classes_named
from yaksa.llm.offline.extractive import care_department, care_note, cause_note
from yaksa.llm.safety import CITATION, SAFETY_LINE_EN, SAFETY_LINE_KO, SAFETY_PHRASE, has_safety_line
from yaksa.scope.crisis import OVERDOSE_TAKEN
from yaksa.scope.red_flags import RedFlag, flag_of
from yaksa.text.hangul import with_particle

_HANGUL = re.compile(r"[\uac00-\ud7a3]")


def chitchat_reply(text: str) -> str:
    if _HANGUL.search(text) or not text.isascii():
        return ("안녕하세요! 약의 효능, 복용법, 부작용, 상호작용이나 증상에 맞는 일반의약품이 궁금하시면 "
                "편하게 물어보세요.")
    return "Hello! Ask me about a medicine's uses, dosing, side effects or interactions."


def statement_reply(summary: str) -> str:
    remembered = f" 지금까지 기억한 내용: {summary}" if summary else ""
    return (f"말씀하신 내용을 기억해 두고 다음 답변에 반영할게요.{remembered} "
            "궁금한 약이나 증상을 물어보세요.")


def care_reply(post: PostReading) -> str:
    """A long post whose every question needs a doctor and that names no medicine: said plainly, with
    where to go (`yaksa.llm.offline.extractive.care_note`); no drug label is quoted, since none answers it."""
    return care_note(post)


def cause_care_reply(text: str, population: Sequence[str] = ()) -> str:
    """A short question that asks only what causes a complaint and names no drug or symptom the labels treat
    ("4살인데 입냄새가 심해요, 원인은 무엇일까요?"): only `cause_note`, no label (a lozenge's cautions and
    painkillers' side effects were quoted). `population` is the turn's focus's."""
    return cause_note(text, population)


def redose_care_reply(text: str, population: Sequence[str] = ()) -> str:
    """A dose brought back up, and whether to give it again (`yaksa.lexicon.redose`): no label says, and how much
    was absorbed is not known, so a second dose may be a double one; whom to ask, what to tell them, and when
    the vomiting itself needs a doctor. `population` is the turn's focus's (a child's: "먹여도", the 소아청소년과)."""
    child = bool(CHILD_POPULATIONS & set(population))
    give, again, before, who = (("먹여도", "다시 먹이면", "다시 먹이기", "아이가 ") if child
                                else ("먹어도", "다시 먹으면", "다시 먹기", ""))
    where = care_department(population)
    return (f"약을 먹은 뒤 토했을 때 다시 {give} 되는지는 의약품 허가 정보에 적혀 있지 않아 답으로 드리지 않습니다. "
            f"토하기 전에 약이 얼마나 흡수됐는지 알 수 없어 {again} 두 번 먹는 셈이 될 수 있습니다. {before} 전에 "
            "약 이름과 먹은 양, 먹은 시각과 토한 시각을 약사나 의사에게 알리고 물어보세요. 약국이나 병원이 문을 "
            f"닫았으면 119에 전화해 의료 상담을 받을 수 있습니다. {who}계속 토하거나 물도 마시지 못하거나 소변이 "
            f"줄거나 축 처지면 오늘 {where}에서 진료를 받으세요. {SAFETY_LINE_KO}")


def expiry_care_reply(text: str, population: Sequence[str] = ()) -> str:
    """A medicine past its expiry date (`yaksa.lexicon.expiry`): no label says (the date is on the pack), so what
    the date means, not to take it, and where it goes; no label quoted (a storage section was before)."""
    use = "먹이거나 바르지" if CHILD_POPULATIONS & set(population) else "먹거나 바르지"
    return ("사용기한(유통기한)이 지난 약을 써도 되는지는 이 서비스가 답하는 의약품 허가 정보에 따로 적혀 있지 않습니다"
            "(기한은 약의 포장에 적혀 있습니다). 사용기한은 정해진 방법으로 보관했을 때 약의 품질이 보증되는 기한이라, "
            f"지난 약은 효과나 안전을 장담할 수 없으니 {use} 마세요. 지난 약은 일반 쓰레기로 버리지 말고 약국이나 "
            "보건소 등의 폐의약품 수거함에 가져가세요. 같은 약이 필요하면 약사와 상담해 새로 구하세요. "
            f"{SAFETY_LINE_KO}")


def post_care_reply(post: PostReading, population: Sequence[str] = ()) -> str:
    """A long post about complaints no label treats, naming no medicine and asking about none: no label is
    quoted (its everyday words found a cream's efficacy and a syrup's dosing for stabbing chest pain); its
    questions for a doctor are named when it has any (`care_note`), else where to go."""
    where = care_department(population)
    first = ("글에 적으신 증상에 쓰는 약을 의약품 허가 정보에서 찾지 못했고, 약에 관해 물으신 것도 없어 "
             "허가 정보를 인용하지 않습니다.")
    rest = care_note(post, labels_follow=False) or (
        f"{where}에서 진료를 받아 원인을 확인하세요. 증상이 심해지거나 오래가면 미루지 마세요. {SAFETY_LINE_KO}")
    return f"{first} {rest}"


def symptom_care_reply(text: str, population: Sequence[str] = ()) -> str:
    """A short message about a complaint no label treats, naming no medicine, whose search found only other
    medicines' side-effect lists naming its words ("가슴이 답답하고 심장이 벌렁거려요" got naproxen's): said
    plainly, with where to go, and no label quoted."""
    child = bool(CHILD_POPULATIONS & set(population))
    if _HANGUL.search(text):
        where = care_department(population)
        return ("말씀하신 증상에 쓰는 약은 의약품 허가 정보에서 찾지 못했습니다. 다른 약들의 부작용 목록에 같은 말이 "
                f"나올 뿐이라 답으로 드리지 않습니다. {where}에서 진료를 받아 원인을 확인하세요. 증상이 심해지거나 "
                f"오래가면 미루지 마세요. {SAFETY_LINE_KO}")
    return ("The medicine labels I answer from name no medicine for this complaint, only other medicines' side "
            f"effects that share its words. Please see a doctor{' (a paediatrician for a child)' if child else ''} "
            f"to find the cause. {SAFETY_LINE_EN}")


def prescription_class_reply(classes: Sequence[str], *, a_complaint: bool = False) -> str:
    """A short Korean question about a prescription medicine the data holds no label of ("혈압약 먹어도 운동해도
    되나요?", `prescription_classes_named`): said plainly, and sent to whoever prescribed or dispensed it, since
    which medicine it is decides the answer; no other medicine's label is quoted. With `a_complaint` (the message
    says how the body feels: "혈압약 먹는데 가슴이 두근거려요"), the complaint may be the medicine's, and is the
    doctor's to hear."""
    names = with_particle(", ".join(classes[:3]), "은", "는")
    complaint = (" 말씀하신 증상이 약 때문일 수도 있으니 처방한 의사에게 알리고, 심해지면 미루지 말고 진료를 받으세요."
                 if a_complaint else "")
    return (f"{names} 자료에 허가 정보가 없어 답변드리기 어렵습니다. 다른 약의 정보로 대신 답하지 않습니다. "
            f"처방한 의사나 약을 지어 준 약국에 드시는 약 이름을 말하고 물어보세요.{complaint} {SAFETY_LINE_KO}")


# where Korean disease information is, since the drug labels hold none (the KDCA's national health portal)
DISEASE_INFO_SOURCE = "국가건강정보포털(health.kdca.go.kr)"


def nothing_relevant_reply(question: str, focus: Focus, post: PostReading | None = None) -> str:
    """The reply when no found label is about the asked symptom: for a Korean question naming a prescription medicine
    by its class ("혈압약 먹는데 어지러워요"), that the data has no label of it and the complaint may be its, for the
    prescriber to hear (`prescription_class_reply`); for a short one asking the cause or where to go ("…
    4일동안 지속되고 있습니다. 어디 병원을 가봐야되는건가요?", a real post told only "the data has nothing"), that
    an examination answers it (`cause_care_reply`); for one telling how the body feels, that no label treats
    it and where to be seen (`symptom_care_reply`), and for a long post asking nothing of a medicine its
    questions for a doctor (`post_care_reply`); else that the data has nothing that answers it."""
    classes = prescription_classes_named(question) if focus.lang == "ko" else ()
    if classes:
        return prescription_class_reply(classes, a_complaint=True)
    if focus.lang != "ko":
        return NO_RELEVANT_EVIDENCE
    if post is not None and post.long:   # a long post asking nothing of a medicine: its questions for a doctor, named
        asks_of_a_medicine = any(q.kind == "medicine" for q in post.questions)
        return NO_RELEVANT_EVIDENCE if asks_of_a_medicine else post_care_reply(post, focus.population)
    if post is not None and post.asks_cause:
        return cause_care_reply(question, focus.population)
    if describes_a_body_complaint(question):   # "… 어지럽고 가슴이 답답합니다" and nothing asked
        return symptom_care_reply(question, focus.population)
    return NO_RELEVANT_EVIDENCE


def disease_info_reply(conditions: Sequence[str]) -> str:
    """A short Korean question about a disease in general ("고혈압 증상이 뭐예요?", "당뇨 초기 증상"): the drug
    labels hold no disease information, so none is quoted; where to read it, and to see a doctor. It got
    "no medicine for the complaint you describe" before, as if the writer had the symptom."""
    names = with_particle(", ".join(conditions[:3]), "의", "의")
    return (f"{names} 증상이나 원인 같은 질환 정보는 이 서비스가 답하는 의약품 허가 정보에 없어 답으로 드리지 "
            f"않습니다. {DISEASE_INFO_SOURCE}에서 질환 정보를 확인하시고, 걱정되는 증상이 있으면 병원에서 진료를 "
            f"받으세요. {SAFETY_LINE_KO}")


def food_info_reply(foods: Sequence[str], population: Sequence[str] = (), *, which_medicine: str | None = None) -> str:
    """A short Korean question about what to eat, naming no medicine (`yaksa.lexicon.food`: "콜레스테롤이 높은데
    달걀 먹어도 되나요?"): the drug labels hold nothing on food, so none is quoted; who decides a diet (for a
    pregnancy or a baby, their doctor), and that a named medicine's label does say what not to take it with.

    `which_medicine`: the question may ask which medicine is safe ("당뇨 있는데 뭐 먹어도 돼요?",
    `yaksa.lexicon.food.what_to_eat_for`); the person's condition ("당뇨병"), "임신 중" or "수유 중", so the reply says how
    to ask that too."""
    named = [f for f in foods if f != "음식"]
    child = bool(CHILD_POPULATIONS & set(population))
    verb = ("먹여도" if child else "마셔도" if named and all(f in DRINKS for f in named)
            else "섭취해도" if named and all(f in DIETARY_INGREDIENTS for f in named) else "먹어도")
    what = f"{with_particle(', '.join(named[:3]), '을', '를')} {verb} 되는지" if named else "어떤 음식이 좋은지"
    who = ("산부인과 의사" if "pregnant" in population or "breastfeeding" in population
           else "소아청소년과 의사" if child else "진료하는 의사나 임상영양사")
    medicine = ("드셔도 되는 약을 물으신 거라면 드시려는 약의 이름이나 증상을 알려 주세요. 그 약의 허가 정보에서 "
                f"{which_medicine}에 조심할 내용을 찾아 드립니다. ") if which_medicine else ""
    return (f"{what}는 이 서비스가 답하는 의약품 허가 정보에 없는 내용이라 답으로 드리지 않습니다. 지병이나 임신, "
            f"아이의 나이에 맞는 식사는 {who}와 상의하세요. {medicine}복용 중인 약이 있으면 약 이름을 알려 주세요. 그 약의 "
            f"허가 정보에 함께 먹으면 안 되는 음식이나 술이 적혀 있으면 찾아 드립니다. {SAFETY_LINE_KO}")


_GUIDELINE = re.compile(r"NICE (?:NG|CG)\d+|NICE CKS")


def fever_care_reply(text: str, flags: Sequence[RedFlag]) -> str:
    """A question about when a fever needs a doctor ("아기 열이 몇 도부터 병원 가야 해요?",
    `yaksa.scope.when_to_go.rules_asked`): the advice of the red-flag rules that answer it, one per line, and
    the guidelines they come from; no drug label, since none says when to see a doctor."""
    sources = ", ".join(dict.fromkeys(m.group(0) for f in flags for m in _GUIDELINE.finditer(f.source)))
    lines = "\n".join(f"- {f.advice(text)}" for f in flags)
    if _HANGUL.search(text) or not text.isascii():
        return (f"열이 날 때 진료가 필요한 경우입니다(의약품 허가 정보가 아니라 진료 지침 {sources}에 따른 기준입니다).\n"
                f"{lines}\n이 밖에도 걱정되는 모습이 있으면 미루지 말고 진료를 받으세요. 해열제를 쓰기 전에는 약사나 의사 등 "
                f"{SAFETY_PHRASE}.")
    return (f"When a fever needs a doctor (from clinical guidelines, {sources}, not from medicine labels):\n"
            f"{lines}\nIf anything else worries you, do not wait to be seen. {SAFETY_LINE_EN}")


def with_watch_signs(answer: str, flags: Sequence[RedFlag] | None, text: str, *, first: bool = False) -> str:
    """The answer with, before its closing consult line, when the child's fever needs a doctor (`watch_rules`:
    a feverish child's dose question meeting no red-flag rule); unchanged without rules, for an empty answer,
    or when the answer already lists them (a cached answer, a fever-care reply).

    `first`: the list opens the answer, for a baby whose age is not known ("아기가 열이 올라요"): under 3 months any
    fever of 38 °C is "go now" (NICE NG143), which a parent must read before a label's children's dose."""
    if not flags or not answer.strip():
        return answer
    advice = [f.advice(text) for f in flags]
    if all(a in answer for a in advice):
        return answer
    if _HANGUL.search(text) or not text.isascii():
        block = "열이 날 때 진료가 필요한 경우(의약품 허가 정보가 아니라 진료 지침에 따른 기준입니다):\n"
    else:
        block = "When a fever needs a doctor (from clinical guidelines, not from medicine labels):\n"
    block += "\n".join(f"- {a}" for a in advice)
    if first:
        return f"{block}\n\n{answer}"
    head, sep, last = answer.rpartition("\n\n")
    if sep and has_safety_line(last) and not CITATION.search(last):
        return f"{head}\n\n{block}\n\n{last}"
    return f"{answer}\n\n{block}"


def post_fever_reply(text: str, flags: Sequence[RedFlag]) -> str:
    """A long post about a fever that asks how long it will last, whether it is all right or whether to wait
    ("언제까지 열이 지속되는지 괜찮은 증상인지": a 4½-year-old with 39 °C after a vaccination, who was only told
    to see a doctor): no label says that, so it is said first, in a paragraph of its own; then the red-flag
    rules that tell when the fever needs a doctor (`fever_care_reply`), for the person the post is about."""
    if not (_HANGUL.search(text) or not text.isascii()):
        return fever_care_reply(text, flags)
    return ("글에서 물으신 열이 얼마나 갈지, 이대로 지켜봐도 되는지는 열의 원인과 상태에 따라 달라 의약품 허가 정보로는 "
            "답할 수 없습니다. 대신 진료 지침이 말하는, 열이 날 때 진료를 받아야 하는 경우를 아래에 드립니다. 하나라도 "
            f"해당하면 미루지 마세요.\n\n{fever_care_reply(text, flags)}")


# "약을 먹고 있는데", "약 복용 중인데", "약을 먹은 지 1년": a medicine already taken
_TAKES_A_MEDICINE = re.compile(r"약(을|은|도)?\s*(먹고|먹은\s*지|복용\s*중|복용하고|복용한\s*지|처방받|처방\s*받)")


def mind_care_reply(text: str) -> str:
    """A question about a mental-health condition that names no medicine ("게임 중독 치료가 필요할까요?"):
    no drug label answers it, so it is said plainly, with where to go (a psychiatrist, or the free counselling of
    the local mental-health welfare centre: "심리상담은 어디서 받을 수 있나요?" asks exactly that) and the crisis line."""
    if _HANGUL.search(text):
        # already on a prescribed medicine ("공황장애 약을 먹고 있는데 언제까지 먹어야 하나요?"): how long, and how to
        # stop, is the prescriber's to say; stopping at once can bring the symptoms back
        prescribed = ("이미 처방받은 약을 드시고 있다면 얼마나 더 드실지, 줄이거나 끊는 방법은 처방한 의사와 상의해 정하시고 "
                      "임의로 끊지 마세요. ") if _TAKES_A_MEDICINE.search(text) else ""
        return ("물으신 내용은 마음 건강(정신건강)에 관한 것이라 의약품 허가 정보로는 답할 수 없습니다. "
                f"{prescribed}정신건강의학과에서 진료나 상담을 받아 보세요. 사는 곳의 정신건강복지센터(시·군·구마다 "
                "있습니다)에서도 무료로 상담받을 수 있습니다. 지금 많이 힘드시면 정신건강위기상담전화 "
                f"1577-0199(24시간)에서 바로 이야기를 들어 드립니다. {SAFETY_LINE_KO}")
    return ("Your question is about mental health, which the medicine labels I answer from do not cover. "
            "Please see a psychiatrist or a mental-health professional; if you are struggling right now, "
            f"call 1577-0199 (Korea, 24 hours) or your local crisis line. {SAFETY_LINE_EN}")


def refusal_reply(text: str) -> str:
    if _HANGUL.search(text):
        return ("죄송합니다. 이 질문은 의약품·건강 정보의 범위를 벗어나 답변드리기 어렵습니다. "
                f"약의 효능, 복용법, 부작용, 상호작용에 대해 물어봐 주세요. {SAFETY_LINE_KO}")
    return ("Sorry, this question is outside what I can answer: I cover medicines and health information "
            f"(uses, dosing, side effects, interactions). {SAFETY_LINE_EN}")


def device_reply(text: str) -> str:
    """A command for a phone's or an assistant's action, or an assistant's question for the day (`yaksa.scope.
    device_command`: "약 먹을 시간 되면 알려줘", "오늘 수원에 비가 오니"): what cannot be done is said, and what can."""
    if _HANGUL.search(text):
        return ("죄송합니다. 알림 설정, 문자 보내기, 일정 추가, 길 안내, 날씨나 날짜 확인, 집 안 기기의 확인이나 조작 같은 "
                "기기 기능은 할 수 없습니다. 약의 효능, "
                f"복용법, 부작용, 상호작용은 물어봐 주시면 허가 정보로 답해 드립니다. {SAFETY_LINE_KO}")
    return ("Sorry, I can't set reminders, send messages, add events, give directions, tell the weather or the "
            "date, or check or switch devices at home. Ask me about a "
            f"medicine's uses, dosing, side effects or interactions. {SAFETY_LINE_EN}")


def veterinary_reply(text: str) -> str:
    """A medicine given to or taken by an animal (`yaksa.scope.veterinary`: "개한테 타이레놀 먹여도 되나요?"): the labels
    are for people, so none is quoted; a veterinarian answers, and now if it was already eaten. No dose, and no 119:
    an animal hospital is where to call."""
    if _HANGUL.search(text):
        return ("이 서비스가 안내하는 의약품 허가 정보는 사람의 약에 관한 것이라 반려동물에게 먹이거나 바르는 약은 답으로 드리지 "
                "않습니다. 사람에게 쓰는 약 중에는 동물에게 해로운 것이 있으니, 먹이거나 바르기 전에 동물병원(수의사)에 "
                "물어보세요. 이미 먹었다면 먹은 약이나 제품의 이름과 양, 먹은 시각을 챙겨 지금 바로 동물병원에 연락하세요. "
                "동물의 약은 수의사 등 전문가와 꼭 상담하세요.")
    return ("The medicine labels this service answers from are for people, so nothing is quoted for an animal. Some "
            "human medicines are harmful to animals: ask a veterinarian before giving or applying one, and if your pet "
            "has already eaten one, call an animal hospital now with the medicine's name, the amount and the time. "
            "(동물의 약은 수의사 등 전문가와 꼭 상담하세요.)")


def harmful_reply(text: str) -> str:
    """A harmful request about medicines (`yaksa.scope.harmful`): refused, and said so plainly."""
    if _HANGUL.search(text):
        return ("죄송합니다. 처방 없이 규제 약물을 구하거나, 다른 사람에게 몰래 약을 먹이거나, 약물을 불법으로 "
                "만들거나 처방전을 위조하는 방법은 안내해 드릴 수 없습니다. 약이 필요하시면 의사나 약사와 상담하세요. "
                "누군가 이미 약을 먹고 위험하다면 지금 바로 119에 전화하세요.")
    return ("Sorry, I can't help with obtaining controlled drugs without a prescription, giving someone a drug "
            "without their knowledge, making illegal drugs or forging a prescription. Please talk to a doctor or "
            "pharmacist about a medicine you need; if someone is already in danger, call 119 now.")


_HELP_KO = ("자살예방상담전화 109(24시간), 정신건강위기상담전화 1577-0199, 생명의전화 1588-9191에서 "
            "지금 바로 이야기를 들어 드립니다.")
_EMERGENCY_KO = "이미 약을 많이 드셨거나 위급하면 지금 바로 119에 전화하거나 가까운 응급실로 가세요."
_HELP_EN = ("In Korea you can call 109 (suicide prevention, 24 hours) or 1577-0199 (mental health crisis line) "
            "right now; elsewhere, call your local emergency number.")
_EMERGENCY_EN = ("If you have already taken too much of a medicine or are in danger, call 119 now "
                 "(your local emergency number outside Korea) or go to the nearest emergency room.")


_POISON_ADVICE_KO = ("의식이 또렷하고 괜찮아 보여도 혼자 판단하지 마세요. 119에서 전화로 응급 의료 상담을 받을 수 있고, "
                     "질병관리청 콜센터 1339(24시간)에서도 상담받을 수 있습니다.")
_POISON_ADVICE_EN = ("Even if they are awake and seem well, do not wait it out alone: 119 gives medical advice by "
                     "phone, and in Korea the KDCA call centre 1339 (24 hours) can also advise.")


def crisis_reply(kind: str, text: str) -> str:
    """The fixed reply to a crisis message (`yaksa.scope.crisis`): where to get help now, no amounts.

    An overdose that has happened (a child who drank a bottle, pills taken) gets 119 and the
    emergency steps first, then 1339 as an extra line for advice when the person is awake and well,
    then 109 in case it was taken to cause harm; thoughts of dying and questions about a lethal amount
    get the people to talk to first (109, 1577-0199) and 119 for an overdose already taken. None of
    them ever says how much of anything is dangerous, or names a dose.
    """
    korean = bool(_HANGUL.search(text))
    if kind == OVERDOSE_TAKEN:
        if korean:
            return ("지금 바로 119에 전화하세요. 드신 약의 상자나 설명서를 챙겨 응급실로 가시고, 억지로 토하게 하지 "
                    "마세요. 의식이 흐리거나 숨쉬기 힘들면 기다리지 말고 바로 119를 부르세요. "
                    f"{_POISON_ADVICE_KO} 스스로를 해치려고 드신 거라면 자살예방상담전화 109(24시간)에서도 "
                    "지금 바로 이야기를 들어 드립니다.")
        return ("Call 119 now (your local emergency number outside Korea) and take the medicine's box or leaflet "
                "to the emergency room; do not make the person vomit. If they are drowsy or struggling to breathe, "
                f"do not wait. {_POISON_ADVICE_EN} If it was taken to cause harm, you can also call 109 "
                "(suicide prevention, 24 hours) right now.")
    if korean:
        return ("많이 힘드신 것 같아요. 혼자 견디지 않으셔도 됩니다. 약의 양이나 방법은 알려 드릴 수 없지만, "
                f"{_HELP_KO} {_EMERGENCY_KO} 가까운 사람에게 지금 연락하는 것도 도움이 됩니다.")
    return ("It sounds like you are going through something very hard, and you don't have to face it alone. "
            f"I can't help with amounts or methods. {_HELP_EN} {_EMERGENCY_EN} Reaching out to someone you trust "
            "right now can help too.")


def red_flag_reply(flag: RedFlag, text: str) -> str:
    """The urgent advice for a message that needs care now (`yaksa.scope.red_flags`), in its language:
    what to do (119, 응급실, a doctor today), never a dose. It is the first paragraph of the answer."""
    return flag.advice(text)


def with_red_flag(answer: str, red_flag: dict | None, text: str) -> str:
    """The final answer with the urgent advice first, for a turn whose trace carries `red_flag`
    ({"rule", "urgency"}); the answer itself (generated, cached or fixed) follows unchanged."""
    if not red_flag:
        return answer
    advice = red_flag_reply(flag_of(red_flag["rule"]), text)
    if answer.startswith(advice):
        return answer
    return f"{advice}\n\n{answer}" if answer.strip() else advice
