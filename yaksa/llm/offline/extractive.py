"""The offline generator: a cited answer made only of sentences copied from the evidence.

Why extractive: without a language model the only answer that can never invent a dose is one whose
every sentence is a sentence of a retrieved document. For each cited document the sentences that
overlap the question most (long list sentences discounted) are kept in their original order, one
paragraph per document ending in its `[문서 N]`, at most MAX_DOCUMENTS paragraphs, indications and
dosing before cautions and side-effect lists unless side effects were asked about, and the section the
question asks for (its intent: 용법용량 for "얼마나 먹여요") before all of them. When the user's profile has conditions (고령자, 당뇨병, 임부 ...), sentences of caution
sections (주의사항, 상호작용) that name them are kept first and flagged as relevant to the profile.
For an adult (a stated adult age, or a long post about an adult) it is the other way round: the
sentences that dose children only are left out. A short question that names its person ("임신 20주인데",
"모유수유 중인데", "75세 아버지가") is read the same way: that person's cautions come first. For a question about a child or an infant, a product whose retrieved dosing section is for adults only is
not quoted at all (`adult_only_products`), and sentences that dose adults only ("성인은 1회 200-600 mg", and
the ones after it that name no other group) are left out: beside the child's dose they invite the wrong one, and they answer nothing that was asked
(the document stays cited). A product whose cited label forbids the child's age is not quoted either; its forbidding
sentence is, first (`yaksa.llm.offline.age_limits`). A cited product holding an ingredient of a medication in the profile
gets a duplicate-ingredient caution first (`yaksa.llm.offline.duplicates`). The answer always ends with the
consult line.

A long post (`post`, `yaksa.extraction.post_reader`) is answered for its questions and its person:
sentences are scored against its question sentences and key facts (not the whole story), a child's or
infant's post drops adult-only dose lines and an adult's keeps them (its "29살" is no child), a
pregnant or nursing writer's cautions come first, and the questions no label can answer (the cause,
a diagnosis, which department) are named first with a plain "see a doctor" (`care_note`).

    extractive_answer("타이레놀 하루 몇 번 먹어요?", evidence, profile_summary="75세, 당뇨병")
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from yaksa.extraction.post_reader import PostReading, population_profile_words
from yaksa.lexicon.conditions import find_conditions
from yaksa.lexicon.english_gloss import korean_gloss
from yaksa.lexicon.focus import CHILD_POPULATIONS, find_population, gives_it_to_someone, profile_population
from yaksa.lexicon.mind_signs import beyond_the_body
from yaksa.lexicon.scope_vocabulary import names_mind_condition
from yaksa.lexicon.section_intent import (
    NO_BETTER_IN_LABEL,
    asks_side_effects,
    classify_intent,
    says_it_did_not_work,
)
from yaksa.llm.evidence import Citation
from yaksa.llm.offline.age_limits import (
    ChildAge,
    age_limit_paragraphs,
    forbidden_for,
    offered_products,
)
from yaksa.llm.offline.assumed_person import assumed_person, assumed_person_note
from yaksa.llm.offline.caution_lists import shortened_list
from yaksa.llm.offline.duplicates import duplicate_cautions
from yaksa.llm.offline.profile_terms import profile_terms, with_aliases
from yaksa.llm.offline.youngest_dose import (
    dosed_only_older,
    younger_than_the_labels,
    younger_than_the_labels_note,
)
from yaksa.llm.safety import SAFETY_LINE_EN, SAFETY_LINE_KO, SAFETY_PHRASE, dose_mentions, safety_line
from yaksa.text.hangul import particle, with_particle
from yaksa.text.lexical import grams, is_korean, mentions, overlap, sentences, terms

MAX_SENTENCES_PER_DOC = 3
MAX_DOCUMENTS = 4          # a longer extract buries the answer; every retrieved section stays cited
LONG_SENTENCE = 200        # characters: longer sentences (lists of every side effect) score less
# a dosing section's sentence that states an amount or a frequency ("1회 300~1,000 mg", "1일 5회(75 mg/kg)",
# "10~15 mg/kg"): for a dose question it answers whatever words the question used ("한 번에 얼마나")
DOSE_AMOUNT = re.compile(r"\d\s*(?:mg|mL|ml|g|정|캡슐|포|알|방울|회|시간)")
DOSE_WEIGHT = 0.5
# "Can I take X for Y?" is answered by what the product is for and how to take it, then its cautions;
# a side-effect list that happens to name the symptom comes last unless side effects were asked about.
SECTION_ORDER = {"efficacy": 0, "usage": 1, "precautions": 2, "interactions": 3, "storage": 4, "side_effects": 5}
CAUTION_SECTIONS = frozenset({"주의사항", "상호작용", "경고", "부작용", "precautions", "interactions", "warnings"})
ADULT_WORDS = re.compile(r"성인|(만\s*)?1[5-9]\s*세\s*이상|\badults?\b", re.IGNORECASE)
CHILD_WORDS = re.compile(r"소아|어린이|유아|영아|신생아|개월|\d+\s*[~∼-]\s*\d+\s*세|\d+\s*세\s*(미만|이하)"
                         r"|\bchild(ren)?\b|\binfants?\b", re.IGNORECASE)
NO_EVIDENCE_KO = "질문에 답할 근거 문서를 찾지 못했습니다. 확인되지 않은 정보로 답하지 않겠습니다."
NO_EVIDENCE_EN = "I could not find source documents that answer this question, so I will not guess."
NEAR_DUPLICATE = 0.5   # bigram Jaccard: one ingredient's labels 0.57-0.77 apart, unrelated sentences ≤ 0.1
QUOTED_QUESTION_CHARS = 60   # a care question is quoted back this long at most
MAX_QUOTED_QUESTIONS = 2


def is_caution(citation: Citation) -> bool:
    """Whether a document is a caution section (by its section name or MFDS section key)."""
    key = str(citation.metadata.get("section_key", ""))
    return citation.section.strip().lower() in CAUTION_SECTIONS or key in CAUTION_SECTIONS


def adult_only(sentence: str) -> bool:
    """The sentence speaks of adults and of no child age group ("성인은 1회 200-600 mg씩")."""
    return bool(ADULT_WORDS.search(sentence)) and not CHILD_WORDS.search(sentence)


def _without_group(texts: Sequence[str], drop: re.Pattern[str], other: re.Pattern[str]) -> list[str]:
    """`texts` without the sentences about the `drop` group only. A sentence that names no group belongs
    to the group of the sentence before it: "성인은 1회 200-600 mg씩 … 1일 최고 3,200 mg까지 투여할 수
    있습니다." is the adult maximum, though only its first sentence says so."""
    kept: list[str] = []
    dropping = False
    for sentence in texts:
        if other.search(sentence):
            dropping = False
        elif drop.search(sentence):
            dropping = True
        if not dropping:
            kept.append(sentence)
    return kept


