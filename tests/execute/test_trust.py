"""Issue 22's attacks on the way back, each on loopback against a recording upstream: a
model (a prompt injection) choosing headers that frame or route the request, a host's
client that follows redirects, model values named like the host's credentials or kept
from it, fields the tool forbids, a password in the base URL. Each test fails on the code
before its fix (findings 2, 3, 4, 5 and 8)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

import httpllm
from httpllm.agent import handle
from httpllm.errors import InvalidArguments, RequestBuildError, TransportError
from httpllm.execute import aexecute, execute
from httpllm.records import Server

from .records import function, param

KEY = "HOST-KEY-0123456789"
TOKEN = "HOST-TOKEN-abcdefghij"


class Upstream:
    """A recording API on 127.0.0.1: every request it receives, as it arrived."""

    def __init__(self) -> None:
        self.seen: list[dict[str, Any]] = []
        self.url = ""

    async def record(self, request: Request) -> Response:
        body = await request.body()
        self.seen.append({"method": request.method, "path": request.url.path,
                          "query": request.url.query,
                          "headers": [(k.decode(), v.decode()) for k, v in
                                      request.scope["headers"]],
                          "body": body.decode(errors="replace")})
        to = request.query_params.get("to")
        if to is not None:
            return RedirectResponse(to, status_code=int(request.query_params.get("code",
                                                                                 "302")))
        return JSONResponse({"ok": True, "path": request.url.path})

    def app(self) -> Starlette:
        return Starlette(routes=[Route("/{path:path}", self.record,
                                       methods=["GET", "POST", "PUT", "DELETE"])])

    def header(self, name: str, index: int = -1) -> list[str]:
        return [v for k, v in self.seen[index]["headers"] if k.lower() == name.lower()]

    def carries(self, secret: str) -> bool:
        """Whether any request this upstream received carried ``secret`` anywhere."""
        return any(secret in json.dumps(seen) for seen in self.seen)


@pytest.fixture
def api() -> Iterator[Upstream]:
    """The API the document names."""
    from loopback import running

    upstream = Upstream()
    with running(upstream.app(), lifespan="off") as url:
        upstream.url = url
        yield upstream


@pytest.fixture
def elsewhere() -> Iterator[Upstream]:
    """Another origin (another port on 127.0.0.1): nothing of the host's may reach it."""
    from loopback import running

    upstream = Upstream()
    with running(upstream.app(), lifespan="off") as url:
        upstream.url = url
        yield upstream


SCHEMES = {"key": {"type": "apiKey", "in": "header", "name": "X-API-Key"},
           "qkey": {"type": "apiKey", "in": "query", "name": "api_key"},
           "ckey": {"type": "apiKey", "in": "cookie", "name": "sid"},
           "bearer": {"type": "http", "scheme": "bearer"}}


def document(url: str, parameters: list[dict[str, Any]], *, security: str = "key",
             body: dict[str, Any] | None = None, method: str = "get") -> dict[str, Any]:
    operation: dict[str, Any] = {"operationId": "op", "parameters": parameters,
                                 "security": [{security: []}],
                                 "responses": {"200": {"description": "ok"}}}
    if body is not None:
        operation["requestBody"] = {"required": True, "content": {
            "application/json": {"schema": body}}}
    return {"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
            "servers": [{"url": url}], "components": {"securitySchemes": SCHEMES},
            "paths": {"/things": {method: operation}}}


def call(arguments: dict[str, Any]) -> dict[str, Any]:
    """A Chat Completions assistant message with one call of ``op``."""
    return {"role": "assistant", "tool_calls": [{"id": "c1", "type": "function", "function": {
        "name": "op", "arguments": json.dumps(arguments)}}]}


def header(name: str, schema: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"name": name, "in": "header", "schema": schema or {"type": "string"}}


# --- finding 2: headers that frame or route a request are never arguments ------------------

FRAMING = ["Host", "Content-Length", "Transfer-Encoding", "Connection", "TE", "Upgrade",
           "Keep-Alive", "Proxy-Authorization", "Trailer", "Expect", "X-Forwarded-Host"]


