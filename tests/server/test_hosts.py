"""The hosts themselves: Claude Code and Codex, installed from npm with a private home, load
``httpllm serve`` over stdio and list its tools, for GitHub, Stripe, PayPal payments and
SendGrid (the ``hosts`` and ``corpus`` markers; see ``clients/host_runs.py`` for how each
host is asked). The server runs behind ``clients/tap.py``, which records every page the
host asked for: each must be at most 1 MiB, and the host must follow the cursors to the
last page.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from clients.documents import DOCUMENTS, Document, serve_flags
from clients.host_runs import HOST_NAMES, HostReport, run_claude, run_codex
from clients.node import install
from clients.runners import SRC, serve_command, tapped

import httpllm

pytestmark = [pytest.mark.corpus, pytest.mark.hosts]

LIMIT = 300.0
"""Seconds a host may take to report the server's tools (a bound, not a measurement)."""

RUNS: dict[str, Callable[..., HostReport]] = {"claude-code": run_claude, "codex": run_codex}


@pytest.fixture(scope="session")
def hosts() -> None:
    """Claude Code and Codex at their pinned versions, installed once."""
    install("hosts")


@pytest.mark.parametrize("host", HOST_NAMES)
@pytest.mark.parametrize("document", [d for d in DOCUMENTS if d.hosts], ids=lambda d: d.id)
def test_host_lists_every_tool(document: Document, host: str, specs_dir: Path, hosts: None,
                               tmp_path: Path) -> None:
    """The host connects and loads every compiled operation as a tool, having followed
    the cursors through pages of at most 1 MiB."""
    from httpllm.server import DEFAULT_MAX_PAGE_BYTES
    path = document.location(specs_dir)
    log = tmp_path / "tap.jsonl"
    command = tapped(serve_command(path, serve_flags(document, "http://127.0.0.1:9")), log)
    report = RUNS[host]("api", command, {"PYTHONPATH": str(SRC)}, tmp_path / "home",
                        limit=LIMIT)
    names = [f.name for f in httpllm.compile(path, "mcp").functions]
    pages = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    print(f"{host} {document.id}: {report.status}, {len(report.tools)} tools in "
          f"{report.seconds:.1f} s; pages {[p['bytes'] for p in pages]}", file=sys.stderr)
    assert not report.error, report.error
    if host == "claude-code":
        assert "Status: ✔ Connected" in report.summary, report.summary
    assert report.status == "connected"
    assert sorted(report.tools) == sorted(names)
    assert pages and max(p["bytes"] for p in pages) <= DEFAULT_MAX_PAGE_BYTES
    assert _followed_to_the_end(pages, len(names))


def _followed_to_the_end(pages: list[dict[str, Any]], count: int) -> bool:
    """Whether some run of pages, from one without a cursor to one without a next,
    holds ``count`` tools."""
    total = 0
    for page in pages:
        total = page["tools"] if not page["cursor"] else total + page["tools"]
        if not page["next"] and total == count:
            return True
    return False
