"""A test's own server on the loopback interface: an ASGI app behind uvicorn on a free
127.0.0.1 port, in a thread (the one helper every test folder uses for it)."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import uvicorn

__all__ = ["START_TIMEOUT", "running"]

START_TIMEOUT = 10.0
"""Seconds uvicorn may take to start or stop (a bound, not a measurement)."""


@contextmanager
def running(app: Any, *, lifespan: str = "auto", sock: socket.socket | None = None,
            config: Callable[[Any], uvicorn.Config] | None = None) -> Iterator[str]:
    """``app`` behind uvicorn on ``sock`` (else a free 127.0.0.1 port), in a thread; yields
    its base URL. ``config(app)`` makes the ``uvicorn.Config`` (default: uvicorn's own).

    Raises:
        RuntimeError: uvicorn did not start within :data:`START_TIMEOUT`.
    """
    if sock is None:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(config(app) if config is not None else
                            uvicorn.Config(app, log_level="warning", lifespan=lifespan))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + START_TIMEOUT
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(START_TIMEOUT)
        sock.close()
