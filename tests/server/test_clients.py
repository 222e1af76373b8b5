"""The client matrix: MCP clients nobody here wrote list and call ``httpllm serve`` on real
documents.

Clients: the official TypeScript SDK client (installed by the tests, pinned) and the Python
SDK client in both protocol eras, each over stdio and streamable HTTP (see
``clients/runners.py``). Documents: petstore (default tier), GitHub, Stripe, PayPal
payments, SendGrid and Netlify's Swagger 2.0 document (the ``corpus`` and ``clients``
markers). Each listing must complete with every compiled operation listed exactly once, in
order, in pages of at most 1 MiB; three calls with valid arguments must succeed against the
upstream on 127.0.0.1 and one with invalid arguments must come back as an ``isError`` result
with nothing sent.

``HTTPLLM_MATRIX_OUTPUT_SCHEMAS=off`` (or ``on``) serves every document with
``--output-schemas off`` (or ``on``) instead of the default ``auto``, to check listing and
calls apart from output schemas.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import Any

import anyio
import pytest
from clients.documents import DOCUMENTS, SEEN, UPSTREAM, Document, serve_flags
from clients.node import install
from clients.runners import (
    CLIENTS,
    TRANSPORTS,
    Report,
    http_server,
    run_python,
    run_typescript,
    serve_command,
    tapped,
)
from loopback import running

import httpllm

LIMIT = 300.0
"""Seconds one client's whole run may take (a bound, not a measurement)."""


def _cases() -> list[Any]:
    return list(_each_case())


def _each_case() -> Iterator[Any]:
    for document in DOCUMENTS:
        marks = [pytest.mark.corpus, pytest.mark.clients] if document.corpus else []
        for client in CLIENTS:
            for transport in TRANSPORTS:
                yield pytest.param(document, client, transport, marks=marks,
                                   id=f"{document.id}-{client}-{transport}")


@pytest.fixture(scope="session")
def api() -> Iterator[str]:
    """The upstream API of every document, on a free 127.0.0.1 port."""
    with running(UPSTREAM) as url:
        yield url


@pytest.fixture(scope="session")
def typescript_sdk() -> None:
    """The pinned MCP TypeScript SDK, installed once."""
    install()


_NAMES: dict[str, list[str]] = {}


def expected_names(document: Document, path: Path) -> list[str]:
    """The tool names a listing must give, in order: one per compiled operation."""
    if document.id not in _NAMES:
        _NAMES[document.id] = [f.name for f in httpllm.compile(path, "mcp").functions]
    return _NAMES[document.id]


class _HttpServers:
    """One ``httpllm serve --transport http`` per document, the last one kept running (the
    cases come document by document)."""

    def __init__(self) -> None:
        self.running: tuple[str, Any, str] | None = None

    def url(self, document: Document, path: Path, api: str) -> str:
        if self.running is None or self.running[0] != document.id:
            self.close()
            context = http_server(serve_command(path, serve_flags(document, api)))
            self.running = (document.id, context, context.__enter__())
        return self.running[2]

    def close(self) -> None:
        if self.running is not None:
            self.running[1].__exit__(None, None, None)
            self.running = None


@pytest.fixture(scope="session")
def http_servers() -> Iterator[_HttpServers]:
    """Streamable-HTTP servers, one document at a time."""
    servers = _HttpServers()
    yield servers
    servers.close()


@pytest.mark.parametrize(("document", "client", "transport"), _cases())
@pytest.mark.slow
def test_client_lists_and_calls(document: Document, client: str, transport: str,
                                request: pytest.FixtureRequest, api: str,
                                http_servers: _HttpServers, tmp_path: Path) -> None:
    """The client lists every tool once, in order, in pages of at most 1 MiB; three valid
    calls succeed upstream and an invalid one is an error result that sends nothing."""
    corpus = request.getfixturevalue("specs_dir") if document.corpus else None
    if client == "typescript":
        request.getfixturevalue("typescript_sdk")
    path = document.location(corpus)
    log = tmp_path / "tap.jsonl" if transport == "stdio" else None
    target: list[str] | str = (
        tapped(serve_command(path, serve_flags(document, api)), log) if log is not None
        else http_servers.url(document, path, api))
    assert document.invalid is not None
    calls = [(c.tool, c.arguments) for c in document.calls] + [document.invalid]
    before = len(SEEN)
    if client == "typescript":
        report = run_typescript(target, calls, log=log, limit=LIMIT)
    else:
        report = anyio.run(partial(run_python, client.removeprefix("python-"), target, calls,
                                   log=log, limit=LIMIT))
    _check_listing(report, expected_names(document, path))
    _check_calls(report, document, SEEN[before:])


def _check_listing(report: Report, names: list[str]) -> None:
    from httpllm.server import DEFAULT_MAX_PAGE_BYTES
    assert not report.error, report.error
    if report.client == "python-2026-07-28":
        assert report.protocol == "2026-07-28"
    elif report.client == "python-2025-11-25":
        assert report.protocol == "2025-11-25"
    assert report.names == names
    assert report.pages and max(report.pages) <= DEFAULT_MAX_PAGE_BYTES


def _check_calls(report: Report, document: Document, seen: list[str]) -> None:
    *valid, invalid = report.calls
    assert not invalid.thrown and invalid.is_error is True, invalid
    assert "nothing was sent" in invalid.text
    if document.broken:
        assert not all(outcome.ok for outcome in valid), (
            f"{document.id}: its calls succeed now; drop `broken` from its entry")
        pytest.xfail(document.broken)
    for outcome, exchange in zip(valid, document.calls, strict=True):
        assert outcome.ok, outcome
        if isinstance(exchange.body, dict) and outcome.structured is not None:
            assert outcome.structured == exchange.body
    assert seen == [exchange.request for exchange in document.calls]
