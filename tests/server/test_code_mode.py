"""`httpllm serve --mode code` through real MCP clients: the Python SDK's and the official
TypeScript SDK's (node), over stdio and streamable HTTP. Each lists the two tools, asks
`search_docs`, and `execute`s a program that calls three operations and prints a filtered
result, with the server's credential sent upstream and never shown."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from rounds import texts
from test_stdio import LIMIT, SRC, serving
from upstream import SEEN, free_port

TOKEN = "tok-" + "c0de" * 6
CLIENT = Path(__file__).resolve().parent / "ts_client"
INSTALL_TIMEOUT = 600.0
"""Seconds `npm ci` may take."""

PROGRAM = """
const item = await api.getItem({ item_id: "a1" });
const items = await api.listItems({ limit: 25 });
const me = await api.whoAmI({ n: 5 });
const wanted = items.filter((i) => i.id.endsWith("3")).map((i) => i.id);
console.log(JSON.stringify({ item: item.id, wanted, n: me.n, who: me.auth_sha }));
"""
EXPECTED = {"item": "a1", "wanted": ["item-00003", "item-00013", "item-00023"], "n": "5",
            "who": hashlib.sha256(f"Bearer {TOKEN}".encode()).hexdigest()}
CALLS = [["search_docs", {"query": "list items"}], ["execute", {"code": PROGRAM}]]
FLAGS = ("--mode", "code", "--auth-env", "token=SHOP_TOKEN")


def check(tools: list[str], docs: str, output: str, sent: list[str]) -> None:
    """What every client must see, and what the upstream must have received."""
    assert tools == ["search_docs", "execute"]
    assert "listItems(args?: {" in docs and "interface Api {" in docs
    assert json.loads(output) == EXPECTED
    assert sent == ["GET /items/a1", "GET /items?limit=25", "GET /me?n=5"]


@pytest.fixture(scope="module")
def code_endpoint(spec_file: Path) -> Iterator[str]:
    """``httpllm serve --mode code --transport http`` on a free port; yields the MCP URL."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "httpllm", "serve", str(spec_file), "--transport", "http",
         "--port", str(port), *FLAGS], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        env={"PYTHONPATH": SRC, "SHOP_TOKEN": TOKEN})
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


async def python_round(session: ClientSession) -> tuple[list[str], str, str]:
    tools = [t.name for t in (await session.list_tools()).tools]
    docs = await session.call_tool("search_docs", {"query": "list items"})
    ran = await session.call_tool("execute", {"code": PROGRAM})
    assert not docs.is_error and not ran.is_error, texts(ran)
    return tools, texts(docs)[0], texts(ran)[0]


@pytest.mark.anyio
@pytest.mark.slow
async def test_python_client_over_stdio(spec_file: Path) -> None:
    """The Python SDK client over stdio: list, search_docs, execute."""
    before = len(SEEN)
    with anyio.fail_after(LIMIT):
        async with serving(spec_file, *FLAGS, env={"SHOP_TOKEN": TOKEN}) as session:
            tools, docs, output = await python_round(session)
    check(tools, docs, output, SEEN[before:])


@pytest.mark.anyio
@pytest.mark.slow
async def test_python_client_over_http(code_endpoint: str) -> None:
    """The Python SDK client over streamable HTTP: list, search_docs, execute."""
    before = len(SEEN)
    with anyio.fail_after(LIMIT):
        async with create_mcp_http_client() as client, \
                streamable_http_client(code_endpoint, http_client=client) as (read, write), \
                ClientSession(read, write) as session:
            await session.initialize()
            tools, docs, output = await python_round(session)
    check(tools, docs, output, SEEN[before:])


@pytest.fixture(scope="module")
def node_client() -> Path:
    """The TypeScript SDK client script, its pinned SDK installed with `npm ci`."""
    missing = [tool for tool in ("node", "npm") if shutil.which(tool) is None]
    if missing:
        message = f"{' and '.join(missing)} not found: the TypeScript client needs Node.js"
        if os.environ.get("CI"):
            pytest.fail(message, pytrace=False)
        pytest.skip(message)
    if not (CLIENT / "node_modules" / "@modelcontextprotocol" / "sdk").is_dir():
        done = subprocess.run(["npm", "ci", "--no-audit", "--no-fund", "--ignore-scripts",
                               "--loglevel=error"], cwd=CLIENT, capture_output=True, text=True,
                              timeout=INSTALL_TIMEOUT, check=False)
        assert done.returncode == 0, done.stderr[-800:]
    return CLIENT / "client.mjs"


def node_round(script: Path, *target: str, env: dict[str, str] | None = None) -> Any:
    done = subprocess.run(["node", str(script), *target, json.dumps(CALLS)],
                          capture_output=True, text=True, timeout=LIMIT,
                          env={**os.environ, **(env or {})}, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def check_node(seen: Any, sent: list[str]) -> None:
    docs, ran = seen["results"]
    assert not docs.get("isError") and not ran.get("isError"), ran
    check(seen["tools"], docs["content"][0]["text"], ran["content"][0]["text"], sent)


@pytest.mark.slow
def test_typescript_client_over_stdio(spec_file: Path, node_client: Path) -> None:
    """The official TypeScript SDK client over stdio: list, search_docs, execute."""
    before = len(SEEN)
    command = [sys.executable, "-m", "httpllm", "serve", str(spec_file), *FLAGS]
    seen = node_round(node_client, "stdio", json.dumps(command), env={
        "SERVER_ENV": json.dumps({"PYTHONPATH": SRC, "SHOP_TOKEN": TOKEN})})
    check_node(seen, SEEN[before:])


@pytest.mark.slow
def test_typescript_client_over_http(code_endpoint: str, node_client: Path) -> None:
    """The official TypeScript SDK client over streamable HTTP: list, search_docs,
    execute."""
    before = len(SEEN)
    check_node(node_round(node_client, "http", code_endpoint), SEEN[before:])
