"""How much of the server one client may hold: sessions and upstream calls.

- :class:`Limits`: the bounds (sessions per client and in all, idle timeout, calls in
  flight per session and per client).
- :class:`Slots`: at most N holders per key (the calls a session or a client has in flight
  upstream), so one user's slow calls never take every connection of the shared pool.
- :class:`SessionLimit`: ASGI middleware keeping each client's open sessions within
  :attr:`Limits.sessions_per_client`. When a client opens one more, its least recently used
  idle session is ended (as if it had sent ``DELETE``); a client whose sessions are all busy
  gets 429. One client therefore never fills the server's session table, and a new client
  always gets in.

A *client* is what :func:`~httpllm.server.admission.client_of` says: the token's principal
when the endpoint authenticates, else the remote address (every local process shares
127.0.0.1: authenticate to tell local users apart).
"""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator, Awaitable, Callable, MutableMapping
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import anyio
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from httpllm.server.admission import authenticated, client_of

__all__ = ["CallSlots", "Limits", "SessionLimit", "Slots", "route_path"]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]


@dataclass(frozen=True, slots=True, kw_only=True)
class Limits:
    """What one client may hold at once (all counts; seconds).

    Attributes:
        sessions: open sessions in all (the SDK's cap: 10,000); a new one past it gets 503.
        sessions_per_client: open sessions per client (100); past it the client's least
            recently used idle session is ended.
        session_idle_timeout: seconds without a request after which a session is ended
            (1,800; ``None``: never).
        calls_per_session: tool calls one session has in flight upstream (8); more wait.
        calls_per_client: tool calls one client has in flight upstream over all its
            sessions (32); the shared pool holds 100 connections, so no client fills it.
    """

    sessions: int = 10_000
    sessions_per_client: int = 100
    session_idle_timeout: float | None = 1800.0
    calls_per_session: int = 8
    calls_per_client: int = 32

    def __post_init__(self) -> None:
        for name in ("sessions", "sessions_per_client", "calls_per_session",
                     "calls_per_client"):
            if getattr(self, name) < 1:
                raise ValueError(f"Limits.{name} must be at least 1")
        if self.session_idle_timeout is not None and not self.session_idle_timeout > 0:
            raise ValueError("Limits.session_idle_timeout must be a positive number of seconds")


class Slots:
    """At most ``size`` holders per key at once; the others wait their turn (first come,
    first served). A key no one holds or waits for is forgotten."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._keys: dict[str, tuple[anyio.Semaphore, list[int]]] = {}

    @asynccontextmanager
    async def hold(self, key: str) -> AsyncIterator[None]:
        """Hold one of ``key``'s slots for the ``async with`` block."""
        semaphore, users = self._keys.setdefault(
            key, (anyio.Semaphore(self.size), [0]))
        users[0] += 1
        try:
            async with semaphore:
                yield
        finally:
            users[0] -= 1
            if not users[0]:
                del self._keys[key]

    def held(self, key: str) -> int:
        """How many holders ``key`` has now."""
        found = self._keys.get(key)
        return 0 if found is None else self.size - found[0].value


class CallSlots:
    """Upstream calls in flight per session and per client (see :class:`Limits`)."""

    def __init__(self, limits: Limits) -> None:
        self.sessions = Slots(limits.calls_per_session)
        self.clients = Slots(limits.calls_per_client)

    @asynccontextmanager
    async def hold(self, scope: Any, session_id: str | None) -> AsyncIterator[None]:
        """A slot of this session and of its client (``scope``: the HTTP request's ASGI
        scope; none is needed off HTTP, where there is one client)."""
        async with AsyncExitStack() as stack:
            if isinstance(scope, MutableMapping) and scope.get("type") == "http":
                client = client_of(scope)
                if session_id is not None:
                    await stack.enter_async_context(self.sessions.hold(session_id))
                await stack.enter_async_context(self.clients.hold(client))
            yield


@dataclass(slots=True)
class _Session:
    client: str
    host: bytes
    path: str
    root_path: str
    last: float = field(default_factory=time.monotonic)
    busy: int = 0
    """Requests in flight other than ``GET`` (a call, a listing): the session is in use."""
    streams: int = 0
    """``GET`` streams open (server notifications): the SDK does not end it for idleness,
    but it may end it to make room."""


