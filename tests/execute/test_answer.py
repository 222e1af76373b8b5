"""The answer pipeline under attack, on every route an answer takes to a model or a person.

A model pads an argument that the upstream echoes, so that the cut falls inside the
credential the upstream echoes after it (#22 item 1: cut first and redacted after, 26 of
27 characters of a bearer token came back). The upstream here (Starlette behind uvicorn
on 127.0.0.1) echoes the padding, then the call's credential in one encoding: as sent,
JSON-escaped (the token holds ``"`` and ``\\``), percent-encoded (lower-case hex, ``+``
for a space), as the base64 ``Basic`` token, without its ``Bearer`` word. No window of six
characters of any form of the secret may reach the model, on any route: the MCP server
(success and error paths), ``app.handle``, the discover trio, the adapters' caller and
``httpllm call --send``.
"""

from __future__ import annotations

import base64
import contextlib
import io
import json
import re
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote_plus

import anyio
import httpx
import pytest
from loopback import running
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

import httpllm
from httpllm.adapters._caller import Caller
from httpllm.cli import main
from httpllm.toolsets.discover import INVOKE, discover

TOKEN = 'tok-"q\\x 7-AAAA-1111111111111111'
"""A bearer token holding ``"``, ``\\`` and a space: each encoding changes it."""
USER, PASSWORD = "ann", 'pw-"hunter\\22-BBBB-2222222222'
BUDGET = 2_000
"""The character budget of every route here (long strings in JSON are cut at 1,000)."""
MODES = ("raw", "json", "url", "basic", "bare")


def _forms() -> dict[str, str]:
    """Each encoded form of the secrets, by mode."""
    basic = base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()
    lower = re.sub(r"%[0-9A-F]{2}", lambda m: m.group().lower(), quote_plus(TOKEN))
    return {"raw": f"Bearer {TOKEN}", "json": json.dumps(f"Bearer {TOKEN}")[1:-1],
            "url": lower, "basic": basic, "bare": TOKEN}


FORMS = _forms()


def leaks(text: str) -> list[str]:
    """Every six-character window of a secret, in any of its forms, found in ``text``."""
    found = []
    for form in (*FORMS.values(), TOKEN, PASSWORD):
        secret = form.removeprefix("Bearer ")
        found += [secret[i:i + 6] for i in range(len(secret) - 5) if secret[i:i + 6] in text]
    return found


def _echoed(mode: str, authorization: str) -> str:
    token = authorization.partition(" ")[2]
    if mode == "url":
        return re.sub(r"%[0-9A-F]{2}", lambda m: m.group().lower(), quote_plus(token))
    return token if mode == "bare" else authorization


async def echo(request: Request) -> Response:
    """Echo the padding, then the credential in the mode's encoding; ``status`` sets the
    status (the error path); ``headers`` echoes every request header."""
    mode = request.path_params["mode"]
    if mode == "binary":  # the credential inside bytes a client would pass on whole
        return Response(b"\x00\xff" + request.headers.get("authorization", "").encode(),
                        media_type="application/octet-stream")
    if mode == "headers":
        return PlainTextResponse("\n".join(f"{k}: {v}" for k, v in request.headers.items()))
    pad = request.query_params.get("pad", "")
    status = int(request.query_params.get("status", "200"))
    echoed = _echoed(mode, request.headers.get("authorization", ""))
    tail = "T" * (1_500 if mode == "json" else 300)  # masked or not, longer than the budget
    if mode == "json":  # one long string: the cut falls inside it
        return JSONResponse({"echo": f"{pad}|{echoed}|{tail}"}, status_code=status)
    return PlainTextResponse(f"{pad}|{echoed}|{tail}", status_code=status)


async def endless(request: Request) -> Response:
    """A text answer of 650 MB without ``Content-Length``, sent until the client goes."""
    from starlette.responses import StreamingResponse

    async def chunks() -> Any:
        for _ in range(10_000):
            if await request.is_disconnected():
                return
            yield b"z" * 65_536
    return StreamingResponse(chunks(), media_type="text/plain")


