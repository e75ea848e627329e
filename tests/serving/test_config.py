from __future__ import annotations

import pytest

from serving.config import load_serving_config, parse_api_keys


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
