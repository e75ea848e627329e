from pathlib import Path

import numpy as np
import pytest

from yaksa.scope.learned import (
    CARD_FILE,
    LearnedScopeModel,
    TextFeatures,
    choose_threshold,
    fit_learned_model,
    mean_view,
)

DIM = 8


def _text(rng: np.random.Generator, medical: float, style: int, windows: int = 1) -> TextFeatures:
    """Dimension 0 carries the topic (medical or not); dimension 1 + style the writer's style."""
    vecs = rng.normal(0, 0.3, size=(windows, DIM))
    vecs[:, 0] += medical
    vecs[:, 1 + style] += 1.0
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    views = mean_view(vecs)
    corpus = np.c_[views[:, 0], views[:, 0] * 0.8]          # "similar to the medical corpus"
    return TextFeatures(views, corpus, np.array([max(medical, 0.0) * 0.3]))


def _data(seed: int = 0) -> tuple[list[TextFeatures], list[bool], list[str], list[bool]]:
    rng = np.random.default_rng(seed)
    feats, labels, sources, held = [], [], [], []
    plan = [("hidoc", True, 0), ("kormedmcqa_doctor", True, 1), ("pubmedqa", True, 2),
            ("korquad", False, 1), ("3i4k", False, 3), ("chatbot_data", False, 0)]
    for source, in_scope, style in plan:
        for i in range(60):
            feats.append(_text(rng, 1.0 if in_scope else -1.0, style))
            labels.append(in_scope)
            sources.append(source)
            held.append(i % 3 == 0)
    return feats, labels, sources, held


def _fit(**kw: object) -> LearnedScopeModel:
    feats, labels, sources, held = _data()
    return fit_learned_model(feats, labels, sources, held, embedders=["e"], collections=["c"],
                             feature_names=["embed_logit", "c1", "c5", "density"], **kw)


def test_threshold_keeps_every_in_scope_category_within_its_budget() -> None:
    p = np.array([0.05, 0.2, 0.3, 0.9, 0.1, 0.4, 0.95, 0.01, 0.02])
    cats = ["posts", "posts", "posts", "posts", "exam", "exam", "exam", "", ""]
    t = choose_threshold(p, cats, {"posts": 0.25, "exam": 0.0})
    assert (p[:4] < t).sum() <= 1 and (p[4:7] < t).sum() == 0
    assert 0.05 < t <= 0.1          # midway below exam's lowest (0.1), above posts' allowed refusal (0.05)
    assert choose_threshold(p, [""] * len(p)) == 0.5


def test_leave_one_source_out_rates_cover_every_source() -> None:
    model = _fit()
    card = model.card
    assert set(card.leave_one_source_out) == {"hidoc", "kormedmcqa_doctor", "pubmedqa", "korquad", "3i4k",
                                              "chatbot_data"}
    assert set(card.held_out) == set(card.leave_one_source_out)
    # the topic is learnable: non-medical is mostly refused, in-scope rarely, even for an unseen source
    assert card.leave_one_source_out["korquad"].refused > 0.8
    assert card.held_out["hidoc"].refused <= 0.05
    assert card.trained_on["hidoc"] == 40


def test_a_medical_window_makes_a_long_text_in_scope() -> None:
    model = _fit()
    rng = np.random.default_rng(5)
    chat = rng.normal(0, 0.05, size=(4, DIM))
    chat[:, 0] -= 1.0
    chat[:, 4] += 1.0
    medical_window = np.zeros(DIM)
    medical_window[0] = 1.0
    windows = np.vstack([chat, medical_window])
    windows /= np.linalg.norm(windows, axis=1, keepdims=True)
    views = mean_view(windows)
    text = TextFeatures(views, np.c_[views[:, 0], views[:, 0] * 0.8], np.array([0.0]))
    per_view = model.view_probabilities(text)
    assert per_view[0] < model.threshold < per_view[-1]      # the whole reads as chat, its last window as medical
    assert model.probability(text) == pytest.approx(max(per_view))


