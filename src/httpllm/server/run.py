"""``serve(app)``: run the MCP server over stdio or streamable HTTP (uvicorn).

Over stdio nothing but protocol reaches stdout: the SDK points file descriptor 1 at stderr
while it serves, and this module writes only to stderr. Over HTTP the server binds
127.0.0.1 unless told otherwise and serves ``/mcp``; ``Host``/``Origin`` are validated on
every address (:mod:`~httpllm.server.endpoint`), and an address other machines reach is
refused without a token verifier unless ``allow_unauthenticated=True``.

uvicorn runs as :func:`~httpllm.server.listen.uvicorn_config` sets it up: the host's
logging left alone, a 75 s keep-alive, a deadline for each request's headers.
"""

from __future__ import annotations

import socket
from collections.abc import Iterable
from typing import Any, Literal

import anyio
from starlette.applications import Starlette

from httpllm._api import Application
from httpllm.load import Source
from httpllm.server.admission import is_loopback
from httpllm.server.build import mcp_server
from httpllm.server.endpoint import HttpllmServer

__all__ = ["DEFAULT_HEADER_TIMEOUT", "DEFAULT_KEEP_ALIVE", "bind", "http_app", "serve",
           "serve_workers"]

DEFAULT_KEEP_ALIVE = 75.0
"""Seconds an idle kept-alive connection stays open (nginx's default: 75 s)."""
DEFAULT_HEADER_TIMEOUT = 10.0
"""Seconds a client has to send a request's line and headers once it starts one."""


