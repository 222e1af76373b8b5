"""``httpllm compile``: print or write the tool list (or the loss report)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from httpllm.cli._common import add_compile_options, compile_from, report_errors, write
from httpllm.dialects import get_dialect, providers

__all__ = ["register"]


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``compile`` command."""
    comp = sub.add_parser("compile", help="print or write the tool list")
    comp.add_argument("spec", nargs="?", help="OpenAPI document (path)")
    add_compile_options(comp)
    comp.add_argument("-o", "--output", help="write to this file instead of stdout")
    comp.add_argument("--losses", action="store_true",
                      help="print the loss report instead of the tools")
    comp.add_argument("--list-providers", action="store_true", help="list the providers")
    comp.add_argument("--discover", action="store_true",
                      help="print the search/describe/invoke trio instead of every tool")
    comp.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if args.list_providers:
        for name in providers():
            dialect = get_dialect(name)
            aliases = f" (alias {', '.join(dialect.aliases)})" if dialect.aliases else ""
            strict = " [strict]" if dialect.has_strict else ""
            print(f"{name}{aliases}{strict}")
        return 0
    if not args.spec:
        print("httpllm: compile needs a SPEC (or --list-providers)", file=sys.stderr)
        return 2
    app = compile_from(args)
    report_errors(app)
    if args.discover:
        from httpllm.toolsets.discover import discover

        out: Any = discover(app).tools
    elif args.losses:
        out = [loss.to_json() | {"function": f.name} for f in app.functions
               for loss in f.losses]
    else:
        out = app.tools()
    write(json.dumps(out, indent=2, ensure_ascii=False), args.output)
    return 0


