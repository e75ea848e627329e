from __future__ import annotations

import pytest

from yaksa.llm.evidence import Citation
from yaksa.llm.offline.extractive import NO_EVIDENCE_KO, care_department, cause_note, extractive_answer
from yaksa.llm.offline.rule_verifier import verify_rules
from yaksa.llm.safety import SAFETY_LINE_EN, SAFETY_LINE_KO


def _body_sentences(answer: str) -> list[str]:
    """The copied sentences of each paragraph (label prefix and citation removed)."""
    out = []
    for para in answer.split("\n\n")[:-1]:
        body = para.split(": ", 1)[1].rsplit(" [문서", 1)[0]
        out.append(body)
    return out


def test_korean_answer_copies_cited_sentences_verbatim(tylenol: list[Citation]) -> None:
    answer = extractive_answer("타이레놀은 하루에 몇 번 먹어요?", tylenol)
    paragraphs = answer.split("\n\n")
    assert paragraphs[-1] == SAFETY_LINE_KO and "전문가와 꼭 상담하세요" in answer
    # the section the question asks for (how often: 용법용량) comes first, with its daily limit (an amount)
    assert paragraphs[0] == ("타이레놀정500밀리그람(아세트아미노펜) (용법용량): 만 12세 이상 소아 및 성인은 "
                             "1회 1~2정씩 1일 3~4회 (4~6시간 마다) 필요시 복용합니다. 1일 최대 4그램(8정)을 "
                             "초과하여 복용하지 마십시오. [문서 2]")  # fmt: skip
    for para in paragraphs[:-1]:  # one citation per paragraph, at its end
        assert para.count("[문서") == 1 and para.endswith("]")
    texts = " ".join(c.text for c in tylenol)
    assert all(body in texts for body in _body_sentences(answer))
    assert verify_rules(answer, tylenol).verdict == "PASS"


def test_profile_cautions_come_first_and_are_flagged(tylenol: list[Citation]) -> None:
    answer = extractive_answer("타이레놀 먹어도 되나요?", tylenol, profile_summary="75세 남성, 당뇨병")
    # a question naming no one, answered for the remembered person: whom it was taken to be about comes first
    assumed, first = answer.split("\n\n")[:2]
    assert assumed.startswith("앞서 알려 주신 정보(75세 남성, 당뇨병)를 기준으로 답합니다.")
    assert first.startswith("타이레놀정500밀리그람(아세트아미노펜) (주의사항) — 말씀하신 정보(")
    assert "고령자, 간장애 환자, 당뇨병 환자는 이 약을 복용하기 전에 의사 또는 약사와 상의하십시오." in first
    assert first.endswith("[문서 3]") and "당뇨병" in first.split(":")[0]
    assert verify_rules(answer, tylenol).verdict == "PASS"


def test_a_caution_on_nothing_of_the_profile_does_not_lead(tylenol: list[Citation]) -> None:
    """Found as a user: a 29-year-old woman remembered with 몸살 asked how often to take 타이레놀 and the answer led
    with a caution section that named nothing of hers; a caution leads only when it speaks of the person."""
    answer = extractive_answer("타이레놀은 하루에 몇 번 먹어요?", tylenol, profile_summary="29세 여성. 증상: 몸살")
    first = answer.split("\n\n")[0]
    assert first.startswith("타이레놀정500밀리그람(아세트아미노펜) (용법용량)") and "말씀하신 정보" not in answer
    assert answer == extractive_answer("타이레놀은 하루에 몇 번 먹어요?", tylenol)


def test_english_answer(aspirin_en: list[Citation]) -> None:
    answer = extractive_answer("How much aspirin can an adult take?", aspirin_en)
    first = answer.split("\n\n")[0]
    assert first.startswith("Aspirin (usage): ") and first.endswith("[문서 1]")
    assert "Adults may take 325 mg every 4 hours as needed." in first
    assert answer.endswith(SAFETY_LINE_EN) and "전문가와 꼭 상담하세요" in answer
    assert verify_rules(answer, aspirin_en).verdict == "PASS"


def test_no_evidence_is_an_honest_answer() -> None:
    answer = extractive_answer("이 약 먹어도 돼요?", [])
    assert answer.startswith("질문에 답할 근거 문서를 찾지 못했습니다") and answer.endswith(SAFETY_LINE_KO)
    assert "[문서" not in answer


def test_duplicate_sentences_are_not_repeated(tylenol: list[Citation]) -> None:
    twin = Citation(4, "mfds:2:efficacy", "drugs", "타이레놀정160밀리그람", "효능효과", tylenol[0].text, 0.5, {})
    answer = extractive_answer("타이레놀 효능", [tylenol[0], twin])
    assert answer.count("이 약은 두통, 치통, 발열, 생리통에 사용합니다.") == 1 and "[문서 4]" not in answer


def test_empty_question_is_rejected(tylenol: list[Citation]) -> None:
    with pytest.raises(ValueError, match="question"):
        extractive_answer(" ", tylenol)


