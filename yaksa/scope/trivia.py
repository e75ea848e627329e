"""A yes/no question in the register of a quiz or an encyclopedia: "달걀 노른자에는 콜레스테롤이 많은가?".

Why: the team's test reports yes/no trivia "about fruit, cooking oils, photosynthesis, fish" answered as
medical, and of 30 food trivia questions we wrote in that form (ours, not blind) 7 passed the stage on a
nutrient's name (카페인 0.67, 콜레스테롤 0.84, 칼슘 0.42, 비타민 0.37). The words are the labels' words;
the form is not the writers': the literary interrogative without a question word ("-는가?", "-인가?",
"-었는가?") ends **none** of the 4,986 shared posts, **none** of the 1,218 exam stems (their 23 literary
endings all ask "어느/무엇/누구 …인가?"), none of our 594 in-scope questions, and 17 of the 3,000 shared
non-medical questions (KorQuAD's facts, Chatbot_data's "이게 썸인가?"), counted 2026-11-30.

So such a question is refused when it is short and says nothing of a person, a situation ("생리를 안 하는데
임신인가?"), a medicine by its name, a symptom or a measurement: "이거 먹고 머리가 아픈데 부작용인가?" or "우리
아이 열이 나는데 감기인가?" still pass to the model. A rule of ours, checked only on our probes; its cost is a medical fact asked as a quiz
("인슐린은 췌장에서 분비되는가?"), which the labels do not answer either.
"""

from __future__ import annotations

import re

from yaksa.extraction.post_reader import ROLE_WORDS
from yaksa.extraction.speech_act import QUESTION_WORD
from yaksa.lexicon.focus import everyday_symptoms, names_a_pain
from yaksa.lexicon.scope_vocabulary import clinical_measurements

TRIVIA_REASON = "scope_model:trivia_register"
MAX_CHARS = 80      # a quiz question is one short sentence; a post that ends so is read by the model
# the literary yes/no ending: "-는가", "-인가", "-은가", "-던가", "-한가", "-었는가" (and "-었나" in the past)
_LITERARY_END = re.compile(r"(?:는가|인가|은가|던가|한가|[었았였했]나)\s*\??\s*$")
# someone the writer speaks of (`ROLE_WORDS`: 아이, 엄마, 남편 …), the writer, or the writer taking something:
# then it is about a person, not a quiz
_PERSON = re.compile(rf"(?<![가-힣])(?:나|내가|내|저|제가|제|저희|우리|애가|친구|{'|'.join(ROLE_WORDS)})(?![가-힣])"
                     r"|(?:먹어도|먹으면|먹였|먹었|발라도|복용)")


# a clause about the writer's situation before the question ("생리를 안 하는데 임신인가?", "먹었더니 …"): a quiz
# states its fact in one clause
_SITUATION = re.compile(r"(?:는데|은데|인데|던데|어서|아서|해서|니까|더니)(?![가-힣])")


# a reading-comprehension item: a sentence told in the plain form ("남자는 감기에 걸려서 병원에 갔다.") and "what was
# its cause / result?". 2 of 20 such items of ours passed the stage on 감기 and 무릎 (2026-11-30, ours, not blind);
# no one asks about themselves so: none of the 4,986 shared posts nor of the 1,218 exam stems says "결과는 무엇인가"
# or "원인은 무엇인가" after a plain-form sentence (the stems ask "가장 가능성이 높은 원인은?")
_CAUSE_OR_RESULT_ITEM = re.compile(r"^[^?\n]{4,120}?[가-힣]다\.\s*(?:그\s*)?(?:결과|원인|이유)(?:는|은|가|이)?\s*"
                                   r"(?:무엇인가|무엇일까|무엇입니까|뭘까)\s*\??\s*$")


def reads_like_trivia(question: str, named_medicines: list[str] | tuple[str, ...] = ()) -> bool:
    """Whether `question` is a short quiz-style yes/no question (module doc) naming no medicine by its
    name (`named_medicines`: the stage's product and brand signal), no symptom, pain or measurement and
    no person; or a reading-comprehension item asking a told event's cause or result (`_CAUSE_OR_RESULT_ITEM`)."""
    text = question.strip()
    if _CAUSE_OR_RESULT_ITEM.match(text):
        return True
    if len(text) > MAX_CHARS or not _LITERARY_END.search(text) or QUESTION_WORD.search(text):
        return False
    if named_medicines or _PERSON.search(text) or _SITUATION.search(text):
        return False
    return not (everyday_symptoms(text) or names_a_pain(text) or clinical_measurements(text))
