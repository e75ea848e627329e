"""Build step for extraction: concept table + MedCAT pack from the documents parquet.

Layout of `out_dir` (the pipeline publishes it next to the index bundle):
  concepts.csv   MedCAT-format concept table (`cui,name,name_status,type_ids`), one row per name
  pack/          what `SlotExtractor(pack_dir=out_dir / "pack", ...)` loads: the MedCAT model pack,
                 `concept_map.json` (id → [type, preferred]), `user_words.txt`, `build_info.json`
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from yaksa.extraction.concepts import concepts_from_documents, write_medcat_csv
from yaksa.extraction.medcat_ko import build_pack

CONCEPTS_CSV = "concepts.csv"
PACK_DIR = "pack"


def build_concepts(documents_path: Path, out_dir: Path) -> dict[str, Any]:
    """Write the concept table and the MedCAT pack under `out_dir`; return counts for the build report."""
    out_dir = Path(out_dir)
    concepts = concepts_from_documents(Path(documents_path))
    csv_path = out_dir / CONCEPTS_CSV
    write_medcat_csv(csv_path, concepts)
    pack = build_pack(csv_path, out_dir / PACK_DIR)
    return {
        "concepts": len(concepts),
        "by_type": dict(sorted(Counter(c.type for c in concepts).items())),
        "names": sum(len(c.names) for c in concepts),
        "pack": pack,
    }
