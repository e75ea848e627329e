"""A question about what to eat, naming no medicine: "콜레스테롤이 높은데 달걀 먹어도 되나요?".

Why: such a question is about health (it passes the scope stage, rightly), but no drug label answers it. Found
as a user on the full bundle (2026-11-30): "콜레스테롤이 높은데 달걀 먹어도 되나요?" got 우루사's interactions
(it names 콜레스테롤) and an ibuprofen tablet's side effects; "통풍인데 맥주 마셔도 돼요?" got naproxen's gout
dosing; "임신 중인데 회 먹어도 되나요?" a vitamin D capsule's side effects. The labels quote sentences that share
a word with the question and answer none of it. Recognised here, the answer says plainly that the labels hold
nothing on food, where a diet is decided (the doctor, a clinical dietitian), and that a medicine's label does
say what not to take it with, if the writer names the medicine.

What counts: a food or drink named right before eating or drinking it ("달걀 먹어도", "바나나를 먹으면 안 되나요",
"맥주 마셔도", "이유식에 달걀 먹여도"), or a question for good or bad foods ("고혈압에 좋은 음식", "피해야 할
음식", "식단"). Not when the question names a medicine or a supplement ("약", "영양제", "비타민"): "타이레놀 먹고
커피 마셔도 되나요?" is an interaction, and the label's cautions answer it. Korean only: English questions have
MedQuAD's passages, which do cover diet.
"""

from __future__ import annotations

import re
from functools import lru_cache

from yaksa.lexicon.conditions import find_conditions
from yaksa.lexicon.focus import CAREFUL_STATE_WORDS, find_population, named_symptoms
from yaksa.lexicon.linking import DIETARY_INGREDIENTS, named_in_the_diet

# foods and drinks people ask about eating with a condition, in pregnancy or for a baby (longer names first
# where one contains another: 돼지고기 before 고기)
FOODS = (
    "달걀", "계란", "노른자", "우유", "두유", "치즈", "요거트", "요구르트", "아이스크림", "커피", "녹차", "홍차",
    "초콜릿", "초콜렛", "탄산음료", "콜라", "주스", "바나나", "사과", "귤", "오렌지", "자몽", "포도", "수박",
    "딸기", "복숭아", "키위", "망고", "과일", "고구마", "감자", "현미", "잡곡", "쌀밥", "흰쌀", "밀가루", "빵",
    "떡볶이", "떡", "라면", "국수", "짜장면", "돼지고기", "소고기", "닭가슴살", "닭고기", "삼겹살", "고기", "생선회", "생선", "회", "초밥", "굴",
    "새우", "게장", "조개", "오징어", "낙지", "해산물", "두부", "청국장", "된장", "김치", "젓갈", "미역",
    "견과류", "땅콩", "호두", "아몬드", "꿀", "설탕", "소금", "채소", "야채", "시금치", "브로콜리", "양배추",
    "마늘", "양파", "생강", "곰탕", "사골", "장어", "흑염소", "튀김", "피자", "햄버거", "소시지", "소세지", "햄",
    "패스트푸드", "과자",
    "케이크", "매운\\s*음식", "짠\\s*음식", "단\\s*음식", "기름진\\s*음식", "날음식", "날것", "맥주", "소주",
    "와인", "막걸리",
)
# the drinks among them: asked about as "마셔도" (the answer says so too)
DRINKS = frozenset({"우유", "두유", "커피", "녹차", "홍차", "탄산음료", "콜라", "주스", "맥주", "소주", "와인", "막걸리"})
_PARTICLE = r"(?:을|를|은|는|이|가|도|만|이랑|랑|하고|같은\s*거|같은\s*것)?"
# eating it, asked: "먹어도", "마셔도", "먹는 게 (좋/나아)", or "먹으면 안 되나요/좋나요" ("우유 먹으면 설사합니다" tells)
_EATING = (r"(?:먹어도|마셔도|드셔도|먹여도|먹는\s*게|마시는\s*게|먹어야|먹여야|섭취해도|피해야"
           r"|(?:먹으면|마시면|먹이면|드시면|섭취하면)\s*(?:안\s*(?:되|돼)|좋|괜찮|나쁘|해로|위험))")
# the food a whole word ("회사에서 먹어도" is no 회, "1회 먹어도" no raw fish), then at most two words, then eating
_FOOD_EATEN = re.compile(rf"(?<![가-힣\d])(?P<food>{'|'.join(FOODS)}){_PARTICLE}(?:(?![가-힣])|(?=먹|마시|마셔|드시|드셔))"
                         rf"\s*(?:\S+\s+){{0,2}}{_EATING}")