def test_real_mfds_labels_give_verifiable_answers(shared_data) -> None:
    """Over real e약은요 products: every answer passes the rule verifier; an invented dose never does."""
    from collections import defaultdict

    from yaksa.corpus import mfds_easy_drug
    from yaksa.corpus.rejects import RejectLog

    docs = mfds_easy_drug.load(shared_data("mfds-easy-drug-500"), RejectLog(), limit=40)
    products: dict[str, list] = defaultdict(list)
    for doc in docs:
        products[doc.metadata["item_seq"]].append(doc)
    assert len(products) >= 30
    for sections in products.values():
        evidence = [Citation(i, d.doc_id, d.collection, d.title, d.section, d.text, 1.0 - i / 10, d.metadata)
                    for i, d in enumerate(sections, start=1)]  # fmt: skip
        question = f"{sections[0].metadata['product_name']} 하루에 몇 번 복용하나요? 주의할 점은?"
        answer = extractive_answer(question, evidence, profile_summary="70세, 임신 중")
        assert verify_rules(answer, evidence).verdict == "PASS", answer
        assert answer.endswith(SAFETY_LINE_KO)
        invented = answer.replace(SAFETY_LINE_KO, f"1회 999정씩 드세요. [문서 1]\n\n{SAFETY_LINE_KO}")
        assert "근거 문서에 없는 용량/횟수 '999정'" in " ".join(verify_rules(invented, evidence).problems)


# 어린이부루펜시럽's dosing section: children by age, then adults for arthritis
CHILDRENS_SYRUP = Citation(1, "mfds:198300343:usage", "drugs", "어린이부루펜시럽(이부프로펜)", "용법용량",
                           "류마티양 관절염, 골관절염에 성인은 1회 200-600 mg씩, 1일 3-4회 복용합니다. "
                           "1일 최고 3,200 mg까지 투여할 수 있습니다. "
                           "어린이의 경우 3~6세는 1회 100~150 mg (5~8 mL)을 1일 3~4회 복용합니다.", 0.9,
                           {"item_seq": "198300343", "product_name": "어린이부루펜시럽", "section_key": "usage"})


def test_a_question_about_a_child_leaves_out_adult_only_dose_lines() -> None:
    """The 어린이부루펜시럽 label doses children by age, then adults for arthritis; a parent asking
    about a 5-year-old must not read the adult 200-600 mg line beside the child's dose."""
    syrup = [CHILDRENS_SYRUP]
    child = extractive_answer("5살 아이가 열이 나요. 부루펜 시럽 얼마나 먹여요?", syrup)
    assert "3~6세는 1회 100~150 mg" in child and "[문서 1]" in child
    assert "200-600 mg" not in child and "3,200 mg" not in child  # the adult maximum follows the adult line
    adult = extractive_answer("관절염에 부루펜 시럽 성인은 하루 최고 얼마나 먹어요?", syrup)
    assert "200-600 mg" in adult and "3,200 mg" in adult
    only_adult = [Citation(1, "mfds:1:usage", "drugs", "어떤정", "용법용량", "성인은 1회 1정 복용합니다.", 0.9,
                           {"section_key": "usage"})]
    answer = extractive_answer("아기한테 이 약 먹여도 돼요?", only_adult)
    # the adult dose is not quoted; the note cites the dosing section that shows it is for adults only
    assert "1회 1정" not in answer and answer.startswith("어떤정의 허가 정보에는 성인 용량만 있고 어린이 용량이 없어 [문서 1],")


def test_an_english_question_quoting_the_korean_labels_is_read_through_its_gloss() -> None:
    """"how much … my 5 year old" quoting a Korean label: the child's dose without the adults' (the gloss reads
    "5살"), framed in English; an English question over English passages is read as it is."""
    syrup = [CHILDRENS_SYRUP]
    child = extractive_answer("How much ibuprofen syrup can I give my 5 year old?", syrup)
    assert "3~6세는 1회 100~150 mg" in child and "200-600 mg" not in child
    assert child.endswith(SAFETY_LINE_EN)
    adult = extractive_answer("How much ibuprofen can an adult take?", syrup)
    assert "200-600 mg" in adult


def test_a_childs_dose_comes_before_a_caution_that_names_children_in_general() -> None:
    """"어린이 부루펜 시럽 6살 몇 ml 먹여요?" got the whole caution (it names "만 2세 미만의 소아") before the dose;
    a caution that names the person's condition still comes first."""
    def cite(n: int, key: str, section: str, text: str) -> Citation:
        return Citation(n, f"mfds:{n}:{key}", "drugs", "어린이부루펜시럽(이부프로펜)", section, text, 1.0 - n / 10,
                        {"section_key": key})

    evidence = [cite(1, "precautions", "주의사항", "이 약을 복용하기 전에 천식 환자, 만 2세 미만의 소아는 의사 또는 약사와 "
                                                "상의하십시오."),
                cite(2, "usage", "용법용량", "어린이의 경우 3~6세는 100~150 mg(5~8 ml), 1일 3~4회 복용합니다.")]
    dose = extractive_answer("어린이 부루펜 시럽 6살 몇 ml 먹여요?", evidence)
    assert dose.index("3~6세는 100~150 mg") < dose.index("만 2세 미만의 소아")
    asthma = extractive_answer("천식이 있는 6살 아이인데 부루펜 시럽 몇 ml 먹여요?", evidence)
    assert asthma.index("만 2세 미만의 소아") < asthma.index("3~6세는 100~150 mg")