def for_children(texts: Sequence[str]) -> list[str]:
    """`texts` without the sentences about adults only (and the unnamed ones after them)."""
    return _without_group(texts, ADULT_WORDS, CHILD_WORDS)


def for_adults(texts: Sequence[str]) -> list[str]:
    """`texts` without the sentences that dose children only ("만 12세 이하의 소아는 1회 권장용량을 …",
    and the ones after it that name no group): an adult must not read a child's dose as theirs."""
    return _without_group(texts, CHILD_WORDS, ADULT_WORDS)


def adult_only_products(evidence: Sequence[Citation]) -> frozenset[str]:
    """Products whose retrieved dosing section doses adults and names no child group (뇌선, 게보린 …).

    Why: for a child or an infant even the indications of such a product read as "this is for your
    child"; a parent of a feverish 50-day-old must not be shown an adult analgesic's uses. Only what
    was retrieved is judged: a product whose dosing section was not retrieved keeps its paragraphs."""
    adult: set[str] = set()
    for c in evidence:
        if c.metadata.get("section_key") == "usage" and ADULT_WORDS.search(c.text) and not CHILD_WORDS.search(c.text):
            adult.add(c.title)
    return frozenset(adult)


def adults_only_note(products: Sequence[str], korean: bool, dosing: Sequence[int] = (),
                     cautions_quoted: bool = False) -> str:
    """What a question about a child hears when every product found is dosed for adults only: which, and
    that the label does not say a child may take it ("7살 아이가 … 페니라민 먹여도 돼요?" heard only that no
    document answers it), citing the dosing sections that show it (`dosing`: their numbers; "보나링 어린이도
    먹어도 돼요?" cited nothing). After the label's own sentences about children (`cautions_quoted`,
    `child_cautions`) it sends the reader to them instead. It ends with the consult phrase and is the
    answer's closing paragraph."""
    names = ", ".join(products[:3])
    cites = "".join(f" [문서 {n}]" for n in dosing)
    if korean:
        if cautions_quoted:
            return (f"{names}의 허가 정보에는 성인 용량만 있고 어린이 용량은 없습니다{cites}. 위 주의사항에서 아이의 "
                    f"나이가 해당하는지 확인하시고, 아이에게 먹이기 전에 약사나 의사 등 {SAFETY_PHRASE}.")
        return (f"{names}의 허가 정보에는 성인 용량만 있고 어린이 용량이 없어{cites}, 아이에게 먹여도 되는지는 이 "
                f"자료로 답할 수 없습니다. 아이에게 먹이기 전에 약사나 의사 등 {SAFETY_PHRASE}.")
    if cautions_quoted:
        return (f"The labels of {names} give adult doses only and no dose for children{cites}; check the "
                f"cautions above against the child's age. {SAFETY_LINE_EN}")
    return (f"The labels of {names} give adult doses only and no dose for children{cites}, so they cannot tell "
            f"whether a child may take it. {SAFETY_LINE_EN}")


