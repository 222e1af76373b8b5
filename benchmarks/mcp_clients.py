"""The MCP client matrix, measured: client x transport x document -> list time, pages, calls.

    python benchmarks/mcp_clients.py [--src PATH] [--output-schemas auto|on|off] [--hosts]
        [--documents github,stripe,...] [--limit SECONDS] [--json out.json]
    python benchmarks/mcp_clients.py --table before.json[,more.json] after.json[,more.json]

Each run starts ``httpllm serve`` on one document (over stdio through the client, or over
streamable HTTP on a loopback port) and points one client at it: the official TypeScript
SDK client (``client.listTools()`` page by page, following ``nextCursor``, as a host calls
it; validator compile for every output schema included) and the Python SDK client in the
2025-11-25 and 2026-07-28 eras; with ``--hosts`` also Claude Code (``mcp_status``) and
Codex (``mcpServerStatus/list``). The clients are the tests' (``tests/server/clients/``,
installed by their ``setup.sh``); the calls are the tests' three valid calls and one
invalid one per document, against the tests' upstream on 127.0.0.1.

Reported per run: seconds to list every tool (client side, from the first ``tools/list``
to the last page; hosts: from the host's start to its answer), the number of pages and the
largest in bytes (as written on stdio; over HTTP the page's result JSON), tools listed,
valid calls that succeeded (of 3) and whether the invalid call was an error result, or why
the run failed. ``--src`` serves another source tree (another checkout's ``src``, e.g.
``../main/src``, for the "before" column). The machine may be shared and has 2 cores:
compare figures of one run.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

import anyio

BENCH = Path(__file__).resolve().parent
sys.path[:0] = [str(BENCH.parent / "tests" / "server"), str(BENCH.parent / "tests"), str(BENCH)]

from _util import specs_root  # noqa: E402 - the tests' helpers are on sys.path now
from clients import documents, runners  # noqa: E402
from clients.host_runs import run_claude, run_codex  # noqa: E402
from clients.node import install  # noqa: E402
from loopback import running  # noqa: E402


def _row(document: str, report: Any, total: int) -> dict[str, Any]:
    calls = getattr(report, "calls", [])
    return {
        "document": document, "client": getattr(report, "client", getattr(report, "host", "")),
        "transport": getattr(report, "transport", "stdio"),
        "list_seconds": round(getattr(report, "list_seconds", 0) or getattr(
            report, "seconds", 0), 2),
        "pages": len(report.pages) if hasattr(report, "pages") else None,
        "largest_page": max(report.pages) if getattr(report, "pages", None) else None,
        "tools": len(getattr(report, "names", None) or getattr(report, "tools", [])),
        "of_tools": total,
        "calls_ok": sum(c.ok for c in calls[:3]) if calls else None,
        "invalid_is_error": (calls[3].is_error is True) if len(calls) > 3 else None,
        "error": (report.error or _host_trouble(report, total)).replace("\n", " ")[:300],
    }


def _host_trouble(report: Any, total: int) -> str:
    """What a host said when it loaded fewer tools than listed (its status, its message)."""
    tools = getattr(report, "tools", None)
    if tools is None or len(tools) == total:
        return ""
    said = getattr(report, "summary", "") if getattr(report, "host", "") == "codex" else ""
    return f"{report.status or 'no status'}" + (f": {said}" if said else "")


def run(args: argparse.Namespace) -> list[dict[str, Any]]:
    import httpllm

    if args.src:
        runners.ENV["PYTHONPATH"] = args.src
    documents.OUTPUT_SCHEMAS = args.output_schemas
    install()
    if args.hosts:
        install("hosts")
    chosen = [d for d in (*documents.DOCUMENTS, *documents.LISTED_ONLY)
              if not args.documents or d.id in args.documents]
    rows = []
    with running(documents.UPSTREAM) as api, tempfile.TemporaryDirectory() as scratch:
        for document in chosen:
            path = document.location(specs_root())
            total = len(httpllm.compile(path, "mcp").functions)
            command = runners.serve_command(path, documents.serve_flags(document, api))
            calls = [(c.tool, c.arguments) for c in document.calls] + (
                [document.invalid] if document.invalid else [])
            for transport in args.transports:
                for client in args.clients:
                    log = Path(scratch) / f"{document.id}-{client}-{transport}.jsonl"
                    rows.append(_row(document.id, _one(client, transport, command, calls, log,
                                                       args.limit), total))
                    print(json.dumps(rows[-1]), flush=True)
            if args.hosts and document.hosts and args.clients == runners.CLIENTS:
                for host in (run_claude, run_codex):
                    log = Path(scratch) / f"{document.id}-{host.__name__}.jsonl"
                    home = Path(tempfile.mkdtemp(dir=scratch))
                    report = host("api", runners.tapped(command, log),
                                  {"PYTHONPATH": runners.ENV["PYTHONPATH"]}, home,
                                  limit=args.limit)
                    report.pages = runners.tapped_pages(log)  # type: ignore[attr-defined]
                    rows.append(_row(document.id, report, total))
                    print(json.dumps(rows[-1]), flush=True)
    return rows


def _one(client: str, transport: str, command: list[str],
         calls: list[tuple[str, dict[str, Any]]], log: Path, limit: float) -> Any:
    if transport == "http":
        with runners.http_server(command) as url:
            return _client(client, url, calls, None, limit)
    return _client(client, runners.tapped(command, log), calls, log, limit)


def _client(client: str, target: list[str] | str, calls: list[tuple[str, dict[str, Any]]],
            log: Path | None, limit: float) -> Any:
    if client == "typescript":
        return runners.run_typescript(target, calls, log=log, limit=limit)
    return anyio.run(lambda: runners.run_python(client.removeprefix("python-"), target, calls,
                                                log=log, limit=limit))


def table(before: list[dict[str, Any]], after: list[dict[str, Any]]) -> str:
    """A Markdown table of two runs side by side, one row per document, client, transport."""
    def cell(row: dict[str, Any] | None) -> str:
        if row is None:
            return "-"
        if row["error"] or row["tools"] != row["of_tools"]:
            why = (row["error"][:60].replace("|", "/")
                   or f"{row['tools']} of {row['of_tools']} tools")
            return f"fails: {why}"
        calls = "" if row["calls_ok"] is None else (
            f", calls {row['calls_ok']}/3" + ("" if row["invalid_is_error"] else " (invalid!)"))
        largest = row["largest_page"] or 0
        return (f"{row['list_seconds']:.2f} s, {row['pages']} p <= "
                f"{largest / 2**20:.2f} MiB{calls}")
    key = ("document", "client", "transport")
    old = {tuple(r[k] for k in key): r for r in before}
    lines = ["| document | client | transport | before | after |", "|---|---|---|---|---|"]
    for row in {tuple(r[k] for k in key): r for r in after}.values():
        lines.append(f"| {row['document']} | {row['client']} | {row['transport']} | "
                     f"{cell(old.get(tuple(row[k] for k in key)))} | {cell(row)} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--src", help="serve this source tree (PYTHONPATH) instead")
    parser.add_argument("--output-schemas", choices=("auto", "on", "off"), default="auto",
                        help="serve with this --output-schemas (off: --no-output-schemas, "
                             "which servers from before the choice know too)")
    parser.add_argument("--no-output-schemas", action="store_const", const="off",
                        dest="output_schemas", help="the same as --output-schemas off")
    parser.add_argument("--hosts", action="store_true", help="also Claude Code and Codex")
    parser.add_argument("--documents", type=lambda s: s.split(","), default=[])
    parser.add_argument("--clients", type=lambda s: s.split(","), default=runners.CLIENTS,
                        help=f"of {','.join(runners.CLIENTS)} (all)")
    parser.add_argument("--transports", type=lambda s: s.split(","),
                        default=runners.TRANSPORTS, help="stdio,http (both)")
    parser.add_argument("--limit", type=float, default=300.0,
                        help="seconds one client run may take (300)")
    parser.add_argument("--json", type=Path, help="write the rows here too")
    parser.add_argument("--table", nargs=2, metavar=("BEFORE", "AFTER"),
                        help="print two --json files as a Markdown table, run nothing")
    args = parser.parse_args()
    if args.table:  # later files' rows replace earlier ones of the same run
        print(table(*([row for p in paths.split(",") for row in json.loads(Path(p).read_text())]
                      for paths in args.table)))
        return
    rows = run(args)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1) + "\n")


if __name__ == "__main__":
    main()
