"""Who the MCP endpoint admits over HTTP: bearer tokens, the Host/Origin rule, and who a
request comes from.

- :class:`StaticTokens`: bearer tokens the operator hands out (``--require-token
  VARIABLE``), compared in constant time; each is its own client.
- :class:`JwtVerifier`: OAuth 2.1 access tokens issued as JWTs by an authorization server
  (RFC 9068): signature by the server's JWKS, ``iss``, ``aud`` = this endpoint (RFC 8707),
  ``exp``/``nbf``. With ``AuthSettings`` the SDK serves RFC 9728 protected-resource
  metadata and answers 401 with ``WWW-Authenticate: Bearer resource_metadata=...``.
- :func:`transport_security`: the SDK's Host/Origin validation, on for every bind address
  (MCP streamable HTTP: servers MUST validate ``Origin``; an invalid one is 403).
- :func:`client_of`: who a request comes from (its token's principal, else its address),
  the key the limits count by.

Any object with ``async verify_token(token) -> AccessToken | None`` (the SDK's
``TokenVerifier``) can stand in for the two verifiers here.

Source: MCP 2025-11-25 and 2026-07-28 ``basic/authorization``, ``basic/transports``
(Security & Endpoint); RFC 6750 (bearer tokens), RFC 9728, RFC 8707, RFC 9068.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import re
import socket
from collections.abc import Iterable, Mapping
from typing import Any

from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken, principal_components
from mcp.server.transport_security import TransportSecuritySettings

from httpllm.errors import OptionError

__all__ = ["JwtVerifier", "StaticTokens", "allowed_host", "allowed_origin", "authenticated",
           "client_of", "is_loopback", "is_wildcard", "oauth_resource", "transport_security"]

_LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]")
_LOOPBACK_ORIGINS = ("http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*",
                     "https://127.0.0.1:*", "https://localhost:*", "https://[::1]:*")
_JWT_ALGORITHMS = ("RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384",
                   "ES512", "EdDSA")
"""Asymmetric algorithms only: a resource server never holds the issuer's signing key."""


class StaticTokens:
    """Bearer tokens handed out by the operator: ``{client: token}``.

    A request's token is compared with each in constant time (as SHA-256 digests, so the
    time does not depend on where or whether the strings differ); the matching name is
    the client (``AccessToken.client_id``) the limits count by.

    Raises:
        ValueError: no token, or an empty one.
    """

    def __init__(self, tokens: Mapping[str, str]) -> None:
        if not tokens or not all(tokens.values()):
            raise ValueError("StaticTokens needs at least one token, none of them empty")
        self._digests = [(client, _digest(token)) for client, token in tokens.items()]

    async def verify_token(self, token: str) -> AccessToken | None:
        """The token's client, or ``None`` for a token none of the operator's match."""
        given = _digest(token)
        found = None
        for client, digest in self._digests:  # every one compared: no early exit
            if hmac.compare_digest(given, digest):
                found = client
        return None if found is None else AccessToken(token=token, client_id=found, scopes=[])


def _digest(token: str) -> bytes:
    return hashlib.sha256(token.encode("utf-8", "surrogateescape")).digest()


