"""Signs of depression and anxiety as people write them: a reviewable table keyed to the screening items
clinicians use (PHQ-9 for depression, GAD-7 for anxiety; PC-PTSD-5, Mini-SPIN and DSM-5's panic and
agoraphobia criteria for trauma, social fear and panic; ICD-11's prolonged grief), read in Korean.

Why: mental health is health, and the team's test has posts from a mental-health Q&A source we may not
read. Such a post often names no condition, no medicine and nothing near a drug label: "요즘 감정 기복이
너무 심해요. 기분이 좋다가도 갑자기 우울해지고 짜증이 나요" (P 0.11), "취업 준비가 길어지면서 자신감이 완전히
없어졌어요. … 방에서 나가기 싫어요" (P 0.05) were refused as off-topic (2026-11-30; 4 of 22 such messages we
wrote), though each describes what a screening questionnaire asks about. One sign alone is everyday talk
("만나도 불안하면 어떡해?" is in Chatbot_data); two different signs in one message, or a named condition
(`names_mind_condition`), are a mental-health concern. The shared non-medical pool was filtered of
stress, sleep and suicide words by its makers (real-questions/SOURCE.md), and of its 3,000 questions
none shows two signs (`tests/lexicon/test_mind_signs.py` counts it where the data is present).

Each pattern states the problem itself ("잠을 못 자", "입맛이 없"), so a negation rarely reads as one; a
bare word ("불안", "짜증") is skipped when its clause denies it ("불안하지는 않아요").
"""

from __future__ import annotations

import re
from functools import cache

from yaksa.lexicon.scope_vocabulary import names_mind_condition

