"""One SO_REUSEPORT socket per worker (serving/reuseport.py): the kernel spreads connections over them."""

from __future__ import annotations

import socket
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from serving import reuseport

REPO = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(not reuseport.AVAILABLE, reason="no SO_REUSEPORT on this platform")


def _listening() -> socket.socket:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen()
    return sock


def test_a_taken_port_fails_the_plain_probe() -> None:
    with _listening() as taken:
        port = taken.getsockname()[1]
        with pytest.raises(OSError):
            reuseport.check_free("127.0.0.1", port)
    reuseport.check_free("127.0.0.1", port)   # let go: free again


def test_connections_are_spread_over_the_workers_sockets() -> None:
    """Two sockets of one group on one port both get connections (64 of them: the chance that the
    kernel's hash sends all to one is 2**-63), and a plain probe sees the port as taken."""
    first = reuseport.reuseport_socket("127.0.0.1", 0)
    port = first.getsockname()[1]
    second = reuseport.reuseport_socket("127.0.0.1", port)
    listeners = {"first": first, "second": second}
    clients = []
    try:
        for sock in listeners.values():
            sock.listen(128)
            sock.setblocking(False)
        with pytest.raises(OSError):
            reuseport.check_free("127.0.0.1", port)
        clients = [socket.create_connection(("127.0.0.1", port)) for _ in range(64)]
        accepted: Counter[str] = Counter()
        for name, sock in listeners.items():
            while True:
                try:
                    conn, _ = sock.accept()
                except BlockingIOError:
                    break
                conn.close()
                accepted[name] += 1
        assert sum(accepted.values()) == 64 and min(accepted["first"], accepted["second"]) > 0, accepted
    finally:
        for sock in (*clients, *listeners.values()):
            sock.close()


def test_serve_with_workers_on_a_taken_port_says_so() -> None:
    with _listening() as taken:
        port = taken.getsockname()[1]
        done = subprocess.run([sys.executable, "-c", "from yaksa_cli import main; main()", "serve", "--workers", "2",
                               "--port", str(port), "--params", str(REPO / "params.yaml")],
                              check=False, cwd=REPO, capture_output=True, text=True, timeout=60)
    assert done.returncode == 1, done.stderr[-2000:]
    assert f"error: cannot listen on 127.0.0.1:{port}" in done.stderr
