from __future__ import annotations

from pathlib import Path

from yaksa.config import load_settings
from yaksa.evaluation.tuning import Candidates, SetTuning, configs, fuse, is_held_out, suggested_params, tune


def test_split_is_deterministic_and_roughly_half() -> None:
    qids = [f"q{i}" for i in range(400)]
    held = [q for q in qids if is_held_out(q)]
    assert held == [q for q in qids if is_held_out(q)]
    assert 150 < len(held) < 250


def test_fuse_each_configuration_by_hand() -> None:
    c = Candidates(frozenset({"b"}), bm25=[("a", 9.0), ("b", 3.0)], dense=[("b", 0.9), ("c", 0.5)])
    assert fuse("bm25", c) == ["a", "b"] and fuse("dense", c) == ["b", "c"]
    assert fuse("rrf", c)[0] == "b"  # 1/62 + 1/61 beats a's 1/61
    # weighted 0.8/0.2 on min-max scores: a = 0.8·1, b = 0.8·0 + 0.2·1 = 0.2, c = 0
    assert fuse("weighted:0.8", c) == ["a", "b", "c"]
    assert fuse("weighted:0.1", c)[0] == "b"  # b = 0.9 > a = 0.1
    assert configs()[:3] == ["bm25", "dense", "rrf"] and len(configs()) == 12


def test_suggested_params_encode_the_choice() -> None:
    results = [
        SetTuning("mfds_ko", "drugs", "weighted:0.2", {}, {}, 1, 1),
        SetTuning("pubmedqa", "literature", "bm25", {}, {}, 1, 1),
    ]
    assert suggested_params(results) == {
        "drugs": {"fusion": "weighted", "bm25_weight": 0.2, "dense_weight": 0.8},
        "literature": {"fusion": "bm25"},
    }


def test_tune_on_the_tiny_project(tiny_project: Path) -> None:
    (result,) = tune(load_settings(tiny_project / "params.yaml"))
    assert result.goldset == "mfds_ko" and result.collection == "drugs"
    assert result.chosen in result.tune_mrr and set(result.test_mrr) >= {"bm25", "dense", "rrf", result.chosen}
    assert result.tune_mrr[result.chosen] == max(result.tune_mrr.values())
