"""Place the host's credentials where the operation's security requirements say.

``auth`` maps a security scheme name to its credential. Only schemes of the operation's
requirements are used: the first requirement (an AND of schemes) whose every scheme has a
credential is applied; an empty requirement ``{}`` makes credentials optional. The model
never sees or chooses any of this.

| scheme | credential | goes to |
| --- | --- | --- |
| ``apiKey`` | ``str`` | the header, query parameter or cookie the scheme names |
| ``http`` ``bearer`` | ``str`` | ``Authorization: Bearer <token>`` |
| ``http`` ``basic`` | ``(user, password)`` | ``Authorization: Basic <base64(user:password)>`` |
| ``oauth2``, ``openIdConnect`` | ``str`` (access token) | ``Authorization: Bearer <token>`` |

Source: OpenAPI 3.1.0 section 4.8.27 (Security Scheme Object), 4.8.30 (Security Requirement
Object); RFC 6750 section 2.1 (bearer); RFC 7617 section 2 (basic); RFC 6265 section 4.1.1.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Literal
from urllib.parse import quote, quote_plus

from httpllm.errors import RequestBuildError
from httpllm.records import Function

__all__ = ["REDACTED", "Credential", "Placement", "applies", "credentials", "missing", "redact",
           "secrets_of"]

REDACTED = "[redacted]"
"""What stands for a credential in any text httpllm shows: an answer the model reads, a
printed request, an error message, a log line."""

_SHORT_SECRET = 6
"""Secrets shorter than this are replaced only where they stand alone (see :func:`redact`)."""

Credential = str | tuple[str, str]
"""An API key or token, or ``(user, password)`` for HTTP basic."""

Placement = tuple[Literal["header", "query", "cookie"], str, str]
"""Where one credential goes: ``("header", "Authorization", "Bearer abc")``."""

_COOKIE_VALUE = re.compile(r"[\x21\x23-\x2B\x2D-\x3A\x3C-\x5B\x5D-\x7E]*")
"""RFC 6265 section 4.1.1 ``cookie-octet``s: a credential is sent in a cookie as it is."""


def credentials(
    function: Function, auth: Mapping[str, Credential], *, required: bool = True
) -> list[Placement]:
    """The placements of the first satisfiable security requirement of ``function``.

    Returns:
        ``[]`` when the operation needs no credentials (no requirement, or ``security: []``),
        when it makes them optional (``{}``) and ``auth`` satisfies no requirement, and when
        ``required`` is ``False`` and ``auth`` satisfies none.

    Raises:
        RequestBuildError: ``auth`` satisfies no requirement of an operation that needs one
            (the message names the schemes, and the combinations, that would), a scheme is
            unknown or cannot be applied to a request (``mutualTLS``), or a credential has
            the wrong shape.
    """
    requirements = function.security
    if not any(requirements):
        return []
    for requirement in requirements:
        if requirement and all(name in auth for name in requirement):
            return [p for name in requirement for p in _place(function, name, auth[name])]
    if not all(requirements) or not required:
        return []
    raise RequestBuildError(
        f"{function.name} needs credentials: {missing(function, auth)}",
        pointer=function.pointer or None,
    )


def missing(function: Function, auth: Mapping[str, Credential]) -> str:
    """What would satisfy ``function``'s security: ``'pass auth= with one of: "petstore_auth"
    (oauth2); "api_key" (apiKey in header X-Key) + "app_id" (apiKey in query app) (none
    given)'``."""
    def scheme(name: str) -> str:
        raw = function.security_schemes.get(name)
        found: Mapping[str, Any] = raw if isinstance(raw, Mapping) else {}
        kind = str(found.get("type", "undefined"))
        if kind == "apiKey":
            kind += f" in {found.get('in')} {found.get('name')}"
        elif kind == "http":
            kind += f" {found.get('scheme')}"
        return f'"{name}" ({kind})'

    options = "; ".join(" + ".join(scheme(n) for n in r) for r in function.security if r)
    given = f"given: {', '.join(f'{n!r}' for n in sorted(auth))}" if auth else "none given"
    return (
        f"pass auth= with one of: {options} ({given}); or require_auth=False when "
        "the client supplies them"
    )


def _place(function: Function, name: str, credential: Any) -> list[Placement]:
    scheme = function.security_schemes.get(name)
    if not isinstance(scheme, Mapping):
        raise RequestBuildError(f"{function.name}: security scheme {name!r} is not defined")
    apply = _SCHEMES.get(str(scheme.get("type")))
    if apply is None:
        raise RequestBuildError(
            f"security scheme {name!r} of type {scheme.get('type')!r} cannot be applied to a "
            "request; configure it on the httpx client (e.g. client certificates)"
        )
    return apply(name, scheme, credential)


def _text(name: str, credential: Any) -> str:
    if not isinstance(credential, str) or any(c in credential for c in "\r\n\0"):
        raise RequestBuildError(f"credential for {name!r} must be a string without CR, LF or NUL")
    return credential


