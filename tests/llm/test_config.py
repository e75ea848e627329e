from __future__ import annotations

import pytest

from yaksa.llm.config import ROLES, LLMConfig


def test_offline_when_no_base_url() -> None:
    config = LLMConfig.from_env({})
    assert not config.configured
    with pytest.raises(ValueError, match="not configured"):
        config.model_for("judge")


def test_reads_every_variable() -> None:
    config = LLMConfig.from_env({
        "YAKSA_LLM_BASE_URL": "http://127.0.0.1:9/v1/", "YAKSA_LLM_API_KEY": "sk-secret",
        "YAKSA_LLM_MODEL": "base", "YAKSA_LLM_MODEL_JUDGE": "big", "YAKSA_LLM_TIMEOUT": "7.5",
        "YAKSA_LLM_MAX_RETRIES": "4", "YAKSA_LLM_BACKOFF": "0.1", "YAKSA_LLM_PRICE_IN": "0.5",
        "YAKSA_LLM_PRICE_OUT": "1.5",
    })  # fmt: skip
    assert config.configured and config.base_url == "http://127.0.0.1:9/v1"
    assert config.model_for("judge") == "big" and config.model_for("generator") == "base"
    assert (config.timeout_s, config.max_retries, config.backoff_s) == (7.5, 4, 0.1)
    assert config.cost(1000, 2000) == pytest.approx(0.5 + 3.0)
    assert "sk-secret" not in repr(config)  # the key never reaches logs


def test_per_role_models_without_default() -> None:
    env = {"YAKSA_LLM_BASE_URL": "http://x/v1", **{f"YAKSA_LLM_MODEL_{r.upper()}": r for r in ROLES}}
    assert LLMConfig.from_env(env).model_for("router") == "router"


@pytest.mark.parametrize("env, message", [
    ({"YAKSA_LLM_BASE_URL": "http://x/v1"}, "no model is configured"),
    ({"YAKSA_LLM_TIMEOUT": "soon"}, "YAKSA_LLM_TIMEOUT must be a float"),
    ({"YAKSA_LLM_MAX_RETRIES": "1.5"}, "YAKSA_LLM_MAX_RETRIES must be a int"),
    ({"YAKSA_LLM_TIMEOUT": "0"}, "timeout_s must be > 0"),
    ({"YAKSA_LLM_PRICE_IN": "-1"}, "prices"),
])  # fmt: skip
def test_bad_settings_are_named(env: dict[str, str], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        LLMConfig.from_env(env)


def test_unknown_role() -> None:
    with pytest.raises(ValueError, match="unknown roles"):
        LLMConfig(role_models={"poet": "m"})
    with pytest.raises(ValueError, match="unknown LLM role"):
        LLMConfig(base_url="http://x", model="m").model_for("poet")
