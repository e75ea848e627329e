"""A medicine given to, or taken by, an animal: "개한테 타이레놀 먹여도 되나요?", "강아지가 감기약을 먹었어요".

Why: the drug labels are for people, and a person's dose, caution or "call 119" is the wrong answer for a dog
or a cat. Found as a user on the full bundle (2026-12-01): "개한테 타이레놀 먹여도 되나요?" passed the scope stage
on 타이레놀 and got a human acetaminophen tablet's cautions. Such a message gets its own reply instead: the
labels are for people, some human medicines harm animals, ask a veterinarian, and if it was already eaten call
an animal hospital now (`yaksa.agent.replies.veterinary_reply`).

What counts: an animal word as the subject or the recipient ("강아지가", "고양이한테", "우리 개에게", "my dog") with a
medicine, feeding or applying word after it in the same sentence. Not when the message names a person too
("아이가 강아지 약을 먹었어요", "강아지가 먹는 약을 아이가 먹었어요": a child's poisoning stays a red flag), nor
a person bitten or scratched ("강아지한테 물렸어요"), nor an allergy to an animal ("고양이 털 알레르기"). The
crisis rules run first: "강아지가 죽고 나서 수면제를 먹었어요" is a person's overdose whatever this reads.
"""

from __future__ import annotations

import re

VETERINARY_REASON = "rules:veterinary"
# bare 개 is also a counter ("3개", "한 개") and a prefix: only with a particle of recipient or subject, or after
# 우리/키우는 ("우리 개가")
_ANIMAL = (r"(?:(?<![가-힣\d])(?:강아지|반려견|애완견|댕댕이|강쥐|고양이|냥이|반려묘|반려동물|애완동물|햄스터|토끼|앵무새"
           r"|고슴도치|페럿|기니피그)"
           r"|(?<![가-힣\d])(?:우리\s*|키우는\s*)개|(?<![가-힣\d\s])개(?=한테|에게))")
_TAKES = (r"(?:먹여|먹이|먹일|먹었|먹어|삼켰|삼켜|주어도|줘도|줘야|주면|줬|줘서|발라|바르|뿌려|뿌리|투여|복용|핥았|핥아|씹어|씹었)")
# within one clause: "강아지가 짖어서 잠을 못 자 수면제 먹었어요" is the writer's pill; with no particle, only a medicine
# named right after the animal ("강아지 진통제 먹여도 돼요?"), not "강아지 산책하고 와서 두통약 먹었어요"
_ONE_CLAUSE = r"(?:(?!어서|아서|와서|워서|해서|나서|고서|는데|지만)[^.?!,]){0,24}?"
_ANIMAL_TAKES = re.compile(rf"{_ANIMAL}\s*(?:한테|에게|이|가|는|도|의|이가)\s*{_ONE_CLAUSE}{_TAKES}"
                           rf"|{_ANIMAL}\s*[가-힣]*(?:약|제|연고|크림|시럽)(?:을|를|은|는|도)?\s*{_TAKES}")
# what the animal did to a person, or a person's allergy to it: "강아지한테 물렸어요", "고양이 털 알레르기가 있는데"
_TO_A_PERSON = re.compile(r"알레르기|알러지|(?<![가-힣])털|비듬|물렸|물려서|물린|할퀴|긁혔")
_ANIMAL_EN = re.compile(r"\b(?:my|our|the)\s+(?:dog|puppy|cat|kitten|pet|hamster|rabbit)\b[^.?!]{0,40}?"
                        r"\b(?:ate|eaten|swallowed|took|give|given|giving|licked|chewed)\b"
                        r"|\b(?:give|giving)\s+(?:my|our|the)\s+(?:dog|puppy|cat|kitten|pet)\b", re.IGNORECASE)
# a person in the message: then it is (also) about them, and the human rules answer
_PERSON = re.compile(r"(?<![가-힣])(?:아이|아기|애기|아가|애가|우리\s*애|딸|아들|엄마|아빠|어머니|아버지|할머니|할아버지|남편|아내"
                     r"|와이프|동생|언니|오빠|누나|형|제가|저는|저도|내가|나는)(?![가-힣]*(?:용품|간식))"
                     r"|\b(?:my\s+(?:son|daughter|child|baby|kid|husband|wife)|I\s+(?:took|ate|swallowed))\b",
                     re.IGNORECASE)


def about_an_animal(text: str) -> bool:
    """Whether the message gives a medicine to an animal or says an animal took one, and names no person."""
    if not isinstance(text, str):
        raise TypeError(f"about_an_animal() expects str, got {type(text).__name__}")
    if _PERSON.search(text) or _TO_A_PERSON.search(text):
        return False
    return any(_ANIMAL_TAKES.search(s) or _ANIMAL_EN.search(s) for s in re.split(r"(?<=[.?!])\s+", text))
