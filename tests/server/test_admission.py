"""Who the MCP endpoint admits over HTTP: bearer tokens (the operator's, OAuth access tokens
found through RFC 9728 metadata), Host/Origin on every bind address, and the token that
admits a client never sent upstream. Each attack runs on loopback against a real uvicorn
server, with the SDK's client or raw httpx."""

from __future__ import annotations

import base64
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

import anyio
import httpx
import pytest
from serving import Held, held_document, served
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from upstream import document

import httpllm
from httpllm.errors import OptionError

if TYPE_CHECKING:
    import mcp_types as types
    from mcp.client.session import ClientSession
    from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

pytestmark = pytest.mark.anyio

LIMIT = 60.0
"""Seconds one conversation may take (a bound, not a measurement)."""
TOKEN = "mcp-token-" + "a" * 32
UPSTREAM_TOKEN = "upstream-" + "b" * 24
CLIENT_ID, CLIENT_SECRET = "reporting-bot", "s3cret-" + "c" * 16


def initialize(url: str, headers: dict[str, str]) -> httpx.Response:
    """A raw ``initialize`` POST, as any HTTP client (or a browser page) could send it."""
    return httpx.post(url, timeout=LIMIT, headers={
        "Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-11-25",
        **headers}, json={"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "raw", "version": "1"}}})


@asynccontextmanager
async def session_at(url: str, headers: dict[str, str] | None = None,
                     auth: Any = None) -> AsyncIterator[ClientSession]:
    """An initialized SDK client session over streamable HTTP."""
    from mcp.client.session import ClientSession
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client
    with anyio.fail_after(LIMIT):
        async with create_mcp_http_client(headers=headers, auth=auth) as client, \
                streamable_http_client(url, http_client=client) as (read, write), \
                ClientSession(read, write) as session:
            await session.initialize()
            yield session


def text(result: types.CallToolResult) -> str:
    import mcp_types as types
    return "\n".join(b.text for b in result.content if isinstance(b, types.TextContent))


async def test_requests_without_the_operators_token_are_refused(upstream: str) -> None:
    """With a token required, no token or a wrong one is 401 with a Bearer challenge and
    opens no session; the right token lists and calls."""
    from httpllm.server import StaticTokens, http_app
    server = httpllm.mcp_server(document(upstream), token_verifier=StaticTokens({"ci": TOKEN}))
    with served(http_app(server)) as base:
        url = f"{base}/mcp"
        missing = initialize(url, {})
        wrong = initialize(url, {"Authorization": f"Bearer {TOKEN[:-1]}x"})
        async with session_at(url, {"Authorization": f"Bearer {TOKEN}"}) as session:
            result = await session.call_tool("getItem", {"item_id": "a"})
    for refused in (missing, wrong):
        assert refused.status_code == 401, refused.text
        assert refused.headers["www-authenticate"].startswith("Bearer ")
        assert "mcp-session-id" not in refused.headers
    assert result.structured_content == {"id": "a"}


async def test_each_operator_token_is_its_own_client() -> None:
    """Two tokens admit two clients, each the owner of its own sessions: one client's
    session id is refused with the other's token (404, as if it did not exist)."""
    from httpllm.server import StaticTokens, http_app
    held = Held()
    with served(held.app) as up:
        server = httpllm.mcp_server(held_document(up), token_verifier=StaticTokens(
            {"alice": TOKEN, "bob": UPSTREAM_TOKEN}))
        with served(http_app(server)) as base:
            opened = initialize(f"{base}/mcp", {"Authorization": f"Bearer {TOKEN}"})
            session = opened.headers["mcp-session-id"]
            stolen = httpx.post(f"{base}/mcp", timeout=LIMIT, headers={
                "Accept": "application/json, text/event-stream", "Mcp-Session-Id": session,
                "MCP-Protocol-Version": "2025-11-25", "Authorization": f"Bearer {UPSTREAM_TOKEN}"},
                json={"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
    assert opened.status_code == 200 and stolen.status_code == 404


@pytest.mark.slow
async def test_the_token_that_admits_a_client_is_never_sent_upstream() -> None:
    """The MCP token stays at the server: not forwarded, not seen by an auth hook (a hook
    that passes `Authorization` through finds nothing), while the user's own upstream
    credential from `--auth-header` goes upstream."""
    from httpllm.server import FromRequestHeaders, StaticTokens, http_app
    held = Held()

    def passthrough(call: httpllm.server.Call) -> dict[str, str] | None:
        given = call.headers.get("authorization", "")
        return {"token": given.removeprefix("Bearer ")} if given else None

    with served(held.app) as up:
        verifier = StaticTokens({"ci": TOKEN})
        per_user = httpllm.mcp_server(held_document(up), token_verifier=verifier,
                                      auth_hook=FromRequestHeaders({"token": "X-Upstream-Token"}))
        naive = httpllm.mcp_server(held_document(up), token_verifier=verifier,
                                   auth_hook=passthrough)
        admitted = {"Authorization": f"Bearer {TOKEN}"}
        with served(http_app(per_user)) as base:
            async with session_at(f"{base}/mcp", {**admitted,
                                                  "X-Upstream-Token": UPSTREAM_TOKEN}) as s:
                own = await s.call_tool("echoAuth", {})
            async with session_at(f"{base}/mcp", admitted) as s:
                without = await s.call_tool("echoAuth", {})
        with served(http_app(naive)) as base:
            async with session_at(f"{base}/mcp", admitted) as s:
                passed = await s.call_tool("echoAuth", {})
        # the verifier given to the app only, not to mcp_server: still withheld
        late = httpllm.mcp_server(held_document(up), auth_hook=passthrough,
                                  forward_headers=["Authorization"])
        with served(late.streamable_http_app(token_verifier=verifier)) as base:
            async with session_at(f"{base}/mcp", admitted) as s:
                also = await s.call_tool("echoAuth", {})
    assert not own.is_error  # (the echo comes back redacted)
    assert without.is_error and "X-Upstream-Token header" in text(without)
    assert passed.is_error and "nothing was sent" in text(passed)
    assert also.is_error and "nothing was sent" in text(also)
    assert held.authorizations == [f"Bearer {UPSTREAM_TOKEN}"]


def test_forwarding_the_admitting_token_is_refused(upstream: str) -> None:
    """`forward_headers=["Authorization"]` beside a token verifier is a ValueError: that
    header carries the token that admits clients to this server."""
    from httpllm.server import StaticTokens
    with pytest.raises(ValueError, match="never sent upstream"):
        httpllm.mcp_server(document(upstream), token_verifier=StaticTokens({"ci": TOKEN}),
                           forward_headers=["authorization"])


class AuthorizationServer:
    """A small OAuth 2.1 authorization server on loopback: RFC 8414 metadata, a JWK Set,
    and a token endpoint for the client-credentials grant issuing RS256 JWT access tokens
    (RFC 9068) for the ``resource`` the client names (RFC 8707)."""

    def __init__(self) -> None:
        from cryptography.hazmat.primitives.asymmetric import rsa
        self.key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.url = ""
        self.app = Starlette(routes=[
            Route("/.well-known/oauth-authorization-server", self._metadata),
            Route("/jwks", self._jwks), Route("/token", self._token, methods=["POST"])])

    def mint(self, *, audience: str, lifetime: int = 300, key: Any = None,
             scope: str = "mcp") -> str:
        import jwt
        now = int(time.time())
        return jwt.encode({"iss": self.url, "sub": "svc-7", "client_id": CLIENT_ID,
                           "aud": audience, "iat": now, "exp": now + lifetime, "scope": scope},
                          key or self.key, algorithm="RS256", headers={"kid": "k1"})

    async def _metadata(self, request: Request) -> Response:
        return JSONResponse({
            "issuer": self.url, "authorization_endpoint": f"{self.url}/authorize",
            "token_endpoint": f"{self.url}/token", "jwks_uri": f"{self.url}/jwks",
            "grant_types_supported": ["client_credentials"],
            "token_endpoint_auth_methods_supported": ["client_secret_basic"],
            "response_types_supported": ["code"]})

    async def _jwks(self, request: Request) -> Response:
        import jwt
        jwk = jwt.algorithms.RSAAlgorithm.to_jwk(self.key.public_key(), as_dict=True)
        return JSONResponse({"keys": [{**jwk, "kid": "k1", "use": "sig", "alg": "RS256"}]})

    async def _token(self, request: Request) -> Response:
        form = await request.form()
        basic = base64.b64encode(f"{CLIENT_ID}:{CLIENT_SECRET}".encode()).decode()
        if (form.get("grant_type") != "client_credentials"
                or request.headers.get("authorization") != f"Basic {basic}"):
            return JSONResponse({"error": "invalid_client"}, status_code=401)
        token = self.mint(audience=str(form.get("resource", "")))
        return JSONResponse({"access_token": token, "token_type": "Bearer",
                             "expires_in": 300, "scope": "mcp"})


class Memory:
    """The SDK client's token storage, in memory."""

    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None
        self.client: OAuthClientInformationFull | None = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client = client_info


@pytest.mark.slow
async def test_oauth_clients_discover_the_authorization_server_and_get_in(upstream: str) -> None:
    """As an OAuth resource server: 401 names the RFC 9728 metadata, which names the
    authorization server; the SDK's client-credentials client follows that, gets a token
    for this endpoint and calls. Tokens for another resource, expired, signed by another
    key or without the required scope are refused."""
    from cryptography.hazmat.primitives.asymmetric import rsa
    from mcp.client.auth.extensions.client_credentials import ClientCredentialsOAuthProvider
    from mcp.server.auth.settings import AuthSettings

    from httpllm.server import JwtVerifier, http_app
    from httpllm.server.run import bind
    issuer = AuthorizationServer()
    with served(issuer.app) as as_url:
        issuer.url = as_url
        sock = bind("127.0.0.1", 0)
        url = f"http://127.0.0.1:{sock.getsockname()[1]}/mcp"
        server = httpllm.mcp_server(
            document(upstream),
            token_verifier=JwtVerifier(jwks_url=f"{as_url}/jwks", issuer=as_url, audience=url),
            auth_settings=AuthSettings(issuer_url=as_url, resource_server_url=url,
                                       required_scopes=["mcp"], validate_token_resource=True))
        with served(http_app(server), sock=sock):
            refused = initialize(url, {})
            found = httpx.get(url.replace("/mcp", "/.well-known/oauth-protected-resource/mcp"))
            tokens = {
                "other resource": issuer.mint(audience="http://127.0.0.1:9/mcp"),
                "expired": issuer.mint(audience=url, lifetime=-120),
                "forged": issuer.mint(audience=url, key=rsa.generate_private_key(
                    public_exponent=65537, key_size=2048)),
                "no scope": issuer.mint(audience=url, scope="read")}
            bad = {reason: initialize(url, {"Authorization": f"Bearer {token}"})
                   for reason, token in tokens.items()}
            provider = ClientCredentialsOAuthProvider(
                server_url=url, storage=Memory(), client_id=CLIENT_ID,
                client_secret=CLIENT_SECRET, issuer=as_url, scope="mcp")
            async with session_at(url, auth=provider) as session:
                result = await session.call_tool("getItem", {"item_id": "o"})
    assert refused.status_code == 401
    metadata = url.replace("/mcp", "/.well-known/oauth-protected-resource/mcp")
    assert f'resource_metadata="{metadata}"' in refused.headers["www-authenticate"]
    assert found.json()["resource"] == url and found.json()["authorization_servers"] == [as_url]
    assert {reason: r.status_code for reason, r in bad.items()} == {
        "other resource": 401, "expired": 401, "forged": 401, "no scope": 403}
    assert result.structured_content == {"id": "o"}


FOREIGN = "http://evil.example"


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "10.20.30.40", "mcp.example.com"])
@pytest.mark.slow
def test_a_foreign_origin_is_refused_whatever_the_bind_address(upstream: str,
                                                               host: str) -> None:
    """A page from another site (DNS rebinding, or a browser reaching a public server) gets
    403 and no session, whatever address the server is bound to; loopback pages and
    clients without `Origin` get in."""
    from httpllm.server import http_app
    app = http_app(httpllm.mcp_server(document(upstream)), host=host)
    with served(app) as base:
        foreign = initialize(f"{base}/mcp", {"Origin": FOREIGN})
        local = initialize(f"{base}/mcp", {"Origin": "http://localhost:6274"})
        plain = initialize(f"{base}/mcp", {})
    assert foreign.status_code == 403 and "mcp-session-id" not in foreign.headers
    assert local.status_code == 200 and plain.status_code == 200


def test_hosts_and_origins_can_be_added(upstream: str) -> None:
    """`allowed_hosts`/`allowed_origins` admit the names clients really use; a rebinding
    domain in `Host` still gets 421."""
    from httpllm.server import http_app
    app = http_app(httpllm.mcp_server(document(upstream)), host="0.0.0.0",
                   allowed_hosts=["mcp.example.com"],
                   allowed_origins=["https://app.example.com"])
    with served(app) as base:
        named = initialize(f"{base}/mcp", {"Host": "mcp.example.com"})
        page = initialize(f"{base}/mcp", {"Origin": "https://app.example.com"})
        rebound = initialize(f"{base}/mcp", {"Host": "evil.example:8000"})
    assert named.status_code == 200 and page.status_code == 200
    assert rebound.status_code == 421


@pytest.mark.parametrize("value", ["evil", "app.example.com", "null", "*",
                                   "https://app.example.com/ui", "https://app.example.com?x",
                                   "https://user@app.example.com", "https://a.example:70000",
                                   "https://"])
def test_an_allowed_origin_that_is_no_origin_is_refused(value: str) -> None:
    """An Origin header is scheme://host[:port] (RFC 6454 section 6.1): any other allowed
    value matched no page and said nothing; it is an OptionError naming it."""
    from httpllm.server.admission import transport_security
    with pytest.raises(OptionError, match="is no origin") as caught:
        transport_security("127.0.0.1", allowed_origins=[value])
    assert caught.value.option == "allowed_origins"


@pytest.mark.parametrize("value", ["https://mcp.example.com", "mcp.example.com/mcp", "a b",
                                   "mcp.example.com:70000", "user@mcp.example.com", ""])
def test_an_allowed_host_that_is_no_host_is_refused(value: str) -> None:
    """A Host header is NAME[:PORT] (RFC 9110 section 7.2): any other allowed value (a
    URL, as for --allow-origin) matched no request and said nothing; it is an OptionError."""
    from httpllm.server.admission import transport_security
    with pytest.raises(OptionError, match="is no host") as caught:
        transport_security("127.0.0.1", allowed_hosts=[value])
    assert caught.value.option == "allowed_hosts"


@pytest.mark.parametrize(("option", "allowed", "header"), [
    ("allowed_hosts", "MCP.Example.com", {"Host": "mcp.example.com"}),
    ("allowed_origins", "HTTPS://App.example.com:443/", {"Origin": "https://app.example.com"}),
])
def test_an_allowed_value_is_matched_as_the_client_spells_it(
        upstream: str, option: str, allowed: str, header: dict[str, str]) -> None:
    """Host names are case-insensitive: ``MCP.Example.com`` admits ``Host:
    mcp.example.com``; an origin is scheme and host in lower case, the default port left
    out (RFC 6454 section 6.2): ``HTTPS://App.example.com:443/`` admits the page whose
    Origin is ``https://app.example.com``. The exact comparison refused both (421, 403)."""
    from httpllm.server import http_app
    app = http_app(httpllm.mcp_server(document(upstream)), host="127.0.0.1",
                   **{option: [allowed]})
    with served(app) as base:
        answer = initialize(f"{base}/mcp", header)
    assert answer.status_code == 200


def test_a_foreign_origin_is_refused_in_the_2026_era(upstream: str) -> None:
    """A 2026-07-28 request (no session) from a foreign page is refused too."""
    from httpllm.server import http_app
    app = http_app(httpllm.mcp_server(document(upstream)), host="0.0.0.0")
    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}}
    with served(app) as base:
        answer = httpx.post(f"{base}/mcp", timeout=LIMIT, headers={
            "Accept": "application/json, text/event-stream", "Origin": FOREIGN,
            "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list"},
            json={"jsonrpc": "2.0", "id": 1, "method": "tools/list",
                  "params": {"_meta": meta}})
    assert answer.status_code == 403


