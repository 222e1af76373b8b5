"""`serve()`: the host's logging survives it, and an address other machines reach is
refused without a way to admit clients."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from upstream import document

import httpllm

SRC = str(Path(__file__).resolve().parents[2] / "src")
LIMIT = 60.0
"""Seconds the host process may take (a bound, not a measurement)."""

HOST = """
import json, logging, os, sys, threading, time
import httpx

class Watched(logging.Handler):
    def __init__(self):
        super().__init__()
        self.closed, self.seen = False, []
    def emit(self, record):
        self.seen.append(record.getMessage())
    def close(self):
        self.closed = True
        super().close()

mine = Watched()
logging.getLogger().addHandler(mine)
logging.getLogger("host").setLevel(logging.INFO)
from httpllm.server.run import bind, serve
sock = bind("127.0.0.1", 0)
url = f"http://127.0.0.1:{sock.getsockname()[1]}/mcp"
threading.Thread(target=serve, args=(json.loads(sys.argv[1]), "http"),
                 kwargs={"sock": sock}, daemon=True).start()
for _ in range(600):
    try:
        httpx.get(url, timeout=1)
        break
    except httpx.HTTPError:
        time.sleep(0.05)
logging.getLogger("host").info("still mine")
print(json.dumps({"closed": mine.closed, "attached": mine in logging.getLogger().handlers,
                  "seen": mine.seen}), flush=True)
os._exit(0)
"""


@pytest.mark.slow
def test_serving_leaves_the_hosts_logging_handlers_open() -> None:
    """A host that logs through its own handler and serves over HTTP in a thread: the
    handler is neither closed nor detached, and still gets the host's records."""
    done = subprocess.run([sys.executable, "-c", HOST,
                           json.dumps(document("http://127.0.0.1:9"))],
                          capture_output=True, text=True, timeout=LIMIT,
                          env={"PYTHONPATH": SRC})
    assert done.returncode == 0, done.stderr
    state = json.loads(done.stdout)
    assert state == {"closed": False, "attached": True, "seen": ["still mine"]}


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.0.2.7"])
def test_an_address_others_reach_needs_a_token_verifier(host: str) -> None:
    """`serve(..., "http", host=...)` off loopback with no token verifier is a ValueError
    naming `token_verifier=` and `allow_unauthenticated=True`, before anything binds."""
    with pytest.raises(ValueError, match=r"token_verifier=.*allow_unauthenticated=True"):
        # port -1: were the check missing, binding fails at once instead of serving
        httpllm.serve(document("http://127.0.0.1:9"), "http", host=host, port=-1)