def test_framing_and_host_headers_are_dropped_at_compile_with_a_loss(api: Upstream) -> None:
    """A document declaring Host, Transfer-Encoding ... as header parameters: none is an
    argument the model sees (each a loss naming its parameter); a model sending one
    anyway gets an error result and the upstream receives nothing."""
    doc = document(api.url, [*(header(n) for n in FRAMING), header("X-Request-Id")])
    app = httpllm.compile(doc, "chatgpt")
    function = app.function("op")
    assert set(function.parameters["properties"]) == {"X-Request-Id"}
    dropped = {loss.value for loss in function.losses if loss.keyword == "name"}
    assert dropped == set(FRAMING)
    messages = app.handle(call({"Host": "internal.example", "Transfer-Encoding": "chunked"}),
                          auth={"key": KEY})
    assert "Host" in messages[0]["content"] and not api.seen


@pytest.mark.parametrize(("name", "value"), [
    ("Host", "internal.example"), ("Transfer-Encoding", "chunked"),
    ("Content-Length", "5"), ("Proxy-Authorization", "Basic eDp5")])
def test_a_framing_header_argument_is_refused_by_execute(api: Upstream, name: str,
                                                         value: str) -> None:
    """A function that still has such an argument (built by hand, or by an older
    compile) is refused before anything is sent; through ``handle`` the refusal is a
    result, never an exception (a wrong Content-Length raised h11's own error, after the
    request head with the credentials had gone out)."""
    fn = function(param("header", name, required=True), servers=(Server(url=api.url),),
                  security=({"key": []},), security_schemes=SCHEMES)
    with pytest.raises(RequestBuildError, match="frames or routes"):
        execute(fn, {name: value}, auth={"key": KEY})
    messages = handle({"op": fn}, call({name: value}), format="chat", auth={"key": KEY})
    assert "frames or routes" in messages[0]["content"] and not api.seen


def test_unsendable_values_are_results_never_exceptions(api: Upstream) -> None:
    """A path value httpx cannot put in a URL (past its 64 KiB limit) and a host header
    value outside Latin-1 give error results through ``handle``, and an error of ours
    from ``execute``: never ``httpx.InvalidURL`` or ``UnicodeEncodeError``."""
    fn = function(param("path", "id", required=True), path="/things/{id}",
                  servers=(Server(url=api.url),))
    messages = handle({"op": fn}, call({"id": "a" * 70_000}), format="chat")
    assert "cannot be sent" in messages[0]["content"]
    with pytest.raises(RequestBuildError):
        execute(function(servers=(Server(url=api.url),)), {}, headers={"X-Tag": "名前"})
    assert not api.seen


def test_a_credential_httpx_cannot_encode_is_a_result_that_does_not_show_it(
        api: Upstream) -> None:
    """A host credential outside ASCII (httpx refuses it in a header with
    ``UnicodeEncodeError``): an error result naming the kind, never the value, and
    nothing sent."""
    doc = document(api.url, [])
    app = httpllm.compile(doc, "chatgpt")
    messages = app.handle(call({}), auth={"key": "ключ-секрет"})
    assert "UnicodeEncodeError" in messages[0]["content"]
    assert "ключ" not in json.dumps(messages, ensure_ascii=False) and not api.seen


def test_framing_the_transport_refuses_is_a_transport_error(api: Upstream) -> None:
    """A host client whose own request hook declares a wrong ``Content-Length``: h11
    refuses the body after the head went out; the result says so (it is an error of
    ours, ``TransportError``, not h11's ``LocalProtocolError``)."""
    def lie(request: httpx.Request) -> None:
        request.headers["Content-Length"] = "99"

    doc = document(api.url, [], body={"type": "object"}, method="post")
    app = httpllm.compile(doc, "chatgpt")
    with httpx.Client(event_hooks={"request": [lie]}) as client:
        messages = app.handle(call({"body": {"a": 1}}), client=client, auth={"key": KEY})
        with pytest.raises(TransportError, match="could not be sent whole"):
            app.execute("op", {"body": {"a": 1}}, client=client, auth={"key": KEY})
    assert "could not be sent whole" in messages[0]["content"]