async def moved(request: Request) -> Response:
    """A redirect to another origin whose URL holds the bearer token (percent-encoded, as
    a URL carries it), no body."""
    token = request.headers.get("authorization", "").partition(" ")[2]
    return Response(status_code=302, headers={
        "Location": f"https://elsewhere.example/cb?token={quote_plus(token)}&next=%2Fhome"})


UPSTREAM = Starlette(routes=[Route("/echo/{mode}", echo), Route("/endless", endless),
                             Route("/moved", moved)])


def document(url: str) -> dict[str, Any]:
    """One operation per encoding, each taking the padding and a status to answer."""
    parameters = [{"name": "pad", "in": "query", "schema": {"type": "string"}},
                  {"name": "status", "in": "query", "schema": {"type": "integer"}}]
    paths = {f"/echo/{mode}": {"get": {
        "operationId": f"echo_{mode}", "parameters": parameters,
        "security": [{"basic": []}] if mode == "basic" else [{"bearer": []}],
        "responses": {"200": {"description": "the echo"}}}} for mode in MODES}
    paths["/endless"] = {"get": {"operationId": "getEndless",
                                 "responses": {"200": {"description": "a lot"}}}}
    return {"openapi": "3.1.0", "info": {"title": "echo", "version": "1"},
            "servers": [{"url": url}], "paths": paths,
            "components": {"securitySchemes": {
                "bearer": {"type": "http", "scheme": "bearer"},
                "basic": {"type": "http", "scheme": "basic"}}}}


AUTH: dict[str, Any] = {"bearer": TOKEN, "basic": (USER, PASSWORD)}


