"""retrieve: hybrid search for this round.

Scope was decided by the `scope` node before anything else ran: only in-scope questions (and the
queries rewritten from them) get here.

A long post (`state["post"]`, read by `assemble_context`) is searched for the person it is about: the
focus of the query gets the post's population (an adult's post never reads as a child's, a child's
gets children's doses first, a pregnant writer's gets the pregnancy cautions). A post whose every
question needs a doctor ("무슨 병인가요", "어느 과에 가야 하나요") and that names no medicine is told so
plainly without a search: no drug label answers it. A message that names nothing medical (no drug,
symptom, measurement or medical word: the scope stage's lexical signals), passed the scope stage narrowly
and whose search found only drug labels sharing no word with it is told the data has nothing on it: a
label it happened to resemble answers nothing it asked (`unanswered_by_labels`). A message about the
mind that names no drug or symptom the labels treat ("게임 중독 치료가 필요할까요?", `about_mental_health`: a named condition or two signs; or
one the scope stage passed only as a mental-health concern, "감정 기복이 심하고 우울해요") is sent to
정신건강의학과 with the crisis line instead of being answered from whatever label shared a word with it (it got a naproxen side-effect list); one that asks only the cause
of a complaint ("4살인데 입냄새가 심해요, 원인은 무엇일까요?", `asks_only_the_cause`) is sent to a doctor
(소아청소년과 for a child); one asking when a fever needs a doctor ("아기 열이 몇 도부터 병원 가야 해요?",
`rules_asked`) gets the red-flag table's fever rules for the person asked about. All are decided before any
search.

A red flag whose advice is "go now, do not treat at home first" (`withhold_doses`: a feverish newborn,
someone who took too many pills) is answered from the labels' cautions only (who must not take it:
"만 3개월 미만의 영아"), or, with none retrieved, by the advice and the consult line alone: a dose, or a
product's uses, quoted after "go to the emergency department now" reads as the way to wait at home.
A message that needs the emergency department or 119 now and names no medicine (`advice_only`) gets no
label at all, decided before the search: what the search found for chest pain at rest, stroke signs or
blood in the stool were a naproxen side-effect list, a hydrocortisone ointment, a cough syrup (2026-11-27:
23 of the 27 hand-labelled real posts of this kind quoted labels of nothing they asked) — noise beside
"go now". So does one that needs a doctor today and names neither a medicine nor anything the labels
treat (chest pain after a stent got naproxen's dosing), or whose rule's advice is its whole answer
(`RedFlag.advice_only`: "연고나 진통제로 지켜보지 마시고" for an infected wound, after which a real post got painkillers'
uses); the post's questions are then named for the doctor who sees it (`visit_note`). A named medicine (the pills
someone took too many of) is still answered from its own label's cautions.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from types import MappingProxyType
from typing import Any

from yaksa.agent.deps import AgentDeps
from yaksa.agent.replies import (
    care_reply,
    cause_care_reply,
    disease_info_reply,
    expiry_care_reply,
    fever_care_reply,
    food_info_reply,
    mind_care_reply,
    post_care_reply,
    post_fever_reply,
    prescription_class_reply,
    redose_care_reply,
    symptom_care_reply,
)
from yaksa.agent.source_notice import no_evidence, nothing_named, supplement_reply
from yaksa.agent.turn import TurnContext
from yaksa.extraction.post_reader import asks_like_a_textbook, question_kind
from yaksa.lexicon.conditions import ASKS_ABOUT_A_DISEASE, conditions_followed_by
from yaksa.lexicon.expiry import asks_about_an_expired_medicine
from yaksa.lexicon.focus import CHILD_POPULATIONS, describes_a_body_complaint, without_pain_triggers
from yaksa.lexicon.food import foods_asked_about, what_to_eat_for
from yaksa.lexicon.mind_signs import about_mental_health
from yaksa.lexicon.prescription_classes import prescription_classes_named
from yaksa.lexicon.redose import asks_to_redose_after_vomiting
from yaksa.lexicon.supplements import named_supplements
from yaksa.llm.evidence import Citation
from yaksa.llm.offline.age_limits import OFFERING_SECTIONS, ChildAge, forbidden_for
from yaksa.llm.offline.extractive import adult_only_products, visit_note
from yaksa.llm.safety import urgent_line
from yaksa.retrieval.focus_ranking import CAUTIONS
from yaksa.retrieval.searcher import DRUGS
from yaksa.scope.decision import ScopeDecision
from yaksa.scope.nothing_near import may_be_nothing_near, shares_a_word
from yaksa.scope.red_flags import EMERGENCY, TODAY, advises_only, closing_of, withholds_doses
from yaksa.scope.stage import passed_as_a_mind_concern
from yaksa.scope.when_to_go import for_a_child_over_one

CAUTION_SECTIONS = frozenset({"precautions", "interactions"})   # MFDS section keys of 주의사항, 상호작용


def unanswered_by_labels(question: str, scope: ScopeDecision | None, citations: list[Citation]) -> bool:
    """Only drug labels were found for a message that names nothing medical, passed the scope stage
    narrowly (threshold <= P(in scope) < NARROW_PASS) and shares no content word with any of them
    ("알람 7시에 맞춰줘" and an antacid's dosing). Each condition alone also holds for real medical questions
    ("아침부터 열이 좀 나요" names no term the lexicon knows; "좌약 넣는 방법" passed narrowly); together, on
    the shared non-medical questions that passed, they held for most and for few medical ones."""
    if not citations or any(c.collection != DRUGS for c in citations) or scope is None:
        return False
    if not may_be_nothing_near(question, scope.signals):
        return False
    return not _shares_a_word_with(question, citations)


def _short_general_question(question: str, focus: Any, post: Any, citations: list[Citation],
                            kind: str | None) -> bool:
    """A short Korean message whose focus is general (no drug, symptom or drug class), naming no medicine
    and not asking about one, for which the search found something: what the two checks below share.
    `kind` is the question's `question_kind` when the turn analysis has it (None: read here)."""
    if focus is None or focus.mode != "general" or focus.lang != "ko" or focus.linking.mentions:
        return False
    if (post is not None and post.long) or not citations:
        return False
    return (question_kind(question) if kind is None else kind) != "medicine"


def side_effects_only(question: str, focus: Any, post: Any, citations: list[Citation],
                      kind: str | None = None) -> bool:
    """A short general question (`_short_general_question`) about a complaint no label treats, whose search
    found nothing but side-effect sections that share its words ("가슴이 답답하고 심장이 벌렁거려요" got
    naproxen's side-effect lists): quoting them would read as an answer to what was asked. Sections that share
    no word with it do not count ("가슴이 찌릿해요" got naproxen's side effects beside a gas remedy's uses, which
    name nothing it said); none sharing one is `unrelated_labels`. A symptom said only as what brings a pain on
    is not a word they share ("재채기를 하거나 기침을 해도 왼쪽가슴이 아파요" got cold medicines' uses for 재채기, 기침)."""
    if not _short_general_question(question, focus, post, citations, kind):
        return False
    asked = without_pain_triggers(question)
    related = [c for c in citations if _shares_a_word_with(asked, [c])]
    return bool(related) and all(c.metadata.get("section_key") == "side_effects" for c in related)


def unrelated_labels(question: str, focus: Any, post: Any, citations: list[Citation],
                     kind: str | None = None) -> bool:
    """A short general question (`_short_general_question`) none of whose found sections shares a content
    word with it ("고막체온만 높을 수 있나요?" got an eye ointment's dosing and a tonic's storage; "체온계 어떤 게
    정확해요?" naproxen's side effects), or one in a textbook's form, whose shared words are a label's chance
    ones (`asks_like_a_textbook`: "지역사회 간호진단 시 우선순위 결정 기준은?"): the labels do not answer it, and
    saying so is the answer."""
    return (_short_general_question(question, focus, post, citations, kind)
            and (asks_like_a_textbook(question) or not _shares_a_word_with(question, citations)))


def _shares_a_word_with(question: str, citations: list[Citation]) -> bool:
    """Whether a content word of the question occurs in any cited section's title or text."""
    return shares_a_word(question, (f"{c.title} {c.text}" for c in citations))


def unlabelled_post(focus: Any, post: Any) -> bool:
    """A long Korean post about complaints no label treats (its focus general: no drug, symptom or drug
    class), naming no medicine and asking about none: the search can only match its everyday words
    ("밥을 먹고", "누웠을 때": a cream's efficacy and a syrup's dosing for stabbing chest pain)."""
    if post is None or not post.long or focus is None:
        return False
    if focus.mode != "general" or focus.lang != "ko" or focus.linking.mentions:
        return False
    return not post.medicines_in_data and not any(q.kind == "medicine" for q in post.questions)


def asks_about_a_disease(question: str, focus: Any, post: Any, kind: str | None = None) -> bool:
    """A short Korean question about a disease's symptoms, cause or prevention in general ("고혈압 증상이
    뭐예요?", "당뇨 초기 증상"), naming no medicine and asking about none: the drug labels hold no disease
    information (English questions have MedQuAD, which does)."""
    if focus is None or focus.lang != "ko" or focus.linking.mentions or (post is not None and post.long):
        return False
    if (question_kind(question) if kind is None else kind) == "medicine":
        return False
    return bool(diseases_asked_about(question))


def asks_about_food(question: str, focus: Any, post: Any) -> bool:
    """A short Korean question about what to eat ("콜레스테롤이 높은데 달걀 먹어도 되나요?", `foods_asked_about`)
    naming no medicine, drug class or supplement: no label answers it ("타이레놀 먹고 커피 마셔도 되나요?" names
    one, and its label's cautions do). A long post too when one of its questions is one, it names no medicine and
    no complaint a label treats, and asks no doctor's question (`foods_asked_in`): "하루 세끼를 다 닭가슴살먹는게
    근육량 늘리는데 도움이되나요?" (a real post) got a hydrocortisone ointment's uses and naproxen's doses."""
    if focus is None or focus.lang != "ko" or focus.linking.mentions or focus.classes:
        return False
    if post is not None and post.long:
        return (focus.mode == "general" and not post.medicines and not post.care_questions
                and bool(foods_asked_in(post)))
    return bool(foods_asked_about(question))


def foods_asked_in(post: Any) -> tuple[str, ...]:
    """The foods the questions of a long post ask about eating (`foods_asked_about` of each question sentence)."""
    return tuple(dict.fromkeys(food for q in post.questions for food in foods_asked_about(q.text)))


def _foods_of(state: dict) -> tuple[str, ...]:
    """The foods a food question asks about: its question sentences' for a long post, else the question's."""
    post = state.get("post")
    return foods_asked_in(post) if post is not None and post.long else foods_asked_about(state["question"])


def asks_about_a_prescription_class(question: str, focus: Any, post: Any) -> bool:
    """A short Korean question naming a prescription medicine by its class ("혈압약 먹어도 운동해도 되나요?",
    `prescription_classes_named`) and no product, symptom or over-the-counter class: no label of the data is that
    medicine's, and the search matched only everyday words (naproxen's 혈압강하 for 혈압약)."""
    if focus is None or focus.lang != "ko" or focus.mode != "general" or focus.linking.mentions or focus.classes:
        return False
    return not (post is not None and post.long) and bool(prescription_classes_named(question))


def diseases_asked_about(question: str) -> tuple[str, ...]:
    """The conditions the question names right before a word asking about the disease itself (증상, 원인 …)."""
    return conditions_followed_by(question, ASKS_ABOUT_A_DISEASE)


def labels_do_not_answer(question: str, scope: ScopeDecision | None, focus: Any, post: Any,
                         citations: list[Citation], kind: str | None = None) -> str | None:
    """Why the labels a first-round search found answer nothing the message asked, or None: the one decision
    over the four readings above, in the order they are tried (the first that holds names the reply and
    the trace's `post_answer`):

    - `prescription_class`: a short Korean question about a prescription medicine named by its class, which no
      label of the data is (`asks_about_a_prescription_class`), also when it asks about a food with it ("혈압약
      먹는데 자몽 먹어도 되나요?": which medicine it is decides, and the prescriber or pharmacy knows);
    - `food_info`: a short Korean question about what to eat, naming no medicine (`asks_about_food`);
    - `disease_info`: a short Korean question about a disease in general ("고혈압 증상이 뭐예요?",
      `asks_about_a_disease`);
    - `nothing_named`: a message naming nothing medical that passed the scope stage narrowly
      (`unanswered_by_labels`);
    - `post_care`: a long post about complaints no label treats, asking about no medicine (`unlabelled_post`);
    - `symptom_care`: a short general question whose search found only side-effect lists (`side_effects_only`);
    - `unrelated_labels`: a short general question no found section shares a word with (`unrelated_labels`).

    `kind`: the question's `question_kind`, from the turn analysis (None: read here, once)."""
    if asks_about_a_prescription_class(question, focus, post):
        return "prescription_class"
    if asks_about_food(question, focus, post):
        return "food_info"
    if asks_about_a_disease(question, focus, post, kind):
        return "disease_info"
    if focus is not None and focus.mode == "general" and unanswered_by_labels(question, scope, citations):
        return "nothing_named"
    if citations and unlabelled_post(focus, post):
        return "post_care"
    if kind is None:
        kind = question_kind(question)
    if side_effects_only(question, focus, post, citations, kind):
        return "symptom_care"
    if unrelated_labels(question, focus, post, citations, kind):
        return "unrelated_labels"
    return None


# the reply for each reason of `labels_do_not_answer`, from the turn's state and the round's focus
_UNANSWERED_REPLIES: dict[str, Callable[[dict, Any], str]] = {
    "nothing_named": lambda state, focus: nothing_named(state["question"]),
    "post_care": lambda state, focus: post_care_reply(state["post"], focus.population),
    "disease_info": lambda state, focus: disease_info_reply(diseases_asked_about(state["question"])),
    "food_info": lambda state, focus: food_info_reply(_foods_of(state), focus.population,
                                                      which_medicine=what_to_eat_for(state["question"])),
    "symptom_care": lambda state, focus: symptom_care_reply(state["question"], focus.population),
    "prescription_class": lambda state, focus: prescription_class_reply(
        prescription_classes_named(state["question"]), a_complaint=describes_a_body_complaint(state["question"])),
    "unrelated_labels": lambda state, focus: nothing_named(state["question"]),
}


def cautions_only(hits: list[Any]) -> list[Any]:
    """The caution sections among `hits` (주의사항, 상호작용), in their order."""
    return [h for h in hits if h.metadata.get("section_key") in CAUTION_SECTIONS]


def _searches_the_question(state: dict) -> bool:
    """Whether this round searches the user's question itself (not a rewrite): then the turn analysis's
    focus, worked out once this turn, is the query's."""
    return bool(state["search_query"] == state["analysis"].question)


def _kept_focus(state: dict) -> Any:
    """In a rewrite round, the first round's focus when it named products or a symptom (else None). Why: a
    rewrite adds words (what the judge found missing, the user's conditions and medicines) to rank caution
    sections, not products to answer about; "타이레놀 하루 최대 몇 알?" from a user who takes ibuprofen got an
    ibuprofen product's dosing after the rule rewrite appended 이부프로펜 and the linker read it as a named drug."""
    first = state.get("focus")
    if state.get("iteration", 0) > 0 and first is not None and first.mode in ("drug", "symptom"):
        return first
    return None


def _focus_of(state: dict, deps: AgentDeps) -> Any:
    """The focus of this round's search query: the turn analysis's when it is the question itself, the
    first round's in a rewrite round that keeps it (`_kept_focus`), else the query's own."""
    if _searches_the_question(state):
        return state["analysis"].focus
    return _kept_focus(state) or deps.searcher.focus_of(state["search_query"])


# a reply decided before the search: the trace's name for it, the reply of the question, what the trace notes
CareReply = tuple[str, Callable[[str], str], Mapping[str, Any]]
# a message about the mind that no label answers: where to get help (`_about_the_mind`), long or short
MIND_CARE: CareReply = ("mind_care", mind_care_reply, MappingProxyType({}))


def _short_care(state: dict) -> CareReply | None:
    """A short question that no label answers: whether to give a dose again after it came back up
    (`asks_to_redose_after_vomiting`, whatever medicine it names) or whether an expired one may be taken
    (`asks_about_an_expired_medicine`); when a fever needs a doctor, asking about no medicine
    (`rules_asked`: answered from the red-flag table); a supplement the data holds no label of, naming no product of
    the data (`supplement_reply`: "오메가3 먹어도 되나요?"); or, naming no drug or symptom the labels treat (its
    focus, from the turn analysis, is general), a message about the mind (`_about_the_mind`), or only the
    cause of a complaint (`asks_only_the_cause`). The trace's name, the reply and what else the trace notes
    (the fever rules quoted); None else."""
    focus = state["analysis"].focus
    if focus is not None and focus.lang == "ko" and asks_to_redose_after_vomiting(state["question"]):
        # who is dosed: the question's person, else the conversation's ("약 먹고 토했는데…" after "5살 아이가…")
        population = focus.population or tuple(state.get("profile_population") or ())
        return "redose_care", lambda text: redose_care_reply(text, population), {}
    if focus is not None and focus.lang == "ko" and asks_about_an_expired_medicine(
            state["question"], names_a_medicine=bool(focus.linking.named or focus.classes)):
        return "expiry_care", lambda text: expiry_care_reply(text, focus.population), {}
    # a medicine named only as what was tried ("타이레놀 먹였는데 열이 안 내려요 병원 가야 하나요?") leaves the
    # question about the doctor; one asked about ("타이레놀 몇 알 먹이고…") is the labels'
    analysis = state["analysis"]
    asks_a_medicine = focus is not None and focus.linking.mentions and analysis.question_kind == "medicine"
    if focus is not None and not asks_a_medicine and (fever_rules := _fever_rules_for(state)):
        return "fever_care", lambda text: fever_care_reply(text, fever_rules), {
            "fever_rules": [f.rule_id for f in fever_rules]}
    if focus is not None and focus.lang == "ko" and not focus.linking.products and (
            supplements := [s for s in named_supplements(state["question"]) if s not in focus.linking.mentions]):
        # supplements the data holds no label of, and no product of the data named: said so, no label quoted
        population = focus.population or tuple(state.get("profile_population") or ())
        return "supplement", lambda text: supplement_reply(supplements, focus.linking.absent, population), {
            "supplements": supplements}
    if focus is None or focus.mode != "general":
        return None
    if _about_the_mind(state):
        return MIND_CARE
    if focus.lang == "ko" and state["post"].asks_cause:   # read once by `assemble_context`
        return "cause_care", lambda text: cause_care_reply(text, focus.population), {}
    return None


def _fever_rules_for(state: dict) -> tuple[Any, ...] | None:
    """The fever rules the message asks for (`rules_asked`), without a baby's when the message states no age
    and the person the conversation is about is a child past infancy (`profile_population`)."""
    rules = state["analysis"].fever_rules
    population = set(state.get("profile_population") or ())
    if rules and "child" in population and "infant" not in population and not state["analysis"].message.ages:
        return for_a_child_over_one(rules)
    return rules


def _care_before_search(state: dict, post: Any) -> CareReply | None:
    """What a first round answers without a search: for a long post only a mental-health concern (its other
    care notes come with the labels, `labels_do_not_answer`), for a short message `_short_care`."""
    if post is not None and post.long:
        return MIND_CARE if _about_the_mind(state) else _post_fever_care(state, post)
    return _short_care(state)


def _post_fever_care(state: dict, post: Any) -> CareReply | None:
    """A long post about a fever asking when it needs a doctor, how long it lasts or whether to wait, and
    asking nothing of a medicine (no question of the post is about one): the red-flag table's fever rules for
    the person it is about (`post_fever_reply`), no label. A post asking how much antipyretic to give keeps
    the labels."""
    fever_rules = _fever_rules_for(state)
    if not fever_rules or any(q.kind == "medicine" for q in post.questions):
        return None
    return "fever_care", lambda text: post_fever_reply(text, fever_rules), {
        "fever_rules": [f.rule_id for f in fever_rules]}


def _about_the_mind(state: dict) -> bool:
    """A message about the mind that names no drug or symptom the labels treat (its focus is general):
    passed by the scope stage only as a mental-health concern (`MIND_CONCERN`: far from every label, e.g.
    "헤어진 지 석 달 … 매일 울어요. 밥도 잘 못 먹고 …", which got "see a doctor to find the cause"), or a
    short one naming a condition or showing two signs (`about_mental_health`: "엄마가 돌아가신 뒤로 너무 힘들어서
    일상생활이 안 돼요" passed the model and got "no label matches"). A post the model passed by itself is about the
    body too (palpitations, chest pain with anxiety: 22 of the shared posts show two signs or name 공황)
    and keeps the answers for the body."""
    focus = state["analysis"].focus
    if focus is None or focus.mode != "general":
        return False
    post = state.get("post")
    short = post is None or not post.long
    return passed_as_a_mind_concern(state.get("scope")) or (short and about_mental_health(state["question"]))


def _for_the_person(focus: Any, state: dict) -> Any:
    """The focus of a message that names a medicine or a complaint and no one gets the population of the
    person's remembered profile (`profile_population`: the person the memory node says the turn is about),
    so a child's follow-up gets children's products and doses, and a pregnant, nursing or elderly person's
    the labels' cautions for them beside the dose or the products (`yaksa.retrieval.focus_ranking`).

    Why: after "5살 아이가 열이 나요", "해열제는 한 번에 얼마나 먹여요?" got adults' doses (성인 1회 300~1,000
    mg); a pregnant user's "하루에 몇 번까지 돼요?" got five 용법용량 sections and nothing on pregnancy. With no
    profile to go by (a new user, or the operator's turns, which remember nothing) a message about a child
    is a child's: "해열제는 하루에 몇 번까지 먹여도 돼요?" (one feeds a child) got adults' doses."""
    if focus is None or focus.lang != "ko" or focus.mode == "general" or focus.population:
        return focus
    population = tuple(state.get("profile_population") or ())
    if not population and state["analysis"].subject == "child":
        population = ("child",)
    return replace(focus, population=population) if population else focus


def _population(state: dict, focus: Any) -> tuple[str, ...]:
    """Who this round's answer is for: the focus searched with (a long post's reader's person), else the
    question's own, else the remembered person's, as the answer reads it (`answer_population`): "시럽 하루에 몇 번
    먹여요?" after "7살 아들이 기침을 심하게 해요" is the 7-year-old's (no age was read, and "성인 및 12세 이상의
    소아는 1회 10 mL" was quoted first)."""
    if focus is not None and focus.population:
        return tuple(focus.population)
    question_focus = state["analysis"].focus
    if question_focus is not None and question_focus.population:
        return tuple(question_focus.population)
    return tuple(state.get("profile_population") or ())


def _named_products(focus: Any, *, by_ingredient: bool = False) -> frozenset[str]:
    """item_seqs of the products the message names by name or brand; with `by_ingredient`, also those it
    reaches only through an ingredient it names ("아세트아미노펜"). The one reading of "the message names
    a medicine": a child's evidence keeps only products asked for by name (`_for_a_child`), while
    any named medicine, ingredient included, keeps the labels after urgent advice (`advice_only`)."""
    if focus is None:
        return frozenset()
    return frozenset(p.item_seq for p in focus.linking.products if by_ingredient or p.via != "ingredient")


def _for_a_child(citations: list[Citation], population: tuple[str, ...],
                 named: frozenset[str]) -> tuple[list[Citation], int]:
    """For a child or an infant, the sections of products dosed for adults only (`adult_only_products`)
    that the message did not name leave the evidence, renumbered: the offline answer never quoted them,
    but they stayed in the references, and an LLM would read them as options. A product the parent named
    stays (its label is what they asked about), and so does everything when nothing else is left (the
    answer then says the data has no answer). How many sections left."""
    if not CHILD_POPULATIONS & set(population):
        return citations, 0
    adult = adult_only_products(citations)
    kept = [c for c in citations if c.title not in adult or str(c.metadata.get("item_seq", "")) in named]
    if not kept or len(kept) == len(citations):
        return citations, 0
    return [replace(c, n=i) for i, c in enumerate(kept, start=1)], len(citations) - len(kept)


def _with_age_limits(citations: list[Citation], searcher: Any, months: float | None) -> tuple[list[Citation], int]:
    """For a child, the 주의사항 of each cited product whose own was not retrieved, added when it forbids the
    child's age (`yaksa.llm.offline.age_limits`): "2살 아기가 멀미를 해요" got 이지롱내복액's uses and dose, and its
    주의사항, never retrieved, says "만 3세 미만의 영·유아는 이 약을 복용하지 마십시오". How many were added."""
    if months is None:
        return citations, 0
    cited = {(str(c.metadata.get("item_seq", "")), c.metadata.get("section_key")) for c in citations}
    added: list[Citation] = []
    # only a product the answer would offer (its uses or dose found, `offered_products`): another is not quoted
    offered = (str(c.metadata.get("item_seq", "")) for c in citations
               if c.collection == DRUGS and c.metadata.get("section_key") in OFFERING_SECTIONS)
    for seq in dict.fromkeys(offered):
        if not seq or (seq, CAUTIONS) in cited:
            continue
        hit = searcher.product_section(seq, CAUTIONS)
        if hit is None:
            continue
        caution = Citation(n=len(citations) + len(added) + 1, doc_id=hit.doc_id, collection=hit.collection,
                           title=hit.title, section=hit.section, text=hit.text, score=0.0, metadata=hit.metadata)
        if forbidden_for([caution], months):
            added.append(caution)
    return [*citations, *added], len(added)


def _naming_the_unlisted(focus: Any, post: Any) -> Any:
    """A long post's search focus with the medicines it names that the data lacks (`post.unlisted`): its
    query is rebuilt from the questions and names, where a name alone no longer reads as a product's
    ("독시정과 아시팜정 약을 처방받아" was searched as "궁금합니다. 불면", and doxylamine sleep aids answered a
    question about doxycycline). With them the focus names drugs: only products it names may answer, and
    one naming none of the data's is told so (`no_evidence`) rather than answered from another."""
    missing = [name for name in post.unlisted if name not in focus.linking.mentions]
    if not missing:
        return focus
    linking = replace(focus.linking, mentions=(*focus.linking.mentions, *missing),
                      groups=(*focus.linking.groups, *[()] * len(missing)),
                      notes=(*focus.linking.notes, *(f"{m} is not in the data" for m in missing)))
    return replace(focus, linking=linking, mode="drug")


def advice_only(state: dict, red_flag: dict | None) -> str | None:
    """Whether the turn's urgent advice is its whole answer, before any search (module doc): "emergency_only"
    for "emergency department / 119 now" and "today_only" for "a doctor today" about nothing the labels
    treat (no symptom or drug class in the question's focus), when the message names no medicine (no drug
    in the question's focus and, for a long post, none among the medicines it names); None otherwise."""
    urgency = (red_flag or {}).get("urgency")
    post, focus = state.get("post"), state["analysis"].focus
    if urgency == EMERGENCY:
        kind = "emergency_only"
    elif urgency == TODAY and (focus is None or focus.mode == "general" or advises_only(red_flag)):
        kind = "today_only"
    else:
        return None
    if post is not None and post.long and post.medicines_in_data:
        return None
    named = focus is not None and (_named_products(focus, by_ingredient=True)
                                   or focus.linking.ingredients or focus.linking.brands)
    return None if named else kind


def _urgent_line(state: dict, turn: TurnContext) -> str:
    """The closing line after the turn's urgent advice, when no label follows it."""
    noted = turn.notes.get("red_flag")
    return urgent_line(state["question"], closing_of(noted))


def retrieve(deps: AgentDeps):
    def run(state: dict, turn: TurnContext) -> dict[str, Any]:
        router = state.get("router") or {}
        post = state.get("post")
        focus = None
        if post is not None and post.long:
            # (a fever post asking how long or whether to wait gets the fever rules instead, `_post_fever_care`)
            if (post.care_only and not post.medicines_in_data and state.get("iteration", 0) == 0
                    and _post_fever_care(state, post) is None):
                turn.notes["post_answer"] = "care_only"
                return {"no_evidence": True, "answer": care_reply(post), "citations": [], "verified": False,
                        "focus": None, "doc_ids_by_iteration": [[]]}
            if deps.searcher.use_focus:
                focus = _naming_the_unlisted(replace(_focus_of(state, deps), population=post.population), post)
        elif deps.searcher.use_focus:
            # None: the searcher reads the focus of the query itself
            focus = _for_the_person(state["analysis"].focus if _searches_the_question(state) else _kept_focus(state),
                                    state)
        urgent = advice_only(state, turn.notes.get("red_flag")) if state.get("iteration", 0) == 0 else None
        if urgent is not None:
            # the advice comes first (the runner puts it there); a long post's questions for a doctor are named
            turn.notes["post_answer"] = urgent
            # (the care note ends with the consult line itself; so does the visit note, naming the questions of a post
            # whose rule's advice is its whole answer: "손을 씻을 때 상처에 물을 대면 안 되는지요?")
            note = care_reply(post) if post is not None and post.long and post.care_questions else ""
            if not note and post is not None and post.long and advises_only(turn.notes.get("red_flag")):
                note = visit_note(post)
            return {"no_evidence": True, "answer": note or _urgent_line(state, turn),
                    "citations": [], "verified": False, "focus": None, "doc_ids_by_iteration": [[]]}
        care = _care_before_search(state, post) if state.get("iteration", 0) == 0 else None
        if care is not None:
            # decided before the search, like a care-only post: no label found would be quoted
            kind, reply, notes = care
            question_focus = state["analysis"].focus
            turn.notes["post_answer"] = kind
            turn.notes.update(notes)
            turn.notes["focus"] = question_focus.to_json()
            return {"no_evidence": True, "answer": reply(state["question"]), "citations": [],
                    "verified": False, "focus": question_focus, "doc_ids_by_iteration": [[]]}
        result = deps.searcher.search(state["search_query"], k=state.get("k") or deps.searcher.params.k,
                                      recall_terms=router.get("recall_terms", ()),
                                      avoid_terms=router.get("avoid_terms", ()), focus=focus)
        turn.notes.setdefault("retrieval", []).append({
            "query": state["search_query"], "collections": result.collections, "timings_ms": result.timings_ms,
            "expansion": result.expansion.to_json() if result.expansion else None,
            "doc_ids": [h.doc_id for h in result.hits]})
        hits = result.hits
        if withholds_doses(turn.notes.get("red_flag")):
            hits = cautions_only(hits)
            turn.notes["withheld_sections"] = len(result.hits) - len(hits)
            if not hits:   # nothing to add to "go now" but the closing line
                return {"no_evidence": True, "answer": _urgent_line(state, turn), "citations": [],
                        "verified": False, "focus": None,
                        "doc_ids_by_iteration": [*state.get("doc_ids_by_iteration", []), []]}
        citations = [Citation(n=i, doc_id=h.doc_id, collection=h.collection, title=h.title, section=h.section,
                              text=h.text, score=round(h.score, 6), metadata=h.metadata)
                     for i, h in enumerate(hits, start=1)]
        citations, dropped = _for_a_child(citations, _population(state, focus),
                                          _named_products(focus or state["analysis"].focus))
        if dropped:
            turn.notes["adult_only_dropped"] = dropped
        # the child's age, read once for the turn: the answer leaves out the products found forbidden here
        child_age = ChildAge.of_turn(state.get("child_age"), state["question"], state.get("profile_summary", ""),
                                     _population(state, focus))
        citations, limits = _with_age_limits(citations, deps.searcher, child_age.months)
        if limits:
            turn.notes["age_limits_added"] = limits
        ids = [*state.get("doc_ids_by_iteration", []), [c.doc_id for c in citations]]
        update: dict[str, Any] = {"citations": citations, "doc_ids_by_iteration": ids, "child_age": child_age}
        if state.get("iteration", 0) == 0:  # the user's own question sets the constraint, not a rewrite
            focus = result.focus
            update["focus"] = focus
            turn.notes["focus"] = focus.to_json() if focus is not None else None
            if focus is not None and focus.mode == "drug" and not citations:
                # a named drug the data does not hold: say so, never answer from another product
                post = state.get("post")
                then = care_reply(post) if post is not None and post.long and post.care_questions else ""
                update.update(no_evidence=True, answer=no_evidence(focus, then, state["question"]), verified=False)
            elif (unanswered := labels_do_not_answer(state["question"], state.get("scope"), focus,
                                                     state.get("post"), citations,
                                                     state["analysis"].question_kind)) is not None:
                # the labels the search found answer nothing the message asked: say so, quoting none
                turn.notes["post_answer"] = unanswered
                update.update(no_evidence=True, answer=_UNANSWERED_REPLIES[unanswered](state, focus), citations=[],
                              verified=False)
        return update
    return run
