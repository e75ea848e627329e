"""Speech acts of one chat message: does it ask (→ search and answer) or only tell us about the user
(→ remember and acknowledge)? And which of its drugs does the user say they take?

Why by meaning and not by "?": people type "판콜에스 하루에 몇 번 먹어요", "무좀약 바르는 법" or
"배탈 나서 설사해요" without a question mark and expect an answer; treating those as statements
left them unanswered and stored the asked-about drug as one the user takes.

How: the message is cut into clauses (sentences, then Korean connective endings such as -는데/-고/
-며/-어서, and English ", can I" / " but "), and each clause is judged by transparent rules:
  asks     interrogatives (뭐, 몇, 어떻게, what, how...), question endings (-나요, -까요, -니, -죠),
           permission (먹어도 돼요, is it safe to), requests (알려줘, 추천해 주세요, tell me) and
           information nouns (용량, 부작용, 바르는 법, side effects, dosage);
  symptom  a complaint (아파요, 기침, 설사, 어지러워요, my head hurts): the user wants help with it;
  fact     something about the user: a regex slot (age, sex, pregnancy, vitals, labs), a condition or
           taken-medication slot, taking a drug (먹고 있어요, 복용 중, I take, I'm on), not taking
           it (끊었어요, I stopped), having a condition (있어요, 진단받았어요, I have), first person
           (저는..., I'm...);
  other    anything else: a noun-phrase query ("판콜에스", "두통에 먹는 약") asks implicitly.
A message is a statement only when every clause is a fact (or a neutral declarative such as
"날씨가 좋네요") and at least one is a fact; any asking, symptom or noun-phrase clause makes it a
question. Rules rather than a model: they run in the regex-only ablation profile too, load nothing,
and every decision is reviewable in tests/extraction/test_speech_act.py.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from yaksa.extraction.regex_slots import regex_slots
from yaksa.extraction.slots import SlotItem
from yaksa.text.hangul import has_hangul

MessageKind = Literal["question", "statement"]
ClauseKind = Literal["asks", "symptom", "fact", "neutral", "other"]

# ---- clause segmentation ------------------------------------------------------------------------
_SENTENCE = re.compile(r"[^.!?。？！\n]+[.!?。？！]*|[.!?。？！]+")
_WORD = re.compile(r"\S+")
# a word after "-고" that makes it part of one verb ("먹고 있어요", "알고 싶어요"), not "A and B"
_AUXILIARY_AFTER_GO = re.compile(r"^(?:있|계|싶|나서|난|다니|다녀|말|봐|봤|났)")
_NOUNS_ENDING_GO = frozenset({"최고", "참고", "사고", "경고", "광고", "신고", "창고", "재고", "보고"})
# "A, B하고 C를 복용 중이에요": 하고 joins nouns of one list (the list's object and its taking verb follow),
# so the clause, and whether the user takes A and B, is one
_LIST_CONTINUES = re.compile(
    r"^\s*[가-힣A-Za-z0-9\-]+(?:\s+[가-힣A-Za-z0-9\-]+){0,2}?(?:을|를)\s+(?:[가-힣]+\s+)?"
    r"(?:먹|복용|챙겨|쓰|써|바르|발라|붙이|맞|사용|처방)"
)
# syllables that end the verb stem in "-어서/-아서" ("먹어서", "아파서", "나서", "해서")
_SEO_STEMS = frozenset("어아해여라나워와져쳐려돼파러써봐펴겨셔내대개래거버커터퍼허")
_EN_SPLIT = re.compile(
    r"(?:,|;|\s-\s)\s*(?=(?:and\s+|so\s+|but\s+)?(?:can|could|should|would|is|are|am|do|does|did|will|may|what|"
    r"which|how|when|why|who|where|i|i'm|i've|my|please|tell|any)\b)|\s+(?:but|so)\s+|\s+and\s+(?=(?:i|i'm|i've|"
    r"can|could|should|is|are|would|want|wondering|what|how|do|does|will|my)\b)",
    re.IGNORECASE,
)


# A spoken sentence ending ("…될까요", "…같아요", "…했습니다"): people write several sentences without a full stop,
# so a word ending so ends its sentence when another word follows. "위염에 단백질 보충제 먹어도 될까요 닭가슴살로
# 먹으려니 위에 부담이 가는거 같아서요" was one clause ending in 같아서요, asked nothing, and was remembered and
# acknowledged as a statement (a real post, 2026-12-02). The long-post reader splits its sentences at the same endings.
SPOKEN_END_YO = "[어아여해돼워에네세죠까나가데지래니써봐져쳐켜혀겨줘와러라예게대서구고]요"
SPOKEN_END_DA = "[니았었했였겠는된한인있없같]다"
_ENDS_A_SENTENCE = re.compile(f"(?:{SPOKEN_END_YO}|{SPOKEN_END_DA})$")


@dataclass(frozen=True)
class Clause:
    """One clause of a message with its character span and its kind."""

    text: str
    start: int
    end: int
    kind: ClauseKind


def _final_consonant(syllable: str) -> int:
    """Index of a Hangul syllable's final consonant (0 none, 4 ㄴ, 8 ㄹ)."""
    return (ord(syllable) - 0xAC00) % 28 if "가" <= syllable <= "힣" else -1