# (item, source, patterns): the item is the questionnaire's, in a few words; patterns are regexes over the
# message with spaces as written (" ?" where people write both ways)
SIGNS: tuple[tuple[str, str, str], ...] = (
    ("little interest or pleasure", "PHQ-9 1",
     r"재미(가|도)? ?없|씻기(도|가|조차)? ?싫|흥미(가|를)? ?(없|잃)|즐겁지(가|도)? ?않|아무 ?것도 ?(하기 ?싫|하고 ?싶지 ?않)|의욕(이|도)?[^.?!,]{0,6}?(없|안 ?생|떨어)|만사가 ?귀찮"),
    ("feeling down or hopeless", "PHQ-9 2",
     r"우울|울적|절망|희망이 ?없|앞으로 ?어떻게 ?살아야 ?할지|살아갈 ?(자신|용기|이유)(이|가)? ?없|미래가 ?(안 ?보|없|캄캄)|(매일|자꾸|계속|혼자) ?울(어|고|었|게|다)|눈물이 ?(나|자꾸|계속|멈추지|많아)|공허"),
    ("trouble sleeping, or sleeping too much", "PHQ-9 3",
     (r"잠(을|도|이|만)? ?(잘 ?)?못 ?자|잠이 ?안 ?(와|오|들)|잠들기 ?(가 ?)?(힘들|어렵)|불면|자다가 ?(자꾸 ?)?깨|새벽까지 ?(잠|못)"
     r"|하루 ?종일 ?(잠만|누워)|악몽")),
    ("tired, little energy", "PHQ-9 4", r"무기력|기운이 ?없|기력이 ?없|늘 ?피곤|몸이 ?축 ?처"),
    ("poor appetite or overeating", "PHQ-9 5",
     r"입맛이 ?없|식욕이 ?(없|떨어)|밥(을|도)? ?(잘 ?)?못 ?먹|(밥|음식)이 ?안 ?넘어|폭식|먹고 ?토"),
    ("feeling bad about oneself", "PHQ-9 6",
     (r"자존감(이|도)?[^.?!,]{0,6}?(낮|떨어|바닥)|자신감(이|도)?[^.?!,]{0,6}?(없|떨어)|한심|쓸모 ?없|죄책감|자책|실패자|못난 ?사람"
      r"|(제|내|나|저) ?자신(을|이)? ?[^.?!,]{0,8}?(비난|탓하|미워|싫어|혐오)")),
    ("trouble concentrating", "PHQ-9 7", r"집중(이|을|도)? ?(안|못|잘 ?안)|멍하"),
    ("restless or slowed down", "PHQ-9 8, GAD-7 5", r"안절부절|가만히 ?있(을 ?수|지) ?(가 ?)?없|초조"),
    ("nervous, anxious, on edge", "GAD-7 1",
     r"불안|긴장(이|을|돼|되|해)|조마조마|두려(워|움|운)|두렵(고|다|습|네)|무서(워|움|운)|무섭(고|다|습|네)|겁이 ?나"),
    ("worrying too much", "GAD-7 2-3",
     (r"걱정(이|을)? ?(너무|많|끊이|멈추|떠나지|떠올)|온갖 ?걱정|생각이 ?멈추지"
     r"|(안 ?좋은|나쁜|부정적인?) ?생각(이|만|들이)? ?(자꾸 ?|계속 ?|하루 ?종일 ?)?(떠올|들어|들고|나서|나요)|곱씹")),
    ("easily annoyed or irritable", "GAD-7 6", r"짜증|예민해|(?<![가-힣])화가 ?(나|참|치밀)|분노|감정 ?기복|기분 ?(변화|기복)"),
    ("withdrawing from people", "PHQ-9 1, functioning",
     (r"(사람|친구)(들)?(을|과|와)? ?(만나기|만나는 ?(것|게)|어울리)(가|도|는)? ?(싫|두렵|무섭|힘들|귀찮|못)|방에서 ?(안 ?|나가기)"
     r"|밖에 ?(나가기|안 ?나가)|대인 ?기피|외로(워|움|운)|외롭(고|다|습|네)")),
    # 2026-11-30, from 30 messages we wrote in the style of a mental-health Q&A (ours, not blind): 6 were refused,
    # among them nightmares with memories of a car crash, grief that stops daily life, fear of standing before
    # people and fear of going to school after bullying. None of these patterns meets any of the 3,000 shared
    # non-medical questions (counted that day; 무서 once, "무서운 이야기 해줄까?", one sign)
    ("unwanted memories of an event", "PC-PTSD-5 1",
     r"(장면|기억|모습|일)(이|들이)? ?(자꾸|계속|문득|자주|또)? ?떠올|플래시백"),
    ("avoiding places out of fear", "PC-PTSD-5 2",
     r"(학교|회사|직장|밖|집 ?밖)(에|으로|을)? ?(가기|나가기|가는 ?게|나가는 ?게|가는 ?것)(가|를|도|이)? ?(무섭|무서|두렵|두려|겁)"),
    ("afraid of people's eyes", "Mini-SPIN 1-3",
     r"사람들? ?앞에(서)? ?[^.?!,]{0,8}?(서면|서기|서는|말하|발표|떨|긴장)|남(들)?의 ?시선|시선(이|을)? ?[^.?!,]{0,6}?(두렵|무섭|신경 ?쓰)"),
    ("racing heart or breathless with fear", "DSM-5 panic attack",
     (r"심장이 ?(빨리 ?|막 ?|쿵쾅 ?)?(뛰|두근)|가슴이 ?(두근|답답|뛰)|숨이 ?(막히|막혀|막힐|차|안 ?쉬어|가빠)|쓰러질 ?것 ?같"
     r"|심장이 ?터질 ?것 ?같")),
    ("fear of dying or losing control in an attack", "DSM-5 panic attack 12-13",
     r"죽을 ?것 ?같은 ?(느낌|기분|공포)|미쳐 ?버릴 ?것 ?같|통제(가|를)? ?(안 ?될|잃을) ?것 ?같"),
    ("afraid of crowds or closed places", "DSM-5 agoraphobia A",
     r"사람(이|들이)? ?많은 ?(곳|데)|(지하철|엘리베이터|버스)(에서|을 ?타면|만 ?타면|를 ?타면)"),
    ("daily life impaired", "PHQ-9 10",
     (r"일상 ?생활(이|을|도|에)? ?[^.?!,]{0,6}?(안 ?되|안 ?돼|못 ?하|힘들|어렵|지장)"
      r"|(일|공부|아무 ?것)(이|도)? ?손에 ?(안 ?|잘 ?안 ?)?잡히(지 ?않|질 ?않)?|손에 ?안 ?잡혀")),
    # 2026-11-30: "자꾸 손을 씻게 되고 문이 잠겼는지 몇 번이나 확인해요" showed no sign (ours, not blind); washing and
    # checking are two items of the Y-BOCS symptom checklist, and each needs the repetition said
    ("repeated washing", "Y-BOCS checklist (washing)",
     (r"(자꾸|계속|몇 ?번(이나|씩)?|너무 ?자주|하루에 ?\d+ ?번) ?손(을|만)? ?(자꾸 ?|계속 ?)?씻|손(을|만)? ?(자꾸|계속|몇 ?번(이나|씩)?|너무 ?자주) ?씻"
     r"|씻고 ?또 ?씻")),
    ("repeated checking", "Y-BOCS checklist (checking)",
     r"(몇 ?번(이나|씩)?|여러 ?번|수십 ?번) ?(다시 ?)?확인(해|하|을)|확인하고 ?또 ?확인|확인(을|하는 ?걸)? ?멈출 ?수 ?없"),
    ("grief after a death", "ICD-11 6B42",
     (r"돌아가신 ?(뒤|후|다음|이후|지)|돌아가시고 ?(나서|난)|사별|세상을 ?떠난 ?(뒤|후|지)"
      r"|(잃은|떠나보낸|죽은|자살한) ?(뒤|후|다음|이후|지)|(잃고|떠나보내고|죽고) ?(나서|난 ?뒤|난 ?후)")),
    # 2026-12-01: "엄마가 돌아가신 지 1년이 지났는데 아직도 매일 생각나요" (ours, not blind) showed the death alone and was
    # refused; longing that has not eased is ICD-11's core of prolonged grief. Said of a lost love ("아직도 생각나")
    # it is one sign, as the death alone is
    ("longing that persists", "ICD-11 6B42 (persistent longing)",
     r"(아직도|여전히|지금도) ?(매일 ?|자꾸 ?|계속 ?|너무 ?)?(생각나|생각이 ?나|보고 ?싶|그립|그리워|실감이 ?안|못 ?받아들|믿기지 ?않)"),
)
MIN_SIGNS = 2                 # different items in one message: one alone is everyday talk
# items a body complaint shows as well: "머리가 멍하고 가슴이 답답하며 배에 가스가 차고 열이 나네요" shows two of them
# and tells of a fever and wind, no worry or low mood (`beyond_the_body`)
BODILY_SIGNS = frozenset({"trouble concentrating", "racing heart or breathless with fear", "tired, little energy"})
_DENIAL = re.compile(r"^[^.?!,\n]{0,8}?(지 ?않|지는 ?않|진 ?않|지 ?도 ?않|없어|없습|없고|아니)")


