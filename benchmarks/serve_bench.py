"""MCP serving, httpllm next to FastMCP: start-up to the first ``tools/list`` and memory on
GitHub's description, then tool-call round trips against a local upstream.

    python benchmarks/serve_bench.py [--runs 3] [--calls 200] [--concurrency 20]
        [--spec PATH] [--json out.json] [--no-fastmcp]

Start-up: each server is started as a stdio subprocess (``httpllm serve SPEC``;
``FastMCP.from_openapi(doc).run_async("stdio")``) and a raw JSON-RPC client (no SDK, so
the client's own parsing is not counted) writes ``initialize``, ``notifications/initialized``
and ``tools/list`` at once, then reads. Reported per run: seconds from spawn to the
``initialize`` answer and to the whole ``tools/list`` answer, its size, and the server's
RSS after the listing (``VmRSS``) and at peak (``VmHWM``), from ``/proc``. For reference,
the same process also times ``httpllm.compile(SPEC, "mcp")`` alone in a fresh subprocess.

Round trips: a small upstream (Starlette, ``GET /items/{id}`` -> JSON) runs under uvicorn
on 127.0.0.1; each server serves its document over streamable HTTP on a loopback port;
the SDK's own client calls ``getItem`` ``--calls`` times one after the other (latency
p50/p99, after 20 warm-up calls), then ``--calls`` times with ``--concurrency`` calls in
flight (calls per second). Loopback only. The machine may be shared: the figures are for
comparing the two servers in the same run, not absolute.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import statistics
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
SRC = BENCH.parent / "src"
sys.path.insert(0, str(BENCH))
from _util import github_spec  # noqa: E402 - benchmarks/ is on sys.path now

ENV = {**os.environ, "PYTHONPATH": f"{SRC}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}

FASTMCP_STDIO = textwrap.dedent("""
    import asyncio, json, sys, httpx2
    from fastmcp import FastMCP
    doc = json.load(open(sys.argv[1]))
    server = FastMCP.from_openapi(doc, client=httpx2.AsyncClient(base_url=sys.argv[2]))
    asyncio.run(server.run_async("stdio", show_banner=False))
""")
FASTMCP_HTTP = textwrap.dedent("""
    import asyncio, json, sys, httpx2
    from fastmcp import FastMCP
    doc = json.load(open(sys.argv[1]))
    server = FastMCP.from_openapi(doc, client=httpx2.AsyncClient(base_url=sys.argv[2]))
    asyncio.run(server.run_http_async(show_banner=False, host="127.0.0.1",
                                      port=int(sys.argv[3]), log_level="warning"))
""")
UPSTREAM = textwrap.dedent("""
    import sys, uvicorn
    from starlette.applications import Starlette
    from starlette.responses import JSONResponse
    from starlette.routing import Route
    async def item(request):
        return JSONResponse({"id": request.path_params["id"],
                             "verbose": request.query_params.get("verbose") == "true"})
    app = Starlette(routes=[Route("/items/{id}", item)])
    uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")
