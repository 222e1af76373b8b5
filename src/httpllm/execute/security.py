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
from collections.abc import Callable, Mapping
from typing import Any, Literal

from httpllm.errors import RequestBuildError
from httpllm.records import Function

__all__ = ["Credential", "Placement", "credentials"]

Credential = str | tuple[str, str]
"""An API key or token, or ``(user, password)`` for HTTP basic."""

Placement = tuple[Literal["header", "query", "cookie"], str, str]
"""Where one credential goes: ``("header", "Authorization", "Bearer abc")``."""

_COOKIE_VALUE = re.compile(r"[\x21\x23-\x2B\x2D-\x3A\x3C-\x5B\x5D-\x7E]*")
"""RFC 6265 section 4.1.1 ``cookie-octet``s: a credential is sent in a cookie as it is."""


def credentials(function: Function, auth: Mapping[str, Credential]) -> list[Placement]:
    """The placements of the first satisfiable security requirement of ``function``.

    Returns:
        ``[]`` when the operation needs no credentials, or when it makes them optional
        (``{}``) and ``auth`` satisfies no requirement.

    Raises:
        RequestBuildError: ``auth`` satisfies no requirement of an operation that needs one,
            a scheme is unknown or cannot be applied to a request (``mutualTLS``), or a
            credential has the wrong shape.
    """
    requirements = function.security
    if not any(requirements):
        return []
    for requirement in requirements:
        if requirement and all(name in auth for name in requirement):
            return [p for name in requirement for p in _place(function, name, auth[name])]
    if not all(requirements):
        return []
    wanted = " or ".join(" + ".join(r) for r in requirements)
    given = ", ".join(sorted(auth)) or "none"
    raise RequestBuildError(
        f"{function.name} needs credentials for {wanted}; auth has {given}",
        pointer=function.pointer or None,
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
