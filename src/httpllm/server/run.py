"""``serve(app)``: run the MCP server over stdio or streamable HTTP (uvicorn).

Over stdio nothing but protocol reaches stdout: the SDK points file descriptor 1 at stderr
while it serves, and this module writes only to stderr. Over HTTP the server binds
127.0.0.1 unless told otherwise and serves ``/mcp``; the SDK's DNS-rebinding protection is
on for loopback addresses.
"""

from __future__ import annotations

import socket
from typing import Any, Literal

import anyio

from httpllm._api import Application
from httpllm.load import Source
from httpllm.server.build import mcp_server

__all__ = ["bind", "http_app", "serve"]


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


def http_app(server: Any, *, host: str = "127.0.0.1", path: str = "/mcp") -> Any:
    """The server's streamable-HTTP Starlette app (its lifespan runs the session manager)."""
    return server.streamable_http_app(streamable_http_path=path, host=host)


def serve(app: Application | Source, transport: Literal["stdio", "http"] = "stdio", *,
          host: str = "127.0.0.1", port: int = 8000, path: str = "/mcp",
          sock: socket.socket | None = None, **options: Any) -> None:
    """Serve the document over MCP until the client goes away (stdio) or the process is
    stopped (HTTP).

    Args:
        app: an :class:`~httpllm.Application` or a document (compiled for ``mcp``).
        transport: ``"stdio"`` or ``"http"`` (streamable HTTP at ``http://host:port/path``).
        host: the address to bind (HTTP); loopback unless you say otherwise.
        port: the TCP port (HTTP).
        path: the endpoint path (HTTP).
        sock: a socket from :func:`bind` to serve on instead of binding ``host:port``.
        **options: as :func:`httpllm.server.mcp_server` (``auth``, ``base_url`` ...).

    Raises:
        ValueError: an unknown transport.
    """
    server = mcp_server(app, **options)
    if transport == "stdio":
        anyio.run(_stdio, server)
    elif transport == "http":
        import uvicorn  # only HTTP needs it

        config = uvicorn.Config(http_app(server, host=host, path=path), host=host, port=port,
                                log_level="warning")
        uvicorn.Server(config).run(sockets=[sock] if sock is not None else None)
    else:
        raise ValueError(f"unknown transport {transport!r}; expected 'stdio' or 'http'")


async def _stdio(server: Any) -> None:
    from mcp.server.stdio import stdio_server

    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())