@cache
def _compiled() -> tuple[tuple[str, re.Pattern[str]], ...]:
    return tuple((item, re.compile(pattern)) for item, _source, pattern in SIGNS)


# a clause ends at a connective and a space: "눈물이 나고 의욕이 없어요" denies nothing of the tears (the 없어 is the
# next clause's), while "불안하지는 않고" still denies the worry before its 고
_NEXT_CLAUSE = re.compile(r"(?:고|며|는데|지만|서|면)\s")


def _present(pattern: re.Pattern[str], text: str) -> bool:
    """A match whose clause does not deny it right after ("불안하지는 않아요", "짜증은 없어요")."""
    for m in pattern.finditer(text):
        after = text[m.end():m.end() + 12]
        if end := _NEXT_CLAUSE.search(after):
            after = after[:end.start()]
        if not _DENIAL.search(after):
            return True
    return False


def mind_signs(text: str) -> tuple[str, ...]:
    """The screening items (`SIGNS`) the message shows, in table order."""
    if not isinstance(text, str) or not text.strip():
        return ()
    return tuple(item for item, pattern in _compiled() if _present(pattern, text))


def about_mental_health(text: str) -> bool:
    """Whether the message is a mental-health concern: it names a condition ("공황", "우울", "게임 중독") or
    shows `MIN_SIGNS` different signs of depression or anxiety."""
    return names_mind_condition(text) or len(mind_signs(text)) >= MIN_SIGNS


def beyond_the_body(text: str) -> bool:
    """Whether a message's signs (`MIN_SIGNS` different ones) include one a body complaint does not show
    (`BODILY_SIGNS`): the answer then opens with where to get help for the mind. "머리가 멍하고 가슴이 답답하며
    배에가스가차고 열이나네요" got that note first (2026-12-01, found as a user); "가슴이 두근거리고 불안해요" keeps it.
    The scope stage still counts every sign (`about_mental_health`): passing such a message is right either way."""
    signs = mind_signs(text)
    return len(signs) >= MIN_SIGNS and any(s not in BODILY_SIGNS for s in signs)