""")


def small_document(url: str) -> dict[str, Any]:
    """One GET operation with a path and a query parameter and an object answer."""
    item = {"type": "object", "properties": {"id": {"type": "string"},
                                             "verbose": {"type": "boolean"}}}
    return {"openapi": "3.1.0", "info": {"title": "items", "version": "1"},
            "servers": [{"url": url}], "paths": {"/items/{id}": {"get": {
                "operationId": "getItem", "summary": "Get one item",
                "parameters": [
                    {"name": "id", "in": "path", "required": True,
                     "schema": {"type": "string"}},
                    {"name": "verbose", "in": "query", "schema": {"type": "boolean"}}],
                "responses": {"200": {"description": "ok", "content": {
                    "application/json": {"schema": item}}}}}}}}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_port(port: int, process: subprocess.Popen[bytes], limit: float = 120.0) -> None:
    deadline = time.monotonic() + limit
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("server did not start") from None
            time.sleep(0.05)


def memory(pid: int) -> dict[str, int]:
    """``VmRSS`` and ``VmHWM`` of a process, in bytes."""
    out = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            out[key] = int(value.split()[0]) * 1024
    return out


def startup(command: list[str]) -> dict[str, Any]:
    """Spawn a stdio server; time the ``initialize`` and first ``tools/list`` answers."""
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "bench", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}},
    ]
    start = time.perf_counter()
    process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, env=ENV)
    assert process.stdin is not None and process.stdout is not None
    try:
        process.stdin.write(b"".join(json.dumps(m).encode() + b"\n" for m in messages))
        process.stdin.flush()
        seen: dict[int, float] = {}
        size = tools = 0
        while 2 not in seen:
            line = process.stdout.readline()
            if not line:
                raise RuntimeError("the server closed stdout")
            answer = json.loads(line)
            if "id" in answer:
                seen[answer["id"]] = time.perf_counter() - start
                if answer["id"] == 2:
                    size, tools = len(line), len(answer["result"]["tools"])
        return {"initialize_s": round(seen[1], 3), "first_list_s": round(seen[2], 3),
                "tools": tools, "list_bytes": size, **memory(process.pid)}
    finally:
        process.kill()
        process.wait()


def compile_alone(spec: Path) -> float:
    code = (f"import time, httpllm; t = time.perf_counter(); "
            f"httpllm.compile({str(spec)!r}, 'mcp'); print(time.perf_counter() - t)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=ENV, check=True)
    return float(done.stdout.strip())


def startup_table(spec: Path, runs: int, fastmcp: bool) -> dict[str, Any]:
    servers = {"httpllm": [sys.executable, "-m", "httpllm", "serve", str(spec)]}
    if fastmcp:
        servers["fastmcp"] = [sys.executable, "-c", FASTMCP_STDIO, str(spec),
                              "http://127.0.0.1:9"]
    out: dict[str, Any] = {"compile_s": [round(compile_alone(spec), 3) for _ in range(runs)]}
    for name, command in servers.items():
        out[name] = [startup(command) for _ in range(runs)]
    return out


async def round_trips(url: str, calls: int, concurrency: int) -> dict[str, Any]:
    from mcp.client.session import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    async with streamable_http_client(url) as (read, write), \
            ClientSession(read, write) as session:
        await session.initialize()
        await session.list_tools()
        for i in range(20):
            await session.call_tool("getItem", {"id": f"w{i}", "verbose": True})
        latencies = []
        for i in range(calls):
            start = time.perf_counter()
            result = await session.call_tool("getItem", {"id": f"s{i}", "verbose": True})
            latencies.append(time.perf_counter() - start)
            assert not result.is_error, result
        semaphore = asyncio.Semaphore(concurrency)

        async def one(i: int) -> None:
            async with semaphore:
                result = await session.call_tool("getItem", {"id": f"c{i}", "verbose": True})
                assert not result.is_error, result

        start = time.perf_counter()
        await asyncio.gather(*(one(i) for i in range(calls)))
        elapsed = time.perf_counter() - start
    latencies.sort()
    return {"p50_ms": round(statistics.median(latencies) * 1000, 2),
            "p99_ms": round(latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))]
                            * 1000, 2),
            "calls_per_s": round(calls / elapsed, 1), "calls": calls,
            "concurrency": concurrency}


def round_trip_table(calls: int, concurrency: int, fastmcp: bool,
                     folder: Path) -> dict[str, Any]:
    upstream_port = free_port()
    upstream = subprocess.Popen([sys.executable, "-c", UPSTREAM, str(upstream_port)], env=ENV)
    out: dict[str, Any] = {}
    try:
        wait_port(upstream_port, upstream)
        base = f"http://127.0.0.1:{upstream_port}"
        spec = folder / "items.json"
        spec.write_text(json.dumps(small_document(base)))
        servers = {"httpllm": lambda port: [sys.executable, "-m", "httpllm", "serve", str(spec),
                                            "--transport", "http", "--port", str(port)]}
        if fastmcp:
            servers["fastmcp"] = lambda port: [sys.executable, "-c", FASTMCP_HTTP, str(spec),
                                               base, str(port)]
        for name, command in servers.items():
            port = free_port()
            server = subprocess.Popen(command(port), stdout=subprocess.DEVNULL,
                                      stderr=subprocess.DEVNULL, env=ENV)
            try:
                wait_port(port, server)
                out[name] = asyncio.run(round_trips(f"http://127.0.0.1:{port}/mcp", calls,
                                                    concurrency))
            finally:
                server.terminate()
                server.wait(10)
    finally:
        upstream.terminate()
        upstream.wait(10)
    return out


def has_fastmcp() -> bool:
    try:
        import fastmcp  # noqa: F401 - only checks that the peer is installed
    except ImportError:
        return False
    return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--concurrency", type=int, default=20)
    parser.add_argument("--spec", type=Path, default=None)
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--no-fastmcp", action="store_true")
    args = parser.parse_args(argv)
    spec = args.spec or github_spec()
    fastmcp = not args.no_fastmcp and has_fastmcp()
    folder = Path(os.environ.get("TMPDIR", "/tmp")) / f"serve-bench-{os.getpid()}"
    folder.mkdir(exist_ok=True)
    report = {"spec": str(spec), "load_average": os.getloadavg(),
              "startup": startup_table(spec, args.runs, fastmcp),
              "round_trips": round_trip_table(args.calls, args.concurrency, fastmcp, folder)}
    print(json.dumps(report, indent=2))
    if args.json:
        args.json.write_text(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