# a state of the person whose cautions a label keeps apart: its profile words (with the aliases the profile
# adds), how the note names it, the labels' word for such a person, and the English
CAREFUL_STATES: dict[str, tuple[frozenset[str], str, str, str]] = {
    "임신": (frozenset({"임신", "임부"}), "임신 중", "임부", "pregnant"),
    "수유": (frozenset({"수유", "수유부"}), "수유 중", "수유부", "breastfeeding"),
}


def careful_state_note(profile: Sequence[str], blocks_matched: Sequence[str], korean: bool) -> str | None:
    """The closing paragraph when the person is pregnant or nursing (their profile says so) and no
    quoted sentence speaks of it: that the text quoted says nothing about it, to read the label's cautions
    for it, and the consult line. None when no such state, or a quoted caution already names it.

    Why: a pregnant user who asked "타이레놀 먹어도 되나요?" heard the pregnancy cautions, but her follow-up
    "하루에 몇 번까지 돼요?" got the adult dose alone, as if it were all she needed to know."""
    states = [name for name, (words, *_) in CAREFUL_STATES.items()
              if words & set(profile) and not words & set(blocks_matched)]
    if not states:
        return None
    if korean:
        said = ", ".join(CAREFUL_STATES[s][1] for s in states)
        label_word = ", ".join(CAREFUL_STATES[s][2] for s in states)
        return (f"{said}이라고 하셨는데, 위에 인용한 허가 정보에는 {said} 복용에 관한 내용이 없습니다. 이 약의 주의사항에서 "
                f"{label_word}에 관한 내용을 확인하시고, 복용 전에 약사나 의사 등 {SAFETY_PHRASE}.")
    said = " or ".join(CAREFUL_STATES[s][3] for s in states)
    return (f"You said you are {said}; the label text quoted above says nothing about that. Check the "
            f"product's cautions for it. {SAFETY_LINE_EN}")


def child_cautions(evidence: Sequence[Citation], products: frozenset[str], korean: bool) -> list[str]:
    """The caution sentences of adult-only products that speak of children ("15세 미만의 소아는 이 약을
    복용하지 마십시오"), one paragraph per cited section, long lists shortened to their child items.

    Why: "아이한테 게보린정을 먹여도 될까요?" heard only that the label doses adults, while its 주의사항 says
    which children must not take it at all: that sentence is the answer, quoted with its citation."""
    paragraphs: list[str] = []
    for c in evidence:
        if c.title not in products or not is_caution(c):
            continue
        picked = [shortened_list(s, set(), ()) for s in sentences(c.text) if CHILD_WORDS.search(s)]
        if picked:
            paragraphs.append(_paragraph(c, picked, [], korean))
    return paragraphs


def _pick(citation: Citation, query: set[str], profile: list[str], for_child: bool = False,
          for_adult: bool = False, named: set[str] | None = None,
          dose_asked: bool = False, asker: bool = False, no_better: bool = False) -> tuple[list[str], list[str]]:
    """The sentences to keep from one document, and the profile words they matched; `named`: the bigrams
    of the question's content words, which keep items of a long caution list (`shortened_list`);
    `dose_asked`: a dosing section's sentences that state an amount count for the question (`DOSE_AMOUNT`:
    "해열제는 한 번에 얼마나 먹여요?" shares no word with "1일 5회(75 mg/kg)을 초과하여 복용하지 않습니다" and
    got only the label's opening sentence); `asker`: the message names no one and gives the medicine to no one, so
    a dosing section's adult lines answer it where it has some ("이모디움 하루에 몇 번 먹어요?" got "9~12세의 소아는 …",
    and an English "How many loperamide can I take a day?" a children's maximum cut from its group); `no_better`: the
    medicine was taken and did not help (`says_it_did_not_work`), so a caution's line on when to stop and ask
    (`NO_BETTER_IN_LABEL`) counts as a matched profile word does."""
    candidates = sentences(citation.text)
    if for_child:
        candidates = for_children(candidates)
    elif (for_adult or asker) and citation.metadata.get("section_key") == "usage":
        # only doses: a caution listing "만 2세 미만의 소아, 임부 또는 수유부" is for everyone
        adults = for_adults(candidates)
        # the asker's own dose is an adult's where the label doses adults; a children's product keeps its lines
        if for_adult or any(ADULT_WORDS.search(s) for s in adults):
            candidates = adults
    caution = is_caution(citation)
    # its lines on when to stop and ask, where it has some: each of them qualifies (`stop`), the question's words
    # order them
    stop_lines = [s for s in candidates if NO_BETTER_IN_LABEL.search(s)] if no_better and caution else []
    candidates = stop_lines or candidates
    stop = 1.0 if stop_lines else 0.0
    dosing = dose_asked and citation.metadata.get("section_key") == "usage"
    scored: list[tuple[float, int, list[str]]] = []
    for i, sent in enumerate(candidates):
        hits = [w for w in profile if mentions(w, sent)] if caution else []
        brevity = min(1.0, LONG_SENTENCE / max(len(sent), 1))
        amount = DOSE_WEIGHT if dosing and DOSE_AMOUNT.search(sent) else 0.0
        scored.append((overlap(query, sent) * brevity + amount + stop + (1.0 if hits else 0.0), i, hits))
    best = sorted((s for s in scored if s[0] > 0), key=lambda s: (-s[0], s[1]))[:MAX_SENTENCES_PER_DOC]
    if not best and candidates:  # retrieved for the question as a whole: its opening still answers
        best = [(0.0, 0, [])]
    if citation.metadata.get("section_key") == "usage":
        best = _with_group_heads(best, candidates)
    best.sort(key=lambda s: s[1])
    matched = [w for _, _, hits in best for w in hits]
    listed = query if named is None else named
    picked = [shortened_list(candidates[i], listed, profile) if caution else candidates[i] for _, i, _ in best]
    return picked, list(dict.fromkeys(matched))