def _splits_after(word: str, next_word: str | None, rest: str = "", sentence_ends: bool = True) -> bool:
    """Does a Korean clause end with this word (a connective ending, a spoken sentence ending when `sentence_ends`,
    or a comma after a predicate)? `rest` is the sentence after the word."""
    bare = re.sub(r"[^가-힣]+$", "", word)
    if word.endswith((",", ";")) and bare and _predicate_end(bare):
        return True
    if len(bare) < 2:
        return False
    if sentence_ends and _ENDS_A_SENTENCE.search(bare):
        return True
    if bare.endswith(("지만", "면서", "니까", "는데도", "던데", "으며")):
        return True
    if bare.endswith("데") and _final_consonant(bare[-2]) == 4:  # -는데/-은데/-인데/아픈데/한데
        return True
    if bare.endswith("며") and bare[-2] in "이하으되있없":
        return True
    if bare.endswith("서") and bare[-2] in _SEO_STEMS and not bare.endswith("에서"):
        return True
    if bare.endswith("하고") and not _KO_TAKING.search(bare) and _LIST_CONTINUES.match(rest):
        return False   # "세르트랄린하고 페니실린 항생제를 복용 중": a list, not two clauses
    if bare.endswith("고") and bare not in _NOUNS_ENDING_GO and next_word is not None:
        return not _AUXILIARY_AFTER_GO.match(next_word)
    return False


def _korean_pieces(sentence: str, offset: int) -> list[tuple[int, int]]:
    spans, start = [], offset
    words = list(_WORD.finditer(sentence))
    sentence_ends = not _ALTERNATIVE.search(sentence)
    for i, m in enumerate(words):
        nxt = words[i + 1].group(0) if i + 1 < len(words) else None
        if nxt is not None and _splits_after(m.group(0), nxt, sentence[m.end():], sentence_ends):
            spans.append((start, offset + m.end()))
            start = offset + words[i + 1].start()
    spans.append((start, offset + len(sentence)))
    return spans


def _english_pieces(sentence: str, offset: int) -> list[tuple[int, int]]:
    spans, start = [], 0
    for m in _EN_SPLIT.finditer(sentence):
        spans.append((offset + start, offset + m.start()))
        start = m.end()
    spans.append((offset + start, offset + len(sentence)))
    return spans


def _segments(text: str) -> list[tuple[int, int]]:
    """Clause spans: sentences, then Korean connective endings or English clause joints."""
    out = []
    for sm in _SENTENCE.finditer(text):
        sentence = sm.group(0)
        pieces = (_korean_pieces if has_hangul(sentence) else _english_pieces)(sentence, sm.start())
        for a, b in pieces:
            while a < b and text[a].isspace():
                a += 1
            while b > a and text[b - 1].isspace():
                b -= 1
            if a < b:
                out.append((a, b))
    return out


# alternative questions, one question over two sentence endings: "식전에 먹어요 식후에 먹어요", "아침이에요 아니면
# 저녁이에요" (not cut at their first ending; `_KO_ASK` reads them as asking)
_ALTERNATIVE = re.compile(
    r"아니면|(?:식전|식후|공복).{0,15}(?:식전|식후|공복)(?!.{0,6}상관)"
    r"|[가-힣]+에\s*(먹|바르|붙|넣|복용|써|쓰)[가-힣]*\s+[가-힣]+에\s*\1"
)


