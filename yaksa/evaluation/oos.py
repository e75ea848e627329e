"""Hand-written out-of-scope questions: what the guard must refuse without retrieving evidence.

They calibrate the out-of-scope threshold against in-scope dev questions. Coherent off-topic
questions ("삼성전자 주가") are the hard cases for a score floor, and medical-sounding requests that
the corpus cannot answer (hospital bookings, insurance paperwork) sit right at the border, so both
are over-represented on purpose.
"""

from __future__ import annotations

from yaksa.evaluation.goldsets import GoldQuestion

_KOREAN: tuple[str, ...] = (
    # finance
    "삼성전자 주가 알려줘", "오늘 비트코인 시세 얼마야?", "적금 금리 높은 은행 추천해 줘", "환율이 왜 이렇게 올랐어?",
    # weather
    "내일 서울 날씨 어때?", "이번 주말에 비 와요?", "오늘 미세먼지 농도 알려줘",
    # sports
    "어제 손흥민 경기 결과 알려줘", "한국시리즈 우승팀이 어디야?", "프로야구 순위 보여줘",
    # coding
    "파이썬 리스트 정렬 방법", "자바스크립트에서 배열 복사하는 법", "깃에서 커밋 되돌리는 방법 알려줘",
    # chit-chat
    "ㅋㅋㅋ", "안녕 뭐해", "심심한데 재밌는 얘기 해줘", "너 이름이 뭐야?", "오늘 기분이 좋아",
    # travel
    "제주도 2박 3일 여행 코스 추천해 줘", "도쿄 가는 싼 비행기표 찾아줘", "부산 맛집 알려줘",
    # cooking
    "김치찌개 맛있게 끓이는 법", "떡볶이 레시피 알려줘", "계란 삶는 시간 몇 분이야?",
    # shopping, entertainment, other services
    "요즘 볼 만한 넷플릭스 드라마 추천", "노트북 추천해 줘", "이사할 때 전입신고는 어디서 해?",
    # medical-sounding but outside a drug/consumer-health corpus
    "MRI 예약은 어떻게 하나요", "건강보험 환급 신청 방법", "근처 치과 영업시간 알려줘",
    "실손보험 청구 서류가 뭐예요?", "건강검진 결과지 어디서 떼요?", "응급실 대기 시간 얼마나 돼요?",
)

_ENGLISH: tuple[str, ...] = (
    "What is Apple's stock price today?", "Will it rain in Seoul tomorrow?", "Who won the World Cup in 2022?",
    "How do I sort a list in Python?", "Tell me a joke", "Recommend a good hotel in Paris",
    "How long should I boil an egg?", "How do I book an MRI appointment?",
    "How do I file a health insurance claim?", "What time does the dentist near me open?",
    "What is the capital of Australia?", "Best laptop under 1000 dollars", "How do I fix a flat bike tire?",
    "Translate good morning into French", "What movies are playing tonight?", "How do I renew my passport?",
    "Write a short poem about the sea", "How often should I change my car's oil?",
    "lol", "Which hospital near Boston has the shortest emergency room wait?",
)


def out_of_scope_ko_en() -> list[GoldQuestion]:
    """Korean and English out-of-scope questions: empty gold, kind "oos"."""
    questions = [(q, "ko") for q in _KOREAN] + [(q, "en") for q in _ENGLISH]
    return [
        GoldQuestion(qid=f"oos:{lang}:{i:02d}", question=text, gold=frozenset(), lang=lang, kind="oos")
        for i, (text, lang) in enumerate(questions, start=1)
    ]
