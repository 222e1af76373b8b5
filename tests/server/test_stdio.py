"""`httpllm serve` over stdio, started as a subprocess by the SDK's own stdio client."""

from __future__ import annotations

import hashlib
import json
import select
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import anyio
import pytest
from rounds import BUDGET, ROUNDS, texts

if TYPE_CHECKING:
    from mcp.client.session import ClientSession

SRC = str(Path(__file__).resolve().parents[2] / "src")
LIMIT = 120.0
"""Seconds a whole stdio conversation may take (a bound, not a measurement)."""

pytestmark = pytest.mark.anyio


@asynccontextmanager
async def serving(spec: Path, *flags: str, env: dict[str, str] | None = None,
                  errlog: object = None) -> AsyncIterator[ClientSession]:
    """A session with ``httpllm serve SPEC FLAGS`` over stdio."""
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "httpllm", "serve", str(spec), *flags],
        env={"PYTHONPATH": SRC, **(env or {})})
    with open(Path(spec).with_suffix(".stderr"), "w") as log:
        async with stdio_client(params, errlog=errlog or log) as (read, write), \
                ClientSession(read, write) as session:
            await session.initialize()
            yield session


@pytest.mark.slow
async def test_every_round_over_stdio(spec_file: Path) -> None:
    """Each full round (GET, JSON and form bodies, errors, cut answer) holds over stdio."""
    with anyio.fail_after(LIMIT):
        async with serving(spec_file, "--max-result-chars", str(BUDGET)) as session:
            for check in ROUNDS:
                await check(session)


@pytest.mark.slow
async def test_credential_from_environment_reaches_upstream_only(spec_file: Path) -> None:
    """`--auth-env` sends the bearer token upstream (redacted from any answer) and
    `--header` a fixed header."""
    token = "tok-" + "s3cr3t" * 4
    with anyio.fail_after(LIMIT):
        async with serving(spec_file, "--auth-env", "token=SHOP_TOKEN",
                           "--header", "X-Tenant=acme", env={"SHOP_TOKEN": token}) as session:
            who = await session.call_tool("whoAmI", {"n": 3})
            echoed = await session.call_tool("echoAuth", {})
    assert who.structured_content is not None
    assert who.structured_content == {
        "auth_sha": hashlib.sha256(f"Bearer {token}".encode()).hexdigest(), "n": "3",
        "tenant": "[redacted]"}  # it arrived: a host's header value is never shown
    assert token not in json.dumps(echoed.model_dump(mode="json"))
    assert "[redacted]" in texts(echoed)[0]


@pytest.mark.slow
def test_start_up_report_goes_to_stderr(spec_file: Path) -> None:
    """Operations left out are listed on stderr; stdout carries only protocol messages."""
    request = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"}}}
    done = subprocess.run(
        [sys.executable, "-m", "httpllm", "serve", str(spec_file)],
        input=json.dumps(request) + "\n", capture_output=True, text=True, timeout=LIMIT,
        env={"PYTHONPATH": SRC})
    assert "left out GET /broken" in done.stderr and "Missing" in done.stderr
    lines = done.stdout.splitlines()
    assert [json.loads(line)["id"] for line in lines] == [1]