# ---- clause cues --------------------------------------------------------------------------------
# Korean question words ("몇" besides, which `_KO_ASK` takes only when it is not a duration); read by the
# quiz-form rule too (`yaksa.scope.trivia`): a question with one is not a yes/no quiz
_QUESTION_WORDS = r"뭐|뭘|뭔|무엇|무얼|무슨|어떤|어떻|어떡|어때|어떨|어떠|어찌|어느|어디|언제|얼마|왜|누가|누구"
QUESTION_WORD = re.compile(rf"{_QUESTION_WORDS}|몇")
_KO_ASK = re.compile(
    r"[?？]"
    rf"|{_QUESTION_WORDS}|몇(?!\s*(?:년|달|개월|주|일)\s*(?:째|전|동안))"
    r"|까요?$|죠$|(?<![열땀물증각화피])(?<=[가-힣])나요$|(?:되|있|없|먹|찮|좋|돼|드|써|해|봐|와|하)나$"
    r"|(?<![머언])(?<=[가-힣])(?:니|냐)$"
    r"|(?:는지|은지|을지|인지|던지|할지|될지|볼지|갈지|줄지|ㄹ지)"
    r"|궁금|문의|질문|여쭤|여쭙|고\s*싶"
    r"|[가-힣]도\s*(?:되|돼|됨|괜찮|문제\s*없|상관\s*없|무방)"
    r"|면\s*(?:안\s*)?(?:되|돼|괜찮|좋을|어때|위험|문제)"
    r"|알려|가르쳐|추천|설명해|말해\s*주|말해줘|찾아\s*주|찾아줘|골라\s*주|골라줘|비교해|봐\s*주세|봐줘|부탁"
    r"|주세요|주십시오|해\s*줘|해줘|줄래|주실|주시겠"
    r"|(?<![고저])용량|용법|복용법|사용법|투여법|(?:복용|사용|투여|보관)\s*방법|방법|(?:먹|바르|붙이|넣|뿌리|쓰|복용하)는\s*"
    r"(?:법|방법|약|양|시간|횟수|때|순서)|법$|부작용|효능|효과|주의\s*사항|주의할|금기|상호\s*작용|성분|차이|종류|가격|"
    r"유통\s*기한|복용\s*(?:시간|간격|기간)|간격|최대|과다\s*복용|좋은\s*약|약\s*(?:이름|추천)|먹으면\s*안"
    rf"|{_ALTERNATIVE.pattern}"
)
_KO_ASK_END = re.compile(r"가요$")  # "-인가요/-은가요/-ㄴ가요/-ㄹ가요", checked with the syllable before
_EN_ASK = re.compile(
    r"\?|^(?:what|which|how|when|why|who|whom|whose|where|can|could|should|would|is|are|am|does|do|did|will|may|"
    r"might|shall|any)\b"
    r"|\b(?:tell me|let me know|recommend\w*|suggest\w*|explain|side[- ]effects?|dosage|dosing|how much|how many|"
    r"how often|how long|how to|interactions?|interact|contraindicat\w*|safe to|ok to|okay to|alright to|"
    r"is it safe|can i|should i|what about|warnings?|precautions?|uses of|used for|difference|versus|vs\.?|"
    r"maximum|max|wondering|question|instead of|alternatives?|best (?:medicine|drug|way)|help me)\b"
    r"|(?<!low )(?<!daily )(?<!my )(?<!a )\bdoses?\b",
    re.IGNORECASE,
)
_KO_SYMPTOM = re.compile(
    r"아프|아파|아팠|아픈|통증|쑤시|쑤셔|결리|결려|저리|저려|저림|가렵|가려|간지|따갑|따가|따끔|화끈|욱신|지끈|시큰|"
    r"붓|부었|부어|부종|메스껍|메스꺼|울렁|토하|토했|토할|구토|구역|설사|변비|기침|가래|콧물|코막|코가\s*막|재채기|"
    # a temperature of a fever told: "아이가 열이 39도인데 해열제 먹여도 안 떨어져요 4살이에요" was remembered and
    # acknowledged as a statement (2026-12-01)
    r"(?:열|체온)(?:이|은|도)?\s*(?:3[7-9]|4[0-2])(?:\.\d)?\s*도|"
    r"열이\s*(?:나|있|났|심|올라|오르|계속|자꾸|안\s*(?:떨어|내려|내리))|몸이\s*(?:뜨거|불덩)|이마가\s*뜨거|열나|열났|고열|미열|열감|오한|으슬|몸살|어지럽|어지러|어지럼|현기증|두통|복통|치통|생리통|"
    r"근육통|관절통|요통|인후통|소화\s*(?:가|이)?\s*안|소화불량|체했|체한|체기|더부룩|속쓰|속이\s*쓰|쓰려|쓰리|"
    r"잠이\s*안|잠을\s*못|잠\s*못|불면|피곤|무기력|두드러기|발진|뾰루지|여드름|무좀|멀미|숙취|배탈|충혈|뻑뻑|침침|"
    r"헐었|헐어|입병|구내염|물집|상처|베였|데었|화상|삐었|접질|멍이|쥐가|경련|떨려|떨리|두근|숨이\s*차|숨쉬기|답답|"
    r"물렸|감기|목이\s*(?:아|따|붓|부|쉬|칼|잠)|쉰\s*목|탈모|치질|가스가\s*차|변이\s*안|혈변|피가\s*나|코피"
)
_EN_SYMPTOM = re.compile(
    r"\b(?:hurts?|hurting|aches?|aching|achy|pains?|painful|sore|cough\w*|fever\w*|itch\w*|rash\w*|hives|dizz\w*|"
    r"nause\w*|vomit\w*|throw(?:ing)? up|diarrh\w*|constipat\w*|insomnia|can'?t sleep|cannot sleep|trouble sleeping|"
    r"runny nose|stuffy|congest\w*|sneez\w*|headaches?|migraines?|stomach ?aches?|heartburn|bloat\w*|cramps?|"
    r"swollen|swelling|bleeding|a cold|the flu|sick|tired|fatigue\w*|sunburn\w*|acne|blisters?|bruis\w*|sprain\w*)\b",
    re.IGNORECASE,
)
_KO_TAKING = re.compile(
    r"(?:먹|복용하|드시|쓰|바르|붙이|맞|사용하)고\s*(?:있|계)|(?:먹|복용하|드시)는\s*중|(?:복용|투약|투여|치료|사용|처방)\s*중"
    r"|(?:먹|복용|드시|드셔|투약|투여|처방\s*받|처방받|맞|챙겨\s*먹)(?:고|어요|어|었|음|습니다|해요|합니다|하고|했|하는|해|함)"
    r"|처방\s*(?:을\s*)?받|매일\s*(?:먹|복용|드)|복용\s*(?:하|해|했|합|함)"
)
_KO_NOT_TAKING = re.compile(
    r"안\s*(?:먹|복용|드|써|쓰|맞)|(?:먹|복용하|드시|쓰)지\s*(?:않|말|마|못)|끊었|끊고|끊은|끊어|중단|그만\s*(?:먹|뒀|두|복용)"
)
_KO_HAVING = re.compile(
    r"있(?:어요|습니다|음|고|는데|어서|으며|으나|다|어|지만)|진단|앓고|앓아|환자|병력|지병|수술|투석"
    r"|(?:이에요|예요|입니다|이고|이며|이라서|인데|이야|임)\b|중이에요|중입니다|중이고|중인데|중이라"
    r"|안\s*좋|(?:높|낮)(?:아|고|은|습|음|다|으)|술을?\s*(?:자주|매일|많이)?\s*마시|술을?\s*(?:자주|매일|많이)?\s*마셔"
    r"|담배|흡연|음주"
)
_KO_FIRST_PERSON = re.compile(r"^(?:저는|전|제가|나는|난|내가|저희|우리)\s|(?:^|\s)(?:저는|제가|나는|내가)\s")
_EN_TAKING = re.compile(
    r"\b(?:i take|i'm taking|i am taking|i've been taking|i have been taking|i'm on|i am on|i've been on|"
    r"i have been on|i was prescribed|i'm prescribed|i am prescribed|i got prescribed|prescribed me|"
    r"put me on|i use|i took|i'm using|i am using|i've been using)\b",
    re.IGNORECASE,
)
_EN_NOT_TAKING = re.compile(
    r"\b(?:i don'?t take|i do not take|i stopped|i quit|no longer|not taking|i'm not on|i am not on|i'm off|"
    r"i came off|i never take)\b",
    re.IGNORECASE,
)
_EN_FIRST_PERSON = re.compile(r"^(?:i|i'm|i am|i've|im|my|me|we|we're|as an?)\b", re.IGNORECASE)
_KO_PREDICATE_END = re.compile(r"(?:요|다|음|임|함|됨|중|죠|네|어|아|야|해|돼|고|데|서|며|면|만|지|까|니|냐|나)$")
# words left in a noun-phrase clause that do not make it a query ("65세의 남성", "현재 임신 12주")
_FILLER = frozenset({
    "이", "가", "은", "는", "의", "와", "과", "및", "저", "저는", "제", "전", "나이", "성별", "참고로", "그리고", "현재",
    "지금", "요즘", "이고", "이며", "인", "a", "an", "the", "and", "with", "i", "i'm", "am", "my", "age", "aged",
    "years", "old", "male", "female", "as", "of", "환자", "상태",
})
_TOKEN = re.compile(r"[가-힣]+|[A-Za-z']+")
_PARTICLE_TAIL = re.compile(r"^(?:이고|이며|이라|인데|이|가|은|는|의|에|로|으로|와|과|도|,)?\s*")


