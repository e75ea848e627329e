"""Non-medical domain cues: words that say a request belongs to another product.

Why cues and not a blacklist: "주식" in "감기약 회사 주식" and "레시피" in "크림 파스타 레시피" are
strong evidence that the drug word is incidental, but a cue never decides alone: each matched
domain adds one unit of evidence to the scope model (`features.py`), which weighs it against the
question's similarity to in- and out-of-scope exemplars and its medical concept density. The
patterns are deliberately specific (a word that names the other domain's act or object) and live
here so they can be reviewed; a pattern that fires on real pharmacy questions shows up as a false
block in `yaksa eval scope`.

Usage:
    domain_cues("감기약 회사 주식 사도 될까요")   # ("finance",)
    domain_cues("두통에 먹는 약")                # ()
"""

from __future__ import annotations

import re

_I = re.IGNORECASE
# A cue is a word of the other domain in that domain's sense. Counted on the 4,986 shared health posts
# (2026-11-30), five fired in another sense and weighed against real patients: 주가 inside 자주가 and "2주가"
# (42 posts), 편입 in "마른 편입니다" (101), a post's opening 안녕하세요 as small talk (832), 사이즈 of a
# lump (17), 고등학교 of a student's self-description (37; 4 of the 3,000 non-medical questions).

# 교환 is a shop's exchange, not a dressing, a tube or a bandage changed, nor an exchange transfusion: "수술 부위
# 드레싱 교환은 언제 해요?" and "화상 드레싱 교환할 때 아파요" (ours, 2026-11-30) were refused on the shopping cue.
# Of the shared texts, one non-medical question and one post say 교환, neither of these.
_CARE_EXCHANGE = r"(?<!드레싱)(?<!드레싱 )(?<!거즈)(?<!거즈 )(?<!붕대)(?<!붕대 )(?<!혈장)(?<!혈장 )(?<!관)(?<!관 )교환(?!\s?수혈)"

