"""`httpllm serve --transport http` on a loopback port, through the SDK's own streamable-HTTP
client (and raw JSON-RPC where the client would refuse to send the request)."""

from __future__ import annotations

import hashlib
import json
import re
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
import httpx
import pytest
from rounds import BUDGET, ROUNDS, Round, ids
from upstream import free_port

if TYPE_CHECKING:
    from mcp.client.session import ClientSession

SRC = str(Path(__file__).resolve().parents[2] / "src")
LIMIT = 60.0
"""Seconds one test's conversation may take (a bound, not a measurement)."""


@pytest.fixture(scope="module")
def endpoint(spec_file: Path) -> Iterator[str]:
    """``httpllm serve --transport http`` on a free loopback port; yields the MCP URL."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "httpllm", "serve", str(spec_file), "--transport", "http",
         "--port", str(port), "--max-result-chars", str(BUDGET),
         "--auth-header", "token=X-Upstream-Token", "--forward-header", "X-Tenant"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env={"PYTHONPATH": SRC})
    try:
        deadline = time.monotonic() + LIMIT
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("httpllm serve did not start") from None
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(10)
        assert process.stdout is not None and process.stdout.read() == b""


@asynccontextmanager
async def session_at(url: str, headers: dict[str, str] | None = None,
                     ) -> AsyncIterator[ClientSession]:
    """An initialized client session over streamable HTTP, sending ``headers``."""
    from mcp.client.session import ClientSession
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client
    async with create_mcp_http_client(headers=headers) as client, \
            streamable_http_client(url, http_client=client) as (read, write), \
            ClientSession(read, write) as session:
        await session.initialize()
        yield session


@pytest.mark.anyio
@pytest.mark.parametrize("check", ROUNDS, ids=ids)
@pytest.mark.slow
async def test_round_over_http(endpoint: str, check: Round) -> None:
    """Each full round (listing, GET, bodies, errors, cut answer) holds over HTTP."""
    with anyio.fail_after(LIMIT):
        async with session_at(endpoint) as session:
            await check(session)


@pytest.mark.anyio
async def test_credential_and_headers_come_from_each_request(endpoint: str) -> None:
    """A session's own header becomes its upstream credential; a named header is forwarded."""
    token = "user-one-" + "k" * 20
    with anyio.fail_after(LIMIT):
        async with session_at(endpoint, {"X-Upstream-Token": token,
                                         "X-Tenant": "acme"}) as session:
            result = await session.call_tool("whoAmI", {"n": 5})
    assert result.structured_content == {
        "auth_sha": hashlib.sha256(f"Bearer {token}".encode()).hexdigest(),
        "n": "5", "tenant": "[redacted]"}  # it arrived: a host's header value is never shown


@pytest.mark.anyio
async def test_a_missing_user_header_tells_the_client_which_header_to_send(
        endpoint: str) -> None:
    """`--auth-header token=X-Upstream-Token` and a client without that header: the answer
    names the header the MCP client must send, not the operator's flags; nothing is sent."""
    import mcp_types as types
    with anyio.fail_after(LIMIT):
        async with session_at(endpoint) as session:
            result = await session.call_tool("whoAmI", {"n": 1})
    (block,) = result.content
    assert result.is_error and isinstance(block, types.TextContent)
    assert "must send it in the X-Upstream-Token header" in block.text
    assert "--auth-env" not in block.text and "nothing was sent" in block.text


@pytest.mark.slow
def test_an_idle_connection_outlives_five_seconds(endpoint: str) -> None:
    """A kept-alive connection idle for 6 s (uvicorn's default closes it after 5 s, which
    failed the TypeScript client's first call after a slow listing) still carries the next
    request."""
    from test_listen import exchange

    port = int(endpoint.rsplit(":", 1)[1].split("/")[0])
    with socket.create_connection(("127.0.0.1", port)) as sock:
        first = exchange(sock, port)
        time.sleep(6)
        second = exchange(sock, port)
    assert first == second == 400


def _rpc(client: httpx.Client, url: str, message: dict[str, Any],
         session: str | None = None) -> tuple[httpx.Response, Any]:
    headers = {"Accept": "application/json, text/event-stream",
               "MCP-Protocol-Version": "2025-11-25"}
    if session is not None:
        headers["Mcp-Session-Id"] = session
    response = client.post(url, json=message, headers=headers)
    data = [line[5:].strip() for line in response.text.splitlines() if line.startswith("data:")]
    body = json.loads(data[-1]) if data else (response.json() if response.content else None)
    return response, body