def _is_english(text: str) -> bool:
    return not has_hangul(text)


def _predicate_end(word: str) -> bool:
    return bool(_KO_PREDICATE_END.search(word))


def _asks(text: str) -> bool:
    if _is_english(text):
        return bool(_EN_ASK.search(text.strip()))
    body = re.sub(r"[\s.!~^ㅎㅋㅠㅜ;:)(]+$", "", text)
    if _KO_ASK.search(body):
        return True
    return bool(_KO_ASK_END.search(body) and len(body) >= 3 and _final_consonant(body[-3]) in (4, 8))


def _symptom(text: str) -> bool:
    return bool(_KO_SYMPTOM.search(text) or _EN_SYMPTOM.search(text))


def _declarative(text: str) -> bool:
    if _is_english(text):
        return bool(_EN_FIRST_PERSON.match(text.strip()))
    hangul = re.findall(r"[가-힣]+", text)
    return bool(hangul) and _predicate_end(hangul[-1])


def takes_medication(clause: str) -> bool | None:
    """True when the clause says the user takes a drug, False when it says they do not (안 먹어요,
    끊었어요, I stopped), None when it says neither or asks about the drug ("먹어도 되나요")."""
    if _asks(clause):
        return None
    if _KO_NOT_TAKING.search(clause) or _EN_NOT_TAKING.search(clause):
        return False
    if _KO_TAKING.search(clause) or _EN_TAKING.search(clause):
        return True
    return None