def _api_key(name: str, scheme: Mapping[str, Any], credential: Any) -> list[Placement]:
    key = _text(name, credential)
    where = scheme.get("in")
    if where == "header":
        return [("header", str(scheme.get("name")), key)]
    if where == "query":
        return [("query", str(scheme.get("name")), key)]
    if where == "cookie":
        if not _COOKIE_VALUE.fullmatch(key):
            raise RequestBuildError(f"credential for {name!r} is not a valid cookie value")
        return [("cookie", str(scheme.get("name")), key)]
    raise RequestBuildError(f"security scheme {name!r}: apiKey 'in' must be header/query/cookie")


def _bearer(name: str, scheme: Mapping[str, Any], credential: Any) -> list[Placement]:
    return [("header", "Authorization", f"Bearer {_text(name, credential)}")]


def _http(name: str, scheme: Mapping[str, Any], credential: Any) -> list[Placement]:
    kind = str(scheme.get("scheme", "")).lower()
    if kind == "bearer":
        return _bearer(name, scheme, credential)
    if kind == "basic":
        if not (isinstance(credential, (tuple, list)) and len(credential) == 2):
            raise RequestBuildError(
                f"credential for {name!r} (http basic) must be (user, password)"
            )
        user, password = (_text(name, part) for part in credential)
        token = base64.b64encode(f"{user}:{password}".encode()).decode("ascii")
        return [("header", "Authorization", f"Basic {token}")]
    raise RequestBuildError(
        f"security scheme {name!r}: http scheme {kind!r} needs an httpx.Auth as auth="
    )


_SCHEMES: dict[str, Callable[[str, Mapping[str, Any], Any], list[Placement]]] = {
    "apiKey": _api_key,
    "http": _http,
    "oauth2": _bearer,
    "openIdConnect": _bearer,
}
_HTTP_SCHEMES = ("bearer", "basic")
"""The HTTP authentication schemes :func:`_http` applies (others need an ``httpx.Auth``)."""


def applies(scheme: Mapping[str, Any]) -> bool:
    """Whether ``auth=`` can carry this security scheme's credential as a value (a key, a
    token, ``(user, password)``): not mutual TLS, not HTTP Digest or another HTTP scheme,
    which the httpx client's own auth must handle."""
    kind = str(scheme.get("type"))
    if kind == "http":
        return str(scheme.get("scheme", "")).lower() in _HTTP_SCHEMES
    return kind in _SCHEMES


def secrets_of(auth: Any, headers: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """The credential texts in ``auth`` that must never reach the model: each key or
    token, each basic password and its ``Authorization`` token, each also as it is
    percent-encoded in a URL or a form (an API may echo its query string); and the values
    of ``headers`` whose names speak of credentials (``Authorization``, ``X-Api-Key``,
    ``Cookie`` ...), with a ``"Bearer abc"`` value also giving ``"abc"``. The one list of
    what to mask, for every place that shows text: the agent loop, the trio, the MCP
    server, the command line, transport errors and httpx's log lines; pass it to
    :func:`redact`.

    >>> secrets_of({"key": "a b", "basic": ("ann", "pw")})
    ('YW5uOnB3', 'a%20b', 'a b', 'a+b', 'pw')
    >>> secrets_of(None, {"Authorization": "Bearer t0ken", "Accept": "text/plain"})
    ('Bearer t0ken', 't0ken')
    """
    found: set[str] = set()
    for credential in (auth.values() if isinstance(auth, Mapping) else ()):
        if isinstance(credential, str):
            found.add(credential)
        elif isinstance(credential, (tuple, list)) and len(credential) == 2:
            user, password = (str(part) for part in credential)
            found.update((password, _basic(user, password)))
    for name, value in (headers or {}).items():
        if isinstance(value, str) and any(w in name.lower() for w in _SECRET_HEADER_WORDS):
            found.update((value, *value.split(" ", 1)[1:]))
    found |= {quote(s, safe="") for s in found} | {quote_plus(s) for s in found}
    found.discard("")
    return tuple(sorted(found, key=lambda s: (-len(s), s)))  # longest first: no leftovers


_SECRET_HEADER_WORDS = ("auth", "key", "token", "secret", "session", "cookie", "password")


def redact(text: str, secrets: Iterable[str]) -> str:
    """``text`` with every secret replaced by :data:`REDACTED`, longest secret first.

    A secret shorter than 6 characters is replaced only where it stands alone, with no
    letter or digit on either side: a test key ``"ab"`` is masked in ``key=ab&x=1`` but
    does not turn every ``"about"`` into ``"[redacted]out"``.

    >>> redact("GET /x?key=ab&about=1", ["ab"])
    'GET /x?key=[redacted]&about=1'
    """
    for secret in secrets:
        if secret not in text:
            continue
        if len(secret) >= _SHORT_SECRET:
            text = text.replace(secret, REDACTED)
        else:
            alone = rf"(?<![0-9A-Za-z]){re.escape(secret)}(?![0-9A-Za-z])"
            text = re.sub(alone, REDACTED, text)
    return text


def _basic(user: str, password: str) -> str:
    return base64.b64encode(f"{user}:{password}".encode()).decode("ascii")
