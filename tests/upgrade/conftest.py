"""The echo app of tests/execute behind uvicorn on 127.0.0.1, answering the OpenAPI 3.2
`QUERY` method and `COPY` (an `additionalOperations` method) too."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator

import pytest
import uvicorn
from execute.conftest import METHODS, START_TIMEOUT, echo
from starlette.applications import Starlette
from starlette.routing import Route

ECHO = Starlette(routes=[Route("/{rest:path}", echo, methods=[*METHODS, "QUERY", "COPY"])])


@pytest.fixture(scope="session")
def echo_server() -> Iterator[str]:
    """The echo app on a free 127.0.0.1 port; yields its base URL."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(ECHO, log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + START_TIMEOUT
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(START_TIMEOUT)
        sock.close()