def test_an_adult_only_product_is_not_quoted_for_an_infant() -> None:
    """A feverish 50-day-old: 뇌선's indications ("발열 시의 해열") must not be offered; the children's product is."""
    def cite(n: int, title: str, key: str, section: str, text: str) -> Citation:
        return Citation(n, f"mfds:{n}:{key}", "drugs", title, section, text, 1.0 - n / 10, {"section_key": key})

    evidence = [cite(1, "세토펜정80밀리그램", "efficacy", "효능효과", "이 약은 감기로 인한 발열 및 통증에 사용합니다."),
                cite(2, "세토펜정80밀리그램", "usage", "용법용량", "만 12세 이하의 소아는 1회 권장용량을 복용합니다."),
                cite(3, "뇌선", "efficacy", "효능효과", "이 약은 두통, 치통, 발열 시의 해열에 사용합니다."),
                cite(4, "뇌선", "usage", "용법용량", "성인 1회 1포, 1일 3회까지 복용합니다.")]
    infant = extractive_answer("생후 50일 아기가 열이 나요 해열제 먹여도 되나요?", evidence)
    assert "세토펜정80밀리그램" in infant and "뇌선" not in infant
    adult = extractive_answer("열이 나요 해열제 먹어도 되나요?", evidence)
    assert "뇌선" in adult


CHILD_ONLY_USAGE = Citation(1, "mfds:199300892:usage", "drugs", "세토펜정80밀리그램(아세트아미노펜)", "용법용량",
                            "만 12세 이하의 소아는 1회 권장용량을 4~6시간마다 필요시 복용합니다. 성인은 의사 또는 "
                            "약사와 상의합니다.", 0.9, {"section_key": "usage"})


def test_an_adult_post_gets_no_childrens_dose_lines() -> None:
    from yaksa.extraction.post_reader import read_post

    adult = read_post("29살 여자입니다. 어제부터 열이 나고 몸살 기운이 있어요. 세토펜 먹어도 될까요? 몇 번 먹어요?")
    child = read_post("6살 딸이 어제부터 열이 나요. 밥도 잘 안 먹어요. 세토펜 얼마나 먹여야 하나요?")
    assert "만 12세 이하의 소아는" not in extractive_answer(adult.text, [CHILD_ONLY_USAGE], post=adult)
    assert "만 12세 이하의 소아는" in extractive_answer(child.text, [CHILD_ONLY_USAGE], post=child)


def test_questions_no_label_answers_are_named_first_and_pass_the_rules() -> None:
    from yaksa.extraction.post_reader import read_post
    from yaksa.lexicon.linking import Linking

    post = read_post("몇 달째 기침이 나고 열이 나요. 세토펜을 먹었는데 그대로예요. 결핵 초기 증상인가요? "
                     "세토펜 계속 먹어도 되나요?", lambda text: Linking(mentions=("세토펜을",) if "세토펜을" in text else ()))
    answer = extractive_answer(post.text, [CHILD_ONLY_USAGE], post=post)
    first = answer.split("\n\n")[0]
    assert "결핵 초기 증상인가요?" in first and "허가 정보로는 답할 수 없습니다" in first and "세토펜을" in first
    assert verify_rules(answer, [CHILD_ONLY_USAGE]).verdict == "PASS"


def test_a_short_question_that_names_its_person_gets_that_persons_cautions_first() -> None:
    """"임신 20주인데 …" is a pregnant writer even in one line: the label's sentence on 임부 comes first,
    flagged as theirs; without the person nothing is flagged."""
    def cite(n: int, key: str, section: str, text: str) -> Citation:
        return Citation(n, f"mfds:{n}:{key}", "drugs", "세리콘정(아세트아미노펜)", section, text, 1.0 - n / 10,
                        {"section_key": key})

    evidence = [cite(1, "efficacy", "효능효과", "이 약은 두통, 발열에 사용합니다."),
                cite(2, "precautions", "주의사항", "이 약을 복용하기 전에 간장애 환자, 임부 또는 수유부는 의사 또는 약사와 상의하십시오.")]
    pregnant = extractive_answer("임신 20주인데 두통이 있어요. 세리콘정 먹어도 되나요?", evidence)
    assert pregnant.index("[문서 2]") < pregnant.index("[문서 1]") and "관련된 주의" in pregnant
    assert "말씀하신 정보(임부)" in pregnant
    anyone = extractive_answer("두통이 있어요. 세리콘정은 어디에 쓰는 약이에요?", evidence)
    assert anyone.index("[문서 1]") < anyone.index("[문서 2]") and "관련된 주의" not in anyone


def test_a_short_question_asking_the_cause_hears_so_first_then_the_labels(tylenol: list[Citation]) -> None:
    """"두통 원인이 뭐예요?": no label names the cause, so that comes first (with the consult line, so the rule
    verifier passes it); the labels of medicines for the complaint follow. Without a label, no "below"."""
    from yaksa.extraction.post_reader import read_post

    question = "두통 원인이 뭐예요?"
    answer = extractive_answer(question, tylenol, post=read_post(question))
    first = answer.split("\n\n")[0]
    assert "원인이나 병명은 진찰을 받아야" in first and "아래는 물으신 증상에 쓰는 약의 허가 정보입니다" in first
    assert "[문서" in answer and verify_rules(answer, tylenol).verdict == "PASS"
    bare = extractive_answer(question, [], post=read_post(question))
    assert "원인이나 병명은" in bare and "아래는" not in bare and NO_EVIDENCE_KO in bare
    plain = extractive_answer("두통에 먹는 약", tylenol, post=read_post("두통에 먹는 약"))
    assert "원인이나 병명은" not in plain


