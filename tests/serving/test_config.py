from __future__ import annotations

from pathlib import Path

import pytest

from serving.config import load_serving_config, params_path, parse_api_keys
from yaksa.config import ConfigError


def test_keys_are_bound_to_users_and_labelled_without_the_secret() -> None:
    grants = parse_api_keys(" k1 = alice, bob ; k2=* ;")
    assert set(grants) == {"k1", "k2"}
    assert grants["k1"].allows("alice") and grants["k1"].allows("bob") and not grants["k1"].allows("carol")
    assert grants["k2"].allows("anyone")
    assert grants["k1"].label.startswith("key:") and "k1" not in grants["k1"].label


@pytest.mark.parametrize("spec", ["secret", "secret=", "=alice", "k=a;k=b"])
def test_malformed_key_specs_are_refused_without_echoing_the_secret(spec: str) -> None:
    with pytest.raises(ValueError, match="entry #") as err:
        parse_api_keys(spec)
    assert "secret" not in str(err.value)


def test_environment_defaults_and_errors() -> None:
    cfg = load_serving_config({})
    assert cfg.open_mode and cfg.admin_key is None and cfg.rate_per_sec == 10 and cfg.max_body_bytes == 65536
    cfg = load_serving_config({"YAKSA_API_KEYS": "k=*", "YAKSA_ADMIN_KEY": " adm ", "YAKSA_RATE_PER_SEC": "0"})
    assert not cfg.open_mode and cfg.admin_key == "adm" and cfg.rate_per_sec == 0
    with pytest.raises(ValueError, match="YAKSA_RATE_BURST"):
        load_serving_config({"YAKSA_RATE_BURST": "lots"})
    with pytest.raises(ValueError, match="YAKSA_MAX_BODY_BYTES"):
        load_serving_config({"YAKSA_MAX_BODY_BYTES": "10"})


def test_variant_choice_flag_and_its_old_name() -> None:
    assert load_serving_config({}).allow_variant_choice is False
    assert load_serving_config({"YAKSA_ALLOW_VARIANT_CHOICE": "1"}).allow_variant_choice is True
    assert load_serving_config({"YAKSA_ALLOW_PROFILE_CHOICE": "1"}).allow_variant_choice is True
    assert load_serving_config({"YAKSA_ALLOW_PROFILE_CHOICE": "0"}).allow_variant_choice is False
    with pytest.raises(ValueError, match="YAKSA_ALLOW_PROFILE_CHOICE"):
        load_serving_config({"YAKSA_ALLOW_PROFILE_CHOICE": "maybe"})


def test_params_path_prefers_the_option_then_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    mine, theirs = tmp_path / "mine.yaml", tmp_path / "theirs.yaml"
    mine.write_text("{}\n")
    theirs.write_text("{}\n")
    assert params_path(mine, {"YAKSA_PARAMS": str(theirs)}) == mine
    assert params_path(None, {"YAKSA_PARAMS": str(theirs)}) == theirs
    monkeypatch.chdir(tmp_path)
    (tmp_path / "params.yaml").write_text("{}\n")
    assert params_path(None, {}) == Path("params.yaml")
    with pytest.raises(ConfigError, match=r"params file not found: .*nope.yaml \(from YAKSA_PARAMS\)"):
        params_path(None, {"YAKSA_PARAMS": str(tmp_path / "nope.yaml")})


def test_following_and_the_shared_rate_file_from_the_environment() -> None:
    cfg = load_serving_config({})
    assert cfg.follow_seconds == 0.5 and cfg.rate_file is None
    cfg = load_serving_config({"YAKSA_FOLLOW_SECONDS": "0", "YAKSA_RATE_FILE": "  state/rate.sqlite "})
    assert cfg.follow_seconds == 0 and cfg.rate_file == Path("state/rate.sqlite")
    with pytest.raises(ValueError, match="YAKSA_FOLLOW_SECONDS must be >= 0"):
        load_serving_config({"YAKSA_FOLLOW_SECONDS": "-1"})
