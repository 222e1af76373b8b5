"""Kind 5 of issue 18: server variables are checked against their `enum` and their part of
the URL, and credentials go only to an origin the document's servers or `base_url` name."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from httpllm import compile
from httpllm.errors import RequestBuildError
from httpllm.execute import build_request, execute
from httpllm.execute.request import declared_origins
from httpllm.records import Server

from .records import function

SCHEMES = {"token": {"type": "http", "scheme": "bearer"}}
REGIONS = Server(url="https://{region}.api.example.com/{version}",
                 variables={"region": "eu", "version": "v1"},
                 enums={"region": ("eu", "us")})
FREE = Server(url="https://{tenant}.example.com:{port}/api", variables={"tenant": "acme",
                                                                        "port": "443"})
SECURED: dict[str, Any] = {"security": ({"token": []},), "security_schemes": SCHEMES}


@pytest.mark.parametrize("region", ["eu", "us"])
def test_a_value_from_the_enum_is_used(region: str) -> None:
    """A region from the enum fills the host, and the bearer token goes with it."""
    fn = function(servers=(REGIONS,), **SECURED)
    request = build_request(fn, {}, auth={"token": "t"}, server_variables={"region": region})
    assert str(request.url) == f"https://{region}.api.example.com/v1/things"
    assert request.headers["authorization"] == "Bearer t"


def test_a_value_outside_the_enum_is_refused() -> None:
    """A region not in the enum is a build error naming the enum."""
    fn = function(servers=(REGIONS,))
    with pytest.raises(RequestBuildError, match=r"'ap'; expected one of 'eu', 'us'"):
        build_request(fn, {}, server_variables={"region": "ap"})


@pytest.mark.parametrize(
    ("variables", "part"),
    [
        ({"tenant": "evil.example/"}, "host"),
        ({"tenant": "x@evil.example"}, "host"),
        ({"tenant": "evil.example:8080"}, "host"),
        ({"port": "80@evil.example"}, "port"),
        ({"port": "1/x"}, "port"),
    ],
)
def test_a_value_that_would_change_the_authority_is_refused(
    variables: dict[str, str], part: str
) -> None:
    """A host or port value holding `/`, `@` or `:` cannot move the request elsewhere."""
    fn = function(servers=(FREE,), **SECURED)
    with pytest.raises(RequestBuildError, match=f"in the {part} of"):
        build_request(fn, {}, auth={"token": "t"}, server_variables=variables)


def test_a_path_variable_keeps_to_the_path() -> None:
    """A base-path value may hold `/` but not `?` or `#`."""
    fn = function(servers=(REGIONS,))
    request = build_request(fn, {}, server_variables={"version": "v2/beta"})
    assert str(request.url) == "https://eu.api.example.com/v2/beta/things"
    with pytest.raises(RequestBuildError, match="in the path of"):
        build_request(fn, {}, server_variables={"version": "v1?x=1"})


def test_credentials_go_only_to_a_declared_origin() -> None:
    """A free host variable moves the request to an origin no server declares: with
    credentials that is refused; without them the request is built."""
    fn = function(servers=(FREE,), **SECURED)
    with pytest.raises(RequestBuildError, match="refusing to send credentials"):
        build_request(fn, {}, auth={"token": "t"}, server_variables={"tenant": "other"})
    request = build_request(fn, {}, server_variables={"tenant": "other"}, require_auth=False)
    assert str(request.url) == "https://other.example.com/api/things"
    assert "authorization" not in request.headers


def test_base_url_names_an_origin_explicitly() -> None:
    """The host's base_url is an origin credentials may go to."""
    fn = function(servers=(FREE,), **SECURED)
    request = build_request(fn, {}, auth={"token": "t"}, base_url="https://other.example.com")
    assert request.headers["authorization"] == "Bearer t"


def test_declared_origins_expand_defaults_and_enums() -> None:
    """Each server contributes its default and every enum value."""
    fn = function(servers=(REGIONS, FREE))
    assert declared_origins(fn) == {
        ("https", "eu.api.example.com", None),
        ("https", "us.api.example.com", None),
        ("https", "acme.example.com", None),
    }