def _group_head(candidates: Sequence[str], i: int) -> int | None:
    """The sentence naming the age group that sentence `i` of a dosing section belongs to, when it names none itself
    and the section doses adults and children both (`_without_group`'s reading): "1일 최대용량은 3캡슐(6 mg)을 초과하지
    마세요." is the children's maximum only because "소아의 급성설사에는 …" comes before it. None when `i` names its
    group, or the section has one group, or no group is named before it."""
    if not any(ADULT_WORDS.search(s) for s in candidates) or not any(CHILD_WORDS.search(s) for s in candidates):
        return None
    if ADULT_WORDS.search(candidates[i]) or CHILD_WORDS.search(candidates[i]):
        return None
    return next((j for j in range(i - 1, -1, -1)
                 if ADULT_WORDS.search(candidates[j]) or CHILD_WORDS.search(candidates[j])), None)


def _with_group_heads(best: list[tuple[float, int, list[str]]],
                      candidates: Sequence[str]) -> list[tuple[float, int, list[str]]]:
    """`best` with the group-naming sentence of each picked dose line that names no group (`_group_head`): quoted
    alone, a children's maximum reads as everyone's ("How many loperamide can I give a day?" got "1일 최대용량은
    3캡슐(6 mg)을 초과하지 마세요." after the adults' lines)."""
    chosen = {i for _, i, _ in best}
    heads = {h for _, i, _ in best if (h := _group_head(candidates, i)) is not None and h not in chosen}
    return [*best, *((0.0, h, []) for h in sorted(heads))]


def _paragraph(citation: Citation, picked: list[str], matched: list[str], korean: bool) -> str:
    label = f"{citation.title} ({citation.section})" if citation.section else citation.title
    if matched:
        who = ", ".join(matched)
        # "말씀하신", not "회원님": the profile may be a parent's or a child's the asker wrote about ("68세 아버지가")
        label += f" — 말씀하신 정보({who})와 관련된 주의" if korean else f" — relevant to what you told us ({who})"
    return f"{label}: {' '.join(picked)} [문서 {citation.n}]"


def _similarity(a: str, b: str) -> float:
    """Jaccard similarity of two texts' character bigrams (`grams`)."""
    ga, gb = grams(a), grams(b)
    return len(ga & gb) / len(ga | gb) if ga and gb else 0.0


class _Block:
    """One paragraph of the answer: a document's picked sentences, and the other documents whose picked
    sentences say nearly the same (`says_the_same`). Why: products of one ingredient carry near-identical
    label text, and a pregnant woman asking about 타이레놀 got the same caution four times over, one
    paragraph per product, crowding out everything else; now the first is quoted and the others are named
    and cited after it as saying nearly the same."""

    def __init__(self, citation: Citation, picked: list[str], matched: list[str]) -> None:
        self.citation, self.picked, self.matched = citation, picked, matched
        self.text = " ".join(picked)
        self.also: list[Citation] = []

    def says_the_same(self, citation: Citation, picked: list[str], matched: list[str]) -> bool:
        """Same section, same profile match, the same dose mentions (a different dose is never folded
        in) and at least NEAR_DUPLICATE of their character bigrams in common."""
        text = " ".join(picked)
        return (citation.section == self.citation.section and matched == self.matched
                and sorted(dose_mentions(text)) == sorted(dose_mentions(self.text))
                and _similarity(text, self.text) >= NEAR_DUPLICATE)

    def render(self, korean: bool) -> str:
        first = _paragraph(self.citation, self.picked, self.matched, korean)
        if not self.also:
            return first
        others = ", ".join(f"{c.title} [문서 {c.n}]" for c in self.also)
        return (f"{first} 같은 내용이 {others}의 허가 정보에도 거의 그대로 있습니다." if korean
                else f"{first} The labels of {others} say nearly the same.")


