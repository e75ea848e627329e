"""What a product's name says: the name a customer uses, and whether the product is swallowed.

One definition of "swallowed" for the whole project (the linker, the answer wording and the gold
sets all ask it), so it lives in the vocabulary layer rather than in any one of them.
"""

from __future__ import annotations

import re

# A strength with its unit anywhere in a name ("우루사100밀리그램연질캡슐") and braced annotations
# ("{수출명:...}"): customers say "우루사연질캡슐". Bare numbers stay: they are part of "비타500".
_STRENGTH = re.compile(r"\s*\d[\d.,/]*\s*(?:밀리그램|밀리그람|마이크로그램|그램|그람|밀리리터|mg|ml|g|%)"
                       r"|\s*[{\[][^{}\[\]]*[}\]]", re.IGNORECASE)
# Name endings, checked in this order: oral liquids first (현탁액 is swallowed), then products that
# are applied rather than swallowed (질정 before the oral "정"), then other oral forms.
_ORAL_LIQUIDS = ("현탁액", "내복액", "시럽", "드링크")
_TOPICAL_ENDINGS = ("질정", "고", "크림", "연고", "로션", "겔", "패취", "패치", "플라스터", "스프레이",
                    "점안액", "좌제", "좌약", "카타플라스마", "파스")
_ORAL_ENDINGS = ("정", "캡슐", "과립", "환", "산", "수")


def brand_name(product_name: str) -> str:
    """The name a customer says: the product name without strength or braced annotations."""
    return _STRENGTH.sub("", product_name).strip() or product_name


def is_oral(name: str) -> bool:
    """Oral products are 먹는 약; anything else (ointments, plasters, pessaries) is 쓰는 약.

    An unknown form counts as not oral: "사용해야" fits any product, "먹어야" does not. The form is read
    before the strength: "부루펜정200밀리그램" ends in its strength, and is a tablet."""
    name = brand_name(name)
    if name.endswith(_ORAL_LIQUIDS):
        return True
    if name.endswith(_TOPICAL_ENDINGS):
        return False
    return name.endswith(_ORAL_ENDINGS)
