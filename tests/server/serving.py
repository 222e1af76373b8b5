"""An MCP server's ASGI app served as ``httpllm serve`` serves it (``listen.uvicorn_config``:
keep-alive, header deadline, the host's logging untouched) on a 127.0.0.1 port, in a
thread; and an upstream API whose slow calls wait until the test releases them."""

from __future__ import annotations

import asyncio
import socket
import threading
from contextlib import AbstractContextManager
from typing import Any

from loopback import running
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

__all__ = ["Held", "held_document", "served"]

def served(app: Any, *, sock: socket.socket | None = None,
           **options: Any) -> AbstractContextManager[str]:
    """``app`` behind uvicorn configured by ``uvicorn_config(**options)``, on ``sock`` (else
    a free 127.0.0.1 port), in a thread; yields the base URL."""
    from httpllm.server.listen import uvicorn_config
    return running(app, sock=sock, config=lambda app: uvicorn_config(app, **options))


class Held:
    """An upstream API: ``GET /slow`` answers only once :attr:`release` is set; ``GET /fast``
    at once (recording the caller's port in :attr:`peers`); ``GET /echo-auth`` echoes the
    ``Authorization`` it got."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.waiting = 0
        self.authorizations: list[str | None] = []
        self.peers: list[int] = []
        self.app = Starlette(routes=[Route("/slow", self._slow), Route("/fast", self._fast),
                                     Route("/echo-auth", self._echo)])

    async def _slow(self, request: Request) -> Response:
        self.waiting += 1
        try:
            while not self.release.is_set():
                await asyncio.sleep(0.05)
        finally:
            self.waiting -= 1
        return JSONResponse({"slow": True})

    async def _fast(self, request: Request) -> Response:
        if request.client is not None:
            self.peers.append(request.client.port)
        return JSONResponse({"fast": True})

    async def _echo(self, request: Request) -> Response:
        self.authorizations.append(request.headers.get("authorization"))
        return JSONResponse({"authorization": request.headers.get("authorization")})


def held_document(url: str) -> dict[str, Any]:
    """The document of :class:`Held` served at ``url``."""
    ok = {"200": {"description": "ok", "content": {"application/json": {
        "schema": {"type": "object"}}}}}
    return {
        "openapi": "3.1.0", "info": {"title": "held", "version": "1"},
        "servers": [{"url": url}],
        "components": {"securitySchemes": {"token": {"type": "http", "scheme": "bearer"}}},
        "paths": {
            "/slow": {"get": {"operationId": "slowCall", "responses": ok}},
            "/fast": {"get": {"operationId": "fastCall", "responses": ok}},
            "/echo-auth": {"get": {"operationId": "echoAuth", "security": [{"token": []}],
                                   "responses": ok}},
        },
    }
