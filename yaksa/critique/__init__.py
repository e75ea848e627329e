"""M&M case critique: literature-backed review of a case analysis (diagnostic error, complications, prevention)."""
