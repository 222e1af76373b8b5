"""The MCP endpoint as httpllm serves it over streamable HTTP: the SDK's app, with
admission and limits on whatever address it binds, and the protocol rules the SDK leaves
to the server.

:class:`HttpllmServer` is the SDK's low-level ``Server`` (what :func:`~httpllm.mcp_server`
returns) whose ``streamable_http_app()`` always

- validates ``Host`` and ``Origin`` (:func:`~httpllm.server.admission.transport_security`:
  an invalid ``Origin`` is 403, as MCP requires, on every bind address, not only loopback);
- requires a bearer token when the server has a token verifier (401 with
  ``WWW-Authenticate``; with ``AuthSettings`` also RFC 9728 metadata at
  ``/.well-known/oauth-protected-resource/<path>`` named in ``resource_metadata``);
- keeps each client's sessions within :class:`~httpllm.server.limits.Limits`
  (:class:`~httpllm.server.limits.SessionLimit`), and ends idle sessions;
- sends nothing for a request the client cancelled (:class:`SilentCancel`).

:func:`answer_ping` answers ``ping`` in every protocol era (2026-07-28 removed it, but
clients that probe with it still send it).

Source: MCP 2025-11-25 and 2026-07-28 ``basic/transports`` (Security & Endpoint,
Cancellation), ``basic/utilities/cancellation`` ("receivers ... SHOULD NOT send a
response for the cancelled request"), 2026-07-28 changelog (``ping`` removed).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from mcp.server.auth.provider import TokenVerifier
from mcp.server.auth.settings import AuthSettings
from mcp.server.context import CallNext, ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.streamable_http import REQUEST_CANCELLED
from mcp.server.transport_security import TransportSecuritySettings
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from starlette.applications import Starlette
from starlette.middleware import Middleware

from httpllm.server.admission import transport_security as host_and_origin_rule
from httpllm.server.limits import (
    App,
    Limits,
    Message,
    Receive,
    Scope,
    Send,
    SessionLimit,
    route_path,
)

__all__ = ["Admission", "HttpllmServer", "SilentCancel", "answer_ping"]

_NO_ISSUER = "http://127.0.0.1"
"""``AuthSettings`` needs an issuer even when tokens come from the operator, not an
authorization server; with no ``resource_server_url`` it is never published."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Admission:
    """Who the endpoint admits and how much each client may hold.

    Attributes:
        token_verifier: checks each request's bearer token (``None``: no token needed).
        auth_settings: the SDK's ``AuthSettings`` for an OAuth resource server (issuer,
            this endpoint's ``resource_server_url``, required scopes): RFC 9728 metadata
            and ``resource_metadata`` in 401 answers. Needs ``token_verifier``.
        limits: sessions and calls per client.
    """

    token_verifier: TokenVerifier | None = None
    auth_settings: AuthSettings | None = None
    limits: Limits = field(default_factory=Limits)

    def __post_init__(self) -> None:
        if self.auth_settings is not None and self.token_verifier is None:
            raise ValueError("auth_settings needs a token_verifier to check the tokens")