def _quoted(question: str) -> str:
    text = question.strip()
    return text if len(text) <= QUOTED_QUESTION_CHARS else text[:QUOTED_QUESTION_CHARS].rstrip() + "…"


def care_note(post: PostReading, labels_follow: bool = True) -> str:
    """The questions of a long post that no drug label answers (its cause, a diagnosis, which department
    or test), named and sent to a doctor; "" when it has none. It ends with the consult phrase, so the
    rule verifier takes it as the consult paragraph it is, not as an uncited claim."""
    asked = post.care_questions
    if not asked:
        return ""
    quoted = [_quoted(q) for q in asked[:MAX_QUOTED_QUESTIONS]]
    asked_text = " / ".join(f'"{q}"' for q in quoted) + particle(quoted[-1], "은", "는")
    tried = (f" 이미 {with_particle(', '.join(post.tried[:3]), '을', '를')} 써 보셨는데도 나아지지 않았다면 더욱 진료가 "
             "필요합니다." if post.tried else "")
    rest = " 아래는 글에 나온 약의 허가 정보입니다." if labels_follow and post.care_only and post.medicines_in_data else ""
    return (f"글에서 물으신 {asked_text} 증상의 원인이나 진단, 진료과·검사에 관한 질문이라 의약품 허가 정보로는 "
            f"답할 수 없습니다. 병원에서 의사의 진료를 받아 보세요.{tried} 약은 약사나 의사 등 {SAFETY_PHRASE}.{rest}")


def visit_note(post: PostReading) -> str:
    """The questions of a long post whose red flag's advice is its whole answer (`RedFlag.advice_only`: an infected
    wound, "손을 씻을때에 상처에 물을 대면 안되는지요?", "얼마나 더 걸려야 아물 수 있는지요"), named for the doctor who
    sees it today: only someone who looks at it can answer them; "" when it asks none. It ends with the consult
    phrase, like `care_note`."""
    if not post.questions:
        return ""
    quoted = [_quoted(q.text) for q in post.questions[:MAX_QUOTED_QUESTIONS]]
    asked_text = " / ".join(f'"{q}"' for q in quoted) + particle(quoted[-1], "은", "는")
    return (f"글에서 물으신 {asked_text} 직접 보고 진찰한 의사가 답할 수 있습니다. 진료를 받으실 때 꼭 물어보세요. "
            f"약은 약사나 의사 등 {SAFETY_PHRASE}.")


def care_department(population: Sequence[str]) -> str:
    """Where a care reply sends the person: 소아청소년과 for a child or a baby, else 병원 (one wording for
    every reply that names no label)."""
    return "소아청소년과" if CHILD_POPULATIONS & set(population) else "병원"


def cause_note(question: str, population: Sequence[str] = (), labels_follow: bool = False) -> str:
    """A short question that asks only what causes a complaint ("두통 원인이 뭐예요?", "4살인데 입냄새가 심해요,
    원인은 무엇일까요?"): an examination answers it, no label does, so that is said first, with where to go
    (소아청소년과 for a child); `labels_follow`: the labels of medicines for the complaint come after it. It
    carries the consult line, so the rule verifier takes it as the consult paragraph it is."""
    child = bool(CHILD_POPULATIONS & set(population))
    if is_korean(question):
        where = care_department(population)
        rest = " 아래는 물으신 증상에 쓰는 약의 허가 정보입니다." if labels_follow else ""
        return ("물으신 증상의 원인이나 병명은 진찰을 받아야 알 수 있어 의약품 허가 정보로는 답할 수 없습니다. "
                f"{where}에서 진료를 받아 보세요. 증상이 심해지거나 오래가면 미루지 마세요. {SAFETY_LINE_KO}{rest}")
    rest = " Below is what the labels of medicines for the complaint say." if labels_follow else ""
    return ("What causes a complaint is found out by an examination; the medicine labels I answer from cannot "
            f"tell. Please see a doctor{' (a paediatrician for a child)' if child else ''}. {SAFETY_LINE_EN}{rest}")


