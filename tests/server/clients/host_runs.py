"""Run an MCP host on ``httpllm serve`` over stdio and read back the tools it loaded.

- Claude Code (npm ``@anthropic-ai/claude-code``): ``claude mcp add NAME -- COMMAND``, then
  ``claude mcp get NAME`` (prints ``Status: ✔ Connected`` or why not; it lists only the
  first page), then ``claude -p --input-format stream-json --output-format stream-json``
  and its ``mcp_status`` control request, answered with every server's status and tool
  names (the tools a model would get). No API key is needed: no prompt is ever sent.
- Codex (npm ``@openai/codex``): ``[mcp_servers.NAME]`` in ``$CODEX_HOME/config.toml``,
  then ``codex app-server`` (JSON-RPC over stdio): ``initialize``, ``initialized``,
  ``mcpServerStatus/list`` (the schema ``codex app-server generate-json-schema`` writes),
  answered with each server's tools by name. No login is needed.

Each host runs with a private ``HOME`` (and ``CODEX_HOME``) in a fresh folder, nothing
from the machine's own configuration, and no network but loopback.
"""

from __future__ import annotations

import json
import os
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from clients.node import HOSTS

CLAUDE = HOSTS / "node_modules" / ".bin" / "claude"
CODEX = HOSTS / "node_modules" / ".bin" / "codex"
HOST_NAMES = ("claude-code", "codex")


@dataclass
class HostReport:
    """What a host says about one server."""

    host: str
    status: str = ""
    """The host's word for the connection (``connected``, ``failed`` ...)."""
    tools: list[str] = field(default_factory=list)
    summary: str = ""
    """``claude mcp get``'s output, or Codex's ``toolsError``."""
    seconds: float = 0.0
    """From the host's start to its answer with the tools."""
    error: str = ""


def private_env(home: Path) -> dict[str, str]:
    """The environment a host runs in: a private home, no telemetry, no update checks, and
    time for a large document's server to start."""
    keep = {k: v for k, v in os.environ.items() if k in ("PATH", "LANG", "TMPDIR", "TERM")}
    return {**keep, "HOME": str(home), "CODEX_HOME": str(home / ".codex"),
            "XDG_CONFIG_HOME": str(home / ".config"), "NO_COLOR": "1",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_AUTOUPDATER": "1",
            "DISABLE_TELEMETRY": "1",
            # Claude Code gives a stdio server 30 s to start and answer `initialize` (Stripe's
            # compile and start-up took 44 s on this 2-core machine under load): 2 minutes.
            "MCP_TIMEOUT": "120000"}


