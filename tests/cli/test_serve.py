"""`httpllm serve` over HTTP from the command line: admission flags (exit status 2 and one
line for each misuse), a token required, Origin checked on a bind address the SDK does not
protect, and `--stateless --workers 2` serving from two processes. Servers run on
loopback as subprocesses."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from httpllm.cli import main

ROOT = Path(__file__).resolve().parents[2]
SRC = str(ROOT / "src")
PETSTORE = str(ROOT / "specs" / "petstore-3.0.yaml")
LIMIT = 60.0
"""Seconds a server may take to start or answer (a bound, not a measurement)."""
HEADERS = {"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-11-25"}
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {},
    "clientInfo": {"name": "t", "version": "1"}}}


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, list[str]]:
    """``(status, stderr lines)`` of ``httpllm serve PETSTORE *argv``."""
    try:
        status = main(["serve", PETSTORE, *argv])
    except SystemExit as exc:  # argparse's usage errors
        status = int(exc.code or 0)
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return status, err.splitlines()


@pytest.mark.parametrize(("argv", "message"), [
    # (an address not on this machine: were the check missing, binding fails at once)
    (["--transport", "http", "--host", "192.0.2.7"],
     "--host 192.0.2.7 is reachable from other machines: add --require-token VARIABLE or "
     "--oauth-issuer URL, or --allow-unauthenticated"),
    (["--transport", "http", "--require-token", "HTTPLLM_TEST_UNSET"],
     "--require-token HTTPLLM_TEST_UNSET: HTTPLLM_TEST_UNSET is not set or empty"),
    (["--require-token", "HTTPLLM_TEST_TOKEN"],
     "--require-token works over HTTP only (add --transport http)"),
    (["--stateless", "--workers", "2"], "--stateless works over HTTP only (add --transport http)"),
    (["--auth-header", "api_key=X-User-Key"],
     "--auth-header works over HTTP only (add --transport http)"),
    (["--transport", "http", "--workers", "2"],
     "--workers 2 needs --stateless (a session lives in one process, and the next request "
     "may reach another)"),
    (["--transport", "http", "--oauth-issuer", "https://as.example.com"],
     "--oauth-issuer needs --oauth-jwks URL"),
    # accepted, it allowed no page (a browser sends scheme://host[:port]) and said nothing
    (["--transport", "http", "--allow-origin", "evil"], "--allow-origin 'evil' is no origin: "
     "expected scheme://host[:port], such as https://app.example.com (RFC 6454)"),
    (["--transport", "http", "--allow-host", "https://mcp.example.com"],
     "--allow-host 'https://mcp.example.com' is no host: expected NAME or NAME:PORT, such as "
     "mcp.example.com (a Host header, RFC 9110 section 7.2)"),
    (["--transport", "http", "--allow-origin", "https://app.example.com/ui"],
     "--allow-origin 'https://app.example.com/ui' is no origin: expected "
     "scheme://host[:port], such as https://app.example.com (RFC 6454)"),
    (["--transport", "http", "--resource-url", "https://mcp.example.com/mcp"],
     "--oauth-jwks, --resource-url and --oauth-scope need --oauth-issuer"),
    (["--transport", "http", "--require-token", "HTTPLLM_TEST_TOKEN", "--oauth-issuer",
      "https://as.example.com"],
     "--require-token and --oauth-issuer: choose one way to admit clients"),
    (["--transport", "http", "--oauth-issuer", "https://as.example.com", "--oauth-jwks",
      "file:///etc/passwd", "--resource-url", "https://mcp.example.com/mcp"],
     "--oauth-jwks file:///etc/passwd: expected an http(s) URL"),
    # --read-only was silently ignored outside code mode: every operation, DELETE too, served
    (["--read-only"], "--read-only applies to --mode code; to serve only reading operations, "
     "--include method:GET --include method:HEAD"),
    # taken and ignored: the trio and code mode list no output schema
    (["--mode", "discover", "--output-schemas", "on"], "--output-schemas on applies to --mode "
     "tools; --mode discover lists no output schema (its answers are text)"),
    (["--mode", "discover", "--read-only"], "--read-only applies to --mode code; to serve only "
     "reading operations, --include method:GET --include method:HEAD"),
    # the same scheme twice was kept silently, an empty credential sent as an empty header
    (["--auth", "apiKey=x", "--auth", "apiKey=y"],
     "--auth apiKey=... is given twice; give each name once"),
    (["--auth", "apiKey="], "--auth apiKey=...: the credential is empty"),
    (["--auth", "apiKey=a\rb"], "--auth apiKey=...: the credential holds a CR, LF or NUL "
     "character, which no request can carry"),
    (["--auth-env", "apiKey=HTTPLLM_TEST_TOKEN", "--auth-env", "apiKey=HTTPLLM_TEST_TOKEN"],
     "--auth-env apiKey=... is given twice; give each name once"),
    (["--transport", "http", "--require-token", "HTTPLLM_TEST_TOKEN", "--auth-header",
      "apiKey=X-A", "--auth-header", "apiKey=X-B"],
     "--auth-header apiKey=... is given twice; give each name once"),
    (["--transport", "http", "--require-token", "HTTPLLM_TEST_TOKEN", "--auth-header",
      "apiKey=X-A\nB"], "--auth-header apiKey=HEADER: 'X-A\\nB' is not a header name (RFC "
     "9110 token: letters, digits and !#$%&'*+.^_`|~-)"),
    (["--transport", "http", "--require-token", "HTTPLLM_TEST_TOKEN", "--auth-header",
      "apiKey="], "--auth-header apiKey=HEADER: '' is not a header name (RFC 9110 token: "
     "letters, digits and !#$%&'*+.^_`|~-)"),
    # each was taken, and every upstream call then failed as a transport error
    (["--header", "X Y=1"], "--header 'X Y'=...: not a header name (RFC 9110 token: "
     "letters, digits and !#$%&'*+.^_`|~-)"),
    (["--header", "X-Y=a\r\nX-Z: 1"], "--header X-Y=...: the value holds a CR, LF or NUL "
     "character, which no request can carry"),
    (["--transport", "http", "--forward-header", "X-Tenant\n"],
     "--forward-header 'X-Tenant\\n' is not a header name (RFC 9110 token: letters, digits "
     "and !#$%&'*+.^_`|~-)"),
    (["--transport", "http", "--require-token", "HTTPLLM_TEST_TOKEN", "--forward-header",
      "Authorization"],
     "Authorization carries the token that admits clients to this server; it is never sent "
     "upstream (use another header for --forward-header/--auth-header)"),
])
def test_admission_misuse_is_one_line_exit_2(capsys: pytest.CaptureFixture[str],
                                             monkeypatch: pytest.MonkeyPatch,
                                             argv: list[str], message: str) -> None:
    """Each misuse of the admission flags exits 2 with one line naming the flags."""
    monkeypatch.setenv("HTTPLLM_TEST_TOKEN", "t0ken")
    monkeypatch.delenv("HTTPLLM_TEST_UNSET", raising=False)
    status, err = run(capsys, *argv)
    assert (status, err) == (2, [f"httpllm serve: error: {message}"])


@pytest.mark.parametrize("argv", [["--keep-alive", "0"], ["--header-timeout", "-1"],
                                  ["--max-sessions-per-client", "0"], ["--workers", "0"],
                                  ["--max-calls-per-session", "x"],
                                  # were taken as given: a negative cut, a 0-byte read
                                  ["--max-result-chars", "-5"], ["--max-answer-bytes", "0"],
                                  # an internal error (Starlette's AssertionError) once started
                                  ["--path", "mcp"], ["--path", "/m?x"]])
def test_limit_values_that_cannot_be_used_exit_2(capsys: pytest.CaptureFixture[str],
                                                 argv: list[str]) -> None:
    """A limit that is not a positive number, or an endpoint path that is no absolute path,
    exits 2 with argparse's one line naming it."""
    status, err = run(capsys, "--transport", "http", *argv)
    assert status == 2 and len(err) == 1
    assert err[0].startswith(f"httpllm serve: error: argument {argv[0]}: expected ")


