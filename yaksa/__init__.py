"""yaksa: a Korean pharmacy and clinical question-answering system (README)."""

import os

# Bit-reproducible MKL (torch's CPU matrix products, which embed the drug labels): on an AVX-512 host its results
# otherwise differ in the last bits with the thread count and the batch, and a bundle built by a pool of two workers
# was not the one built in one process (tests/pipeline/test_process_pool.py, tests/flows/test_build_index.py, on a
# Xeon with AVX-512 and AMX, 2026-12-02; on AVX2 hosts they were equal). Set when the package is first imported, before
# any MKL call; an operator's own setting wins. Cost: none measurable (600 labels, 2 threads: 8.6 s either way).
os.environ.setdefault("MKL_CBWR", "AUTO,STRICT")