class SessionLimit:
    """ASGI middleware: each client's open MCP sessions within ``limits`` (see the module
    docstring). Requests to other paths, and 2026-07-28 requests (no sessions), pass.

    Args:
        app: the rest of the streamable-HTTP app (routing, the SDK's transport).
        path: the MCP endpoint's path within ``app``.
        limits: the bounds.
        authenticated: whether the endpoint admits only authenticated requests (then an
            unauthenticated one is left to the SDK's 401 without being counted).
    """

    def __init__(self, app: App, *, path: str, limits: Limits, authenticated: bool) -> None:
        self.app = app
        self.path = path
        self.limits = limits
        self.authenticated = authenticated
        self._sessions: dict[str, _Session] = {}
        self._opening: dict[str, int] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or route_path(scope) != self.path or (
                self.authenticated and not authenticated(scope)):
            await self.app(scope, receive, send)
            return
        headers = {k.lower(): v for k, v in scope["headers"]}
        session = headers.get(b"mcp-session-id")
        version = headers.get(b"mcp-protocol-version", b"").decode("latin-1")
        if session is not None:
            await self._in_session(session.decode("latin-1"), scope, receive, send)
        elif scope["method"] == "POST" and version not in MODERN_PROTOCOL_VERSIONS:
            await self._opening_request(scope, receive, send)
        else:
            await self.app(scope, receive, send)

    async def _in_session(self, session_id: str, scope: Scope, receive: Receive,
                          send: Send) -> None:
        record = self._sessions.get(session_id)
        if record is None:
            await self.app(scope, receive, send)
            return
        kind = "streams" if scope["method"] == "GET" else "busy"
        setattr(record, kind, getattr(record, kind) + 1)
        status = [0]
        try:
            await self.app(scope, receive, _watching(send, status))
        finally:
            setattr(record, kind, getattr(record, kind) - 1)
            record.last = time.monotonic()
            if status[0] == 404 or (scope["method"] == "DELETE" and status[0] < 300):
                self._sessions.pop(session_id, None)

    async def _opening_request(self, scope: Scope, receive: Receive, send: Send) -> None:
        client = client_of(scope)
        self._forget_expired()
        busy = sum(1 for s in self._sessions.values() if s.client == client and s.busy)
        if busy + self._opening.get(client, 0) >= self.limits.sessions_per_client:
            await _refuse(scope, receive, send, self.limits.sessions_per_client)
            return
        self._opening[client] = self._opening.get(client, 0) + 1
        status, opened = [0], [b""]
        try:
            await self.app(scope, receive, _watching(send, status, opened))
        finally:
            self._opening[client] -= 1
            if not self._opening[client]:
                del self._opening[client]
        if status[0] < 400 and opened[0]:
            headers = dict(scope["headers"])
            self._sessions[opened[0].decode("latin-1")] = _Session(
                client=client, host=headers.get(b"host", b""), path=scope["path"],
                root_path=scope.get("root_path", ""))
            await self._evict(client, scope)

    async def _evict(self, client: str, scope: Scope) -> None:
        """End the client's least recently used idle sessions past its share."""
        mine = [(s.last, sid, s) for sid, s in self._sessions.items() if s.client == client]
        excess = len(mine) - self.limits.sessions_per_client
        idle = sorted((item for item in mine if not item[2].busy), key=lambda item: item[0])
        for _, session_id, record in idle[:max(0, excess)]:
            status = [0]
            with anyio.CancelScope(shield=True):
                await self.app(_deletion(scope, session_id, record), _no_body,
                               _watching(_discard, status))
            if status[0] in (200, 202, 204, 404):
                self._sessions.pop(session_id, None)

    def _forget_expired(self) -> None:
        """Drop sessions the SDK has ended for idleness by now."""
        timeout = self.limits.session_idle_timeout
        if timeout is None:
            return
        now = time.monotonic()
        for session_id in [sid for sid, s in self._sessions.items()
                           if not s.busy and not s.streams and now - s.last > timeout]:
            del self._sessions[session_id]

    def open_sessions(self, client: str) -> int:
        """How many sessions ``client`` holds now (for tests and diagnostics)."""
        return sum(1 for s in self._sessions.values() if s.client == client)


def route_path(scope: Scope) -> str:
    """The request's path within the app it reached (a ``Mount``'s prefix taken off)."""
    path: str = scope["path"]
    root: str = scope.get("root_path", "")
    return path[len(root):] if root and path.startswith(root) else path


def _watching(send: Send, status: list[int], session: list[bytes] | None = None) -> Send:
    async def watch(message: Message) -> None:
        if message["type"] == "http.response.start":
            status[0] = message["status"]
            if session is not None:
                session[0] = dict(message.get("headers", [])).get(b"mcp-session-id", b"")
        await send(message)

    return watch


async def _discard(message: Message) -> None:
    return None


async def _no_body() -> Message:
    return {"type": "http.request", "body": b"", "more_body": False}


def _deletion(scope: Scope, session_id: str, record: _Session) -> Scope:
    """The ``DELETE`` the session's client would send to end it."""
    return {**scope, "method": "DELETE", "path": record.path, "root_path": record.root_path,
            "raw_path": record.path.encode("latin-1"), "query_string": b"",
            "headers": [(b"host", record.host),
                        (b"mcp-session-id", session_id.encode("latin-1"))]}


async def _refuse(scope: Scope, receive: Receive, send: Send, limit: int) -> None:
    body = json.dumps({"jsonrpc": "2.0", "id": None, "error": {
        "code": -32600, "message": f"Too many sessions: this client has {limit} open and "
                                   "busy; end one (DELETE) or wait for one to finish"}})
    await send({"type": "http.response.start", "status": 429, "headers": [
        (b"content-type", b"application/json"), (b"retry-after", b"5"),
        (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body.encode()})