# "고혈압에 좋은 음식", "피해야 할 음식", "당뇨 식단", "먹으면 안 되는 음식"
_GOOD_OR_BAD_FOOD = re.compile(r"(?:좋은|나쁜|안\s*좋은|해로운|피해야\s*할|조심해야\s*할|먹으면\s*안\s*되는|먹어야\s*할|먹어도\s*되는)"
                               r"\s*(?:음식|식품|과일|채소|야채|간식|음료|차)|식단|식이\s*요법|식습관")
# or what a food does to the weight ("닭가슴살 소세지는 어떤가요? 칼로리가 높은가요??", a real post that got naproxen's
# side effects by its 가슴): the food a whole word, the question on calories, gaining weight or a diet
_FOOD_NAMED = re.compile(rf"(?<![가-힣\d])(?P<food>{'|'.join(FOODS)}){_PARTICLE}(?![가-힣])")
_NUTRITION_ASKED = re.compile(r"(?:칼로리|열량)\s*(?:이|가|는)?\s*(?:높|낮|많|적|얼마)|살\s*(?:이\s*)?찌(?:나요|나|ㄹ까|는지|는\s*거|까요|지\s*않)"
                              r"|살찔까|살\s*찔까|다이어트에\s*(?:좋|괜찮|나쁘|안\s*좋|도움)")
# or how much of a dietary ingredient may be taken (`linking.named_in_the_diet`): "카페인 음료 마셔도 돼요?" (it got a
# caffeine tablet's uses and dose), not "카페인 음료를 마시면 가슴이 콩닥콩닥 해요", which tells a complaint
_HOW_MUCH_OR_MAY_I = re.compile(r"얼마|마셔도|먹어도|섭취해도|괜찮|되나요|돼요\s*[?]|될까")
# a medicine or a supplement named: the labels' cautions answer "… 먹고 커피 마셔도 되나요?"
_MEDICINE = re.compile(r"약|영양제|보충제|비타민|유산균|오메가|홍삼|철분|칼슘|아연|마그네슘|캡슐|시럽|연고|주사")


# "뭐 먹어도 돼요?", "어떤 걸 먹어야 하나요?": what to eat, or which medicine to take, not said which
_WHAT_TO_EAT = re.compile(r"(?:뭐|뭘|무엇|무얼|어떤\s*(?:거|걸|것|음식))\s*(?:을|를)?\s*(?:좀\s*)?"
                          r"(?:먹어도|먹어야|먹으면\s*(?:좋|되|돼|괜찮)|먹는\s*게|드셔도|먹여도|먹을\s*수)")


@lru_cache(maxsize=1024)
def what_to_eat_for(question: str) -> str | None:
    """Whom "뭐 먹어도 돼요?" is asked for: the conditions it names ("당뇨병"), else "임신 중" or "수유 중", or None
    when the question is not such a question (`asks_what_to_eat`). Cached: a turn asks it twice (is this a food
    question; whom does the reply name), and it is a pure function of the text."""
    if _MEDICINE.search(question) or not _WHAT_TO_EAT.search(question):
        return None
    if named_symptoms(question):
        return None
    if conditions := find_conditions(question):
        return "·".join(conditions)
    population = find_population(question)
    return next((words for state, words in CAREFUL_STATE_WORDS.items() if state in population), None)


def asks_what_to_eat(question: str) -> bool:
    """"당뇨 있는데 뭐 먹어도 돼요?": a person's condition (or pregnancy, breastfeeding) and "what may I eat", with
    no symptom, medicine or food named. It asks about a diet or about which medicine is safe, and says neither;
    it got a tonic's uses and a diarrhoea diet note from labels sharing a word (2026-11-30). With a symptom named
    ("당뇨 있는데 감기 걸렸어요 뭐 먹어야 돼요") it asks what treats the symptom, and the search answers that."""
    return what_to_eat_for(question) is not None


def foods_asked_about(question: str) -> tuple[str, ...]:
    """The foods a question about what to eat names ("달걀"), ("음식",) for a question about good or bad foods
    naming none, or () when it is not about eating or names a medicine or a supplement (module doc)."""
    if _MEDICINE.search(question):
        return ()
    foods = tuple(dict.fromkeys(re.sub(r"\s+", " ", m.group("food")) for m in _FOOD_EATEN.finditer(question)))
    if not foods and _NUTRITION_ASKED.search(question):
        foods = tuple(dict.fromkeys(re.sub(r"\s+", " ", m.group("food")) for m in _FOOD_NAMED.finditer(question)))
    if not foods and _HOW_MUCH_OR_MAY_I.search(question):   # "임신 중 카페인 하루 얼마까지?": coffee's, not a tablet's
        foods = tuple(i for i in sorted(DIETARY_INGREDIENTS) if i in question and named_in_the_diet(i, question))
    if foods:
        return foods
    return ("음식",) if _GOOD_OR_BAD_FOOD.search(question) or asks_what_to_eat(question) else ()
