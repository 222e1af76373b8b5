"""Credentials and forwarded headers, from the host only, per call.

``auth`` (security scheme name -> credential, from flags or environment variables) is
merged under what ``auth_hook(call)`` returns for one call (e.g. read from the incoming HTTP
request's headers, for a server with several users). ``headers`` are sent on every
upstream request; ``forward`` names incoming HTTP request headers copied onto the upstream
request of the same call. Neither ever replaces a header the request already has
(credentials, ``Accept``, ``Content-Type``), and both go only where the request goes: the
document's server or the host's ``base_url``.

Each call also yields its *secrets* (credential values, and the values of headers whose
names say they carry one) so answers and messages can be scrubbed of them.
"""

from __future__ import annotations

import contextvars
import inspect
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field

import httpx

from httpllm.execute.security import Credential, secrets_of
from httpllm.server.tools import Call

__all__ = ["AuthHook", "Credentials", "Resolved", "add_headers", "forwarding", "hooked",
           "reset"]

AuthHook = Callable[[Call], Mapping[str, Credential] |
                    Awaitable[Mapping[str, Credential] | None] | None]
"""``auth_hook(call) -> {scheme: credential} | None`` (or a coroutine giving it)."""


_EXTRA: contextvars.ContextVar[Mapping[str, str] | None] = contextvars.ContextVar(
    "httpllm_server_headers", default=None)
"""The headers to add to the upstream request of the call running in this context."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Resolved:
    """What one call sends: credentials by scheme, extra headers, and the secrets to scrub."""

    auth: dict[str, Credential]
    headers: dict[str, str]
    secrets: tuple[str, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class Credentials:
    """The host's credentials and headers (see the module docstring)."""

    auth: Mapping[str, Credential] = field(default_factory=dict)
    hook: AuthHook | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    forward: tuple[str, ...] = ()

    async def resolve(self, call: Call) -> Resolved:
        """The credentials and headers of one call.

        Raises:
            Exception: whatever ``hook`` raises (the server reports it without its text).
        """
        auth = dict(self.auth)
        if self.hook is not None:
            given = self.hook(call)
            if inspect.isawaitable(given):
                given = await given
            if given:
                auth.update(given)
        headers = dict(self.headers)
        for name in self.forward:
            value = call.headers.get(name.lower())
            if value is not None:
                headers[name] = value
        return Resolved(auth=auth, headers=headers, secrets=secrets_of(auth, headers))


def forwarding(headers: Mapping[str, str]) -> contextvars.Token[Mapping[str, str] | None]:
    """Set the headers the upstream request of this call gets (reset with the token)."""
    return _EXTRA.set(headers)


def reset(token: contextvars.Token[Mapping[str, str] | None]) -> None:
    """Undo :func:`forwarding`."""
    _EXTRA.reset(token)


async def add_headers(request: httpx.Request) -> None:
    """httpx request hook: add this call's headers the request does not already have."""
    for name, value in (_EXTRA.get() or {}).items():
        if name not in request.headers:
            request.headers[name] = value


def hooked(client: httpx.AsyncClient) -> httpx.AsyncClient:
    """``client`` with :func:`add_headers` among its request hooks (added once)."""
    hooks: Iterable[object] = client.event_hooks.get("request", [])
    if add_headers not in hooks:
        client.event_hooks = {**client.event_hooks,
                              "request": [*client.event_hooks.get("request", []), add_headers]}
    return client