def test_arguments_that_are_not_an_object_are_a_protocol_error(endpoint: str) -> None:
    """`tools/call` with array arguments gets JSON-RPC error -32602, not a tool result."""
    import mcp_types as types
    with httpx.Client(timeout=LIMIT) as client:
        response, _ = _rpc(client, endpoint, {
            "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": {"name": "raw", "version": "1"}}})
        session = response.headers["mcp-session-id"]
        _rpc(client, endpoint, {"jsonrpc": "2.0", "method": "notifications/initialized"},
             session)
        _, answer = _rpc(client, endpoint, {
            "jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "getItem", "arguments": ["a", "b"]}}, session)
    assert answer["id"] == 2
    assert answer["error"]["code"] == types.INVALID_PARAMS
    assert "result" not in answer


@pytest.mark.anyio
async def test_server_mounts_in_the_users_own_asgi_app(spec_file: Path) -> None:
    """The server object mounts under a path of a Starlette app whose lifespan runs it."""
    import contextlib

    from loopback import running
    from starlette.applications import Starlette
    from starlette.responses import PlainTextResponse
    from starlette.routing import Mount, Route

    import httpllm

    server = httpllm.mcp_server(httpllm.compile(spec_file, "mcp"))
    mcp_app = server.streamable_http_app()

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with server.session_manager.run():
            yield

    async def health(request: Any) -> PlainTextResponse:
        return PlainTextResponse("ok")

    app = Starlette(routes=[Route("/health", health), Mount("/api", mcp_app)],
                    lifespan=lifespan)
    with running(app) as base, anyio.fail_after(LIMIT):
        async with session_at(f"{base}/api/mcp") as session:
            result = await session.call_tool("getItem", {"item_id": "m"})
    assert result.structured_content == {"id": "m"}


@pytest.mark.slow
def test_port_zero_announces_the_port_it_listens_on(spec_file: Path) -> None:
    """`--port 0` binds a free port and the start-up line on stderr names that port, where
    the server then answers."""
    process = subprocess.Popen(
        [sys.executable, "-m", "httpllm", "serve", str(spec_file), "--transport", "http",
         "--port", "0"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env={"PYTHONPATH": SRC})
    try:
        assert process.stderr is not None
        line = process.stderr.readline().decode()
        while line.startswith("httpllm: left out"):  # the fixture's broken operation
            line = process.stderr.readline().decode()
        match = re.search(r"over http://127\.0\.0\.1:(\d+)/mcp", line)
        assert match is not None, line
        assert int(match.group(1)) != 0
        socket.create_connection(("127.0.0.1", int(match.group(1))), timeout=LIMIT).close()
    finally:
        process.terminate()
        process.wait(10)


@pytest.mark.slow
def test_a_port_in_use_is_one_line(spec_file: Path) -> None:
    """A port another process listens on exits 1 with one error line naming --port, no
    traceback."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run(
            [sys.executable, "-m", "httpllm", "serve", str(spec_file), "--transport", "http",
             "--port", str(port)], capture_output=True, env={"PYTHONPATH": SRC},
            timeout=LIMIT)
    err = done.stderr.decode()
    assert done.returncode == 1 and "Traceback" not in err, err
    assert err.splitlines()[-1].endswith(f"--port {port}: cannot listen there "
                                         "(Address already in use)")


def test_a_port_out_of_range_is_a_usage_error(spec_file: Path) -> None:
    """`--port 99999` exits 2 naming --port, no traceback."""
    done = subprocess.run(
        [sys.executable, "-m", "httpllm", "serve", str(spec_file), "--transport", "http",
         "--port", "99999"], capture_output=True, env={"PYTHONPATH": SRC}, timeout=LIMIT)
    assert done.returncode == 2
    assert "--port" in done.stderr.decode() and b"Traceback" not in done.stderr


LONE = {"openapi": "3.0.3", "info": {"title": "t", "version": "1"}, "paths": {"/a": {"get": {
    "operationId": "getA", "parameters": [{"name": "q", "in": "query", "schema": {
        "type": "string", "description": "x\ud800y", "enum": ["\udfff", "ok"]}}],
    "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {
        "type": "object", "properties": {"n\udc00": {"type": "string"}}}}}}}}}}}
"""A document whose JSON held escapes of lone surrogates (``"x\\ud800y"``)."""


@pytest.mark.anyio
async def test_lone_surrogates_are_listed_as_replacement_characters(
        caplog: pytest.LogCaptureFixture) -> None:
    """Strings with a lone surrogate, which the SDK's strict UTF-8 serializer refuses (the
    whole listing failed), reach the SDK's own HTTP client with U+FFFD in their place, and
    the server's log names each string replaced."""
    from serving import served

    from httpllm import mcp_server
    from httpllm.server import http_app

    with served(http_app(mcp_server(LONE))) as base, anyio.fail_after(LIMIT):
        async with session_at(f"{base}/mcp") as session:
            tool = (await session.list_tools()).tools[0]
    assert tool.input_schema["properties"]["q"]["description"] == "x\ufffdy"
    assert tool.input_schema["properties"]["q"]["enum"] == ["\ufffd", "ok"]
    assert tool.output_schema is not None and "n\ufffd" in tool.output_schema["properties"]
    said = " ".join(r.getMessage() for r in caplog.records)
    assert "tool getA: 3 string(s) held a lone surrogate" in said
    assert "#/inputSchema/properties/q/description" in said and "n\ufffd" in said


@pytest.mark.anyio
async def test_an_answer_with_lone_surrogates_reaches_the_client() -> None:
    """An API answering JSON with a lone surrogate's escape (`"x\\ud800y"`, in a value and
    a key) that matches its output schema: the client gets the answer with U+FFFD in its
    place, checked as such (the SDK's strict UTF-8 serializer wrote no answer at all; the
    output check called it a mismatch)."""
    from loopback import running
    from serving import served
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.routing import Route

    from httpllm import mcp_server
    from httpllm.server import http_app

    async def odd(request: Request) -> Response:
        return Response(b'{"name": "x\\ud800y", "k\\udc00": 1}', media_type="application/json")

    ok = {"200": {"description": "ok", "content": {"application/json": {"schema": {
        "type": "object", "properties": {"name": {"type": "string", "pattern": "^x"}}}}}}}
    with running(Starlette(routes=[Route("/odd", odd)])) as up:
        doc = {"openapi": "3.0.3", "info": {"title": "t", "version": "1"},
               "servers": [{"url": up}],
               "paths": {"/odd": {"get": {"operationId": "odd", "responses": ok}}}}
        with served(http_app(mcp_server(doc))) as base, anyio.fail_after(LIMIT):
            async with session_at(f"{base}/mcp") as session:
                result = await session.call_tool("odd", {})
    assert not result.is_error
    assert result.structured_content == {"name": "x\ufffdy", "k\ufffd": 1}


@pytest.mark.anyio
async def test_texts_quoting_lone_surrogates_reach_the_client() -> None:
    """A failure that quotes the document (a security scheme named with a lone surrogate,
    no credential given) and a search whose results quote it (the discover tools) come
    with U+FFFD in its place: the SDK wrote no answer at all."""
    from rounds import texts
    from serving import served

    from httpllm import compile, mcp_server
    from httpllm.server import http_app
    from httpllm.server.discover import discover_tools

    doc = {"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
           "servers": [{"url": "http://127.0.0.1:9"}], "security": [{"k\ud800": []}],
           "components": {"securitySchemes": {"k\ud800": {"type": "apiKey", "in": "header",
                                                           "name": "X-Key"}}},
           "paths": {"/pets": {"get": {"operationId": "listPets", "summary": "List \udc00 pets",
                                       "responses": {"200": {"description": "ok"}}}}}}
    found = discover_tools(compile(doc, "mcp"))
    with served(http_app(mcp_server(doc))) as base, \
            served(http_app(mcp_server(doc, tools=found))) as searched, \
            anyio.fail_after(LIMIT):
        async with session_at(f"{base}/mcp") as session:
            refused = await session.call_tool("listPets", {})
        async with session_at(f"{searched}/mcp") as session:
            names = [t.name for t in (await session.list_tools()).tools]
            listed = await session.call_tool(names[0], {"query": "pets"})
    assert refused.is_error and "k\ufffd" in " ".join(texts(refused))
    assert "List \ufffd pets" in " ".join(texts(listed))