class JwtVerifier:
    """OAuth access tokens as JWTs (RFC 9068), checked with PyJWT against the authorization
    server's published keys.

    Args:
        jwks_url: the authorization server's JWK Set (its metadata's ``jwks_uri``).
        issuer: the ``iss`` every token must carry.
        audience: this endpoint's canonical URL (``https://mcp.example.com/mcp``): the
            ``aud`` every token must include (RFC 8707; MCP: tokens for another resource
            MUST be refused).
        algorithms: signature algorithms accepted (asymmetric only by default).
        leeway: seconds of clock skew allowed on ``exp``/``nbf``.

    Keys are fetched on first use and cached (PyJWT's ``PyJWKClient``: refetched at most
    every 30 s for an unknown key id), in a worker thread so the server never blocks.
    """

    def __init__(self, *, jwks_url: str, issuer: str, audience: str,
                 algorithms: Iterable[str] = _JWT_ALGORITHMS, leeway: float = 30.0) -> None:
        import jwt  # the mcp SDK depends on PyJWT

        self.issuer = issuer
        self.audience = audience
        self.algorithms = list(algorithms)
        self.leeway = leeway
        self._keys = jwt.PyJWKClient(jwks_url, cache_keys=True, timeout=10)

    async def verify_token(self, token: str) -> AccessToken | None:
        """The token's principal and scopes, or ``None`` when anything does not hold."""
        import anyio

        try:
            return await anyio.to_thread.run_sync(self._verify, token)
        except Exception:  # any fault in a token or in fetching keys: not admitted
            return None

    def _verify(self, token: str) -> AccessToken:
        import jwt

        key = self._keys.get_signing_key_from_jwt(token)
        claims: dict[str, Any] = jwt.decode(
            token, key.key, algorithms=self.algorithms, audience=self.audience,
            issuer=self.issuer, leeway=self.leeway,
            options={"require": ["exp", "iss", "aud"]})
        scope = claims.get("scope", claims.get("scp", ""))
        scopes = scope.split() if isinstance(scope, str) else [str(s) for s in scope]
        subject = claims.get("sub")
        client = claims.get("client_id", claims.get("azp", subject))
        return AccessToken(token=token, client_id=str(client or ""), scopes=scopes,
                           expires_at=int(claims["exp"]), resource=self.audience,
                           subject=None if subject is None else str(subject), claims=claims)


def oauth_resource(*, issuer: str, jwks_url: str, resource: str,
                   scopes: Iterable[str] = ()) -> dict[str, Any]:
    """``mcp_server``'s ``token_verifier`` and ``auth_settings`` for an OAuth resource
    server: JWT access tokens from ``issuer`` (keys at ``jwks_url``) for ``resource``.

    Raises:
        ValueError: a URL that is not http(s) (the message says which).
    """
    from mcp.server.auth.settings import AuthSettings

    settings = AuthSettings(issuer_url=issuer,  # type: ignore[arg-type]  # pydantic parses
                            resource_server_url=resource,  # type: ignore[arg-type]
                            required_scopes=list(scopes) or None, validate_token_resource=True)
    verifier = JwtVerifier(jwks_url=jwks_url, issuer=issuer, audience=resource)
    return {"token_verifier": verifier, "auth_settings": settings}


def is_wildcard(host: str) -> bool:
    """Whether ``host`` binds every interface (``0.0.0.0``, ``::``, ``""``)."""
    return host in ("", "0.0.0.0", "::", "[::]")


def is_loopback(host: str) -> bool:
    """Whether ``host`` is reachable from this machine only (``localhost``, 127.0.0.0/8,
    ``::1``)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _bracketed(host: str) -> str:
    return f"[{host.strip('[]')}]" if ":" in host.strip("[]") else host


def _machine_names() -> list[str]:
    """This machine's name and addresses, as a ``Host`` header spells them."""
    names = {socket.gethostname(), socket.getfqdn()}
    try:
        infos = socket.getaddrinfo(socket.gethostname(), None)
    except OSError:
        infos = []
    names.update(str(info[4][0]) for info in infos if "%" not in str(info[4][0]))
    return sorted(_bracketed(n) for n in names if n)


_HOST = (r"(?P<host>\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]*[A-Za-z0-9])"
         r"(?::(?P<port>[0-9]{1,5}|\*))?")
_HOST_HEADER = re.compile(_HOST)
"""A ``Host`` header's value: a name or an address, then ``:port`` (``:*`` for any)."""
_ORIGIN = re.compile(r"(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*)://" + _HOST + "/?")
"""An origin as a browser's ``Origin`` header spells it, ``:*`` for any port."""


def _port_ok(found: re.Match[str] | None) -> bool:
    port = found.group("port") if found else None
    return found is not None and (port in (None, "*") or 0 < int(port) <= 65535)


def allowed_host(value: str) -> str:
    """``value`` as a ``Host`` header names this server: ``name``, ``name:port`` or
    ``name:*`` (RFC 9110 section 7.2: ``uri-host [ ":" port ]``), the name in lower case
    (host names are case-insensitive, and the header is compared as text).

    >>> allowed_host("MCP.Example.com"), allowed_host("[::1]:8000")
    ('mcp.example.com', '[::1]:8000')

    Raises:
        OptionError: anything else (``https://mcp.example.com``, a path, a space): no
            client sends it as a ``Host``, so it allowed nothing and said nothing
            (``option="allowed_hosts"``).
    """
    found = _HOST_HEADER.fullmatch(value) if isinstance(value, str) else None
    if not _port_ok(found):
        raise OptionError(f"{value!r} is no host: expected NAME or NAME:PORT, such as "
                          "mcp.example.com (a Host header, RFC 9110 section 7.2)",
                          option="allowed_hosts")
    return value.lower()


