from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from yaksa.corpus import medquad, mfds_easy_drug
from yaksa.corpus.ingest import DOCUMENT_SCHEMA
from yaksa.corpus.rejects import RejectLog
from yaksa.extraction.build import CONCEPTS_CSV, PACK_DIR
from yaksa.extraction.concepts import brand_rule_concepts, concepts_from_documents, name_key, read_lexicon


def test_build_outputs_and_counts(built_concepts: tuple[Path, dict]) -> None:
    out, counts = built_concepts
    assert (out / CONCEPTS_CSV).is_file()
    assert (out / PACK_DIR / "concept_map.json").is_file()
    # 5 products + 1 shared brand + 3 ingredients + 2 MedQuAD CUIs + the lexicon (its drug and
    # drug-class rows are medications: none of their names is in these documents, so all survive) + the
    # linker's brands that keep a name no earlier concept claimed
    lay_terms = counts["by_type"]["symptom"] + counts["by_type"]["condition"] - 2
    drugs = sum(1 for c in read_lexicon() if c.type == "medication")
    assert drugs >= 30
    claimed = {name_key(n) for c in read_lexicon() for n in c.names} | {"타이레놀", "낙센", "판콜에스"}
    brands = sum(1 for c in brand_rule_concepts() if any(name_key(n) not in claimed for n in c.names))
    assert brands >= 50
    assert counts["by_type"]["medication"] == 9 + drugs + brands
    assert counts["concepts"] == 9 + 2 + lay_terms + drugs + brands
    assert counts["pack"]["ambiguous_names"] == 0


def test_concept_table_from_real_shared_data(shared_data, tmp_path: Path) -> None:
    rejects = RejectLog()
    docs = [*mfds_easy_drug.load(shared_data("mfds-easy-drug-500/drug500_data.csv"), rejects, limit=60),
            *medquad.load(shared_data("medquad/passages.jsonl"), rejects, limit=200)]
    path = tmp_path / "documents.parquet"
    pq.write_table(pa.Table.from_pylist([d.to_row() for d in docs], DOCUMENT_SCHEMA), path)
    concepts = concepts_from_documents(path)
    ids = {c.concept_id for c in concepts}
    seqs = {d.metadata["item_seq"] for d in docs if d.collection == "drugs"}
    assert {f"YK:MFDS:{s}" for s in seqs} <= ids  # every product keeps at least its full name
    cuis = {d.metadata["cuis"][0] for d in docs
            if d.collection == "health" and d.metadata.get("cuis") and d.metadata.get("semantic_group") == "Disorders"}
    assert cuis and cuis <= ids
    assert any(i.startswith("YK:ING:") for i in ids)
    keys = [name_key(n) for c in concepts for n in c.names]
    assert len(keys) == len(set(keys))  # each name has exactly one owner