ADULT_ONLY_USAGE = Citation(1, "mfds:197400207:usage", "drugs", "페니라민정(클로르페니라민말레산염)", "용법용량",
                            "성인 1회 1정, 1일 3회 복용합니다.", 0.9, {"section_key": "usage"})


def test_a_child_asking_about_an_adult_only_product_hears_which_and_why() -> None:
    """"7살 아이가 … 페니라민 먹여도 돼요?" heard only that no document answers it; now it hears that the label
    doses adults only, once with the consult line, and the rule verifier passes it."""
    from yaksa.extraction.post_reader import read_post

    question = "7살 아이가 콧물이 나요 페니라민 먹여도 돼요?"
    answer = extractive_answer(question, [ADULT_ONLY_USAGE], post=read_post(question))
    assert ADULT_ONLY_USAGE.title in answer and "성인 용량만 있고 어린이 용량이 없어" in answer
    assert answer.count("전문가와 꼭 상담하세요") == 1 and NO_EVIDENCE_KO not in answer
    assert verify_rules(answer, [ADULT_ONLY_USAGE]).verdict == "PASS"


PREGNANCY_CAUTIONS = [
    ("이 약을 복용하기 전에 간장애, 신장(콩팥)장애, 소화성궤양, 혈액이상, 출혈경향 환자, 심장기능이상, 과민증 경험, 기관지천식, "
    "노인, 임부 또는 수유부는 의사 또는 약사와 상의하십시오."),
    ("이 약을 복용하기 전에 간장애 또는 경험자, 신장장애 또는 경험자, 소화성궤양 경험자, 혈액이상 또는 경험자, 출혈경향이 있는 "
    "환자, 심장기능이상이 있는 환자, 기관지천식, 고령자, 임부 또는 수유부는 의사 또는 약사와 상의하십시오."),
]


def test_one_ingredients_near_identical_cautions_are_quoted_once_and_the_others_named() -> None:
    def caution(n: int, title: str, text: str) -> Citation:
        return Citation(n, f"mfds:{n}:precautions", "drugs", title, "주의사항", text, 1.0 - n / 10,
                        {"section_key": "precautions"})

    evidence = [caution(1, "세리콘정(아세트아미노펜)", PREGNANCY_CAUTIONS[0]),
                caution(2, "트라몰정325밀리그람(아세트아미노펜)", PREGNANCY_CAUTIONS[1])]
    answer = extractive_answer("임신 30주인데 타이레놀 먹어도 되나요?", evidence)
    assert answer.count("임부 또는 수유부는") == 1          # the caution once, not once per product
    assert "트라몰정325밀리그람(아세트아미노펜) [문서 2]" in answer and "[문서 1]" in answer
    assert verify_rules(answer, evidence).verdict == "PASS", verify_rules(answer, evidence).problems
    # a different dose is never folded in, however alike the sentences
    doses = [caution(1, "가정", "성인은 1회 1정을 1일 3회 복용합니다."), caution(2, "나정", "성인은 1회 2정을 1일 3회 복용합니다.")]
    assert extractive_answer("임신 30주인데 먹어도 되나요?", doses).count("성인은 1회") == 2


def test_a_condition_named_in_a_short_question_flags_the_cautions_that_name_it() -> None:
    """"고혈압이 있는데 코감기약 먹어도 돼요?": the caution sentence naming 고혈압 comes first, flagged as theirs."""
    def cite(n: int, key: str, section: str, text: str) -> Citation:
        return Citation(n, f"mfds:{n}:{key}", "drugs", "코감기정", section, text, 1.0 - n / 10, {"section_key": key})

    evidence = [cite(1, "efficacy", "효능효과", "이 약은 코감기에 의한 콧물, 코막힘에 사용합니다."),
                cite(2, "precautions", "주의사항", "이 약을 복용하기 전에 고혈압, 당뇨병 환자는 의사 또는 약사와 상의하십시오.")]
    answer = extractive_answer("고혈압이 있는데 코감기약 먹어도 돼요?", evidence)
    assert answer.index("[문서 2]") < answer.index("[문서 1]") and "말씀하신 정보(" in answer and "고혈압" in answer
    plain = extractive_answer("코감기약 어디에 써요?", evidence)
    assert "관련된 주의" not in plain


SIDE_EFFECT_LIST = ("쇽 증상(가슴쓰림, 오한, 호흡곤란, 혈압저하), 헤마토크릿 감소, 헤모글로빈 감소, 빈혈, 재생불량성빈혈, 용혈성빈혈, "
                    "무과립구증, 과립구감소, 백혈구감소, 혈소판감소, 소화성궤양, 위장관궤양, 위장출혈, 천공(뚫림), 궤양성 대장염, "
                    "혈변, 위염, 췌장염, 혈액구토, 크론병, 식욕부진, 구역, 구토, 복통, 소화불량, 설사, 위부불쾌감, 상복부 통증, 구갈, "
                    "구내염, 복부팽만감, 구강궤양, 변비, 흑변, 피부점막안증후군(스티븐스-존슨증후군), 만 2세 미만의 소아, 발열, "
                    "코피, 부기, 말초부종 등이 나타나는 경우 복용을 즉각 중지하고 의사 또는 약사와 상의하십시오.")


