"""Kind 6 of issue 18: an operation whose security requirement `auth=` does not meet is not
sent without credentials, unless the host says they come from elsewhere."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from httpllm.errors import OptionError, RequestBuildError
from httpllm.execute import build_request, execute

from .records import function

SCHEMES = {
    "key": {"type": "apiKey", "in": "header", "name": "X-Key"},
    "app": {"type": "apiKey", "in": "query", "name": "app"},
    "token": {"type": "oauth2", "flows": {}},
}


def secured(*requirements: dict[str, list[str]]) -> Any:
    """A function with these requirements over SCHEMES."""
    return function(security=requirements, security_schemes=SCHEMES)


@pytest.mark.parametrize("auth", [None, {}])
def test_no_credentials_is_an_error_naming_the_schemes(auth: Any) -> None:
    """Without auth, the error names each scheme and each AND-combination that would do."""
    fn = secured({"token": []}, {"key": [], "app": []})
    with pytest.raises(RequestBuildError) as raised:
        build_request(fn, {}, auth=auth)
    message = str(raised.value)
    assert '"token" (oauth2)' in message
    assert '"key" (apiKey in header X-Key) + "app" (apiKey in query app)' in message
    assert "(none given)" in message


def test_half_an_and_requirement_is_not_enough() -> None:
    """One scheme of a two-scheme requirement is refused, naming what auth has."""
    with pytest.raises(RequestBuildError, match="given: 'key'"):
        build_request(secured({"key": [], "app": []}), {}, auth={"key": "k"})


@pytest.mark.parametrize("security", [(), ({},), ({"token": []}, {})])
def test_operations_that_need_no_credentials_are_built(security: Any) -> None:
    """No requirement, `security: []` and an optional `{}` requirement need no auth."""
    request = build_request(secured(*security), {})
    assert "authorization" not in request.headers


def test_require_auth_false_sends_without_credentials() -> None:
    """The explicit opt-out builds the request without credentials."""
    request = build_request(secured({"token": []}), {}, require_auth=False)
    assert "authorization" not in request.headers


def test_a_client_with_its_own_auth_counts_as_credentials() -> None:
    """`execute` on a client configured with auth sends, and the client's auth applies."""
    seen: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json={})

    transport = httpx.MockTransport(answer)
    with httpx.Client(transport=transport, auth=httpx.BasicAuth("u", "p")) as client:
        result = execute(secured({"token": []}), {}, client=client)
    assert result.ok and seen[0].headers["authorization"].startswith("Basic ")


def test_a_client_without_auth_does_not_send() -> None:
    """`execute` on a plain client refuses before anything is sent."""
    seen: list[httpx.Request] = []
    transport = httpx.MockTransport(lambda r: seen.append(r) or httpx.Response(200))
    with httpx.Client(transport=transport) as client, pytest.raises(
        RequestBuildError, match="needs credentials"
    ):
        execute(secured({"token": []}), {}, client=client)
    assert seen == []


def test_an_httpx_auth_counts_as_credentials(live_server: str) -> None:
    """An httpx.Auth given as auth= meets the requirement and reaches the echo server."""
    with httpx.Client() as client:
        result = execute(secured({"token": []}), {}, client=client, base_url=live_server,
                         auth=httpx.BasicAuth("u", "p"))
    headers = dict(result.body["headers"])
    assert headers["authorization"].startswith("Basic ")


def test_credentials_reach_the_echo_server(live_server: str) -> None:
    """A met requirement places each credential where its scheme says."""
    with httpx.Client() as client:
        result = execute(secured({"key": [], "app": []}), {}, client=client,
                         base_url=live_server, auth={"key": "k1", "app": "a1"})
    assert result.body["query_string"] == "app=a1"
    assert ["x-key", "k1"] in result.body["headers"]


@pytest.mark.parametrize("auth", [["x"], "key=k", ("key", "k")])
@pytest.mark.parametrize("call", [build_request, execute])
def test_auth_that_is_not_a_mapping_is_an_option_error(call: Any, auth: Any) -> None:
    """`auth=["x"]` was read as no credentials given; it is an OptionError saying what
    auth must be, raised before the arguments are read and before anything is sent."""
    with pytest.raises(OptionError, match=r"^auth must be a mapping of security scheme name "
                       r"-> credential \(or an httpx.Auth\), not") as raised:
        call(secured({"key": []}), {"unexpected": 1}, auth=auth)
    assert raised.value.option == "auth"