def padding(mode: str) -> str:
    """Padding that puts the middle of the echoed secret on the cut: the budget for text,
    1,000 characters for a long JSON string."""
    form = FORMS[mode]
    if mode == "json":
        # {"echo":"<pad>|Bearer tok-\"q...": the string is cut after 1,000 characters
        return "P" * (1_000 - 1 - len(form) // 2)
    return "P" * (BUDGET - 1 - len(form) // 2)


@pytest.fixture(scope="module")
def upstream() -> Iterator[str]:
    """The echoing API behind uvicorn on 127.0.0.1."""
    with running(UPSTREAM, lifespan="off") as url:
        yield url


@pytest.fixture(scope="module")
def app(upstream: str) -> httpllm.Application:
    return httpllm.compile(document(upstream), "chatgpt")


def served(server: Any, tool: str, arguments: dict[str, Any]) -> Any:
    """One ``tools/call`` through the SDK's client over its in-memory transport."""
    from mcp.client._memory import InMemoryTransport
    from mcp.client.session import ClientSession
    async def call() -> Any:
        with anyio.fail_after(30):
            async with InMemoryTransport(server) as (read, write), \
                    ClientSession(read, write) as session:
                await session.initialize()
                return await session.call_tool(tool, arguments)

    return anyio.run(call)


def arguments(mode: str, status: int = 200) -> dict[str, Any]:
    return {"pad": padding(mode), **({"status": status} if status != 200 else {})}


@pytest.mark.parametrize("mode", MODES)
def test_padding_would_put_the_cut_inside_the_secret(mode: str, upstream: str) -> None:
    """The attack is real: cut before masking, the answer would end inside the secret."""
    seen = httpx.get(f"{upstream}/echo/{mode}", params={"pad": padding(mode)},
                     headers={"Authorization": ("Basic " + FORMS["basic"]) if mode == "basic"
                              else f"Bearer {TOKEN}"}).text
    shown = (json.dumps(json.loads(seen)["echo"], ensure_ascii=False)[1:1_001]
             if mode == "json" else seen[:BUDGET])
    assert leaks(shown) and FORMS[mode] not in shown


@pytest.mark.parametrize("status", [200, 400])
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.slow
def test_mcp_server(mode: str, status: int, upstream: str) -> None:
    """MCP success and error paths: no part of the secret, and the answer still cut."""
    server = httpllm.mcp_server(httpllm.compile(document(upstream), "mcp"), auth=AUTH,
                                max_result_chars=BUDGET)
    result = served(server, f"echo_{mode}", arguments(mode, status))
    shown = result.model_dump_json()
    assert result.is_error is (status != 200)
    assert "[Answer cut to fit 2,000 characters" in shown
    assert leaks(shown) == []


@pytest.mark.parametrize("status", [200, 400])
@pytest.mark.parametrize("mode", MODES)
def test_agent_handle(mode: str, status: int, app: httpllm.Application) -> None:
    """``app.handle``: no part of the secret in the messages for the model."""
    call = {"id": "c1", "type": "function",
            "function": {"name": f"echo_{mode}", "arguments": json.dumps(arguments(mode, status))}}
    messages = app.handle([call], format="chat", auth=AUTH, max_answer_chars=BUDGET)
    assert "[Answer cut to fit 2,000 characters" in json.dumps(messages)
    assert leaks(json.dumps(messages, ensure_ascii=False)) == []


@pytest.mark.parametrize("mode", MODES)
def test_discover_invoke(mode: str, app: httpllm.Application, upstream: str) -> None:
    """The trio's ``invoke_operation``: no part of the secret in its answer."""
    trio = discover(app, execute_options={"auth": AUTH}, max_answer_chars=BUDGET)
    got = trio.handle(INVOKE, {"name": f"echo_{mode}", "arguments": arguments(mode)})
    assert got["status"] == 200 and "note" in got
    assert leaks(json.dumps(got, ensure_ascii=False)) == []


@pytest.mark.parametrize("mode", MODES)
def test_adapters_caller(mode: str, app: httpllm.Application) -> None:
    """The caller every framework adapter runs: no part of the secret in the outcome."""
    outcome = Caller(app, auth=AUTH, max_answer_chars=BUDGET).call(
        f"echo_{mode}", arguments(mode))
    assert leaks(outcome.text + getattr(outcome, "note", "")) == []
    assert outcome.ok and "[Answer cut" in outcome.note


@pytest.mark.parametrize("mode", MODES)
def test_cli_call_send(mode: str, upstream: str, tmp_path: Any,
                       monkeypatch: pytest.MonkeyPatch) -> None:
    """``httpllm call --send`` prints the whole answer, every encoding of the secret masked."""
    spec = tmp_path / "echo.json"
    spec.write_text(json.dumps(document(upstream)))
    monkeypatch.setenv("ECHO_TOKEN", TOKEN)
    monkeypatch.setenv("ECHO_BASIC", f"{USER}:{PASSWORD}")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["call", str(spec), f"echo_{mode}", "--args", json.dumps(arguments(mode)),
                     "--send", "--auth-env", "bearer=ECHO_TOKEN",
                     "--auth-env", "basic=ECHO_BASIC"])
    assert code == 0
    assert "[redacted]" in out.getvalue()
    assert leaks(out.getvalue()) == []


def test_header_values_whatever_their_names_are_masked(upstream: str) -> None:
    """A ``--header`` value is a secret whatever the header is called
    (``X-Client-Credential`` was shown before), as is a header of a client the host
    passes: echoed, it comes back masked."""
    secret = "cc-7f3a9b2e-secret-value"
    echo_doc = {**document(upstream), "paths": {"/echo/{mode}": {"get": {
        "operationId": "echo_header", "parameters": [
            {"name": "mode", "in": "path", "required": True, "schema": {"type": "string"}}],
        "responses": {"200": {"description": "ok"}}}}}}
    server = httpllm.mcp_server(httpllm.compile(echo_doc, "mcp"),
                                headers={"X-Client-Credential": secret})
    result = served(server, "echo_header", {"mode": "headers"})
    assert secret not in result.model_dump_json()
    assert "[redacted]" in result.model_dump_json()
    own = httpllm.mcp_server(httpllm.compile(echo_doc, "mcp"), client=httpx.AsyncClient(
        headers={"X-Api-Token": secret}))  # a host's client with its own credential
    result = served(own, "echo_header", {"mode": "headers"})
    assert secret not in result.model_dump_json()


def test_host_headers_of_execute_options_are_masked(upstream: str) -> None:
    """The trio and code mode take the host's ``headers=`` once, in ``execute_options``:
    echoed, their values came back whole (only ``auth`` and a client's headers were
    masked)."""
    secret = "cc-7f3a9b2e-secret-value"
    echo_doc = {**document(upstream), "paths": {"/echo/{mode}": {"get": {
        "operationId": "echo_header", "parameters": [
            {"name": "mode", "in": "path", "required": True, "schema": {"type": "string"}}],
        "responses": {"200": {"description": "ok"}}}}}}
    app = httpllm.compile(echo_doc, "chatgpt")
    options = {"headers": {"X-Client-Credential": secret}}
    trio = discover(app, execute_options=options)
    code = app.code_tools(execute_options=options, deno=_deno())
    shown = {"trio": json.dumps(trio.handle(INVOKE, {"name": "echo_header",
                                                    "arguments": {"mode": "headers"}})),
             "code": code.handle("execute", {"code": (
                 "const h = String(await api.echoHeader({ mode: 'headers' }));"
                 "console.log([...h].reverse().join(''));")})["output"][::-1]}
    for route, text in shown.items():
        assert secret not in text and "x-client-credential: [redacted]" in text, route


def test_every_route_reads_to_the_byte_limit(app: httpllm.Application) -> None:
    """``app.handle``, the trio and the adapters' caller stop reading at the byte limit and
    tell the model where the answer was cut (it was read whole: 400 MB peaked at 1.6 GB)."""
    said = "[The answer was cut at 200,000 bytes of an unknown number of bytes"
    call = {"id": "c1", "type": "function", "function": {"name": "getEndless",
                                                         "arguments": "{}"}}
    [message] = app.handle([call], format="chat", max_answer_bytes=200_000)
    assert said in message["content"][1]["text"]
    trio = discover(app, execute_options={"max_bytes": 200_000})
    assert said in trio.handle(INVOKE, {"name": "getEndless"})["note"]
    outcome = Caller(app, max_answer_bytes=200_000).call("getEndless", {})
    assert said in outcome.note and len(outcome.text) == 40_000


def test_a_binary_answer_holding_a_secret_is_withheld(upstream: str) -> None:
    """Binary answers are passed on whole as blocks, except one holding a credential of the
    call: it is described, never shown (base64 would carry the secret past any mask)."""
    echo_doc = {**document(upstream), "paths": {"/echo/{mode}": {"get": {
        "operationId": "echo_bytes", "security": [{"bearer": []}], "parameters": [
            {"name": "mode", "in": "path", "required": True, "schema": {"type": "string"}}],
        "responses": {"200": {"description": "ok"}}}}}}
    server = httpllm.mcp_server(httpllm.compile(echo_doc, "mcp"), auth=AUTH)
    result = served(server, "echo_bytes", {"mode": "binary"})
    shown = result.model_dump_json()
    assert "withheld: it holds a credential of this call" in shown
    assert base64.b64encode(TOKEN.encode()).decode()[:8] not in shown
    assert leaks(shown) == []


HEADER_SECRET = 'jwt-"a\\b c-CCCC-3333333333333333'
"""A forwarded header value holding ``"``, ``\\`` and a space, like :data:`TOKEN`."""
STATIC_SECRET = 'cred-"d\\e f-DDDD-4444444444444444'
"""A ``--header`` value of a header whose name does not look secret."""


async def echo_header(request: Request) -> Response:
    """Echo the padding, then one incoming header's value in an encoding (``?form=``)."""
    value = request.headers.get(request.path_params["name"], "")
    form = request.query_params["form"]
    shown = {"raw": value, "json": json.dumps(value)[1:-1],
             "url": re.sub(r"%[0-9A-F]{2}", lambda m: m.group().lower(), quote_plus(value))}
    pad = request.query_params.get("pad", "")
    status = int(request.query_params.get("status", "200"))
    if form == "json":
        return JSONResponse({"echo": f"{pad}|{shown['raw']}|{'T' * 1_500}"},
                            status_code=status)
    return PlainTextResponse(f"{pad}|{shown[form]}|{'T' * 300}", status_code=status)


def header_leaks(text: str) -> list[str]:
    """Six-character windows of either header secret, in any of its forms, in ``text``."""
    found = []
    for value in (HEADER_SECRET, STATIC_SECRET):
        url = re.sub(r"%[0-9A-F]{2}", lambda m: m.group().lower(), quote_plus(value))
        for form in (value, json.dumps(value)[1:-1], url):
            found += [form[i:i + 6] for i in range(len(form) - 5) if form[i:i + 6] in text]
    return found


@pytest.mark.parametrize("status", [200, 400])
@pytest.mark.parametrize("form", ["raw", "json", "url"])
@pytest.mark.parametrize("header", ["X-Jwt-Assertion", "X-Client-Credential"])
def test_forwarded_and_host_headers_are_masked_before_the_cut_over_http(
        header: str, form: str, status: int) -> None:
    """Over the HTTP endpoint as `serve` runs it: a forwarded header (`--forward-header
    X-Jwt-Assertion`, its value from the MCP client's request) and a `--header` whose name
    does not look secret (`X-Client-Credential`), echoed raw, JSON-escaped or
    percent-encoded behind padding that puts the cut inside it, success and error: no six
    characters of either come back."""
    from mcp.client.session import ClientSession
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    from httpllm.server import http_app
    from httpllm.server.listen import uvicorn_config

    upstream_app = Starlette(routes=[Route("/h/{name}", echo_header)])
    secret = HEADER_SECRET if header == "X-Jwt-Assertion" else STATIC_SECRET
    encoded = {"raw": secret, "json": json.dumps(secret)[1:-1],
               "url": quote_plus(secret)}[form]
    pad = "P" * ((1_000 if form == "json" else BUDGET) - 1 - len(encoded) // 2)
    with running(upstream_app, lifespan="off") as up:
        doc = {"openapi": "3.1.0", "info": {"title": "h", "version": "1"},
               "servers": [{"url": up}], "paths": {"/h/{name}": {"get": {
                   "operationId": "echoHeader", "parameters": [
                       {"name": "name", "in": "path", "required": True,
                        "schema": {"type": "string"}},
                       {"name": "form", "in": "query", "schema": {"type": "string"}},
                       {"name": "pad", "in": "query", "schema": {"type": "string"}},
                       {"name": "status", "in": "query", "schema": {"type": "integer"}}],
                   "responses": {"200": {"description": "ok"}}}}}}
        server = httpllm.mcp_server(httpllm.compile(doc, "mcp"), max_result_chars=BUDGET,
                                    headers={"X-Client-Credential": STATIC_SECRET},
                                    forward_headers=["X-Jwt-Assertion"])

        async def call(url: str) -> Any:
            with anyio.fail_after(30):
                async with create_mcp_http_client(
                        headers={"X-Jwt-Assertion": HEADER_SECRET}) as client, \
                        streamable_http_client(url, http_client=client) as (read, write), \
                        ClientSession(read, write) as session:
                    await session.initialize()
                    return await session.call_tool("echoHeader", {
                        "name": header.lower(), "form": form, "pad": pad,
                        **({"status": status} if status != 200 else {})})

        with running(http_app(server), config=uvicorn_config) as base:
            result = anyio.run(call, f"{base}/mcp")
    shown = result.model_dump_json()
    assert result.is_error is (status != 200)
    assert "[Answer cut to fit 2,000 characters" in shown
    assert header_leaks(shown) == []


LIMIT = 1_000
"""A byte limit (``max_answer_bytes``) under the character budget: the end of the bytes
read is what the model reads last."""
CUT_MODES = ("raw", "json", "url", "bare")
CUT_ENDS = (1, 2, 5, 17)
"""How many characters of the echoed secret's form come before the byte limit."""


def byte_cut(mode: str, end: int) -> tuple[dict[str, Any], str]:
    """Arguments that put the byte limit ``end`` characters into the echoed form of the
    secret, and what the bytes read then end with (the form's first ``end`` characters)."""
    form = FORMS[mode].removeprefix("Bearer ")
    lead = ('{"echo":"' if mode == "json" else "") + "|" + (
        "Bearer " if mode == "raw" else json.dumps("Bearer ")[1:-1] if mode == "json" else "")
    return {"pad": "P" * (LIMIT - len(lead) - end)}, "P|" + lead.partition("|")[2] + form[:end]


@pytest.mark.parametrize("end", CUT_ENDS)
@pytest.mark.parametrize("mode", CUT_MODES)
def test_a_byte_limit_inside_the_secret_shows_none_of_it(mode: str, end: int, upstream: str,
                                                         app: httpllm.Application) -> None:
    """A model pads so that the byte limit falls inside the secret the API echoes: the
    answer ends with the secret's first characters, which no route shows (the MCP server,
    ``app.handle``, the trio, the adapters' caller); its end is masked instead."""
    args, tail = byte_cut(mode, end)
    assert httpx.get(f"{upstream}/echo/{mode}", params=args, headers={
        "Authorization": f"Bearer {TOKEN}"}).text[:LIMIT].endswith(tail)  # the attack
    server = httpllm.mcp_server(app, auth=AUTH, max_answer_bytes=LIMIT)
    call = {"id": "c1", "type": "function",
            "function": {"name": f"echo_{mode}", "arguments": json.dumps(args)}}
    trio = discover(app, execute_options={"auth": AUTH, "max_bytes": LIMIT})
    shown = {
        "server": served(server, f"echo_{mode}", args).content[0].text,
        "handle": app.handle([call], format="chat", auth=AUTH,
                             max_answer_bytes=LIMIT)[0]["content"][0]["text"],
        "trio": trio.handle(INVOKE, {"name": f"echo_{mode}", "arguments": args})["body"],
        "caller": Caller(app, auth=AUTH, max_answer_bytes=LIMIT).call(
            f"echo_{mode}", args).text}
    for route, text in shown.items():
        assert text.endswith("P|" + tail.partition("|")[2][:-end] + "[redacted]"), route


def _deno() -> str:
    """Deno for the code-mode route (skipped without it)."""
    from httpllm.codemode.sandbox import find_deno
    from httpllm.errors import MissingExtra

    try:
        return find_deno()
    except MissingExtra as exc:
        pytest.skip(exc.message)


def test_a_program_gets_no_form_of_the_secret(app: httpllm.Application) -> None:
    """Code mode: what a program gets holds no form of the secret, in any encoding the API
    echoes it (the percent-encoded one came through whole: the program decoded it and
    printed it as base64; here it prints each answer reversed, which no mask knows)."""
    code = app.code_tools(execute_options={"auth": AUTH}, deno=_deno())
    calls = " ".join(f"console.log([...JSON.stringify(await api.echo{m.title()}({{}}))]"
                     ".reverse().join(''));" for m in MODES)
    printed = code.handle("execute", {"code": calls})["output"].splitlines()
    assert len(printed) == len(MODES)
    for mode, line in zip(MODES, printed, strict=True):
        assert leaks(line[::-1]) == [] and "[redacted]" in line[::-1], mode


def test_a_byte_limit_inside_the_secret_shows_none_of_it_to_a_program(
        app: httpllm.Application) -> None:
    """Code mode hands a program the whole answer read, its end included: a program that
    pads so that the byte limit falls inside the secret reads none of it either."""
    code = app.code_tools(execute_options={"auth": AUTH, "max_bytes": LIMIT}, deno=_deno())
    args, _ = byte_cut("bare", 17)
    answer = code.handle("execute", {"code": (
        f"console.log(String(await api.echoBare({json.dumps(args)})).slice(-40));")})
    assert answer["output"].endswith("P|[redacted]"), answer


class _FlowBearer(httpx.Auth):
    """A host's own auth flow: a bearer token httpllm never sees as a value."""

    def auth_flow(self, request: httpx.Request) -> Any:
        request.headers["Authorization"] = f"Bearer {TOKEN}"
        yield request


@pytest.mark.parametrize("auth", [httpx.BasicAuth(USER, PASSWORD), _FlowBearer()],
                         ids=["basic", "flow"])
def test_a_credential_an_httpx_auth_adds_is_masked_too(auth: httpx.Auth,
                                                       app: httpllm.Application) -> None:
    """An ``httpx.Auth`` (``auth=``, or a host's client's own) puts its credential on the
    request as the client sends it, out of httpllm's sight: echoed, it came back whole on
    every route; it is masked like the credentials of ``auth=`` mappings."""
    call = {"id": "c1", "type": "function", "function": {"name": "echo_raw", "arguments": "{}"}}
    trio = discover(app, execute_options={"auth": auth})
    server = httpllm.mcp_server(app, client=httpx.AsyncClient(auth=auth))
    shown = {
        "handle": json.dumps(app.handle([call], format="chat", auth=auth)),
        "trio": json.dumps(trio.handle(INVOKE, {"name": "echo_raw", "arguments": {}})),
        "caller": Caller(app, auth=auth).call("echo_raw", {}).text,
        "server": served(server, "echo_raw", {}).model_dump_json()}
    for route, text in shown.items():
        assert leaks(text) == [] and "|[redacted]|" in text, route


def moved_document(url: str) -> dict[str, Any]:
    """One operation answering a redirect to another origin (not followed)."""
    return {**document(url), "paths": {"/moved": {"get": {
        "operationId": "moved", "security": [{"bearer": []}],
        "responses": {"302": {"description": "elsewhere"}}}}}}


LOCATION = "https://elsewhere.example/cb?token=[redacted]&next=%2Fhome"
"""What every route shows of the redirect: where it points, the token masked."""


def test_a_redirect_shows_its_location_masked_on_every_route(upstream: str, tmp_path: Any,
                                                             monkeypatch: pytest.MonkeyPatch,
                                                             ) -> None:
    """A 3xx httpllm does not follow (another origin) has an empty body: its ``Location``
    is what it says, so every route shows it (RFC 9110 section 15.4), after the masking
    every answer gets: the token the upstream put in its query never shows."""
    app = httpllm.compile(moved_document(upstream), "chatgpt")
    call = {"id": "c1", "type": "function", "function": {"name": "moved", "arguments": "{}"}}
    shown = {"handle": app.handle([call], format="chat", auth=AUTH)[0]["content"],
             "caller": Caller(app, auth=AUTH).call("moved", {}).text,
             "discover": json.dumps(discover(app, execute_options={"auth": AUTH}).handle(
                 INVOKE, {"name": "moved", "arguments": {}}))}
    server = httpllm.mcp_server(httpllm.compile(moved_document(upstream), "mcp"), auth=AUTH)
    result = served(server, "moved", {})
    assert result.is_error
    shown["mcp"] = result.model_dump_json()
    spec = tmp_path / "moved.json"
    spec.write_text(json.dumps(moved_document(upstream)))
    monkeypatch.setenv("ECHO_TOKEN", TOKEN)
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        main(["call", str(spec), "moved", "--args", "{}", "--send", "--auth-env",
              "bearer=ECHO_TOKEN"])
    shown["cli"] = out.getvalue()
    for route, text in shown.items():
        assert LOCATION in text, route
        assert leaks(text) == [], route
