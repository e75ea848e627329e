"""What a question is about, by rule: service requests the corpus can never answer (bookings,
insurance, hours), and whether it asks about side effects.

Why rules in front of the score guard: "How do I book an MRI appointment?" shares vocabulary with
real clinical passages, so its best cosine looks in scope; but no drug label, consumer-health page
or abstract says how to book, claim, or find an open dentist. These are service requests, a
different product. The patterns are narrow on purpose (each names the administrative act, not a
medical topic) and their false-block rate is measured with the score guard on the in-scope dev
sets (`yaksa eval oos`).

Usage:
    service_request("MRI 예약은 어떻게 하나요")        # "booking"
    service_request("타이레놀 부작용")                 # None
"""

from __future__ import annotations

import re

RULES: dict[str, re.Pattern[str]] = {
    "booking": re.compile(r"예약|\b(book|booking|schedule|reschedul\w*)\b.{0,40}\b(appointment|visit|scan|mri|ct)\b"
                          r"|\bappointment\b", re.IGNORECASE),
    "insurance": re.compile(r"보험.{0,6}(환급|청구|신청)|청구 서류|\binsurance claim\b|\b(file|submit)\b.{0,30}\bclaim\b",
                            re.IGNORECASE),
    "hours_or_place": re.compile(r"영업\s?시간|근처|어디서 (떼|받)|\bnear me\b|\bopening hours\b|\bwhat time does\b"
                                 r"|\bwhich hospital\b", re.IGNORECASE),
    "wait_time": re.compile(r"대기\s?시간|\bwait(ing)? time\b|\b(room|er) wait\b", re.IGNORECASE),
}


def service_request(question: str) -> str | None:
    """The name of the first service-request rule the question matches, or None."""
    for name, pattern in RULES.items():
        if pattern.search(question):
            return name
    return None


ASKS_SIDE_EFFECTS = re.compile(r"부작용|이상반응|side effects?|adverse", re.IGNORECASE)


def asks_side_effects(question: str) -> bool:
    """Whether the question is about side effects (their label sections are then what it wants)."""
    return ASKS_SIDE_EFFECTS.search(question) is not None