CUES: dict[str, re.Pattern[str]] = {
    "finance": re.compile(
        r"바이오주|창업 ?비용|\bmortgage\b|refinanc\w*|make money|주식|(?<![가-힣\d])주가|코스피|코스닥|상장|공모주|청약|\bETF\b|펀드|배당|시세|환율|금리|적금|예금|대출|비트코인|코인|투자"
        r"|목표주가|실적|매출|연말정산|수익률|\bstocks?\b|\bshares\b|\binvest\w*|\bdividend|\bIRA\b|mutual fund"
        r"|\bearnings\b|\bretirement\b", _I),
    "food": re.compile(
        r"반숙|삶아|끓이|비법|맛있게|굽기|불려|죽집|마리네이드|\bboil (an?|the|some)\b|\broast(ed|ing)?\b|\bgrill(ed|ing)?\b|\bmarinade\b|\bwine\b|\bsourdough\b|al dente|\bscrambled\b|레시피|요리|끓이는|맛집|메뉴|파스타|찌개|떡볶이|굽는|에어프라이어|라면 (물|끓)|치킨|배달|디저트|카페(?!인)|샐러드"
        r"|담그는|삶는|만드는 ?(법|방법)|전자레인지|휘핑|\brecipes?\b|\bpasta\b|\bbak(e|ing)\b|\bsauce\b|\blasagna\b|\bcookies?\b|\bsmoothie\b"
        r"|\brestaurants?\b|\breheat\b|\bavocado\b", _I),
    "jobs": re.compile(
        r"입시|합격률|\bearn\b|\btechnician\b|채용|공고|연봉|시급|알바|면접|이력서|자기소개서|자소서|퇴사|취업|국가고시|커트라인|실업급여|공무원|수강료|영업직"
        r"|\bjobs?\b|\bsalary\b|\bhiring\b|cover letter|\binterview\b|\bresume\b|job openings?", _I),
    "travel": re.compile(
        r"렌터카|가볼 ?만한|best time to visit|여행 ?코스|여행지|비행기표|항공권|호텔|숙소|여권|비자|환전|입장권|당일치기|배낭여행|좌석"
        r"|\bhotels?\b|\bflights?\b|\bvisa\b|\bpassport\b|\bhoneymoon\b|\bresorts?\b|\bairport\b", _I),
    "tech": re.compile(
        r"카톡|카카오톡|백업|프린터|설치 오류|\brouter\b|\bprogramming\b|\bphone\b|파이썬|자바스크립트|코딩|프로그램 (짜|만들)|엑셀|매크로|깃에서|\bSQL\b|윈도우|와이파이|노트북|아이폰|컴퓨터 바이러스|리액트"
        r"|\bpython\b|\bjavascript\b|\bdocker\b|\bflask\b|\bcode\b|\blaptop\b|\biphone\b|\bTCP\b|\bwifi\b"
        r"|\bendpoint\b|\bdatabase\b|\bschema\b", _I),
    "entertainment": re.compile(
        r"광고|배우(?!자)|연예인|아이돌|전시회|웹소설|소설|\bcelebrit\w*|\bactors?\b|\bactress\b|\bnovels?\b|\bOscars\b|\bMarvel\b|드라마|영화|넷플릭스|웹툰|콘서트|티켓|노래(?!져|지|진|졌)|가사|게임|박스오피스|시즌|등장인물|(?<![가-힣])티어(?![가-힣])|\bmovies?\b|\bnetflix\b"
        r"|\bpodcast\b|\bpoem\b|\bplot\b|\bsongs?\b|\bplays\b|Grey's Anatomy|The Matrix|Breaking Bad", _I),
    "sports": re.compile(
        r"이겼|스쿼트|champions league|\bgolf\b|경기 결과|야구|축구|손흥민|순위|우승|선수|올림픽|헬스장|루틴|마라톤|골프|비거리|\bmatch\b|\bleague\b"
        r"|world cup|\btennis\b|\bNBA\b|playing tonight|\bfinal\b", _I),
    "weather": re.compile(r"우산|\bsnow\b|날씨|기온|비 와|미세먼지|장마|태풍|강수량|자외선 ?[지치]수|눈이? ?(얼마나 )?(올까|내릴|내리니|온대)"
                          r"|\bweather\b|\brain\b|\btyphoon\b|UV index|\bforecast\b", _I),
    # what people ask a voice assistant at home (3i4K): a device, a room, the diary, the mail
    "assistant": re.compile(r"냉동고|냉동실|안방|거실|부엌|가스레인지|가스\s?밸브|현관문|메일|미팅|알람|스케줄|(?<![가-힣])생신(?!분)|조명|커튼"
                            r"|\balarm\b|remind me|\bthermostat\b|\bemail\b|\bcalendar\b", _I),
    "shopping": re.compile(
        r"마스크팩|선물 ?세트|\bsneakers\b|worth it|최저가|쿠폰|할인|택배|배송|반품|" + _CARE_EXCHANGE + r"|행사|1\+1|원피스|패딩|\b(my|track)\b.{0,20}\border\b|\bdiscount\b|gift sets?"
        r"|worth buying|\bshoes\b|\bcheapest\b", _I),
    "politics": re.compile(
        r"선거|총선|대통령|지지율|국회|정당|찬성|파업|증원|prime minister|\belection|\bparty\b|\bpolicy\b|electoral",
        _I),
    "education": re.compile(
        r"theorem|단어 (잘 )?외우|번역해|수능|공부법|방정식|편입(?!니)|정시 ?(컷|모집)|회화|독학|세종대왕|capital of|\btranslate\b|photosynthesis"
        r"|world war|medical school|\bhomework\b", _I),
    "chitchat": re.compile(
        r"위로해|얘기 (좀 )?(들어|해 ?줘)|대화 (좀 )?하자|외로운데|말 (좀 )?걸어|(너는?|넌) .{0,6}(사람|AI)|기분 어때|\bbored\b|be my friend|\bvent\b|do you dream|about love|something fun|^(ㅋ|ㅎ|ㅠ)+$|ㅎㅇ|^안녕(?!하(세|십|셔))|심심|이름이 뭐|기분이 좋|고마워|끝말잇기|남자친구|여자친구|약 올리|약속|\bjoke\b"
        r"|(?<![가-힣])썸(?![네머])|연애|고백|짝사랑|소개팅|(?<![가-힣])데이트|남친|여친|\bdating\b"
        r"|favorite colou?r|\brobot\b|^hi\b|^lol$", _I),
    "harmful": re.compile(
        r"몰래 재우|(opioids?|마약성).{0,30}(without|없이)|(without|없이).{0,30}(opioids?|마약성)|toxic gas|폭탄|해킹|몰래 (보|타|넣)|위조|필로폰|마약 (제조|만드)|총 구|\bbomb\b|\bhack\w*|\bmeth\b|\bforge\b|shoplift"
        r"|poison someone|without (being|getting) (detected|caught)", _I),
    "life": re.compile(
        r"이사할|집들이|청첩장|사과 문자|손 ?없는 ?날|약수터|\bwedding\b|\bask (my|for a) raise\b|flat tire|\bmy boss\b", _I),
    # (곰팡이 of a wall or a bathroom; not mould eaten, "곰팡이 핀 빵 먹었는데 괜찮을까요", nor a fungal infection)
    "household": re.compile(
        r"쥐약|개미|퇴치|화분|농약|세제|전자매트|\bants\b|\bdrain\b|\bcactus\b|fertili[sz]er|rat poison|\bgarden\b|강아지|고양이|반려|바퀴벌레|세탁기|청소|(?<!톱 )(?<!톱)(?<!발 )(?<!발)(?<!피부 )(?<!피부에 )곰팡이(?!성|균|\s?감염)(?![^.?!]{0,20}(?:먹|마셨|삼켰))|(^|\s)락스|자동차|엔진|운전면허|축의금|전입신고|비누 만들|냄새 (옷|빼)"
        r"|\bdogs?\b|\bcats?\b|\bpets?\b|\bcar's\b|\bcarpet\b|\bcloset\b|\bbike\b", _I),
    # a living thing or a piece of the earth as the topic of a general statement ("고래는 아가미로 숨을 쉬는가?",
    # "문어는 심장이 세 개인가?", "화강암은 …"): biology or geology trivia, whose body words are no one's health.
    # Only with the topic particle 은/는: a post says what happened with 이/가 ("뱀이 물었어요", "모기가 …"), and
    # what bites or stings people, pets, food and one-syllable words that are also other words are left out.
    "nature": re.compile(
        r"(?:^|(?<=[\s,.?!]))(?:고래|돌고래|상어|문어|낙지|해파리|불가사리|산호|가재|도마뱀|악어|거북이?|개구리|두꺼비|도롱뇽"
        r"|달팽이|지렁이|곰|호랑이|사자|표범|치타|늑대|여우|코끼리|기린|하마|코뿔소|얼룩말|캥거루|원숭이|침팬지|고릴라|펭귄"
        r"|독수리|부엉이|올빼미|참새|까치|까마귀|비둘기|타조|앵무새|박쥐|공룡|두더지|다람쥐|토끼|사슴|낙타|뱀|물고기|어류"
        r"|조류|파충류|양서류|포유류|곤충|나비|나방|메뚜기|개미|꿀벌|거미|소나무|참나무|대나무|선인장|해바라기|이끼|고사리"
        r"|화산|암석|현무암|화강암|석회암|지층|맨틀|빙하|해수면|행성|혜성|은하|블랙홀)(?:은|는)\s"
        r"|\b(?:whales?|sharks?|octopus(?:es)?|dolphins?|snakes?|frogs?|snails?|penguins?|dinosaurs?|volcano(?:es)?"
        r"|glaciers?|planets?)\s+(?:are|is|have|has|can|do|does)\b", _I),
}


# bitten, stung or scratched: the animal or the pest is what hurt the person ("거미에 물렸는데 거미는 독이 있나요?",
# "개미에 물렸어요" were refused on the nature and housework cues)
_HURT_BY = re.compile(r"물렸|물려|물린|쏘였|쏘여|쏘인|찔렸|찔려|긁혔|긁혀|할퀴|\bbit(?:ten)?\b|\bstung\b|\bscratched\b", _I)
_NOT_WHEN_HURT = frozenset({"nature", "household"})


def domain_cues(question: str) -> tuple[str, ...]:
    """The non-medical domains whose cue pattern the question matches, in `CUES` order; not nature or
    housework when the message says something bit, stung or scratched the person."""
    hurt = _HURT_BY.search(question) is not None
    return tuple(name for name, pattern in CUES.items()
                 if not (hurt and name in _NOT_WHEN_HURT) and pattern.search(question))