# --- finding 3: redirects follow httpllm's rule, whatever the client ------------------------

def test_a_host_client_that_follows_redirects_never_carries_credentials_elsewhere(
        api: Upstream, elsewhere: Upstream) -> None:
    """The API answers 302 (and 307) to another origin; a host's client with
    ``follow_redirects=True``: the other origin receives nothing (the API key in a custom
    header, the host's headers): the 3xx is the result. A redirect within the origin is
    followed, with the credential."""
    doc = document(api.url, [{"name": "to", "in": "query", "schema": {"type": "string"}},
                             {"name": "code", "in": "query", "schema": {"type": "string"}}])
    app = httpllm.compile(doc, "chatgpt")
    target = f"{elsewhere.url}/collect"
    with httpx.Client(follow_redirects=True) as client:
        for code in ("302", "307"):
            result = app.execute("op", {"to": target, "code": code}, client=client,
                                 auth={"key": KEY})
            assert result.status == int(code)
        assert not elsewhere.seen
        inside = app.execute("op", {"to": f"{api.url}/things?x=1"}, client=client,
                             auth={"key": KEY})
    assert inside.status == 200 and inside.body["ok"] is True
    assert api.header("X-API-Key") == [KEY] and api.seen[-1]["query"] == "x=1"


@pytest.mark.anyio
async def test_the_server_with_a_redirect_following_client_keeps_host_headers_home(
        api: Upstream, elsewhere: Upstream) -> None:
    """``mcp_server(client=httpx.AsyncClient(follow_redirects=True))`` with ``--header``
    values and forwarded headers: a redirect to another origin is not followed, so they
    reach only the API."""
    from httpllm.server.build import Executor
    from httpllm.server.credentials import Credentials
    from httpllm.server.tools import Call
    doc = document(api.url, [{"name": "to", "in": "query", "schema": {"type": "string"}}])
    app = httpllm.compile(doc, "mcp")
    host = Credentials(auth={"key": KEY}, headers={"X-Static": TOKEN}, forward=("X-Tenant",))
    async with httpx.AsyncClient(follow_redirects=True) as client:
        executor = Executor(app, base_url=None, credentials=host, budget=10_000,
                            client=client)
        result, _ = await executor.send(app.function("op"), {"to": f"{elsewhere.url}/c"},
                                        Call(tool="op", headers={"x-tenant": "acme-secret"}))
    assert result.status == 302 and not elsewhere.seen
    assert api.header("X-Static") == [TOKEN] and api.header("X-Tenant") == ["acme-secret"]


# --- finding 4: what the host controls, the model cannot set ---------------------------------

def test_a_separated_argument_sent_by_the_model_is_refused(api: Upstream) -> None:
    """``separate=`` keeps ``account`` from the model; a model sending it anyway is
    refused (the upstream receives nothing); the host's value is the one sent."""
    doc = document(api.url, [{"name": "account", "in": "query", "required": True,
                              "schema": {"type": "string"}}])
    app = httpllm.compile(doc, "chatgpt", separate=lambda a: a.name == "account")
    messages = app.handle(call({"account": "victim"}), auth={"key": KEY},
                          host_arguments={"account": "mine"})
    assert "the host supplies it" in messages[0]["content"] and not api.seen
    with pytest.raises(InvalidArguments):
        app.execute("op", {"account": "victim"}, auth={"key": KEY},
                    host_arguments={"account": "mine"})
    app.handle(call({}), auth={"key": KEY}, host_arguments={"account": "mine"})
    assert api.seen[-1]["query"] == "account=mine"