def test_an_httpx_auth_goes_only_to_a_declared_origin() -> None:
    """`execute` with an httpx.Auth refuses an undeclared origin before sending anything."""
    fn = function(servers=(FREE,), **SECURED)
    sent: list[httpx.Request] = []
    transport = httpx.MockTransport(lambda r: sent.append(r) or httpx.Response(200))
    with httpx.Client(transport=transport) as client, pytest.raises(
        RequestBuildError, match="refusing to send credentials"
    ):
        execute(fn, {}, client=client, auth=httpx.BasicAuth("u", "p"),
                server_variables={"tenant": "other"})
    assert sent == []


DOCUMENT = {
    "openapi": "3.1.0",
    "info": {"title": "regions", "version": "1"},
    "servers": [{"url": "https://{region}.api.example.com", "variables": {
        "region": {"default": "eu", "enum": ["eu", "us"]}}}],
    "components": {"securitySchemes": SCHEMES},
    "security": [{"token": []}],
    "paths": {"/things": {"get": {"operationId": "listThings",
                                  "responses": {"200": {"description": "ok"}}}}},
}


def test_compiled_servers_carry_their_enums() -> None:
    """A compiled function knows each variable's enum and refuses a value outside it."""
    fn = compile(DOCUMENT, "3.1").function("listThings")
    assert fn.servers[0].enums == {"region": ("eu", "us")}
    with pytest.raises(RequestBuildError, match="expected one of"):
        build_request(fn, {}, auth={"token": "t"}, server_variables={"region": "evil.example/"})


def test_a_variable_that_is_the_whole_origin_takes_only_its_default_or_enum() -> None:
    """`{server}/v1`: another host is refused (base_url names one), the default and enum
    values are taken."""
    whole = Server(url="{server}/v1", variables={"server": "https://api.example.com"},
                   enums={})
    fn = function(servers=(whole,))
    assert str(build_request(fn, {}).url) == "https://api.example.com/v1/things"
    with pytest.raises(RequestBuildError, match="pass base_url"):
        build_request(fn, {}, server_variables={"server": "https://evil.example"})
    listed = Server(url="{server}/v1", variables={"server": "https://a.example.com"},
                    enums={"server": ("https://a.example.com", "https://b.example.com")})
    request = build_request(function(servers=(listed,)), {},
                            server_variables={"server": "https://b.example.com"})
    assert str(request.url) == "https://b.example.com/v1/things"


def test_a_variable_spelled_otherwise_than_the_url_is_refused() -> None:
    """A server variable given as ``Region`` for the URL's ``{region}`` is refused naming
    both spellings (it was ignored, and the request went to the default region); a name
    that no ``{name}`` of the URL has in any spelling (another server's) is no error."""
    fn = function(servers=(REGIONS,))
    with pytest.raises(RequestBuildError, match=r"'Region' is not in .* whose \{region\} "
                                                r"is spelled otherwise"):
        build_request(fn, {}, server_variables={"Region": "us"})
    request = build_request(fn, {}, server_variables={"region": "us", "tenant": "acme"})
    assert str(request.url) == "https://us.api.example.com/v1/things"


def test_server_variables_are_filled_as_the_document_spells_them() -> None:
    """Variable names with case, '-' and '.' are filled by their exact spelling; a default
    or enum YAML reads as a boolean or number is the document's text (``true``, not
    Python's ``True``); a ``{Name}`` whose variable is spelled otherwise is a warning at
    the server's variables."""
    doc = """
openapi: 3.0.3
info: {title: t, version: "1"}
servers:
  - url: "https://{Region}.example.com/{api-version}/{v.2}/{flag}/{tier}"
    variables:
      Region: {default: eu, enum: [eu, us]}
      api-version: {default: v1}
      v.2: {default: 2.5}
      flag: {default: true, enum: [true, false]}
      TIER: {default: gold}
paths:
  /a: {get: {operationId: a, responses: {"200": {description: ok}}}}
"""
    app = compile(doc)
    fn = app.functions[0]
    assert fn.servers[0].variables == {"Region": "eu", "api-version": "v1", "v.2": "2.5",
                                       "flag": "true", "TIER": "gold"}
    assert fn.servers[0].enums == {"Region": ("eu", "us"), "flag": ("true", "false")}
    request = build_request(fn, {}, server_variables={"Region": "us", "api-version": "v2",
                                                      "tier": "basic", "flag": "false"})
    assert str(request.url) == "https://us.example.com/v2/2.5/false/basic/a"
    assert [(w.pointer, w.message) for w in app.warnings] == [(
        "#/servers/0/variables", "server variable {tier} has no entry of that name "
        "(variables has 'TIER'; names are case-sensitive): {tier} has no value unless the "
        "host gives one")]
