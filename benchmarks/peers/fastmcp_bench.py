"""Peer benchmark: FastMCP's OpenAPI import, run in its own process; prints one JSON line.

    python benchmarks/peers/fastmcp_bench.py SPEC [--variant routes|tools] [--runs 7]
        [--warmup 1] [--mode time|trace]

Variants (the parsed document is deep-copied and gc.collect() run before the clock starts):
  routes : fastmcp.utilities.openapi.parse_openapi_to_http_routes(doc) -> list[HTTPRoute]
           (openapi-pydantic validation of the whole document + route extraction).
  tools  : OpenAPIProvider(doc, client=<idle httpx2 client made outside the timer>)
           -> provider.list_tools() -> json.dumps([t.to_mcp_tool().model_dump(...)])
           the full pipeline up to the MCP `tools/list` payload (includes FastMCP's
           jsonschema-path SchemaPath/RequestDirector setup and output schemas).

If fastmcp is not installed the script prints {"status": "skipped"} and exits 0.
FastMCP has no per-operation error list: an invalid document raises as a whole, which is
reported as status "error"; `errors` is null.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import sys
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from _util import (
    FreshCopies,
    count_operations,
    current_rss_bytes,
    emit,
    load_document,
    partial_emitter,
    peak_rss_bytes,
    time_runs,
    traced_peak_bytes,
)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("spec", type=Path)
    ap.add_argument("--variant", choices=("routes", "tools"), default="tools")
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--budget", type=float, default=240.0)
    ap.add_argument("--mode", choices=("time", "trace"), default="time")
    return ap.parse_args(argv)


def routes_runner() -> tuple[Callable[[Any], Any], str]:
    from fastmcp.utilities.openapi import parse_openapi_to_http_routes

    def run(doc: Any) -> Any:
        routes = parse_openapi_to_http_routes(doc)
        return routes, None

    return run, "fastmcp.utilities.openapi.parse_openapi_to_http_routes(doc)"


def tools_runner() -> tuple[Callable[[Any], Any], str]:
    import httpx2
    from fastmcp.server.providers.openapi import OpenAPIProvider

    client = httpx2.AsyncClient(base_url="http://127.0.0.1:9")  # never used to send
    loop = asyncio.new_event_loop()

    def run(doc: Any) -> Any:
        provider = OpenAPIProvider(doc, client=client)
        tools = loop.run_until_complete(provider.list_tools())
        payload = [
            t.to_mcp_tool().model_dump(mode="json", by_alias=True, exclude_none=True) for t in tools
        ]
        return tools, json.dumps(payload)

    call = (
        "json.dumps([t.to_mcp_tool().model_dump(mode='json', by_alias=True, "
        "exclude_none=True) for t in await OpenAPIProvider(doc, client=c).list_tools()])"
    )
    return run, call


def measure(args: argparse.Namespace, out: dict[str, Any]) -> None:
    import fastmcp

    out["fastmcp_version"] = fastmcp.__version__
    # FastMCP logs every validation problem at ERROR level; keep stderr readable.
    logging.getLogger("fastmcp").setLevel(logging.CRITICAL)
    run, call = routes_runner() if args.variant == "routes" else tools_runner()
    out["call"] = call
    doc = load_document(args.spec)
    out["n_operations"] = count_operations(doc)
    copies = FreshCopies(doc)
    del doc
    out["rss_after_load_bytes"] = current_rss_bytes()
    if args.mode == "trace":
        out["tracemalloc_peak_bytes"] = traced_peak_bytes(copies.get, run)
        out["status"] = "ok"
        return
    timing, (items, text) = time_runs(
        copies.get,
        run,
        runs=args.runs,
        warmup=args.warmup,
        budget_s=args.budget,
        progress=partial_emitter(out),
    )
    out.update(
        status="ok",
        **timing.summary(),
        functions=len(items),
        errors=None,
        tools_json_bytes=len(text.encode()) if text is not None else None,
    )


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    out: dict[str, Any] = {
        "tool": "fastmcp",
        "variant": args.variant,
        "spec": str(args.spec),
        "mode": args.mode,
        "warmup": args.warmup,
    }
    try:
        import fastmcp  # noqa: F401
    except ImportError as exc:
        out.update(status="skipped", error=f"fastmcp not installed: {exc}")
        emit(out)
        return 0
    try:
        measure(args, out)
    except Exception as exc:
        tb = traceback.format_exc().strip().splitlines()
        out.update(status="error", error=f"{type(exc).__name__}: {exc}"[:2000], traceback=tb[-6:])
    out["peak_rss_bytes"] = peak_rss_bytes()
    emit(out)
    return 0 if out["status"] in ("ok", "skipped") else 1


if __name__ == "__main__":
    raise SystemExit(main())