@pytest.mark.anyio
async def test_the_server_supplies_separated_arguments_and_refuses_the_models(
        api: Upstream) -> None:
    """``mcp_server(host_arguments=...)`` (``serve --host-arg``) gives a separated
    argument its value; a model sending its own is refused and nothing is sent."""
    from httpllm.errors import CallError
    from httpllm.server.build import Executor
    from httpllm.server.credentials import Credentials
    from httpllm.server.tools import Call

    doc = document(api.url, [{"name": "account", "in": "query", "required": True,
                              "schema": {"type": "string"}}])
    app = httpllm.compile(doc, "mcp", separate=lambda a: a.name == "account")
    host = Credentials(auth={"key": KEY})
    async with httpx.AsyncClient() as client:
        executor = Executor(app, base_url=None, credentials=host, budget=10_000,
                            client=client, host_arguments={"account": "mine"})
        with pytest.raises(CallError, match="the host supplies it"):
            await executor.send(app.function("op"), {"account": "victim"}, Call(tool="op"))
        assert not api.seen
        await executor.send(app.function("op"), {}, Call(tool="op"))
    assert api.seen[-1]["query"] == "account=mine"


def test_host_headers_win_over_a_document_header_parameter(api: Upstream) -> None:
    """A header parameter the document declares, named like a ``--header`` value: the
    host's value is the one sent, once."""
    doc = document(api.url, [header("X-Tenant")])
    app = httpllm.compile(doc, "chatgpt")
    app.execute("op", {"X-Tenant": "victim"}, auth={"key": KEY},
                headers={"X-Tenant": "host-tenant"})
    assert api.header("X-Tenant") == ["host-tenant"]


def test_host_headers_win_over_a_header_parameter_spelled_with_underscores(
        api: Upstream) -> None:
    """``X_Tenant`` beside the host's ``X-Tenant``: WSGI, Rack and PHP read both as
    ``HTTP_X_TENANT`` (joined or one over the other), so the host's replaces it."""
    doc = document(api.url, [header("X_Tenant")])
    app = httpllm.compile(doc, "chatgpt")
    app.execute("op", {"X_Tenant": "victim"}, auth={"key": KEY},
                headers={"X-Tenant": "host-tenant"})
    sent = [(k, v) for k, v in api.seen[-1]["headers"] if "tenant" in k.lower()]
    assert sent == [("x-tenant", "host-tenant")]


@pytest.mark.anyio
async def test_the_servers_host_headers_win_too(api: Upstream) -> None:
    """Through the MCP server's executor: ``--header X-Tenant`` over the model's."""
    from httpllm.server.build import Executor
    from httpllm.server.credentials import Credentials
    from httpllm.server.tools import Call
    doc = document(api.url, [header("X-Tenant")])
    app = httpllm.compile(doc, "mcp")
    host = Credentials(auth={"key": KEY}, headers={"X-Tenant": "host-tenant"})
    async with httpx.AsyncClient() as client:
        executor = Executor(app, base_url=None, credentials=host, budget=10_000,
                            client=client)
        await executor.send(app.function("op"), {"X-Tenant": "victim"}, Call(tool="op"))
    assert api.header("X-Tenant") == ["host-tenant"]


@pytest.mark.parametrize(("parameter", "value"), [
    (header("Cookie"), "session=ATTACKER"),
    ({"name": "session", "in": "cookie", "schema": {"type": "string"}}, "ATTACKER"),
    ({"name": "prefs", "in": "cookie", "schema": {
        "type": "object", "additionalProperties": {"type": "string"}}}, {"Session": "ATTACKER"}),
])
def test_a_host_cookie_header_wins_over_the_models_cookies(
        api: Upstream, parameter: dict[str, Any], value: Any) -> None:
    """``--header 'Cookie: session=...'`` (or a forwarded ``Cookie``) and a model's cookie of
    the same name: one ``Cookie`` header, holding the host's value alone (it was a second
    ``Cookie`` line after the host's, which a server joining the lines reads last)."""
    doc = document(api.url, [parameter])
    app = httpllm.compile(doc, "chatgpt")
    argument = app.function("op").arguments[0].name
    app.execute("op", {argument: value}, auth={"key": KEY},
                headers={"Cookie": "session=host-session; theme=dark"})
    assert api.header("Cookie") == ["session=host-session; theme=dark"]