def bind(host: str = "127.0.0.1", port: int = 8000) -> socket.socket:
    """A listening TCP socket on ``host:port`` (``port=0``: a free port the system picks;
    ``getsockname()[1]`` tells which), to pass to :func:`serve` as ``sock``.

    Raises:
        OSError: the address cannot be bound (in use, not this machine's ...).
    """
    family, kind, proto, _, address = socket.getaddrinfo(
        host, port, type=socket.SOCK_STREAM)[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(2048)
    except OSError:
        sock.close()
        raise
    return sock


def http_app(server: HttpllmServer, *, host: str = "127.0.0.1", path: str = "/mcp",
             json_response: bool = False, stateless: bool = False,
             allowed_hosts: Iterable[str] = (),
             allowed_origins: Iterable[str] = ()) -> Starlette:
    """The server's streamable-HTTP Starlette app (its lifespan runs the session manager).

    Args:
        server: from :func:`~httpllm.mcp_server`.
        host: the address it will be served on (``Host``/``Origin`` are validated for it).
        path: the MCP endpoint's path.
        json_response: answer each request with one JSON object instead of an SSE stream.
        stateless: no sessions: any request can go to any process (run several behind a
            load balancer); server-to-client requests and the GET stream are unavailable.
        allowed_hosts: ``Host`` values to accept besides the bind address and loopback
            (the names clients use: ``mcp.example.com``).
        allowed_origins: browser ``Origin`` values to accept besides loopback pages.
    """
    return server.streamable_http_app(
        streamable_http_path=path, host=host, json_response=json_response,
        stateless_http=stateless, allowed_hosts=allowed_hosts, allowed_origins=allowed_origins)


def serve(app: Application | Source, transport: Literal["stdio", "http"] = "stdio", *,
          host: str = "127.0.0.1", port: int = 8000, path: str = "/mcp",
          sock: socket.socket | None = None, json_response: bool = False,
          stateless: bool = False, allowed_hosts: Iterable[str] = (),
          allowed_origins: Iterable[str] = (), allow_unauthenticated: bool = False,
          keep_alive: float = DEFAULT_KEEP_ALIVE,
          header_timeout: float = DEFAULT_HEADER_TIMEOUT, **options: Any) -> None:
    """Serve the document over MCP until the client goes away (stdio) or the process is
    stopped (HTTP).

    Args:
        app: an :class:`~httpllm.Application` or a document (compiled for ``mcp``).
        transport: ``"stdio"`` or ``"http"`` (streamable HTTP at ``http://host:port/path``).
        host: the address to bind (HTTP); loopback unless you say otherwise.
        port: the TCP port (HTTP).
        path: the endpoint path (HTTP).
        sock: a socket from :func:`bind` to serve on instead of binding ``host:port``.
        json_response, stateless, allowed_hosts, allowed_origins: as :func:`http_app`.
        allow_unauthenticated: serve an address other machines reach with no
            ``token_verifier`` (refused otherwise: anyone who reaches it could call every
            tool with the server's credentials).
        keep_alive: seconds an idle connection stays open (HTTP).
        header_timeout: seconds a client has to send a request's headers (HTTP).
        **options: as :func:`httpllm.server.mcp_server` (``auth``, ``base_url``,
            ``token_verifier``, ``limits`` ...).

    Raises:
        ValueError: an unknown transport, or a non-loopback ``host`` with no
            ``token_verifier`` and no ``allow_unauthenticated=True``.
    """
    if transport not in ("stdio", "http"):
        raise ValueError(f"unknown transport {transport!r}; expected 'stdio' or 'http'")
    if (transport == "http" and not is_loopback(host) and not allow_unauthenticated
            and options.get("token_verifier") is None):
        raise ValueError(f"host={host!r} is reachable from other machines: pass "
                         "token_verifier= so only clients with a token are served, or "
                         "allow_unauthenticated=True")
    server = mcp_server(app, **options)
    if transport == "stdio":
        anyio.run(_stdio, server)
        return
    import uvicorn  # only HTTP needs it

    from httpllm.server.listen import uvicorn_config

    asgi = http_app(server, host=host, path=path, json_response=json_response,
                    stateless=stateless, allowed_hosts=allowed_hosts,
                    allowed_origins=allowed_origins)
    config = uvicorn_config(asgi, host=host, port=port, keep_alive=keep_alive,
                            header_timeout=header_timeout)
    uvicorn.Server(config).run(sockets=[sock] if sock is not None else None)


def serve_workers(factory: str, *, sock: socket.socket, workers: int,
                  keep_alive: float = DEFAULT_KEEP_ALIVE,
                  header_timeout: float = DEFAULT_HEADER_TIMEOUT) -> None:
    """Run ``workers`` processes accepting on ``sock``, each serving the ASGI app that
    ``factory`` (``"module:function"``, called with no argument in each process) returns,
    until the process is stopped. Serve statelessly (:func:`http_app` ``stateless=True``):
    consecutive requests of a client may reach different processes.

    A worker compiling a large document on a busy machine may take a while to answer
    uvicorn's health check: it is given 60 s, not 5.
    """
    from uvicorn.supervisors import Multiprocess

    from httpllm.server.listen import uvicorn_config

    config = uvicorn_config(factory, host=str(sock.getsockname()[0]),
                            port=sock.getsockname()[1], keep_alive=keep_alive,
                            header_timeout=header_timeout, factory=True, workers=workers,
                            timeout_worker_healthcheck=60)
    Multiprocess(config, sockets=[sock]).run()


async def _stdio(server: Any) -> None:
    from mcp.server.stdio import stdio_server

    async with stdio_server() as (read, write):
        await server.run(_ParseErrorsAnswered(read, write), write,
                         server.create_initialization_options())


class _ParseErrorsAnswered:
    """The stdio transport's read stream, answering each line that is no JSON the SDK
    reads with a JSON-RPC parse error (-32700), as the streamable HTTP transport does: the
    SDK's stdio reader passed the failure on and the session dropped it, so a client
    waited out its timeout for a tool call whose arguments held a lone surrogate
    (``"\\ud800"``, a broken emoji from a model), an integer of 5,000 digits or 100,000
    nested arrays. The answer carries the request's ``id`` when Python's ``json`` can read
    it, else ``null``; a notification (no ``id``) gets none.

    Source: JSON-RPC 2.0 section 5.1 (-32700, "Invalid JSON was received by the server")
    and section 4.1 (a notification is not answered); python-sdk ``mcp/server/stdio.py``
    (``validate_json`` failures sent down the read stream) and ``JSONRPCDispatcher._dispatch``
    (an exception item is logged at debug level and dropped).
    """

    def __init__(self, inner: Any, write: Any) -> None:
        self._inner = inner
        self._write = write

    @property
    def last_context(self) -> Any:
        """The sender's context of the last item, which the dispatcher restores."""
        return getattr(self._inner, "last_context", None)

    async def receive(self) -> Any:
        """The next message (or other transport failure); a line that is no JSON is
        answered here and skipped."""
        from mcp.shared.message import SessionMessage
        from mcp.types import PARSE_ERROR, ErrorData, JSONRPCError
        from pydantic import ValidationError

        while True:
            item = await self._inner.receive()
            errors = item.errors() if isinstance(item, ValidationError) else []
            if not errors or errors[0].get("type") != "json_invalid":
                return item
            raw = errors[0].get("input")
            request = _request_id(raw) if isinstance(raw, str) else None
            if request is _NOTIFICATION:
                continue
            message = str(errors[0].get("msg", "not JSON"))[:500]
            await self._write.send(SessionMessage(JSONRPCError(
                jsonrpc="2.0", id=request, error=ErrorData(code=PARSE_ERROR,
                                                           message=f"Parse error: {message}"))))

    async def aclose(self) -> None:
        await self._inner.aclose()

    def __aiter__(self) -> _ParseErrorsAnswered:
        return self

    async def __anext__(self) -> Any:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def __aenter__(self) -> _ParseErrorsAnswered:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


_NOTIFICATION = object()
"""What :func:`_request_id` says of a message with a ``method`` and no ``id``."""


def _request_id(line: str) -> Any:
    """The ``id`` of the request ``line`` holds, read with Python's ``json`` (which takes
    a lone surrogate and a long integer, kept as text, where the SDK's parser does not);
    ``None`` when none can be told, :data:`_NOTIFICATION` for a notification."""
    import json

    try:
        value = json.loads(line, parse_int=lambda digits: int(digits) if len(digits) <= 18
                           else None)
    except (ValueError, RecursionError):
        return None
    if not isinstance(value, dict):
        return None
    if "method" in value and "id" not in value:
        return _NOTIFICATION
    found = value.get("id")
    return found if isinstance(found, (int, str)) and not isinstance(found, bool) else None