_DEFAULT_PORTS = {"http": "80", "https": "443"}
"""The port an origin leaves out for its scheme (RFC 6454 section 6.2)."""


def allowed_origin(value: str) -> str:
    """``value`` as the ``Origin`` a browser sends: ``scheme://host[:port]`` (RFC 6454
    section 6.1; ``:*`` for any port), scheme and host in lower case and a default port
    (``:443`` for https) or a trailing ``/`` left out, as browsers serialize it (RFC 6454
    section 6.2): the header is compared as text.

    >>> allowed_origin("HTTPS://App.example.com:443/"), allowed_origin("http://[::1]:*")
    ('https://app.example.com', 'http://[::1]:*')

    Raises:
        OptionError: anything else (``evil``, ``app.example.com``, a path, ``null``):
            no browser sends it, so it allowed nothing and said nothing
            (``option="allowed_origins"``).
    """
    found = _ORIGIN.fullmatch(value) if isinstance(value, str) else None
    if found is None or not _port_ok(found):
        raise OptionError(f"{value!r} is no origin: expected scheme://host[:port], such as "
                          "https://app.example.com (RFC 6454)", option="allowed_origins")
    scheme, host = found.group("scheme").lower(), found.group("host").lower()
    port = found.group("port")
    shown = "" if port is None or port == _DEFAULT_PORTS.get(scheme) else f":{port}"
    return f"{scheme}://{host}{shown}"


def transport_security(host: str, *, allowed_hosts: Iterable[str] = (),
                       allowed_origins: Iterable[str] = ()) -> TransportSecuritySettings:
    """Host and Origin validation for a server bound to ``host``, whatever it is.

    Allowed ``Host`` values: the loopback names, the bind address (a wildcard bind: this
    machine's name and addresses), and ``allowed_hosts`` (``name`` allows any port,
    ``name:port`` one). Allowed ``Origin`` values: loopback pages and ``allowed_origins``
    (``https://app.example.com``; ``:*`` for any port). A request with another ``Host``
    gets 421, with another ``Origin`` 403; one without ``Origin`` (not a browser) passes.

    Raises:
        OptionError: an allowed host that is no host (:func:`allowed_host`) or an allowed
            origin that is no origin (:func:`allowed_origin`).

    >>> transport_security("10.0.0.5").allowed_hosts[-2:]
    ['10.0.0.5', '10.0.0.5:*']
    """
    names = list(_LOOPBACK_HOSTS)
    if is_wildcard(host):
        names += _machine_names()
    elif _bracketed(host) not in names:
        names.append(_bracketed(host))
    hosts: list[str] = []
    for name in [*names, *(allowed_host(h) for h in allowed_hosts)]:
        port_given = name.rsplit(":", 1)[-1].isdigit() and not name.endswith("]")
        for value in (name,) if port_given or name.endswith(":*") else (name, f"{name}:*"):
            if value not in hosts:
                hosts.append(value)
    origins = [*_LOOPBACK_ORIGINS, *(allowed_origin(o) for o in allowed_origins)]
    return TransportSecuritySettings(enable_dns_rebinding_protection=True,
                                     allowed_hosts=hosts, allowed_origins=origins)


def authenticated(scope: Mapping[str, Any]) -> bool:
    """Whether the ASGI request carried a token the endpoint's verifier accepted."""
    return isinstance(scope.get("user"), AuthenticatedUser)


def client_of(scope: Mapping[str, Any]) -> str:
    """Who an ASGI request comes from: its token's principal (issuer, subject, client)
    when the endpoint authenticates, else its remote address.

    >>> client_of({"client": ("127.0.0.1", 5000)})
    'address 127.0.0.1'
    """
    user = scope.get("user")
    if isinstance(user, AuthenticatedUser):
        client, issuer, subject = principal_components(user.access_token)
        return f"token {issuer or ''} {subject or ''} {client}"
    address = scope.get("client")
    return f"address {address[0] if address else 'unknown'}"
