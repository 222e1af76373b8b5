"""An ASGI echo app, and a real uvicorn server on 127.0.0.1 serving it for the session.

The app answers every request with what it received, as JSON: method, raw path, raw query
string, headers, cookies and body bytes (as latin-1 text, so every byte survives). Headers
`x-echo-status` and `x-echo-text` make it answer with that status, or as plain text.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from loopback import running
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]


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
    with running(ECHO, lifespan="off") as url:
        yield url