def test_a_long_caution_list_keeps_its_head_what_was_asked_numbers_and_its_instruction() -> None:
    """"이부프로펜 먹고 코피가 나요" got a 900-character side-effect list with 코피 somewhere inside."""
    evidence = [Citation(1, "mfds:1:side_effects", "drugs", "이부펜정", "부작용", SIDE_EFFECT_LIST, 0.9,
                         {"section_key": "side_effects"})]
    answer = extractive_answer("이부프로펜 먹고 코피가 나요", evidence)
    body = answer.split("\n\n")[0]
    assert body.startswith("이부펜정 (부작용): 쇽 증상(가슴쓰림, 오한, 호흡곤란, 혈압저하), 헤마토크릿 감소,")
    assert len(SIDE_EFFECT_LIST) > 300
    assert "소아 … 코피 … 말초부종 등이 나타나는 경우 복용을 즉각 중지하고 의사 또는 약사와 상의하십시오. [문서 1]" in body
    assert "만 2세 미만의 소아" in body and "크론병" not in body   # a number is never elided, the rest is
    assert len(body) < len(SIDE_EFFECT_LIST)
    assert verify_rules(answer, evidence).verdict == "PASS"
    short = "구역, 구토, 복통 등이 나타나는 경우 복용을 중지하십시오."   # a short list is quoted whole
    evidence = [Citation(1, "mfds:1:side_effects", "drugs", "가정", "부작용", short, 0.9, {"section_key": "side_effects"})]
    assert short in extractive_answer("가정 먹고 구역이 나요", evidence)


def test_a_long_caution_list_keeps_no_item_for_a_word_ending_the_question_shares() -> None:
    """Items are kept for the question's content words: "부작용이 있는 약인가요?" shares only "있는" with
    "출혈 경향이 있는 사람", which is elided like the other items nobody asked about."""
    evidence = [Citation(1, "mfds:1:side_effects", "drugs", "이부펜정", "부작용", SIDE_EFFECT_LIST.replace(
        "크론병", "출혈 경향이 있는 사람"), 0.9, {"section_key": "side_effects"})]
    body = extractive_answer("이 약은 부작용이 있는 약인가요?", evidence).split("\n\n")[0]
    assert "출혈 경향이 있는 사람" not in body and " … " in body
    assert "코피" not in body and "만 2세 미만의 소아" in body   # nothing asked about it; a number is kept


def test_the_caution_naming_the_persons_condition_comes_before_other_cautions() -> None:
    def cite(n: int, key: str, section: str, text: str) -> Citation:
        return Citation(n, f"mfds:{n}:{key}", "drugs", f"약{n}", section, text, 1.0 - n / 10, {"section_key": key})

    evidence = [cite(1, "precautions", "주의사항", "이 약을 복용하기 전에 간장애 환자는 의사 또는 약사와 상의하십시오."),
                cite(2, "interactions", "상호작용", "이 약과 다른 감기약을 함께 복용하지 마십시오."),
                cite(3, "interactions", "상호작용", "고혈압 약을 복용하는 사람은 의사 또는 약사와 상의하십시오.")]
    paragraphs = extractive_answer("고혈압이 있는데 감기약 먹어도 돼요?", evidence).split("\n\n")
    assert paragraphs[0].endswith("[문서 3]") and "관련된 주의" in paragraphs[0]


def test_care_replies_send_a_child_to_a_paediatrician_and_everyone_else_to_a_doctor() -> None:
    assert care_department(("infant",)) == care_department(("child", "adult")) == "소아청소년과"
    assert care_department(("adult",)) == care_department(()) == "병원"
    assert "소아청소년과에서" in cause_note("4살인데 입냄새가 심해요 원인은 무엇일까요?", ("child",))
    assert "병원에서" in cause_note("두통 원인이 뭐예요?")


def test_the_care_note_names_what_was_tried_with_the_right_particles() -> None:
    """"이미 항생제을(를) 써 보셨는데도" and "…"은(는)": the particles agree with the words they follow."""
    from yaksa.extraction.post_reader import read_post
    from yaksa.llm.offline.extractive import care_note

    post = read_post("5살 아이가 열이 나서 해열제를 먹였는데도 계속 열이 나요. 일주일째입니다. 왜 그런 걸까요?")
    note = care_note(post)
    assert '"왜 그런 걸까요?"는 증상의 원인' in note and "해열제를 써 보셨는데도" in note
    assert "(를)" not in note and "(는)" not in note