def run_claude(name: str, command: list[str], env: dict[str, str], home: Path, *,
               limit: float = 300.0) -> HostReport:
    """Claude Code: add the server, ``mcp get`` it, then ask ``mcp_status`` for its tools."""
    project = home / "project"
    project.mkdir(parents=True, exist_ok=True)
    host_env = private_env(home)
    report = HostReport(host="claude-code")
    added = subprocess.run(
        [str(CLAUDE), "mcp", "add", name, *[f"--env={k}={v}" for k, v in env.items()], "--",
         *command], cwd=project, env=host_env, capture_output=True, text=True, timeout=120,
        check=False)
    if added.returncode != 0:
        report.error = f"claude mcp add: {added.stderr or added.stdout}"
        return report
    got = subprocess.run([str(CLAUDE), "mcp", "get", name], cwd=project, env=host_env,
                         capture_output=True, text=True, timeout=limit, check=False)
    report.summary = (got.stdout + got.stderr).strip()
    began = time.monotonic()
    process = subprocess.Popen(
        [str(CLAUDE), "-p", "--input-format", "stream-json", "--output-format", "stream-json",
         "--verbose"], cwd=project, env=host_env, stdin=subprocess.PIPE,
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    watchdog = threading.Timer(limit, process.kill)  # a silent host ends at the deadline
    watchdog.start()
    try:
        server = _claude_status(process, name, began + limit)
    finally:
        watchdog.cancel()
        _stop(process)
    report.seconds = time.monotonic() - began
    if server is None:
        report.error = f"no mcp_status answer within {limit:.0f} s"
        return report
    report.status = str(server.get("status", ""))
    report.tools = [str(tool["name"]) for tool in server.get("tools") or []]
    if server.get("error"):
        report.error = str(server["error"])[:1500]
    return report


def _claude_status(process: subprocess.Popen[str], name: str,
                   deadline: float) -> dict[str, Any] | None:
    """Ask ``mcp_status`` until the server is no longer pending; its row, or ``None``."""
    assert process.stdin is not None and process.stdout is not None
    _send(process.stdin, {"type": "control_request", "request_id": "init",
                          "request": {"subtype": "initialize"}})
    asked = 0
    while time.monotonic() < deadline:
        asked += 1
        _send(process.stdin, {"type": "control_request", "request_id": f"status-{asked}",
                              "request": {"subtype": "mcp_status"}})
        answer = _read_until(process.stdout, f"status-{asked}", deadline)
        if answer is None:
            return None
        rows = answer.get("response", {}).get("response", {}).get("mcpServers", [])
        row = next((r for r in rows if r.get("name") == name), None)
        if row is not None and row.get("status") != "pending":
            return dict(row)
        time.sleep(0.5)
    return None


def run_codex(name: str, command: list[str], env: dict[str, str], home: Path, *,
              limit: float = 300.0) -> HostReport:
    """Codex: configure the server, start ``codex app-server``, ``mcpServerStatus/list``."""
    codex_home = home / ".codex"
    codex_home.mkdir(parents=True, exist_ok=True)
    (codex_home / "config.toml").write_text(
        f"[mcp_servers.{name}]\ncommand = {json.dumps(command[0])}\n"
        f"args = {json.dumps(command[1:])}\nstartup_timeout_sec = {int(limit)}\n"
        f"tool_timeout_sec = {int(limit)}\n"
        f"[mcp_servers.{name}.env]\n"
        + "".join(f"{k} = {json.dumps(v)}\n" for k, v in env.items()), encoding="utf-8")
    report = HostReport(host="codex")
    began = time.monotonic()
    process = subprocess.Popen([str(CODEX), "app-server"], cwd=home, env=private_env(home),
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, text=True)
    assert process.stdin is not None and process.stdout is not None
    deadline = began + limit
    watchdog = threading.Timer(limit, process.kill)  # a silent host ends at the deadline
    watchdog.start()
    try:
        _send(process.stdin, {"id": 0, "method": "initialize",
                              "params": {"clientInfo": {"name": "httpllm-tests",
                                                        "version": "1"}}})
        if _read_until(process.stdout, 0, deadline) is None:
            report.error = "codex app-server did not answer initialize"
            return report
        _send(process.stdin, {"method": "initialized"})
        _send(process.stdin, {"id": 1, "method": "mcpServerStatus/list",
                              "params": {"serverName": name}})
        answer = _read_until(process.stdout, 1, deadline)
    finally:
        watchdog.cancel()
        _stop(process)
    report.seconds = time.monotonic() - began
    if answer is None or "result" not in answer:
        report.error = f"mcpServerStatus/list: {answer or 'no answer'}"[:1500]
        return report
    row = next((r for r in answer["result"]["data"] if r.get("name") == name), {})
    report.tools = list(row.get("tools") or {})
    report.summary = str(row.get("toolsError") or "")
    report.status = "connected" if row.get("serverInfo") else "failed"
    return report


def _send(stream: IO[str], message: dict[str, Any]) -> None:
    stream.write(json.dumps(message) + "\n")
    stream.flush()


def _read_until(stream: IO[str], wanted: Any, deadline: float) -> dict[str, Any] | None:
    """The next line answering ``wanted`` (a JSON-RPC id or a control ``request_id``)."""
    for line in stream:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        response = message.get("response") if isinstance(message, dict) else None
        if message.get("id") == wanted and "method" not in message:
            return dict(message)
        if isinstance(response, dict) and response.get("request_id") == wanted:
            return dict(message)
        if time.monotonic() > deadline:
            break
    return None


def _stop(process: subprocess.Popen[str]) -> None:
    if process.stdin is not None:
        process.stdin.close()
    process.terminate()
    try:
        process.wait(15)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    if process.stdout is not None:
        process.stdout.close()
