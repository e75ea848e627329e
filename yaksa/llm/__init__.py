"""LLM access for every role, and the offline fallbacks that make each role work without one.

client.py (retries, JSON mode, streaming) · config.py (YAKSA_LLM_* env) · usage.py (per-turn ledger)
context.py (generator prompt within a token budget) · roles/ (generate, verify, correct, judge,
rewrite: LLM first, fallback on any LLMError) · extractive.py, rule_verifier.py, heuristic_judge.py,
rule_rewrite.py (the fallbacks) · safety.py, lexical.py, profile_terms.py, tokens.py (shared rules).
"""
