"""Service requests the corpus can never answer (bookings, insurance, hours, waiting times).

Why rules as one signal of the scope model: "How do I book an MRI appointment?" shares vocabulary with
real clinical passages, so its best cosine looks in scope; but no drug label, consumer-health page
or abstract says how to book, claim, or find an open dentist. These are service requests, a
different product. The patterns are narrow on purpose (each names the administrative act, not a
medical topic); a match is one feature of the scope model (`features.py`), not a verdict, and the
false-block rate on the in-scope sets is measured by `yaksa eval scope`.

Usage:
    service_request("MRI 예약은 어떻게 하나요")        # "booking"
    service_request("타이레놀 부작용")                 # None
"""

from __future__ import annotations

import re

RULES: dict[str, re.Pattern[str]] = {
    "booking": re.compile(r"예약|\b(book|booking|schedule|reschedul\w*)\b.{0,40}\b(appointment|visit|scan|mri|ct)\b"
                          r"|\bappointment\b", re.IGNORECASE),
    "insurance": re.compile(r"보험.{0,6}(환급|청구|신청)|청구 서류|실비 청구|\binsurance claim\b"
                            r"|\b(file|submit)\b.{0,30}\bclaim\b|\binsurance cover", re.IGNORECASE),
    # 근처 only where it asks for a place: 64 health posts say "겨드랑이 근처 통증" or "근처 병원에 갔더니"
    "hours_or_place": re.compile(r"영업\s?시간|근처.{0,12}(어디|있나요|있을까|알려|추천)|어디서 (떼|받)"
                                 r"|몇 시까지 (해|하|열)|여는 (약국|병원)|\bnear me\b"
                                 r"|\bopening hours\b|\bwhat time does\b|\bwhich hospital\b|\bopen on sunday",
                                 re.IGNORECASE),
    "paperwork": re.compile(r"진단서|의뢰서|결과지|(처방전|소견서) ?재?발급|\bmedical records\b", re.IGNORECASE),
    "wait_time": re.compile(r"대기\s?시간|\bwait(ing)? time\b|\b(room|er) wait\b", re.IGNORECASE),
}


def service_request(question: str) -> str | None:
    """The name of the first service-request rule the question matches, or None."""
    for name, pattern in RULES.items():
        if pattern.search(question):
            return name
    return None

