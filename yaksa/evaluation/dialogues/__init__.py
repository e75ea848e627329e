"""Simulated patients for the multi-turn evaluation: Synthea personas and scripted 5-turn dialogues.

Personas come from the FHIR bundles the build already generates (`personas`), their facts are put
into Korean patient wording through a reviewable table (`mapping_ko.yaml`, read by `personas`), and
`script` turns each persona into a seeded, deterministic 5-turn conversation whose turns carry what
the agent should remember and use.
"""
