"""The scope stage: may this question be answered at all? Decided first, before anything else."""