def test_an_adult_only_products_caution_about_children_is_quoted() -> None:
    """"아이한테 게보린정을 먹여도 될까요?" heard only that the label doses adults, while its 주의사항 says that
    children under 15 must not take it: that sentence is quoted, cited, and said to be about the child's age
    (a child of unstated age is under fifteen: `yaksa.llm.offline.age_limits`)."""
    from yaksa.extraction.post_reader import read_post

    caution = Citation(2, "mfds:197400207:caution", "drugs", ADULT_ONLY_USAGE.title, "주의사항",
                       "이 약에 과민증 환자는 복용하지 마십시오. 15세 미만의 소아는 이 약을 복용하지 마십시오.", 0.8,
                       {"section_key": "caution"})
    question = "아이한테 페니라민정 먹여도 될까요?"
    answer = extractive_answer(question, [ADULT_ONLY_USAGE, caution], post=read_post(question))
    assert '"15세 미만의 소아는 이 약을 복용하지 마십시오." [문서 2]' in answer and "과민증" not in answer
    assert "물으신 아이의 나이에는 쓰지 말라고" in answer and "이 자료로 답할 수 없습니다" not in answer
    assert answer.count("전문가와 꼭 상담하세요") == 1
    assert verify_rules(answer, [ADULT_ONLY_USAGE, caution]).verdict == "PASS"


def test_a_pregnant_users_dose_answer_says_its_quotes_speak_not_of_pregnancy() -> None:
    """Found as a user: after "임신 중인데 타이레놀 먹어도 되나요?" (cautions for 임부 quoted), the follow-up
    "하루에 몇 번까지 돼요?" got the adult dose alone. With the profile saying 임신 and no quoted sentence
    about it, the closing says so and sends her to the cautions and a pharmacist; a quoted caution on 임부
    needs no such note, nor does a profile without pregnancy."""
    usage = Citation(1, "mfds:1:usage", "drugs", "세리콘정(아세트아미노펜)", "용법용량",
                     "성인은 1회 1~2정, 1일 3~4회 복용합니다.", 0.9, {"section_key": "usage"})
    caution = Citation(2, "mfds:1:precautions", "drugs", "세리콘정(아세트아미노펜)", "주의사항",
                       "이 약을 복용하기 전에 임부 또는 수유부는 의사 또는 약사와 상의하십시오.", 0.8,
                       {"section_key": "precautions"})
    dose = extractive_answer("세리콘정은 하루에 몇 번까지 돼요?", [usage], profile_summary="임신 중.")
    closing = dose.split("\n\n")[-1]
    assert "임신 중이라고 하셨는데" in closing and "임신 중 복용에 관한 내용이 없습니다" in closing
    assert closing.endswith("전문가와 꼭 상담하세요.") and verify_rules(dose, [usage]).verdict == "PASS"
    assert "1회 1~2정" in dose   # the dose is still quoted, from the label
    quoted = extractive_answer("세리콘정은 하루에 몇 번까지 돼요?", [usage, caution], profile_summary="임신 중.")
    assert "임신 중이라고 하셨는데" not in quoted and "말씀하신 정보(임부" in quoted
    assert "하셨는데" not in extractive_answer("세리콘정은 하루에 몇 번까지 돼요?", [usage])
    english = extractive_answer("How many times a day can I take it?", [usage], profile_summary="임신 중.")
    assert "You said you are pregnant" in english
    # an overview passage is no product's cautions: the note speaks of "the label text" and is not said over it
    overview = Citation(1, "medquad:1", "health", "Pregnancy and Medicines", "information",
                        "Not all medicines are safe to take when you are pregnant.", 0.9, {"qtype": "information"})
    assert "You said you are pregnant" not in extractive_answer("Can I take medicines while pregnant?", [overview],
                                                                profile_summary="임신 중.")


def test_a_dose_question_quotes_the_dosing_sentences_that_state_an_amount() -> None:
    """"해열제는 한 번에 얼마나 먹여요?" shares no word with the label's mg/kg lines; it got only the opening
    sentence. A dosing section's sentences that state an amount now count for a dose question."""
    text = ("만 12세 이하의 소아는 1회 권장용량을 4~6시간마다 필요시 복용합니다.이 약은 가능한 최단기간동안 최소 "
            "유효용량으로 복용하며, 1일 5회(75 mg/kg)을 초과하여 복용하지 않습니다.몸무게를 아는 경우 몸무게에 따른 "
            "용량(10~15 mg/kg)으로 복용하는 것이 더 적절합니다.연령대별 권장용량은 허가사항을 참고하십시오.")
    usage = Citation(n=1, doc_id="mfds:1:usage", collection="drugs", title="트라몰정160밀리그람(아세트아미노펜)",
                     section="용법용량", text=text, score=1.0, metadata={"section_key": "usage"})
    answer = extractive_answer("해열제는 한 번에 얼마나 먹여요?", [usage], profile_summary="(자녀) 5세.")
    assert "1일 5회(75 mg/kg)" in answer and "(10~15 mg/kg)" in answer
    assert verify_rules(answer, [usage]).verdict == "PASS"
    # not a dose question: the amounts earn nothing
    other = extractive_answer("이 약은 어떤 약이에요?", [usage])
    assert "(10~15 mg/kg)" not in other


