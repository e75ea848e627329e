from __future__ import annotations

import os

import pytest

from yaksa import host


def test_offline_defaults_do_not_override_the_operator(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "0")
    monkeypatch.delenv("DO_NOT_TRACK", raising=False)
    host.configure_offline_env()
    assert os.environ["HF_HUB_OFFLINE"] == "0"
    assert os.environ["DO_NOT_TRACK"] == "1"


def test_this_install_has_exactly_one_faiss() -> None:
    assert host.installed_faiss_distributions() == ["faiss-cpu"]
    host.check_faiss_install()


def test_both_faiss_wheels_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(host, "installed_faiss_distributions", lambda: ["faiss-cpu", "faiss-gpu"])
    with pytest.raises(RuntimeError, match=r"yaksa\[cpu\] or yaksa\[gpu\]"):
        host.check_faiss_install()
