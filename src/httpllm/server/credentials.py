"""Credentials and forwarded headers, from the host only, per call.

``auth`` (security scheme name -> credential, from flags or environment variables) is
merged under what ``auth_hook(call)`` returns for one call (e.g. read from the incoming HTTP
request's headers, for a server with several users). ``headers`` are sent on every
upstream request; ``forward`` names incoming HTTP request headers copied onto the upstream
request of the same call. Both go in as ``aexecute(headers=...)``, over a header argument
of the model of the same name, never over a credential, ``Accept`` or ``Content-Type``
(the request hook :func:`add_headers` then only fills in what a request lacks), and both
go only where the request goes: the document's server or the host's ``base_url``, never
along a redirect to another origin.

Each call also yields its *secrets* (credential values, and the values of headers whose
names say they carry one) so answers and messages can be scrubbed of them.

``withheld`` names incoming headers no hook sees and nothing forwards: ``Authorization``
when it carries the token that admits the client to this server (that token is for this
server only; MCP forbids passing it through). :class:`FromRequestHeaders` is the hook
``--auth-header SCHEME=HEADER`` makes: each user's credential from a header of their own
requests.
"""

from __future__ import annotations

import contextvars
import inspect
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field

import httpx

from httpllm.execute.security import Credential, secrets_of
from httpllm.server.tools import Call

__all__ = ["AuthHook", "Credentials", "FromRequestHeaders", "Resolved", "add_headers",
           "forwarding", "hooked", "reset"]

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
    withheld: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        for name in self.forward:
            if name.lower() in self.withheld:
                raise ValueError(f"forward_headers: {name} carries the token that admits "
                                 "clients to this server (token_verifier); it is never "
                                 "sent upstream")

    def incoming(self, headers: Mapping[str, str] | None, *,
                 admitted: bool = False) -> dict[str, str]:
        """An incoming request's headers as hooks see them: names in lower case, the
        withheld ones left out, and ``Authorization`` too when its token ``admitted`` the
        request (``{}`` off HTTP)."""
        if headers is None:
            return {}
        hidden = {*self.withheld, "authorization"} if admitted else set(self.withheld)
        return {k.lower(): v for k, v in headers.items() if k.lower() not in hidden}

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


@dataclass(frozen=True, slots=True)
class FromRequestHeaders:
    """An auth hook reading each scheme's credential from a header of the incoming request:
    ``FromRequestHeaders({"apiKey": "X-User-Key"})`` (one credential per user over HTTP)."""

    headers: Mapping[str, str]
    """Security scheme name -> the request header that carries its credential."""

    def __call__(self, call: Call) -> dict[str, Credential]:
        return {scheme: call.headers[header.lower()] for scheme, header in self.headers.items()
                if header.lower() in call.headers}

    def wanted(self, security: Iterable[Iterable[str]],
               given: Mapping[str, Credential]) -> list[tuple[str, str]]:
        """``[(scheme, header), ...]``: what a client must send to meet the first of
        ``security``'s requirements that headers can meet (schemes ``given`` already has
        aside); ``[]`` when none can be."""
        for requirement in map(list, security):
            if requirement and all(s in given or s in self.headers for s in requirement):
                return [(s, self.headers[s]) for s in requirement if s not in given]
        return []


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
