"""The drug and medical vocabulary: what words mean, below every package that reads questions.

Drug linking (catalogue, brand rules), focus and symptom rules, section intent, query expansion, the
scope vocabulary, product-name forms and the chit-chat words. Retrieval, extraction, the language-model
roles, the scope stage and memory all read these; this package imports only `corpus`, `text` and the
base modules (the layers are in docs/architecture.md, enforced by import-linter).
"""
