"""Simulated patients for the multi-turn evaluation: Synthea personas, scripted 5-turn dialogues, and the
ablation study over them.

Personas come from the FHIR bundles the build already generates (`personas`), their facts are put
into Korean patient wording through a reviewable table (`mapping_ko.yaml`, read by `personas`), and
`script` turns each persona into a seeded, deterministic 5-turn conversation whose turns carry what
the agent should remember and use. `study` has every variant answer them (and the question turns
asked cold), `metrics` scores each turn, `judged` adds the LLM-judged metrics with an endpoint,
`analysis` pairs the results per persona, `report` and `snapshot` keep them, and `run` does it all.
"""