def test_a_line_that_is_no_json_the_sdk_reads_is_answered(spec_file: Path) -> None:
    """A request the SDK's JSON parser refuses (a lone surrogate in a tool call's
    arguments, as a model's broken emoji; an integer of 5,000 digits; 100,000 nested
    arrays) was dropped over stdio: no answer, the client waited out its timeout. Each is
    answered with a JSON-RPC parse error (-32700), with the request's id where Python's
    json reads it; a notification is not answered; the session goes on."""
    initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"}}}
    call = '{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"x","arguments":%s}}'
    lines = [(json.dumps(initialize), 1),
             ('{"jsonrpc":"2.0","method":"notifications/initialized"}', 0),
             (call % (2, '{"q":"\\ud83d"}'), 1),
             (call % (3, '{"n":1' + "0" * 5_000 + "}"), 1),
             (call % (4, "[" * 100_000 + "]" * 100_000), 1),
             ('{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"x":"\\ud800"}}', 0),
             ('{"jsonrpc":"2.0","id":5,"method":"ping"}', 1)]
    server = subprocess.Popen([sys.executable, "-m", "httpllm", "serve", str(spec_file)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, env={"PYTHONPATH": SRC})
    assert server.stdin is not None and server.stdout is not None
    answers = []
    try:
        for line, expected in lines:  # each answer read before the next line is sent
            server.stdin.write(line.encode() + b"\n")
            server.stdin.flush()
            for _ in range(expected):
                ready, _, _ = select.select([server.stdout], [], [], LIMIT)
                assert ready, f"no answer to {line[:60]}"
                answers.append(json.loads(server.stdout.readline()))
    finally:
        server.kill()
        server.wait(LIMIT)
    assert [(a["id"], a.get("error", {}).get("code")) for a in answers] == [
        (1, None), (2, -32700), (3, -32700), (None, -32700), (5, None)]
    assert all(a["error"]["message"].startswith("Parse error: ") for a in answers[1:4])


@pytest.mark.slow
def test_document_that_does_not_compile_exits_1(tmp_path: Path) -> None:
    """A document that cannot be compiled ends the command with status 1 and one line."""
    bad = tmp_path / "bad.yaml"
    bad.write_text("openapi: 3.1.0\ninfo: [\n", encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "httpllm", "serve", str(bad)],
                          capture_output=True, text=True, timeout=LIMIT,
                          env={"PYTHONPATH": SRC})
    assert done.returncode == 1
    assert done.stdout == ""
    assert len(done.stderr.strip().splitlines()) == 1 and "error" in done.stderr


def test_a_document_on_standard_input_is_a_usage_error_over_stdio(spec_file: Path) -> None:
    """`serve -` over stdio (standard input carries the protocol) exits 2 with one line
    before reading anything, instead of serving after the document used up stdin."""
    done = subprocess.run([sys.executable, "-m", "httpllm", "serve", "-"],
                          input=spec_file.read_text(), capture_output=True, text=True,
                          timeout=LIMIT, env={"PYTHONPATH": SRC})
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.count("\n") == 1 and "name the document by its path" in done.stderr


@pytest.mark.slow
def test_unknown_security_scheme_exits_2(spec_file: Path) -> None:
    """`--auth` for a scheme the document does not define is refused before serving, as a
    usage error (exit 2, as `call` does)."""
    done = subprocess.run(
        [sys.executable, "-m", "httpllm", "serve", str(spec_file), "--auth", "nope=x"],
        capture_output=True, text=True, timeout=LIMIT, env={"PYTHONPATH": SRC})
    assert done.returncode == 2
    assert "nope" in done.stderr and "token" in done.stderr and "x" not in done.stdout


@pytest.mark.slow
async def test_discover_mode_serves_the_trio(spec_file: Path) -> None:
    """`--mode discover` lists three tools; search finds an operation, describe gives its
    input schema, and invoke runs it against the upstream with the server's credential."""
    token = "tok-" + "d1sc0ver" * 3
    with anyio.fail_after(LIMIT):
        async with serving(spec_file, "--mode", "discover", "--auth-env", "token=SHOP_TOKEN",
                           env={"SHOP_TOKEN": token}) as session:
            names = [t.name for t in (await session.list_tools()).tools]
            found = await session.call_tool("search_operations", {"query": "get one item"})
            described = await session.call_tool("describe_operations", {"names": ["getItem"]})
            got = await session.call_tool("invoke_operation", {
                "name": "getItem", "arguments": {"item_id": "q"}})
            wrong = await session.call_tool("invoke_operation", {
                "name": "createItem", "arguments": {"body": {"name": ""}}})
            who = await session.call_tool("invoke_operation", {
                "name": "whoAmI", "arguments": {"n": 2}})
            unknown = await session.call_tool("invoke_operation", {
                "name": "getItems", "arguments": {"item_id": "q"}})
    assert names == ["search_operations", "describe_operations", "invoke_operation"]
    assert "getItem" in [o["name"] for o in json.loads(texts(found)[0])["operations"]][:3]
    [tool] = json.loads(texts(described)[0])["operations"]
    assert tool["name"] == "getItem" and "item_id" in tool["inputSchema"]["properties"]
    assert not got.is_error and json.loads(texts(got)[0]) == {"id": "q"}
    assert wrong.is_error and "Invalid arguments for createItem" in texts(wrong)[0]
    assert not who.is_error and hashlib.sha256(f"Bearer {token}".encode()).hexdigest() in \
        texts(who)[0]
    assert unknown.is_error and "did you mean 'getItem'" in texts(unknown)[0]
    assert "Nothing was sent" in texts(unknown)[0]
