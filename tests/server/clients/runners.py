"""Run one MCP client against ``httpllm serve``: list every tool as a host does (page by
page, following ``nextCursor``), make some calls, and report what happened.

Clients: the official TypeScript SDK client (``ts_client.mjs`` under node) and the Python
SDK client in the 2025-11-25 era (``mode="legacy"``: the ``initialize`` handshake) and the
2026-07-28 era (``mode="auto"``: ``server/discover``). Transports: stdio (the client starts
the server through ``tap.py``, which records each ``tools/list`` response line as written)
and streamable HTTP (a server the caller started, :class:`HttpServer`).

Used by ``tests/server/test_clients.py`` and ``benchmarks/mcp_clients.py``.
"""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from clients.node import TAP, TS_CLIENT

SRC = Path(__file__).resolve().parents[3] / "src"
ENV = {**os.environ, "PYTHONPATH": f"{SRC}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
CLIENTS = ("typescript", "python-2025-11-25", "python-2026-07-28")
TRANSPORTS = ("stdio", "http")


@dataclass
class Outcome:
    """One tool call as the client saw it."""

    name: str
    is_error: bool | None
    text: str = ""
    structured: Any = None
    thrown: str = ""
    """The client refused the answer or the call failed (the message)."""

    @property
    def ok(self) -> bool:
        """A result that is not an error, accepted by the client."""
        return self.is_error is False and not self.thrown


@dataclass
class Report:
    """What one client did with one server."""

    client: str
    transport: str
    protocol: str | None = None
    list_seconds: float = 0.0
    pages: list[int] = field(default_factory=list)
    """Bytes of each ``tools/list`` page: as written on stdio (``tap.py``), else the
    page's result as JSON."""
    names: list[str] = field(default_factory=list)
    calls: list[Outcome] = field(default_factory=list)
    error: str = ""
    """Why the run stopped before its end (listing failed, time ran out), else empty."""


def serve_command(document: Path, flags: Sequence[str]) -> list[str]:
    """``httpllm serve DOCUMENT FLAGS`` as a command."""
    return [sys.executable, "-m", "httpllm", "serve", str(document), *flags]


def tapped(command: Sequence[str], log: Path) -> list[str]:
    """``command`` behind ``tap.py``, which appends each tools/list response to ``log``."""
    return [sys.executable, str(TAP), str(log), "--", *command]


def tapped_pages(log: Path) -> list[int]:
    """Bytes of each tools/list response line ``tap.py`` recorded."""
    if not log.is_file():
        return []
    return [json.loads(line)["bytes"] for line in log.read_text().splitlines()]


@contextmanager
def http_server(command: Sequence[str], *, limit: float = 120.0) -> Iterator[str]:
    """``command`` (an ``httpllm serve`` without ``--transport``) over streamable HTTP
    on a free loopback port; yields the MCP URL."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    process = subprocess.Popen([*command, "--transport", "http", "--port", str(port)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=ENV)
    try:
        deadline = time.monotonic() + limit
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("httpllm serve --transport http did not start: "
                                       + _tail(process)) from None
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        if process.stderr is not None:
            process.stderr.close()


def _tail(process: subprocess.Popen[bytes]) -> str:
    if process.poll() is None or process.stderr is None:
        return "(still starting)"
    return process.stderr.read().decode(errors="replace")[-600:]


def run_typescript(target: list[str] | str, calls: Sequence[tuple[str, dict[str, Any]]], *,
                   log: Path | None = None, limit: float = 600.0) -> Report:
    """The TypeScript SDK client on ``target`` (a command to start over stdio, or a URL)."""
    transport = "http" if isinstance(target, str) else "stdio"
    plan: dict[str, Any] = {"calls": [{"name": n, "arguments": a} for n, a in calls],
                            "timeoutMs": int(limit * 1000)}
    if isinstance(target, str):
        plan.update(transport="http", url=target)
    else:
        plan.update(transport="stdio", command=target[0], args=target[1:])
    report = Report(client="typescript", transport=transport)
    try:
        run = subprocess.run(["node", str(TS_CLIENT), json.dumps(plan)], capture_output=True,
                             text=True, timeout=limit, env=ENV, cwd=TS_CLIENT.parent,
                             check=False)
    except subprocess.TimeoutExpired:
        report.error = f"no report within {limit:.0f} s"
        return report
    if run.returncode != 0 or not run.stdout.strip():
        report.error = _node_error(run.stderr or run.stdout) or f"exit {run.returncode}"
        return report
    data = json.loads(run.stdout.strip().splitlines()[-1])
    report.protocol = data["protocolVersion"]
    report.list_seconds = data["listSeconds"]
    report.names = data["names"]
    report.pages = tapped_pages(log) if log is not None else [p["bytes"] for p in data["pages"]]
    report.calls = [Outcome(name=c["name"], is_error=c["isError"], text=c["text"],
                            structured=c["structured"], thrown=c["thrown"] or "")
                    for c in data["calls"]]
    return report


_NODE_ERROR = re.compile(r"\s*(?:\w*Error|Error)(?: \[\w+\])?: ")
"""A line naming a JavaScript error: ``SyntaxError: ...``, ``TypeError: fetch failed``."""


def _node_error(output: str) -> str:
    """The error line of a node crash (``SyntaxError: Invalid regular expression: ...``),
    else the end of its output."""
    errors = [line.strip() for line in output.splitlines() if _NODE_ERROR.match(line)]
    return errors[0][:1500] if errors else output.strip()[-1500:]


async def run_python(era: str, target: list[str] | str,
                     calls: Sequence[tuple[str, dict[str, Any]]], *, log: Path | None = None,
                     limit: float = 600.0) -> Report:
    """The Python SDK client (``era``: ``"2025-11-25"`` or ``"2026-07-28"``) on ``target``
    (a command to start over stdio, or a URL)."""
    import anyio
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    server: Any = target if isinstance(target, str) else StdioServerParameters(
        command=target[0], args=list(target[1:]), env=ENV)
    report = Report(client=f"python-{era}",
                    transport="http" if isinstance(target, str) else "stdio")
    try:
        with anyio.fail_after(limit):
            async with Client(server, mode="legacy" if era == "2025-11-25" else "auto",
                              read_timeout_seconds=limit) as client:
                report.protocol = client.session.protocol_version
                began = time.perf_counter()
                cursor: str | None = None
                sizes: list[int] = []
                while True:
                    page = await client.list_tools(cursor=cursor)
                    sizes.append(len(page.model_dump_json(by_alias=True, exclude_none=True)))
                    report.names.extend(tool.name for tool in page.tools)
                    cursor = page.next_cursor
                    if cursor is None:
                        break
                report.list_seconds = time.perf_counter() - began
                report.pages = tapped_pages(log) if log is not None else sizes
                for name, arguments in calls:
                    report.calls.append(await _call(client, name, arguments))
    except Exception as exc:  # the report says what stopped the run
        cause: BaseException = exc
        while getattr(cause, "exceptions", None):  # a task group's first failure says why
            cause = cause.exceptions[0]  # type: ignore[attr-defined]
        report.error = f"{type(cause).__name__}: {cause}"[:1500]
    return report


async def _call(client: Any, name: str, arguments: dict[str, Any]) -> Outcome:
    import mcp_types as types

    try:
        result = await client.call_tool(name, arguments)
    except Exception as exc:  # the client refused the answer
        return Outcome(name=name, is_error=None, thrown=f"{type(exc).__name__}: {exc}"[:2000])
    text = "\n".join(b.text for b in result.content if isinstance(b, types.TextContent))
    return Outcome(name=name, is_error=bool(result.is_error), text=text[:2000],
                   structured=result.structured_content)