def mind_note(labels_follow: bool = False) -> str:
    """A short message showing signs of depression or anxiety beside a complaint the labels treat ("밤에 누우면
    온갖 걱정이 떠올라서 새벽까지 잠을 못 자요. 낮에는 피곤해서 아무것도 못 하고요" got a sleep aid's label and
    nothing else): the labels answer the complaint, not what keeps the person awake, so where to get help for
    that is said first. It carries the consult line, like `cause_note`."""
    rest = " 아래는 물으신 증상에 쓰는 약의 허가 정보입니다." if labels_follow else ""
    # no duration or hours: the rule verifier takes any number near a time word for a dose the labels must state
    return ("걱정이나 불안, 가라앉는 기분 때문에 잠이나 일상이 힘든 날이 이어지면 정신건강의학과에서 상담을 받아 "
            "보세요. 지금 많이 힘드시면 정신건강위기상담전화 1577-0199에서 언제든 이야기를 들어 드립니다. "
            f"{SAFETY_LINE_KO}{rest}")


def _silent_on_stopping(evidence: Sequence[Citation]) -> frozenset[str]:
    """The products whose cautions found hold no line on when to stop and ask (`NO_BETTER_IN_LABEL`), when another
    product's do: "타이레놀 먹었는데 두통이 안 나아요" got an acetaminophen tablet's contraindications, which its writer,
    who has taken it, no longer needs. Empty when no caution found says it (the cautions then answer as they can)."""
    cautions = [c for c in evidence if is_caution(c)]
    saying = {c.title for c in cautions if NO_BETTER_IN_LABEL.search(c.text)}
    return frozenset({c.title for c in cautions} - saying) if saying else frozenset()


def no_better_note(stop_quoted: bool = False) -> str:
    """Said first when a medicine was taken and did not help (`says_it_did_not_work`: "변비약 먹은지 3일째인데 효과가
    없어요" got a probiotic's uses and dose): more of it, or another medicine on top, is not the answer; a pharmacist or
    a doctor is. The label's own line on when to stop follows where the cautions have one. No figure: the labels'
    numbers of days differ by product; Korean only, as `says_it_did_not_work` reads. It carries the consult line, like `cause_note`, which keeps it past the rule
    verifier (a paragraph without a citation must carry it)."""
    below = " 아래는 허가 정보에서 약을 그만 쓰고 상의할 때를 적은 내용입니다." if stop_quoted else ""
    return (f"쓰신 약이 듣지 않을 때는 양을 늘리거나 다른 약을 더하지 말고 약사나 의사 등 {SAFETY_PHRASE}. 증상이 "
            f"심해지거나 새 증상이 생기면 진료를 받으세요.{below}")


def asks_about_the_mind(post: PostReading | None) -> bool:
    """A long post one of whose questions names a condition of the mind (`names_mind_condition`): 33 of the
    4,986 shared posts, "공황장애일까요?", "화병인가요?", "우울증? 불안증?"."""
    return post is not None and post.long and any(names_mind_condition(q.text) for q in post.questions)


def _opening_note(question: str, post: PostReading | None, population: Sequence[str], labels_follow: bool,
                  told_no_better: bool) -> tuple[list[str], bool]:
    """What a message asks that no label answers, said before the labels: a long post's questions for a
    doctor (`care_note`), a short question's asking only for the cause (`cause_note`), or a short message's
    signs of depression or anxiety (`mind_note`, `MIN_SIGNS` different ones, one beyond the body's), or a medicine taken
    that did not help (`no_better_note`; `told_no_better`: `says_it_did_not_work(question)`, read once per answer).
    The flag returned says the note is the no-better one, whose line on the labels' stop lines is settled once the
    quoted sentences are known."""
    if post is not None and post.long:
        if post.care_questions:
            return [care_note(post, labels_follow=labels_follow)], False
        # "해열제를 먹여도 차도가 없어", "약을 먹어도 안 듣고": the labels' lines on when to stop follow
        return ([no_better_note()], True) if told_no_better else ([], False)
    if post is not None and post.asks_cause and is_korean(question):
        return [cause_note(question, population, labels_follow=labels_follow)], False
    if is_korean(question) and beyond_the_body(question):
        return [mind_note(labels_follow=labels_follow)], False
    if is_korean(question) and told_no_better:
        return [no_better_note()], True
    return [], False


# the words a child's population puts in the profile (`population_profile_words`, `with_aliases`)
_CHILD_PROFILE_WORDS = frozenset({"소아", "영아", "어린이", "유아", "아이", "신생아", "소아청소년"})


def label_reading(question: str, evidence: Sequence[Citation]) -> str:
    """The words the label rules read for `question`: itself, or for an English question quoting the Korean labels
    (their sections carry a `section_key`) its Korean gloss (`english_gloss`): the section asked, the person ("my 5
    year old" is a child: adults' dose lines are left out, a label's age limit applies), the conditions."""
    if is_korean(question) or not any(c.metadata.get("section_key") for c in evidence):
        return question
    return korean_gloss(question) or question