def test_save_and_load_give_the_same_decisions(tmp_path: Path) -> None:
    model = _fit()
    model.save(tmp_path)
    again = LearnedScopeModel.load(tmp_path)
    feats, *_ = _data(seed=1)
    assert [round(model.probability(f), 9) for f in feats[:30]] == [round(again.probability(f), 9) for f in feats[:30]]
    assert again.name == model.name and again.card.leave_one_source_out == model.card.leave_one_source_out


def test_load_names_what_is_missing_or_broken(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="no learned scope model"):
        LearnedScopeModel.load(tmp_path)
    _fit().save(tmp_path)
    (tmp_path / CARD_FILE).write_text("{}", "utf-8")
    with pytest.raises(ValueError, match="unreadable"):
        LearnedScopeModel.load(tmp_path)


def test_fit_needs_both_classes() -> None:
    feats, labels, sources, held = _data()
    keep = [i for i, y in enumerate(labels) if y]
    with pytest.raises(ValueError, match="both"):
        fit_learned_model([feats[i] for i in keep], [True] * len(keep), [sources[i] for i in keep],
                          [held[i] for i in keep], embedders=["e"], collections=["c"], feature_names=["a"])


def test_twin_sources_are_left_out_together() -> None:
    """Question_pair and Chatbot_data are one writer's sets: leaving one out must leave out both."""
    feats, labels, sources, held = _data()
    rng = np.random.default_rng(3)
    for i in range(60):
        feats.append(_text(rng, -1.0, 0))
        labels.append(False)
        sources.append("question_pair")
        held.append(i % 3 == 0)
    said: list[str] = []
    model = fit_learned_model(feats, labels, sources, held, embedders=["e"], collections=["c"],
                              feature_names=["embed_logit", "c1", "c5", "density"], progress=said.append)
    left_out = [line for line in said if line.startswith("left out")]
    assert "left out chatbot_data, question_pair: 80 texts scored" in left_out
    assert not any(line.startswith("left out question_pair") for line in left_out)
    assert len(left_out) == 6       # hidoc, doctor, pubmedqa, korquad, 3i4k, and the twins together
    assert set(model.card.leave_one_source_out) >= {"chatbot_data", "question_pair"}


def test_the_embedding_model_is_off_by_default_and_can_be_turned_on() -> None:
    """Off (module doc): every view's logit is 0 and the combiner gives it no weight; on, it is fitted."""
    off = _fit()
    assert off.card.combiner_weights["embed_logit"] == 0.0
    assert not off.stack.embed.coef.any() and any("no embedding model" in n for n in off.card.notes)
    feats, *_ = _data(seed=2)
    assert not off.stack.embed.scores(feats[0].views).any()
    on = _fit(use_embedding=True)
    assert on.stack.embed.coef.any() and on.card.combiner_weights["embed_logit"] != 0.0
    assert not on.card.notes


def test_the_fit_keeps_each_tuning_texts_out_of_source_probability() -> None:
    """What `yaksa eval scope` puts through the stage's rules: each tuning text scored by a model fitted
    without its source; the held-out half has none (NaN)."""
    model = _fit()
    _feats, _labels, sources, held = _data()
    assert len(model.out_of_source) == len(held)
    tuned = [p for p, h in zip(model.out_of_source, held, strict=True) if not h]
    assert all(0.0 <= p <= 1.0 for p in tuned)
    assert all(np.isnan(p) for p, h in zip(model.out_of_source, held, strict=True) if h)
    korquad = [p for p, s, h in zip(model.out_of_source, sources, held, strict=True) if s == "korquad" and not h]
    refused = sum(p < model.threshold for p in korquad) / len(korquad)
    assert refused == pytest.approx(model.card.leave_one_source_out["korquad"].refused, abs=1e-4)