def _covered(text: str, regex_spans: Sequence[str], slot_spans: Sequence[str]) -> bool:
    """Is a noun-phrase clause nothing but facts ("65세 남성, 혈압 150/95", "65세 남성 당뇨")?

    At least one regex fact (age, sex, pregnancy, vitals, labs) is required: a bare condition or drug
    name ("당뇨", "혈압약") is how people search for it, not how they describe themselves.
    """
    rest = text
    for span in sorted((s for s in (*regex_spans, *slot_spans) if s), key=len, reverse=True):
        rest = rest.replace(span, " ")
    return bool(regex_spans) and all(t.lower() in _FILLER for t in _TOKEN.findall(rest))


def _fact(text: str, slot_spans: Sequence[str]) -> bool:
    regex_spans = [s.text for s in regex_slots(text)]
    own_spans = [s for s in slot_spans if s and s in text]
    if _declarative(text):
        cues = (_KO_TAKING, _KO_NOT_TAKING, _KO_HAVING, _KO_FIRST_PERSON, _EN_TAKING, _EN_NOT_TAKING, _EN_FIRST_PERSON)
        return bool(regex_spans or own_spans) or any(c.search(text) for c in cues)
    if takes_medication(text) is not None:
        return True
    return _covered(text, regex_spans, own_spans)


def _kind(text: str, slot_spans: Sequence[str], symptom_spans: Sequence[str]) -> ClauseKind:
    if _asks(text):
        return "asks"
    if _symptom(text) or any(s and s in text for s in symptom_spans):
        return "symptom"
    if _fact(text, slot_spans):
        return "fact"
    return "neutral" if _declarative(text) else "other"