def mcp_url(line: str) -> str:
    """The endpoint URL a start-up line names."""
    found = re.search(r"over (http://[^\s,]+)", line)
    assert found is not None, line
    return found.group(1)


def wait_for(url: str, process: subprocess.Popen[bytes]) -> None:
    """Return once the server at ``url`` answers (any status).

    Raises:
        RuntimeError: ``process`` ended, or :data:`LIMIT` passed.
    """
    deadline = time.monotonic() + LIMIT
    while True:
        try:
            httpx.post(url, content=b"", timeout=1)
            return
        except httpx.HTTPError:
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("httpllm serve did not start") from None
            time.sleep(0.1)


@contextmanager
def serving(*argv: str, env: dict[str, str] | None = None,
            host: str = "127.0.0.1") -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """``httpllm serve *argv --transport http --port 0`` on ``host``; yields the start-up
    line and the process, once the server answers at the URL that line names."""
    process = subprocess.Popen(
        [sys.executable, "-m", "httpllm", "serve", *argv, "--transport", "http", "--host",
         host, "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        env={"PYTHONPATH": SRC, **(env or {})})
    try:
        assert process.stderr is not None
        line = process.stderr.readline().decode()
        found = re.search(r"over (http://[^\s,]+)", line)
        assert found is not None, line + process.stderr.read().decode()
        wait_for(found.group(1), process)
        yield line, process
    finally:
        process.terminate()
        process.wait(10)


@pytest.mark.slow
def test_a_token_is_required_when_asked_for() -> None:
    """`--require-token VARIABLE`: the start-up line says so, no token is 401, the token
    from the variable gets a session."""
    with serving(PETSTORE, "--require-token", "MCP_TOKEN",
                 env={"MCP_TOKEN": "tok-" + "z" * 20}) as (line, _):
        url = mcp_url(line)
        refused = httpx.post(url, headers=HEADERS, json=INIT, timeout=LIMIT)
        admitted = httpx.post(url, json=INIT, timeout=LIMIT, headers={
            **HEADERS, "Authorization": "Bearer tok-" + "z" * 20})
    assert line.rstrip().endswith("/mcp, bearer token required")
    assert refused.status_code == 401 and admitted.status_code == 200


@pytest.mark.slow
def test_oauth_flags_make_a_resource_server_the_sdk_client_signs_in_to(
        tmp_path: Path) -> None:
    """`--oauth-issuer/--oauth-jwks/--resource-url/--oauth-scope`: the start-up line says
    so, 401 names the RFC 9728 metadata at the origin's root, and the SDK's OAuth client
    (client credentials) follows it to the authorization server and lists the tools."""
    import anyio
    from mcp.client.auth.extensions.client_credentials import ClientCredentialsOAuthProvider
    from mcp.client.session import ClientSession
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    sys.path.insert(0, str(ROOT / "tests" / "server"))
    from serving import served
    from test_admission import CLIENT_ID, CLIENT_SECRET, AuthorizationServer, Memory
    from upstream import free_port

    issuer = AuthorizationServer()
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"

    async def listed() -> list[str]:
        provider = ClientCredentialsOAuthProvider(
            server_url=url, storage=Memory(), client_id=CLIENT_ID,
            client_secret=CLIENT_SECRET, issuer=issuer.url, scope="mcp")
        with anyio.fail_after(LIMIT):
            async with create_mcp_http_client(auth=provider) as client, \
                    streamable_http_client(url, http_client=client) as (read, write), \
                    ClientSession(read, write) as session:
                await session.initialize()
                return [tool.name for tool in (await session.list_tools()).tools]

    with served(issuer.app) as as_url:
        issuer.url = as_url
        process = subprocess.Popen(
            [sys.executable, "-m", "httpllm", "serve", PETSTORE, "--transport", "http",
             "--port", str(port), "--oauth-issuer", as_url, "--oauth-jwks", f"{as_url}/jwks",
             "--resource-url", url, "--oauth-scope", "mcp"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env={"PYTHONPATH": SRC})
        try:
            assert process.stderr is not None
            line = process.stderr.readline().decode()
            wait_for(url, process)
            refused = httpx.post(url, headers=HEADERS, json=INIT, timeout=LIMIT)
            names = anyio.run(listed)
        finally:
            process.terminate()
            process.wait(10)
    assert line.rstrip().endswith("/mcp, OAuth access tokens required")
    assert refused.status_code == 401
    metadata = f"http://127.0.0.1:{port}/.well-known/oauth-protected-resource/mcp"
    assert f'resource_metadata="{metadata}"' in refused.headers["www-authenticate"]
    assert "listPets" in names


@pytest.mark.slow
def test_a_foreign_origin_is_refused_on_a_loopback_address_the_sdk_does_not_list() -> None:
    """Bound to 127.0.0.2 (loopback, but not one of the three addresses the SDK protects),
    a page from another site gets 403 and no session."""
    try:
        socket.create_server(("127.0.0.2", 0)).close()
    except OSError:
        pytest.skip("127.0.0.2 cannot be bound on this machine")
    with serving(PETSTORE, host="127.0.0.2") as (line, _):
        url = mcp_url(line)
        foreign = httpx.post(url, json=INIT, timeout=LIMIT,
                             headers={**HEADERS, "Origin": "http://evil.example"})
        plain = httpx.post(url, json=INIT, timeout=LIMIT, headers=HEADERS)
    assert foreign.status_code == 403 and "mcp-session-id" not in foreign.headers
    assert plain.status_code == 200


def _children(pid: int) -> list[int]:
    """``pid``'s worker processes (multiprocessing's, not its resource tracker)."""
    with open(f"/proc/{pid}/task/{pid}/children") as found:
        kids = [int(p) for p in found.read().split()]
    workers = []
    for kid in kids:
        try:
            if b"spawn_main" in Path(f"/proc/{kid}/cmdline").read_bytes():
                workers.append(kid)
        except OSError:
            continue
    return workers


def _ports(pid: int) -> set[int]:
    """The local TCP ports of ``pid``'s sockets (Linux ``/proc``; none once it is gone)."""
    inodes = set()
    try:
        fds = list(Path(f"/proc/{pid}/fd").iterdir())
    except OSError:
        return set()
    for fd in fds:
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    ports = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for row in Path(table).read_text().splitlines()[1:]:
            fields = row.split()
            if fields[9] in inodes:
                ports.add(int(fields[1].rsplit(":", 1)[1], 16))
    return ports


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs Linux /proc")
@pytest.mark.slow
def test_two_stateless_workers_both_serve(tmp_path: Path) -> None:
    """`--stateless --workers 2`: two processes accept on the one port, and calls from
    fresh connections are answered by both (each reaches the API from its own sockets)."""
    import sys as _sys

    _sys.path.insert(0, str(ROOT / "tests" / "server"))
    from serving import Held, held_document, served

    held = Held()
    with served(held.app) as up:
        spec = tmp_path / "held.json"
        spec.write_text(json.dumps(held_document(up)))
        with serving(str(spec), "--stateless", "--workers", "2") as (line, process):
            url = mcp_url(line)
            def call(n: int) -> bool:
                answer = httpx.post(url, timeout=LIMIT, headers=HEADERS, json={
                    "jsonrpc": "2.0", "id": n, "method": "tools/call",
                    "params": {"name": "fastCall", "arguments": {}}})
                return answer.status_code == 200 and '"fast":true' in answer.text

            served_by: set[int] = set()
            answered: list[bool] = []
            with ThreadPoolExecutor(16) as pool:
                for _ in range(10):
                    answered += pool.map(call, range(16))
                    workers = _children(process.pid)
                    served_by |= {w for w in workers if _ports(w) & set(held.peers)}
                    if len(served_by) >= 2:
                        break
    assert len(workers) == 2
    assert answered and all(answered)
    assert len(served_by) == 2


def _served(doc: Path) -> subprocess.CompletedProcess[str]:
    """`httpllm serve DOC` over stdio with its input closed: what it says before serving,
    then its exit."""
    return subprocess.run([sys.executable, "-m", "httpllm", "serve", str(doc)],
                          stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=LIMIT, env={**os.environ, "PYTHONPATH": SRC})


@pytest.mark.parametrize(("paths", "argv", "why"), [
    ({"/a": {"get": {"operationId": "a", "responses": {"200": {"description": "ok"}}}}},
     ["--include", "tag:nosuch"], "no operation of the document's 1 matched --include/"),
    ({}, [], "the document has no operations under paths"),
    ({"/a": {"$ref": "missing.yaml"}}, [], "every selected operation was skipped (1)")])
def test_serve_refuses_to_serve_no_tool(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                        paths: dict[str, object], argv: list[str],
                                        why: str) -> None:
    """``serve`` of a document that gives no tool (nothing under paths, an --include that
    matches nothing, every operation left out) said "serving 0 tools" and served an empty
    list, exit 0: a host started a server with no tool and nobody was told why. It exits 3
    (no tool at all, as ``compile``) saying why in one line."""
    doc = tmp_path / "api.json"
    doc.write_text(json.dumps({"openapi": "3.0.0", "info": {"title": "t", "version": "1"},
                               "paths": paths}))
    try:
        status = main(["serve", str(doc), *argv])
    except SystemExit as exc:
        status = int(exc.code or 0)
    err = capsys.readouterr().err.splitlines()
    assert status == 3
    assert err[-1].startswith(f"httpllm: error: no tools to serve: {why}")
    assert not any("serving" in line for line in err)


def test_one_operation_left_out_is_said_in_the_singular(tmp_path: Path) -> None:
    """The serving line counted "(1 operations left out)"."""
    doc = tmp_path / "api.json"
    doc.write_text(json.dumps({
        "openapi": "3.0.0", "info": {"title": "t", "version": "1"},
        "paths": {"/a": {"get": {"operationId": "ga", "parameters": [
            {"name": "n", "in": "query", "schema": {"$ref": "#/components/schemas/nope"}}],
            "responses": {"200": {"description": "ok"}}}},
                  "/b": {"get": {"operationId": "gb",
                                 "responses": {"200": {"description": "ok"}}}}}}))
    done = _served(doc)
    assert "httpllm: serving 1 tool over stdio (1 operation left out)" in done.stderr
    assert "Traceback" not in done.stderr


def test_the_help_says_what_spec_may_be(capsys: pytest.CaptureFixture[str]) -> None:
    """SPEC may be a URL or standard input for `serve` too (over HTTP); its help said
    "OpenAPI document (path)" while every other command's said the three."""
    with pytest.raises(SystemExit):
        main(["serve", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert ("a path, an http(s) URL (with --allow-network), or - for stdin with --transport "
            "http") in text


def test_a_line_break_in_the_document_never_writes_a_start_up_line(tmp_path: Path) -> None:
    """What serve says before serving (operations left out, the serving line) is one line
    each: a path or $ref holding a line break cannot print a fake serving line."""
    forged = "httpllm: serving 9 tools over http://127.0.0.1:8000/mcp"
    doc = tmp_path / "api.json"
    doc.write_text(json.dumps({
        "openapi": "3.0.0", "info": {"title": "t", "version": "1"},
        "paths": {"/a\r\n" + forged: {"get": {"operationId": "ga", "parameters": [
            {"name": "n", "in": "query",
             "schema": {"$ref": "#/components/schemas/no\u2029" + forged}}],
            "responses": {"200": {"description": "ok"}}}},
                  "/b": {"get": {"operationId": "gb",
                                 "responses": {"200": {"description": "ok"}}}}}}))
    lines = _served(doc).stderr.splitlines()
    assert forged not in lines
    assert lines[0].startswith(f"httpllm: left out GET /a\\r\\n{forged}: #/paths/~1a\\r\\n")
    assert lines[1] == "httpllm: serving 1 tool over stdio (1 operation left out)"