def answer_population(question: str, post: PostReading | None, profile_summary: str = "",
                      remembered: Sequence[str] | None = None) -> tuple[str, ...]:
    """Whom an answer is for: a long post's reader's person, else the question's own words, else the remembered
    person's (a follow-up that names no one: "해열제는 한 번에 얼마나 먹여요?" after "5살 아이가 열이 나요");
    `remembered` None reads it from `profile_summary`. The offline answer and the LLM prompt's age limits ask it."""
    if post is not None and post.long:
        return tuple(post.population)
    if remembered is None:
        remembered = profile_population(profile_summary)
    return find_population(question) or tuple(remembered)


def extractive_answer(question: str, evidence: Sequence[Citation], profile_summary: str = "",
                      post: PostReading | None = None, remembered: Sequence[str] | None = None,
                      child_age: ChildAge | None = None) -> str:
    """An answer whose every sentence is copied from a cited document, ending with the consult line.
    `post`: the turn's reading of a long message (module doc); None or a short one changes nothing.
    `remembered`: whom the remembered profile describes, as the memory node read it once for the turn
    (`lexicon.focus.profile_population`); None reads it from `profile_summary` here (callers outside the agent).
    `child_age`: the child's age as the retrieve node read it once for the turn; None reads it here."""
    if not isinstance(question, str) or not question.strip():
        raise ValueError(f"question must be a non-empty string, got {question!r}")
    korean = is_korean(question)
    closing = safety_line(question)
    long_post = post is not None and post.long
    read_as = label_reading(question, evidence)
    population = answer_population(read_as, post, profile_summary, remembered)
    told_no_better = bool(says_it_did_not_work(question))
    # a message naming no one, answered for the remembered person: said first, whom it was taken to be about
    who = assumed_person(read_as, post, profile_summary, remembered)
    assumed = [assumed_person_note(who, korean)] if who else []
    if not evidence:
        note, _ = _opening_note(question, post, population, labels_follow=False, told_no_better=told_no_better)
        return "\n\n".join([*assumed, *note, f"{NO_EVIDENCE_KO if korean else NO_EVIDENCE_EN}", closing])
    note, note_is_no_better = _opening_note(question, post, population, labels_follow=True,
                                            told_no_better=told_no_better)
    note = [*assumed, *note]
    asked = post.search_query() if long_post else read_as   # its questions and key facts, not the story
    query = grams(asked)
    named = grams(" ".join(terms(asked)))   # its content words only: what a caution list's items may match
    # the person the message describes (a long post's reader, or a short question's own words: "임신 20주인데")
    person = post.profile_words() if long_post else ", ".join(
        w for w in (population_profile_words(population), *find_conditions(read_as)) if w)
    profile = with_aliases(profile_terms(", ".join(p for p in (profile_summary, person) if p)))
    seen: set[str] = set()
    # Profile-relevant cautions first: for this user they matter more than the general description.
    side_effects_asked = asks_side_effects(asked)
    for_child = bool(CHILD_POPULATIONS & set(population))
    for_adult = not for_child and "adult" in population
    asker = not population and not gives_it_to_someone(question)   # the asker's own dose: an adult's

    intent = classify_intent(asked).name  # "얼마나 먹여요": the dose comes first, before what it is for
    no_better = told_no_better if read_as == question else bool(says_it_did_not_work(read_as))
    # what puts a caution before the section asked for: the person's conditions and states, not a child's being a
    # child ("만 2세 미만의 소아" is in nearly every caution: "어린이 부루펜 시럽 6살 몇 ml 먹여요?" got the whole
    # caution before its dose); the child's age is read against the labels' limits below (`forbidden_for`)
    leading = [w for w in profile if not (for_child and w in _CHILD_PROFILE_WORDS)]

    def order(c: Citation) -> tuple[bool, int, int]:
        key = str(c.metadata.get("section_key", ""))
        section = -1 if key == intent else SECTION_ORDER.get(key, 2)
        # a caution first only when it speaks of the person: "29세 여성, 몸살" got a caution on nothing of hers
        # before the dose she asked for
        about_them = bool(leading) and is_caution(c) and any(mentions(w, c.text) for w in leading)
        return (not about_them, 0 if side_effects_asked else section, c.n)

    ranked = sorted(evidence, key=order)
    # for a child, an adult-only product is not quoted at all (it stays in the cited list)
    adult_only = adult_only_products(evidence) if for_child else frozenset()
    months = ChildAge.of_turn(child_age, read_as, profile_summary, population).months
    # ... nor one that doses only older children ("성인 및 12세 이상의 소아는 …" for a 7-year-old), while another product
    # found doses this age; when none does, they are quoted after the note that no dose is for this age
    older = dosed_only_older(evidence, months) if for_child else frozenset()
    dosing = {c.title for c in evidence if c.metadata.get("section_key") == "usage"}
    skip = adult_only | older if older and dosing - older - adult_only else adult_only
    if no_better:   # taken and no better: a product whose cautions found say nothing of when to stop is left out
        skip = skip | _silent_on_stopping(evidence)
    # ... and, where a caution found says when to stop, no dose follows it unless the dose was asked: "후시딘 발랐는데
    # 일주일째 안 나아요" heard "장기간 사용하지 마십시오" and then how to go on applying it (2026-12-02, as a user)
    no_doses = no_better and intent != "usage" and any(NO_BETTER_IN_LABEL.search(c.text) for c in evidence
                                                       if is_caution(c))
    # ... nor one whose label forbids the child's age: its forbidding sentence is quoted first instead, for a product
    # the answer would offer (its uses or dose were found); one found only by its cautions is left out unquoted
    forbidden = forbidden_for(evidence, months)
    forbidding = age_limit_paragraphs(offered_products(forbidden, evidence), korean)
    used: list[Citation] = []
    blocks: list[_Block] = []
    for citation in ranked:
        if len(blocks) == MAX_DOCUMENTS:
            break
        if citation.title in skip or citation.title in forbidden:
            continue
        if no_doses and citation.metadata.get("section_key") == "usage":
            continue
        picked, matched = _pick(citation, query, profile, for_child, for_adult, named, dose_asked=intent == "usage",
                                 asker=asker, no_better=no_better)
        picked = [s for s in picked if s not in seen]
        if not picked:
            continue
        seen.update(picked)
        used.append(citation)
        twin = next((b for b in blocks if b.says_the_same(citation, picked, matched)), None)
        if twin is not None:
            twin.also.append(citation)
        else:
            blocks.append(_Block(citation, picked, matched))
    # the cautions that name the person's condition first, though their section came later (stable)
    paragraphs = [b.render(korean) for b in sorted(blocks, key=lambda b: not any(w in leading for w in b.matched))]
    if not paragraphs:  # every sentence was for adults, and the question is about a child
        note, _ = _opening_note(question, post, population, labels_follow=False,   # no label follows after all
                                told_no_better=told_no_better)
        note = [*assumed, *note]
        adult = adult_only - forbidden.keys()
        if adult:   # it carries the consult line itself
            dosing = [c.n for c in evidence if c.title in adult and c.metadata.get("section_key") == "usage"]
            quoted = child_cautions(evidence, adult, korean)
            return "\n\n".join([*note, *forbidding, *quoted, adults_only_note(sorted(adult), korean, dosing, bool(quoted))])
        if forbidding:   # every product found is forbidden at this age: where to ask what suits the child instead
            where = (f"물으신 아이에게 쓸 수 있는 약은 {care_department(population)} 의사나 약사 등 {SAFETY_PHRASE}."
                     if korean else f"Ask a paediatrician or a pharmacist what suits this child. {SAFETY_LINE_EN}")
            return "\n\n".join([*note, *forbidding, where])
        return "\n\n".join([*note, f"{NO_EVIDENCE_KO if korean else NO_EVIDENCE_EN}", closing])
    # taken and no better: the note says a label's line on when to stop follows only when one is quoted
    if note_is_no_better:
        stop_quoted = any(NO_BETTER_IN_LABEL.search(s) for b in blocks if is_caution(b.citation) for s in b.picked)
        note = [*note[:-1], no_better_note(stop_quoted)]
    # a baby younger than every quoted dose hears so before the doses (`youngest_dose`)
    if for_child and younger_than_the_labels(read_as, used, months):
        note = [*note, younger_than_the_labels_note(korean, baby="infant" in population or months is None or months < 12)]
    # a pregnant or nursing person whose quoted text says nothing of it hears so (`careful_state_note`)
    # (only over labels: MedQuAD's pregnancy overview is no product's cautions, yet was told "the label text quoted
    # above says nothing about that")
    if any(c.metadata.get("section_key") for c in used):
        closing = careful_state_note(profile, [w for b in blocks for w in b.matched], korean) or closing
    # a long post asking whether it is a condition of the mind ("우울증? 불안증?", "공황장애일까요?") hears where
    # to get help for it last: the labels answer its sleep or its chest, not the question (`asks_about_the_mind`)
    if korean and closing == SAFETY_LINE_KO and asks_about_the_mind(post):
        closing = mind_note()
    # what the user already takes, inside a product the answer names, is said first
    return "\n\n".join([*note, *forbidding, *duplicate_cautions(profile_summary, used, question), *paragraphs,
                          closing])