def test_a_host_cookie_header_joins_a_cookie_credential(api: Upstream) -> None:
    """A cookie credential and a host's ``Cookie`` header: both in the one ``Cookie`` header,
    the credential over a host pair of its name (the host's header was dropped whole)."""
    doc = document(api.url, [], security="ckey")
    app = httpllm.compile(doc, "chatgpt")
    app.execute("op", {}, auth={"ckey": KEY}, headers={"Cookie": "theme=dark; sid=other"})
    assert api.header("Cookie") == [f"sid={KEY}; theme=dark"]


FREE = {"type": "object", "additionalProperties": {"type": "string"}}


@pytest.mark.parametrize(("scheme", "parameter", "value", "secret_name"), [
    ("qkey", {"name": "filter", "in": "query", "schema": FREE}, {"api_key": "ATTACKER"},
     "api_key"),
    ("qkey", {"name": "filter", "in": "query", "schema": FREE}, {"API_KEY": "ATTACKER"},
     "api_key"),
    ("ckey", {"name": "prefs", "in": "cookie", "schema": FREE}, {"SID": "ATTACKER"}, "sid"),
    ("ckey", {"name": "prefs", "in": "cookie", "schema": FREE}, {"sid": "ATTACKER"}, "sid"),
    ("ckey", header("Cookie"), "sid=ATTACKER", "sid"),
    ("key", header("X_API_KEY"), "ATTACKER", "X-API-Key"),  # CGI: both HTTP_X_API_KEY
    ("key", {"name": "x-api-key", "in": "query", "schema": FREE, "style": "deepObject"},
     {"a": "1"}, None),
])
def test_no_model_value_shares_a_name_with_a_credential(
        api: Upstream, scheme: str, parameter: dict[str, Any], value: Any,
        secret_name: str | None) -> None:
    """An exploded query object, a cookie object, a ``Cookie`` header parameter: a value
    named like the host's credential is refused, so no second copy ever precedes the
    host's (``?api_key=ATTACKER&api_key=<host key>``: many frameworks read the first), in
    any case: a query or cookie name is case-sensitive by its RFC, but servers that bind
    them case-blind (ASP.NET's model binding) would read ``API_KEY=ATTACKER`` as the
    credential, the host's call then made on the attacker's account. A deepObject
    parameter sends ``x-api-key[a]``, another name: sent as it is."""
    doc = document(api.url, [parameter], security=scheme)
    app = httpllm.compile(doc, "chatgpt")
    argument = app.function("op").arguments[0].name
    messages = app.handle(call({argument: value}), auth={scheme: KEY})
    if secret_name is None:
        assert api.seen and "ATTACKER" not in json.dumps(api.seen)
        return
    assert "host's credential" in messages[0]["content"], messages
    assert not api.seen


@pytest.mark.parametrize(("media_type", "schema", "value"), [
    ("application/x-www-form-urlencoded", FREE, {"api_key": "ATTACKER"}),
    ("application/x-www-form-urlencoded", FREE, {"API_KEY[0]": "ATTACKER"}),
    ("application/x-www-form-urlencoded", FREE, {"api.key": "ATTACKER"}),  # PHP: api_key
    ("multipart/form-data", FREE, {"api key": "ATTACKER"}),
    ("application/x-www-form-urlencoded", {"type": "string"}, "a=1&api%5Fkey=ATTACKER"),
    ("application/x-www-form-urlencoded", {"type": "object", "properties": {"f": FREE},
                                           "additionalProperties": False},
     {"f": {"api_key": "ATTACKER"}}),
    ("multipart/form-data", FREE, {"api_key": "ATTACKER"}),
    ("application/json", FREE, {"Api_Key": "ATTACKER"}),
])
def test_a_body_field_named_like_a_query_credential_is_refused(
        api: Upstream, media_type: str, schema: dict[str, Any], value: Any) -> None:
    """A form, multipart or JSON body field named like the host's query credential: Rails'
    ``params``, Laravel's ``input()``, PHP's ``$_REQUEST`` and ASP.NET's model binding read
    the body's over the query's, so the call would be made with the model's key (its
    owner's account) in place of the host's; refused, nothing sent."""
    doc = document(api.url, [], security="qkey", method="post")
    doc["paths"]["/things"]["post"]["requestBody"] = {"required": True, "content": {
        media_type: {"schema": schema, **({"encoding": {"f": {"style": "form",
                                                               "explode": True}}}
                                          if "properties" in schema else {})}}}
    app = httpllm.compile(doc, "chatgpt")
    messages = app.handle(call({"body": value}), auth={"qkey": KEY})
    assert "host's credential" in messages[0]["content"], messages
    assert not api.seen


