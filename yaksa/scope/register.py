"""Informal requests: a message that ends as one asks a voice assistant or a friend in 반말.

Why a register and not more cue words: the non-medical questions that passed the scope stage were
requests to a home assistant and small talk with no word of another domain in them ("가장 급히 처리해야할
스케쥴 알 수 있니", "온수 기능이 켜져 있니", "폭염은 언제까지 계속되니"). Listing their objects one by one
(`cues.py`) chases each new topic. How they end does not change with the topic: of the shared real
questions (counted 2026-11-30, both halves of the scope model's draw), 79% of 3i4K's assistant requests and
57–63% of Chatbot_data's and Question_pair's small talk end this way, against none of the exam stems, posts,
English questions or KorQuAD's trivia, and 7% of our in-scope questions ("타이레놀 먹어도 돼?" is asked too). So the ending is one
input of the scope model (`features.LEXICAL_FEATURES`), weighed against the medical words and the
corpus similarity — it never refuses alone: "두통약 추천해줘" names a medicine.

Usage:
    informal_request("내일 일정 알려줘")       # True
    informal_request("두통약 추천해 주세요")    # False
"""

from __future__ import annotations

import re

from yaksa.text.hangul import RIEUL, SSANG_SIOT, syllables_with_final

# every syllable ending in ㄹ: the -ㄹ까 question is 반말 whatever the verb (할까, 바꿀까, 있을까, 괜찮을까, 될까);
# until 2026-11-30 only 할까, 볼까, 갈까 and 줄까 counted, so a third of the small talk ended informally and the
# rest looked like a patient's question (docs/scope-model-card.md, eighth round)
_L_FINAL = syllables_with_final(RIEUL)
# every syllable ending in ㅆ, before 지: a past or a guess (헤어지겠지, 지났지, 했지)
_SS_FINAL = syllables_with_final(SSANG_SIOT)
# the last word's ending, after trailing punctuation, laughter and crying marks: 알려줘, 있니, 뭐야, 할까,
# 먹어도 돼, 헤어지겠지
_ENDING = re.compile(rf"(?:니|냐|줘|줄래|봐|래|하자|어때|[뭐거이까]야|얼마야|언제야|[있없했됐]어|[{_L_FINAL}]까|돼"
                     rf"|[{_SS_FINAL}]지)$")
_TRAILING = re.compile(r"[\s?!.~ㅠㅜㅋㅎ^;,…]+$")


def informal_request(question: str) -> bool:
    """Whether the message ends as an informal (반말) request or question."""
    return bool(_ENDING.search(_TRAILING.sub("", question.strip())))
