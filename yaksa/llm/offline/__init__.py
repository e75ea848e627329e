"""The roles without a language model: what answers, verifies, judges and rewrites when no endpoint is
configured (and what an LLM role falls back to when its call fails).

extractive (the answer quoted from the cited documents), rule_verifier (grounding by rules), heuristic_judge
(the quality score), rule_rewrite (the next round's query), and their helpers: duplicates (near-repeated
passages) and profile_terms (a profile's terms in the documents); their word matching is `yaksa.text.lexical`.
"""