class OwnVerifier:
    """A host's own `token_verifier=` hook: any object with `async verify_token`."""

    def __init__(self) -> None:
        self.seen: list[str] = []

    async def verify_token(self, token: str) -> Any:
        from mcp.server.auth.provider import AccessToken

        self.seen.append(token)
        if token == TOKEN:
            return AccessToken(token=token, client_id="own", scopes=[])
        return None


@pytest.mark.parametrize("stateless", [False, True], ids=["sessions", "stateless"])
async def test_a_hosts_own_token_verifier_admits_on_its_own_word(upstream: str,
                                                                 stateless: bool) -> None:
    """`token_verifier=` any object with `verify_token`: its `None` is 401 (with and
    without sessions), its `AccessToken` admits; it sees the token the client sent."""
    from httpllm.server import http_app
    verifier = OwnVerifier()
    server = httpllm.mcp_server(document(upstream), token_verifier=verifier)
    with served(http_app(server, stateless=stateless, json_response=stateless)) as base:
        url = f"{base}/mcp"
        refused = initialize(url, {"Authorization": "Bearer not-the-one"})
        none = initialize(url, {})
        admitted = initialize(url, {"Authorization": f"Bearer {TOKEN}"})
    assert refused.status_code == 401 and none.status_code == 401
    assert admitted.status_code == 200, admitted.text
    assert verifier.seen == ["not-the-one", TOKEN]


@pytest.mark.parametrize("stateless", [False, True], ids=["sessions", "stateless"])
@pytest.mark.parametrize("host", ["127.0.0.1", "0.0.0.0", "10.20.30.40"])
def test_a_foreign_host_or_origin_is_refused_on_every_bind(upstream: str, host: str,
                                                           stateless: bool) -> None:
    """DNS rebinding: a `Host` naming another site is 421 and a foreign `Origin` 403 on
    every bind address, loopback included, with and without sessions; the bind address's
    own name (a wildcard bind: the machine's name) gets in."""
    import socket

    from httpllm.server import http_app

    app = http_app(httpllm.mcp_server(document(upstream)), host=host, stateless=stateless,
                   json_response=stateless)
    with served(app) as base:
        port = base.rsplit(":", 1)[1]
        rebound = initialize(f"{base}/mcp", {"Host": f"evil.example:{port}"})
        foreign = initialize(f"{base}/mcp", {"Origin": FOREIGN})
        name = socket.gethostname() if host == "0.0.0.0" else host
        own = initialize(f"{base}/mcp", {"Host": f"{name}:{port}"})
    assert rebound.status_code == 421 and foreign.status_code == 403
    assert own.status_code == 200, own.text