class HttpllmServer(Server[Any]):
    """The SDK's low-level server whose streamable-HTTP app admits and bounds clients as
    :attr:`admission` says (see the module docstring); everything else is the SDK's."""

    admission: Admission = Admission()

    def streamable_http_app(
        self, *, streamable_http_path: str = "/mcp", host: str = "127.0.0.1",
        json_response: bool = False, stateless_http: bool = False,
        transport_security: TransportSecuritySettings | None = None,
        allowed_hosts: Iterable[str] = (), allowed_origins: Iterable[str] = (),
        token_verifier: TokenVerifier | None = None, auth: AuthSettings | None = None,
        **options: Any,
    ) -> Starlette:
        """The SDK's ``Server.streamable_http_app`` (same arguments) with this server's
        admission and limits, plus:

        Args:
            host: the address the app is served on; ``Host``/``Origin`` are validated
                whatever it is (the SDK checks them only for loopback addresses).
            allowed_hosts: more ``Host`` values to accept (``mcp.example.com``).
            allowed_origins: more ``Origin`` values to accept (``https://app.example.com``).
            token_verifier, auth: replace :attr:`admission`'s.
        """
        verifier = token_verifier or self.admission.token_verifier
        settings = auth or self.admission.auth_settings
        if verifier is not None and settings is None:
            settings = AuthSettings(issuer_url=_NO_ISSUER,  # type: ignore[arg-type]
                                    resource_server_url=None)
        limits = self.admission.limits
        options.setdefault("session_idle_timeout", limits.session_idle_timeout)
        options.setdefault("max_sessions", limits.sessions)
        app = super().streamable_http_app(
            streamable_http_path=streamable_http_path, json_response=json_response,
            stateless_http=stateless_http, host=host, token_verifier=verifier, auth=settings,
            transport_security=transport_security or host_and_origin_rule(
                host, allowed_hosts=allowed_hosts, allowed_origins=allowed_origins),
            **options)
        # Inside the SDK's authentication middleware (they see who the client is), outside
        # its routing. Stateless, there are no sessions to count.
        if not stateless_http:
            app.user_middleware.append(Middleware(
                SessionLimit, path=streamable_http_path, limits=limits,
                authenticated=verifier is not None))
        app.user_middleware.append(Middleware(SilentCancel, path=streamable_http_path))
        return app


class SilentCancel:
    """ASGI middleware: no JSON-RPC response for a request the client cancelled.

    The SDK's 2025-era transport ends a cancelled request's stream with a ``-32800``
    ("Request cancelled") error; the protocol says the receiver of a cancellation should
    not answer it. Over SSE the event is dropped and the stream just ends; in JSON-response
    mode the answer is ``202 Accepted`` with no body (no JSON-RPC message). Only that
    error is touched.
    """

    def __init__(self, app: App, *, path: str) -> None:
        self.app = app
        self.path = path

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST" or (
                route_path(scope) != self.path):
            await self.app(scope, receive, send)
            return
        held: list[Message] = []
        sse = [False]

        async def filtered(message: Message) -> None:
            if message["type"] == "http.response.start":
                kind = dict(message.get("headers", [])).get(b"content-type", b"")
                sse[0] = kind.startswith(b"text/event-stream")
                if kind.startswith(b"application/json"):
                    held.append(message)  # until its body says whether it is that error
                    return
            elif message["type"] == "http.response.body":
                body = message.get("body", b"")
                if held:
                    start = held.pop()
                    if not message.get("more_body") and _cancelled(body):
                        await send({"type": "http.response.start", "status": 202,
                                    "headers": [(b"content-length", b"0")]})
                        await send({"type": "http.response.body", "body": b""})
                        return
                    await send(start)
                elif sse[0] and _cancelled(body, sse=True):
                    message = {**message, "body": b""}
            await send(message)

        await self.app(scope, receive, filtered)


def _cancelled(body: bytes, *, sse: bool = False) -> bool:
    """Whether ``body`` (a JSON object, or one SSE event) is the ``-32800`` answer to a
    cancelled request."""
    if b"-32800" not in body or len(body) > 4096:
        return False
    if sse:
        lines = body.decode("utf-8", "replace").splitlines()
        text = "\n".join(line[5:].strip() for line in lines if line.startswith("data:"))
    else:
        text = body.decode("utf-8", "replace")
    try:
        message = json.loads(text)
    except ValueError:
        return False
    return (isinstance(message, dict) and "id" in message
            and isinstance(message.get("error"), dict)
            and message["error"].get("code") == REQUEST_CANCELLED)


async def answer_ping(ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> Any:
    """Server middleware: ``ping`` gets an empty result in every era (2026-07-28 removed the
    method, so the SDK answers it "method not found"; a host that probes with ``ping``
    would show the server as down)."""
    if ctx.method == "ping" and ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
        return {"resultType": "complete"}
    return await call_next(ctx)