def test_signs_of_worry_beside_a_complaint_say_where_to_get_help_before_the_labels() -> None:
    """"… 온갖 걱정이 떠올라서 새벽까지 잠을 못 자요. 낮에는 피곤해서 …" got a sleep aid's label and nothing else."""
    from yaksa.llm.offline.rule_verifier import verify_rules

    sleep_aid = [Citation(1, "mfds:1:efficacy", "drugs", "수면정", "효능효과", "이 약은 불면증의 보조치료에 사용합니다.", 0.9,
                          {"section_key": "efficacy"})]
    answer = extractive_answer("밤에 누우면 온갖 걱정이 떠올라서 새벽까지 잠을 못 자요. 낮에는 피곤해서 아무것도 못 해요.",
                               sleep_aid)
    first = answer.split("\n\n")[0]
    assert "정신건강의학과" in first and "1577-0199" in first and "[문서 1]" in answer
    assert verify_rules(answer, sleep_aid).verdict == "PASS"
    assert "정신건강의학과" not in extractive_answer("밤에 잠을 못 자요", sleep_aid)   # one sign: the labels alone


def test_a_long_post_asking_about_a_condition_of_the_mind_hears_where_to_get_help_last(
        tylenol: list[Citation]) -> None:
    """A post titled "우울증? 불안증?" about a break-up, sleepless nights and a racing heart got a sleep aid's label
    and nothing on what it asked; where to get help now closes the answer, so its first paragraph is unchanged."""
    from yaksa.extraction.post_reader import read_post
    from yaksa.llm.offline.extractive import mind_note

    text = ("우울증일까요? 석 달 전에 헤어지고 나서 매일 새벽까지 잠이 안 와요. 머리도 아프고 가슴이 두근거려요. "
            "두통약을 먹어도 될까요?")
    post = read_post(text)
    assert post.long
    answer = extractive_answer(text, tylenol, post=post)
    assert answer.endswith(mind_note()) and "[문서" in answer.split("\n\n")[0]
    assert verify_rules(answer, tylenol).verdict == "PASS"
    plain = "석 달 전부터 매일 새벽까지 잠이 안 와요. 머리도 아프고 가슴이 두근거려요. 두통약을 먹어도 될까요?"
    assert extractive_answer(plain, tylenol, post=read_post(plain)).endswith(SAFETY_LINE_KO)


# 로파미드캡슐's dosing section: adults' acute and chronic doses, then children's, each group's maximum in its own
# sentence that names no group
LOPERAMIDE = Citation(1, "mfds:1:usage", "drugs", "로파미드캡슐(로페라미드염산염)", "용법용량",
                      "성인의 급성설사에는 초회량으로 2캡슐(4 mg)을 경구투여하고, 유지량으로는 묽은 변이 있을 때마다 "
                      "1캡슐(2 mg)씩을 투여하세요. 1일 상용량은 3~4캡슐(6-8 mg)이며, 1일 최대투여량은 8캡슐(16 mg)입니다. "
                      "소아의 급성설사에는 초회량으로 1캡슐(2 mg)을 경구투여하고, 유지량으로는 묽은 변이 있을 때마다 "
                      "1캡슐(2 mg)씩을 투여하세요. 1일 최대용량은 3캡슐(6 mg)을 초과하지 마세요.", 0.9,
                      {"section_key": "usage"})


@pytest.mark.parametrize("question", ["로페라미드 하루에 몇 번 먹어요?", "How many loperamide can I take a day?"])
def test_a_dose_asked_for_oneself_is_an_adults(question: str) -> None:
    """Naming no one and giving it to no one, the asker asks their own dose: "이모디움 하루에 몇 번 먹어요?" got the
    children's lines first, and the English question a children's maximum as if it were everyone's."""
    answer = extractive_answer(question, [LOPERAMIDE])
    assert "8캡슐(16 mg)" in answer and "[문서 1]" in answer
    assert "소아의" not in answer and "3캡슐(6 mg)" not in answer


def test_a_childrens_product_asked_for_oneself_keeps_its_lines() -> None:
    """A dosing section that doses no adult is not emptied for an asker taken to be an adult."""
    drops = Citation(1, "mfds:2:usage", "drugs", "어떤시럽", "용법용량",
                     "만 2세 이상 소아는 1회 5 mL를 복용합니다. 1일 3회까지 복용할 수 있습니다.", 0.9,
                     {"section_key": "usage"})
    assert "1회 5 mL" in extractive_answer("어떤시럽 몇 ml 먹어요?", [drops])


def test_a_dose_line_naming_no_group_is_quoted_with_the_line_that_names_it() -> None:
    """Giving it to someone unnamed, every group's lines may answer; a children's maximum quoted alone read as the
    adults' ("1일 최대용량은 3캡슐(6 mg)을 초과하지 마세요."): the line naming its group comes with it."""
    answer = extractive_answer("How many loperamide can I give a day?", [LOPERAMIDE])
    assert answer.index("성인의 급성설사에는") < answer.index("8캡슐(16 mg)") < answer.index("소아의 급성설사에는")
    assert answer.index("소아의 급성설사에는") < answer.index("3캡슐(6 mg)")
    child = extractive_answer("8살 아이 로페라미드 몇 개 먹여요?", [LOPERAMIDE])
    assert "소아의 급성설사에는" in child and "8캡슐(16 mg)" not in child