def test_a_body_field_of_another_name_goes_with_a_query_credential(api: Upstream) -> None:
    """The same form body without the credential's name is sent, with the host's key."""
    doc = document(api.url, [], security="qkey", method="post")
    doc["paths"]["/things"]["post"]["requestBody"] = {"required": True, "content": {
        "application/x-www-form-urlencoded": {"schema": FREE}}}
    app = httpllm.compile(doc, "chatgpt")
    app.handle(call({"body": {"api_key_name": "mine"}}), auth={"qkey": KEY})
    assert api.seen[-1]["query"] == f"api_key={KEY}"
    assert api.seen[-1]["body"] == "api_key_name=mine"


def test_a_deep_object_named_like_a_credential_is_refused(api: Upstream) -> None:
    """A ``deepObject`` argument whose name is a query credential's (a hand-built
    function; compile drops such a parameter): ``api_key[a]=1`` is read into ``api_key``
    by qs, Rack and PHP, so it is refused too; nothing is sent."""
    fn = function(param("query", "api_key", {"type": "object"}, style="deepObject"),
                  servers=(Server(url=api.url),), security=({"qkey": []},),
                  security_schemes=SCHEMES)
    with pytest.raises(RequestBuildError, match="host's credential"):
        execute(fn, {"api_key": {"a": "1"}}, auth={"qkey": KEY})
    assert not api.seen


# --- finding 5: validate refuses what the shown schema refuses -------------------------------

BODY = {"type": "object", "required": ["name"], "properties": {
    "name": {"type": "string"}, "id": {"type": "string", "readOnly": True},
    "owner": {"type": "object", "properties": {"login": {"type": "string"}}}}}


def test_a_strict_tool_and_validate_refuse_the_same_fields(api: Upstream) -> None:
    """The strict tool says ``additionalProperties: false`` at every object; ``readOnly``
    ``id`` is not in it. A model sending ``id``, an undeclared ``admin`` or a nested
    undeclared field is refused, and nothing is sent; the declared fields pass."""
    doc = document(api.url, [], body=BODY, method="post")
    app = httpllm.compile(doc, "chatgpt", strict=True)
    shown = app.function("op").parameters["properties"]["body"]
    assert shown["additionalProperties"] is False and "id" not in shown["properties"]
    for extra in ({"id": "other-user"}, {"admin": True},
                  {"owner": {"login": "a", "role": "admin"}}):
        result = app.validate("op", {"body": {"name": "a", **extra}})
        assert not result.ok and {e.keyword for e in result.errors} == {
            "additionalProperties"}, (extra, result.errors)
        app.handle(call({"body": {"name": "a", "owner": None, **extra}}), auth={"key": KEY})
    assert not api.seen
    app.handle(call({"body": {"name": "a", "owner": {"login": "b"}}}), auth={"key": KEY})
    assert json.loads(api.seen[-1]["body"]) == {"name": "a", "owner": {"login": "b"}}


def test_a_read_only_field_named_with_a_percent_is_refused() -> None:
    """A `readOnly` property whose name holds `%` (`owner%5Bid%5D`, as PHP-style forms name
    nested fields) is refused like any other: its place was percent-decoded to
    `owner[id]`, found nothing, and the model set a field the server owns (found by a fresh
    tester)."""
    body = {"type": "object", "properties": {
        "owner%5Bid%5D": {"type": "string", "readOnly": True}, "name": {"type": "string"}}}
    app = httpllm.compile(document("http://127.0.0.1:9", [], body=body, method="post"),
                          "chatgpt")
    result = app.validate("op", {"body": {"name": "a", "owner%5Bid%5D": "someone"}})
    assert [(e.pointer, e.keyword) for e in result.errors] == [
        ("#/body/owner%5Bid%5D", "readOnly")]


