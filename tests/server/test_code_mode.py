"""`httpllm serve --mode code` through real MCP clients: the client matrix's (the official
TypeScript SDK client, installed by the tests from npm and pinned, and the Python SDK client
in both protocol eras; see ``clients/runners.py``), over stdio and streamable HTTP. Each
lists the two tools, asks `search_docs`, `execute`s a program that calls three operations
and prints a filtered result (the server's credential sent upstream, never shown), and one
that prints what an API echoed of the credential and then throws: `[redacted]`, and an
`isError` result that says why."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from functools import partial
from pathlib import Path

import anyio
import pytest
from clients.node import install
from clients.runners import (
    CLIENTS,
    TRANSPORTS,
    Report,
    http_server,
    run_python,
    run_typescript,
    serve_command,
)
from upstream import SEEN

TOKEN = "tok-" + "c0de" * 6
LIMIT = 300.0
"""Seconds one client's whole run may take (a bound, not a measurement)."""

PROGRAM = """
const item = await api.getItem({ item_id: "a1" });
const items = await api.listItems({ limit: 25 });
const me = await api.whoAmI({ n: 5 });
const wanted = items.filter((i) => i.id.endsWith("3")).map((i) => i.id);
console.log(JSON.stringify({ item: item.id, wanted, n: me.n, who: me.auth_sha }));
"""
EXPECTED = {"item": "a1", "wanted": ["item-00003", "item-00013", "item-00023"], "n": "5",
            "who": hashlib.sha256(f"Bearer {TOKEN}".encode()).hexdigest()}
LEAK = """
const echoed = await api.echoAuth();
console.log((echoed as any).authorization);
throw new Error("stopped on purpose");
"""
CALLS = [("search_docs", {"query": "list items"}), ("execute", {"code": PROGRAM}),
         ("execute", {"code": LEAK})]
FLAGS = ("--mode", "code", "--auth", f"token={TOKEN}")


@pytest.fixture(scope="module")
def typescript_sdk() -> None:
    """The pinned MCP TypeScript SDK, installed once (``clients/setup.sh``)."""
    install()


@pytest.fixture(scope="module")
def code_endpoint(spec_file: Path) -> Iterator[str]:
    """``httpllm serve --mode code --transport http`` on a free port; yields the MCP URL."""
    with http_server(serve_command(spec_file, FLAGS)) as url:
        yield url


@pytest.mark.slow
@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize("client", CLIENTS)
def test_client_searches_and_executes(client: str, transport: str, spec_file: Path,
                                      request: pytest.FixtureRequest) -> None:
    """The client lists the two tools, reads declarations, runs a program of three calls
    and gets its filtered output; a program that throws is an error result, and what an
    API echoed of the server's credential reaches the client as `[redacted]`."""
    if client == "typescript":
        request.getfixturevalue("typescript_sdk")
    target: list[str] | str = (serve_command(spec_file, FLAGS) if transport == "stdio"
                               else request.getfixturevalue("code_endpoint"))
    before = len(SEEN)
    report: Report
    if client == "typescript":
        report = run_typescript(target, CALLS, limit=LIMIT)
    else:
        report = anyio.run(partial(run_python, client.removeprefix("python-"), target, CALLS,
                                   limit=LIMIT))
    assert not report.error, report.error
    assert report.names == ["search_docs", "execute"]
    docs, ran, leak = report.calls
    assert docs.ok and ran.ok, (docs, ran)
    assert "listItems(args?: {" in docs.text and "interface Api {" in docs.text
    assert json.loads(ran.text) == EXPECTED
    assert leak.is_error is True and not leak.thrown, leak
    assert leak.text == ("Bearer [redacted]\n\n"
                         "Uncaught Error: stopped on purpose (at line 4, column 7)")
    assert TOKEN not in json.dumps([c.__dict__ for c in report.calls])
    assert SEEN[before:] == ["GET /items/a1", "GET /items?limit=25", "GET /me?n=5",
                             "GET /echo-auth"]


@pytest.mark.slow
def test_read_only_and_the_answer_budget(spec_file: Path) -> None:
    """`--read-only` leaves the writes out of `api` (a program reaching for one past the
    type check finds no such method, nothing is sent), and `--max-result-chars` cuts what
    it printed, with a note (the Python SDK client over stdio)."""
    flags = (*FLAGS, "--read-only", "--max-result-chars", "300")
    program = ('try { await (api as any).createItem({ body: { name: "x" } }); }\n'
               "catch (e) { console.log(e.name); }\n"
               'console.log("y".repeat(1000));')
    before = len(SEEN)
    report = anyio.run(partial(run_python, "2025-11-25", serve_command(spec_file, flags),
                               [("execute", {"code": program})], limit=LIMIT))
    assert not report.error, report.error
    (ran,) = report.calls
    assert ran.ok, ran
    first, cut, note = ran.text.split("\n")
    assert first == "TypeError"
    assert cut == "y" * (300 - len(first) - 1)
    assert note.startswith("[Output cut to fit 300 characters (it had 1,") and "Print less" in note
    assert SEEN[before:] == []