def clauses(text: str, slots: Sequence[SlotItem] = ()) -> list[Clause]:
    """The message cut into clauses, each with its kind (asks / symptom / fact / neutral / other).

    `slots` are the extractor's items for the whole message: their surface spans mark conditions and
    taken medications as facts and MedCAT symptoms as complaints, beyond what the text rules see.
    """
    if not isinstance(text, str):
        raise TypeError(f"expected str, got {type(text).__name__}")
    fact_spans = [s.text for s in slots if s.slot_type != "symptoms"]
    symptom_spans = [s.text for s in slots if s.slot_type == "symptoms"]
    return [Clause(text[a:b], a, b, _kind(text[a:b], fact_spans, symptom_spans)) for a, b in _segments(text)]


def clause_at(text: str, offset: int) -> str:
    """The clause of `text` that contains character `offset` (the whole text when none does)."""
    for a, b in _segments(text):
        if a <= offset < b:
            return text[a:b]
    return text


def message_kind(text: str, slots: Sequence[SlotItem]) -> MessageKind:
    """"statement" when the message only states facts about the user and asks nothing, else "question".

    >>> message_kind("65세 남성이고 당뇨가 있어요", [])
    'statement'
    >>> message_kind("판콜에스 하루에 몇 번 먹어요", [])
    'question'
    >>> message_kind("밤에 기침이 심해요", [])
    'question'
    """
    if not isinstance(text, str) or not text.strip():
        raise ValueError(f"text must be a non-empty string, got {text!r}")
    kinds = [c.kind for c in clauses(text, slots)]
    if any(k in ("asks", "symptom", "other") for k in kinds):
        return "question"
    if any(s.slot_type == "symptoms" for s in slots):
        return "question"
    return "statement" if "fact" in kinds else "question"


_KO_POPULATION_PREFIX = re.compile(
    r"^(?P<prefix>.*?(?:환자|임산부|임부|수유부|남성|여성|남자|여자|사람)"
    r"(?:인데요?|이고|이며|이라|이|가|는|은|로서|으로서|입니다만)?)\s+(?P<rest>\S.*)$"
)


def _strip_facts(clause: str) -> str:
    """An asking clause without the facts about the asker inside it ("65세 남성 당뇨 환자가 X?" → "X?")."""
    out = clause
    while (m := _KO_POPULATION_PREFIX.match(out)) and not _asks(m.group("prefix")) \
            and (regex_slots(m.group("prefix")) or "환자" in m.group("prefix")):
        out = m.group("rest")
    for item in sorted(regex_slots(clause), key=lambda s: -len(s.text)):
        if item.text and item.name != "age_group":  # "어린이 해열제 용량": a population, not the asker
            i = out.find(item.text)
            if i >= 0:
                tail = _PARTICLE_TAIL.sub("", out[i + len(item.text):], count=1)
                out = out[:i] + tail
    out = re.sub(r"\s{2,}", " ", out).strip(" ,")
    return out or clause


def question_part(text: str) -> str:
    """The part of a message that asks, without what it says about the user (for a web search).

    Clauses that state facts about the user (conditions, medications taken, pregnancy, vitals, age,
    sex) and other declaratives ("간이 안 좋은데") are dropped; asking, symptom and noun-phrase
    clauses are kept, with the asker's age, sex, pregnancy, vitals and labs removed from inside them
    ("65세 남성 당뇨 환자가 ..."). Age groups stay: "어린이 해열제 용량" asks about a population,
    and dropping it would fetch the adult dose. "" when nothing is left: the message only talks
    about the user, so there is nothing to search for without disclosing them.

    >>> question_part("저는 HIV 양성이며 우울증약을 먹고 있어요. 타이레놀 먹어도 되나요?")
    '타이레놀 먹어도 되나요?'
    """
    if not isinstance(text, str):
        raise TypeError(f"question_part() expects str, got {type(text).__name__}")
    kept = []
    for c in clauses(text):
        if c.kind in ("fact", "neutral"):
            continue
        kept.append(_strip_facts(c.text) if c.kind == "asks" else c.text)
    return " ".join(kept).strip()