@pytest.mark.parametrize("path_item", ["paths/pets.yml", "./paths/pets.yml"])
def test_read_only_fields_of_files_in_other_folders_are_refused(
        tmp_path: Any, path_item: str) -> None:
    """A `readOnly` property an `allOf` parent declares in another file is refused when the
    operation itself is in a file of another folder (`paths/pets.yml` -> `../models/`, as
    DigitalOcean lays its description out): the parents were looked for beside the
    operation's file (`paths/models/Pet.yml`, a file that does not exist) and by their
    fragment alone, found none, and the model's `id` was sent."""
    (tmp_path / "paths").mkdir()
    (tmp_path / "models").mkdir()
    (tmp_path / "spec.json").write_text(json.dumps({
        "openapi": "3.0.3", "info": {"title": "t", "version": "1"},
        "servers": [{"url": "http://127.0.0.1:9"}], "paths": {"/pets": {"$ref": path_item}}}))
    (tmp_path / "paths" / "pets.yml").write_text(json.dumps({"post": {
        "operationId": "createPet", "requestBody": {"required": True, "content": {
            "application/json": {"schema": {"$ref": "../models/Pet.yml"}}}},
        "responses": {"200": {"description": "ok"}}}}))
    (tmp_path / "models" / "Pet.yml").write_text(json.dumps({"allOf": [
        {"$ref": "Base.yml"}, {"type": "object", "properties": {"name": {"type": "string"}}}]}))
    (tmp_path / "models" / "Base.yml").write_text(json.dumps({"type": "object", "properties": {
        "id": {"type": "string", "readOnly": True}, "kind": {"type": "string"}}}))
    app = httpllm.compile(str(tmp_path / "spec.json"), "chatgpt")
    result = app.validate("createPet", {"body": {"name": "a", "id": "x", "kind": "k"}})
    assert [(e.pointer, e.keyword) for e in result.errors] == [("#/body/id", "readOnly")]


def test_read_only_fields_are_refused_outside_strict_mode_too(api: Upstream) -> None:
    """Outside strict mode the tool shows open objects, but a ``readOnly`` property
    (OpenAPI: not sent in a request) is still refused wherever it sits: on the body, in a
    ``$ref``'d nested object, in array items, from an ``allOf`` parent. A name another
    alternative declares writable stays sendable. Nothing readOnly is sent."""
    schemas = {
        "Base": {"type": "object", "properties": {"created": {"type": "string",
                                                              "readOnly": True}}},
        "User": {"type": "object", "properties": {"uid": {"type": "string", "readOnly": True},
                                                  "login": {"type": "string"}}},
        "Pet": {"allOf": [{"$ref": "#/components/schemas/Base"}], "type": "object",
                "required": ["name"], "properties": {"id": {"type": "string", "readOnly": True},
                               "name": {"type": "string"},
                               "owner": {"$ref": "#/components/schemas/User"},
                               "tags": {"type": "array",
                                        "items": {"$ref": "#/components/schemas/User"}}}},
        "Plain": {"type": "object", "required": ["id"],
                  "properties": {"id": {"type": "string"}}}}
    doc = document(api.url, [], body={"$ref": "#/components/schemas/Pet"}, method="post")
    doc["components"]["schemas"] = schemas
    app = httpllm.compile(doc, "chatgpt")
    sent = {"name": "a", "id": "x", "created": "t", "owner": {"uid": "o", "login": "l"},
            "tags": [{"login": "k"}, {"uid": "u"}]}
    result = app.validate("op", {"body": sent})
    assert {(e.pointer, e.keyword) for e in result.errors} == {
        ("#/body/id", "readOnly"), ("#/body/created", "readOnly"),
        ("#/body/owner/uid", "readOnly"), ("#/body/tags/1/uid", "readOnly")}
    app.handle(call({"body": sent}), auth={"key": KEY})
    assert not api.seen
    app.handle(call({"body": {"name": "a", "owner": {"login": "l"}, "extra": 1}}),
               auth={"key": KEY})
    assert json.loads(api.seen[-1]["body"])["owner"] == {"login": "l"}
    either = document(api.url, [], method="post", body={"oneOf": [
        {"$ref": "#/components/schemas/Pet"}, {"$ref": "#/components/schemas/Plain"}]})
    either["components"]["schemas"] = schemas
    assert httpllm.compile(either, "chatgpt").validate("op", {"body": {"id": "p"}}).ok


