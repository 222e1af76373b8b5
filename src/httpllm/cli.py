"""The ``httpllm`` command: ``compile``, ``inspect`` and ``call``.

Exit status: 0 on success; 1 with a one-line message on stderr when the input is invalid
(an :class:`~httpllm.errors.HttpllmError`); 2 for a usage error (argparse).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any

from httpllm._api import Application, compile
from httpllm.dialects import get_dialect, providers
from httpllm.errors import HttpllmError

__all__ = ["main"]


def _add_compile_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--provider", "-p", default="chatgpt",
                        help="target dialect (see --list-providers); default chatgpt")
    parser.add_argument("--strict", action="store_true", help="the provider's strict mode")
    parser.add_argument("--reference", action="store_true",
                        help="keep named schemas under $defs instead of inlining them")
    parser.add_argument("--strip-constraints", action="store_true",
                        help="move validation keywords into descriptions")
    parser.add_argument("--unroll", type=int, default=None, metavar="K",
                        help="unroll recursion K levels for dialects without $ref")
    parser.add_argument("--envelope", default=None,
                        help="envelope variant, e.g. 'responses' for OpenAI")
    parser.add_argument("--include", action="append", default=None, metavar="SELECTOR",
                        help="only these operations: tag:T, 'GET /path/*', /path/*, operationId")
    parser.add_argument("--exclude", action="append", default=None, metavar="SELECTOR",
                        help="leave these operations out (same selectors)")
    parser.add_argument("--allow-network", action="store_true",
                        help="allow $refs to http(s) URLs (never fetched otherwise)")
    parser.add_argument("--allow-outside-root", action="store_true",
                        help="allow $refs to files outside the document's folder")


def _compile(args: argparse.Namespace) -> Application:
    return compile(args.spec, args.provider, strict=args.strict, reference=args.reference,
                   strip_constraints=args.strip_constraints, unroll=args.unroll,
                   envelope=args.envelope, include=args.include, exclude=args.exclude,
                   allow_network=args.allow_network,
                   allow_outside_root=args.allow_outside_root)


def _write(text: str, output: str | None) -> None:
    if output:
        with open(output, "w", encoding="utf-8") as handle:
            handle.write(text + "\n")
    else:
        sys.stdout.write(text + "\n")


def _report_errors(app: Application) -> None:
    for error in app.errors:
        where = f"{error.method.upper()} {error.path}".strip()
        print(f"httpllm: skipped {where}: {error.pointer}: {error.message}", file=sys.stderr)
    for warning in app.warnings:
        print(f"httpllm: warning: {warning.pointer}: {warning.message}", file=sys.stderr)


def _cmd_compile(args: argparse.Namespace) -> int:
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
    app = _compile(args)
    _report_errors(app)
    if args.losses:
        out: Any = [loss.to_json() | {"function": f.name} for f in app.functions
                    for loss in f.losses]
    else:
        out = app.tools()
    _write(json.dumps(out, indent=2, ensure_ascii=False), args.output)
    return 0


def _cmd_inspect(args: argparse.Namespace) -> int:
    app = _compile(args)
    print(f"OpenAPI {app.version}: {len(app.functions)} functions, {len(app.errors)} errors, "
          f"provider {app.provider}")
    print("\nOperations:")
    for f in app.functions:
        args_text = ", ".join(f"{a.name}{'' if a.required else '?'}:{a.location}"
                              for a in f.arguments)
        print(f"  {f.name:<40} {f.method.upper():<7} {f.path}  ({args_text})")
    print("\nRecursive schemas:")
    for cycle in app.cycles:
        print("  cycle: " + " -> ".join([*cycle, cycle[0]]))
    if not app.cycles:
        print("  (none)")
    print("\nErrors:")
    for error in app.errors:
        print(f"  {error.method.upper()} {error.path}: {error.pointer}: {error.message}")
    if not app.errors:
        print("  (none)")
    for warning in app.warnings:
        print(f"  warning: {warning.pointer}: {warning.message}")
    return 0


def _cmd_call(args: argparse.Namespace) -> int:
    from httpllm.execute import build_request, validate

    app = _compile(args)
    function = app.function(args.function)
    result = validate(function, args.args)
    if not result.ok:
        print(result.feedback(), file=sys.stderr)
        return 1
    auth = dict(item.split("=", 1) for item in args.auth or [] if "=" in item) or None
    request = build_request(function, args.args, base_url=args.base_url, auth=auth)
    print(f"{request.method} {request.url}")
    for key, value in request.headers.items():
        print(f"{key}: {value}")
    if request.content:
        print()
        print(request.content.decode("utf-8", "replace"))
    if args.send:
        from httpllm.execute import execute

        response = execute(function, args.args, base_url=args.base_url, auth=auth)
        print(f"\n=> {response.status}")
        print(json.dumps(response.body, indent=2) if not isinstance(response.body, str)
              else response.body)
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="httpllm", description=(
        "Compile OpenAPI 3.0/3.1 documents into LLM function-calling tools."))
    sub = parser.add_subparsers(dest="command", required=True)
    comp = sub.add_parser("compile", help="print or write the tool list")
    comp.add_argument("spec", nargs="?", help="OpenAPI document (path)")
    _add_compile_options(comp)
    comp.add_argument("-o", "--output", help="write to this file instead of stdout")
    comp.add_argument("--losses", action="store_true",
                      help="print the loss report instead of the tools")
    comp.add_argument("--list-providers", action="store_true", help="list the providers")
    comp.set_defaults(handler=_cmd_compile)
    insp = sub.add_parser("inspect", help="operations, recursive schemas and errors")
    insp.add_argument("spec", help="OpenAPI document (path)")
    _add_compile_options(insp)
    insp.set_defaults(handler=_cmd_inspect)
    call = sub.add_parser("call", help="validate a tool call and print (or send) the request")
    call.add_argument("spec", help="OpenAPI document (path)")
    call.add_argument("function", help="function name")
    call.add_argument("--args", required=True, help="the arguments, as JSON")
    call.add_argument("--base-url", default=None, help="server URL to use")
    call.add_argument("--send", action="store_true", help="send the request")
    call.add_argument("--auth", action="append", metavar="SCHEME=VALUE",
                      help="a credential for a security scheme (repeatable)")
    _add_compile_options(call)
    call.set_defaults(handler=_cmd_call)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status."""
    args = _parser().parse_args(argv)
    try:
        status: int = args.handler(args)
    except HttpllmError as exc:
        print(f"httpllm: error: {exc}".splitlines()[0], file=sys.stderr)
        return 1
    except BrokenPipeError:
        return 0
    return status


if __name__ == "__main__":
    raise SystemExit(main())
