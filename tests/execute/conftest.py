"""An ASGI echo app, and a real uvicorn server on 127.0.0.1 serving it for the session.

The app answers every request with what it received, as JSON: method, raw path, raw query
string, headers, cookies and body bytes (as latin-1 text, so every byte survives). Headers
`x-echo-status` and `x-echo-text` make it answer with that status, or as plain text.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator

import pytest
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]
START_TIMEOUT = 10.0
"""Seconds to wait for uvicorn to start or stop."""


async def echo(request: Request) -> Response:
    """Answer with what was received."""
    content = await request.body()
    seen = {
        "method": request.method,
        "raw_path": request.scope["raw_path"].decode("latin-1"),
        "query_string": request.scope["query_string"].decode("latin-1"),
        "headers": [
            [k.decode("latin-1"), v.decode("latin-1")] for k, v in request.scope["headers"]
        ],
        "cookies": dict(request.cookies),
        "body": content.decode("latin-1"),
    }
    status = int(request.headers.get("x-echo-status", "200"))
    if "x-echo-text" in request.headers:
        return PlainTextResponse(f"{request.method} {seen['raw_path']}", status_code=status)
    return JSONResponse(seen, status_code=status)


ECHO = Starlette(routes=[Route("/{rest:path}", echo, methods=METHODS)])


@pytest.fixture
def anyio_backend() -> str:
    """Async tests run on asyncio."""
    return "asyncio"


@pytest.fixture(scope="session")
def live_server() -> Iterator[str]:
    """The echo app behind uvicorn on a free 127.0.0.1 port; yields its base URL."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(ECHO, log_level="warning", lifespan="off"))
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