@pytest.mark.parametrize("key", ["ID", "Id", "iD"])
def test_a_read_only_field_in_another_case_is_refused(api: Upstream, key: str) -> None:
    """``{"ID": ...}`` for a ``readOnly`` ``id`` on an open object: Go's ``encoding/json``
    and ASP.NET Core bind JSON keys case-blind, so it would set the field the API sets;
    refused as ``id`` is, nothing sent. A writable property is sent in any case."""
    doc = document(api.url, [], method="post", body={"type": "object", "properties": {
        "id": {"type": "string", "readOnly": True}, "name": {"type": "string"}}})
    app = httpllm.compile(doc, "chatgpt")
    result = app.validate("op", {"body": {"name": "a", key: "mine"}})
    assert [(e.pointer, e.keyword) for e in result.errors] == [(f"#/body/{key}", "readOnly")]
    app.handle(call({"body": {"name": "a", key: "mine"}}), auth={"key": KEY})
    assert not api.seen
    app.handle(call({"body": {"NAME": "a"}}), auth={"key": KEY})
    assert json.loads(api.seen[-1]["body"]) == {"NAME": "a"}


# --- finding 8: a password in the base URL ---------------------------------------------------

def test_a_password_in_the_base_url_is_refused_and_never_shown(api: Upstream) -> None:
    """``base_url="http://user:pass@host"``: refused with one line that shows neither
    the password nor the user, in ``execute`` and in what the model reads; the configured
    bearer token is never replaced by httpx's Basic from the URL: nothing is sent."""
    doc = document(api.url, [], security="bearer")
    app = httpllm.compile(doc, "chatgpt")
    secret_url = api.url.replace("http://", "http://admin:URL-PASSWORD-42@")
    with pytest.raises(RequestBuildError) as refused:
        app.execute("op", {}, base_url=secret_url, auth={"bearer": TOKEN})
    assert "URL-PASSWORD-42" not in refused.value.message
    assert "admin" not in refused.value.message and "user name or password" in (
        refused.value.message)
    messages = app.handle(call({}), base_url=secret_url, auth={"bearer": TOKEN})
    assert "URL-PASSWORD-42" not in json.dumps(messages) and not api.seen


def test_the_server_refuses_a_password_in_its_base_url() -> None:
    """``mcp_server(base_url="http://user:pass@host")`` is refused when it is made, in a
    message that does not repeat the password."""
    from httpllm.server import mcp_server

    with pytest.raises(ValueError, match="user name or password") as refused:
        mcp_server(document("http://127.0.0.1:9", []),
                   base_url="http://admin:URL-PASSWORD-42@127.0.0.1:9")
    assert "URL-PASSWORD-42" not in str(refused.value)


@pytest.mark.anyio
async def test_a_transport_error_never_shows_a_url_password() -> None:
    """A transport error on a request whose URL carries user info (a host's client
    that adds it) names the request without it."""
    from httpllm.execute.send import _transport_error

    request = httpx.Request("GET", "http://admin:URL-PASSWORD-42@127.0.0.1:9/x")
    error = _transport_error(request, httpx.ConnectError("refused"))
    assert "URL-PASSWORD-42" not in error.message and "admin" not in error.message
    fn = function(servers=(Server(url="http://admin:URL-PASSWORD-42@127.0.0.1:9"),))
    with pytest.raises(RequestBuildError) as refused:
        await aexecute(fn, {})
    assert "URL-PASSWORD-42" not in refused.value.message
