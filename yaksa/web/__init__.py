"""Web references shown beside an answer (never fed into generation)."""