def test_a_medicine_taken_and_no_better_hears_when_to_stop() -> None:
    """"타이레놀 먹었는데 두통이 안 나아요" got an acetaminophen tablet's contraindications; "변비약 먹은지 3일째인데 효과가
    없어요" a probiotic's uses (2026-12-01, as a user). The note comes first, then each label's line on when to stop
    and ask; a product whose cautions found say nothing of it is left out while another's do."""
    from yaksa.llm.offline.extractive import no_better_note

    stops = Citation(1, "mfds:1:precautions", "drugs", "세리콘정(아세트아미노펜)", "주의사항",
                     "이 약에 과민증 환자는 이 약을 복용하지 마십시오.의사 또는 약사의 지시없이 통증에 10일 이상(성인) 복용하지 "
                     "않습니다.", 0.9, {"section_key": "precautions"})
    silent = Citation(2, "mfds:2:precautions", "drugs", "타스멘정(아세트아미노펜)", "주의사항",
                      "이 약에 과민증 환자, 소화성궤양 환자는 이 약을 복용하지 마십시오.", 0.8, {"section_key": "precautions"})
    answer = extractive_answer("타이레놀 먹었는데 두통이 안 나아요", [stops, silent])
    paragraphs = answer.split("\n\n")
    assert paragraphs[0] == no_better_note(stop_quoted=True) and "양을 늘리거나" in paragraphs[0]
    assert paragraphs[1] == ("세리콘정(아세트아미노펜) (주의사항): 의사 또는 약사의 지시없이 통증에 10일 이상(성인) 복용하지 "
                             "않습니다. [문서 1]")
    assert "타스멘정" not in answer and verify_rules(answer, [stops, silent]).verdict == "PASS"
    # no line on stopping among the cautions found: the note does not promise one
    only_silent = extractive_answer("타이레놀 먹었는데 두통이 안 나아요", [silent])
    assert only_silent.split("\n\n")[0] == no_better_note() and "타스멘정" in only_silent
    # not taken: no note
    assert "양을 늘리거나" not in extractive_answer("두통이 있는데 타이레놀 먹어도 되나요", [stops, silent])


def test_an_ointment_used_for_a_week_hears_not_to_go_on_using_it() -> None:
    """"후시딘 발랐는데 일주일째 상처가 안 나아요" got the ointment's contraindications and dose after the note; its
    label's "장기간 사용하지 마십시오" is the line on when to stop (2026-12-02, as a user)."""
    from yaksa.llm.offline.extractive import no_better_note

    caution = Citation(1, "mfds:1:precautions", "drugs", "후시딘연고(퓨시드산나트륨)", "주의사항",
                       "이 약에 과민증 환자는 사용하지 마십시오.이 약은 높은 투과흡수성을 가지므로 장기간 사용하지 마십시오.", 0.9,
                       {"section_key": "precautions"})
    usage = Citation(2, "mfds:1:usage", "drugs", "후시딘연고(퓨시드산나트륨)", "용법용량",
                     "1일 2~3회 환부에 적당량을 바릅니다.", 0.8, {"section_key": "usage"})
    answer = extractive_answer("후시딘 발랐는데 일주일째 상처가 안 나아요", [caution, usage])
    paragraphs = answer.split("\n\n")
    assert paragraphs[0] == no_better_note(stop_quoted=True)
    assert paragraphs[1] == ("후시딘연고(퓨시드산나트륨) (주의사항): 이 약은 높은 투과흡수성을 가지므로 장기간 사용하지 마십시오. "
                             "[문서 1]")
    # ... and no dose after the line on when to stop: how to go on applying it is not what a week without help needs
    assert "1일 2~3회" not in answer and verify_rules(answer, [caution, usage]).verdict == "PASS"
    # the dose, asked, is still quoted
    asked = extractive_answer("후시딘 발랐는데 일주일째 안 나아요. 하루에 몇 번 발라야 하나요?", [caution, usage])
    assert "1일 2~3회" in asked


def test_a_long_post_on_a_medicine_that_did_not_help_hears_the_note_first() -> None:
    """A long post asking no doctor's question, that tells of a medicine taken without effect ("감기약계속사먹었는데도
    안듣네요", a real post's words) opens with the note, then the labels' lines on when to stop; one whose failure is
    far from any taking ("먹고 토하는 …" then, hundreds of characters on, "별 차도가") is no such post."""
    from yaksa.extraction.post_reader import read_post
    from yaksa.lexicon.section_intent import says_it_did_not_work
    from yaksa.llm.offline.extractive import no_better_note

    stops = Citation(1, "mfds:1:precautions", "drugs", "바스칼캡슐", "주의사항",
                     "5~6회 복용하여도 증상의 개선이 없을 경우 복용을 즉각 중지하고 의사 또는 약사와 상의하십시오.", 0.9,
                     {"section_key": "precautions"})
    post = read_post("2주째 기침과 콧물이 계속 목뒤로 넘어오고 코가 막히면 콧물이 흘러요. 일할 때 너무 불편해요. "
                     "감기약을 계속 사먹었는데도 안듣네요. 귀도 막힌 것처럼 먹먹해요.")
    assert post.long and not post.care_questions
    answer = extractive_answer(post.text, [stops], post=post)
    assert answer.split("\n\n")[0] == no_better_note(stop_quoted=True)
    assert "5~6회 복용하여도" in answer and verify_rules(answer, [stops]).verdict == "PASS"
    assert says_it_did_not_work("어릴 때 먹고 토하는 일이 잦았어요. " + "그 뒤로 여러 해가 지났고 지금은 회사에 다닙니다. " * 3
                                + "요즘 두통이 있는데 별 차도가 없어요.") is None
