"""``httpllm serve``: the document as an MCP server over stdio or streamable HTTP.

Stdout carries the protocol and nothing else (stdio transport): the start-up report (the
operations left out, the tool count) goes to stderr. Credentials come from flags, from
environment variables (``--auth-env``, which keeps them out of the process list) or, over
HTTP, from a header of each incoming request (``--auth-header``, one credential per user).
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
from collections.abc import Mapping
from typing import Any

from httpllm._api import Application
from httpllm.cli._common import add_compile_options, at_least, compile_from
from httpllm.errors import HttpllmError

__all__ = ["register"]


_LOOPBACK = ("127.0.0.1", "localhost", "::1")


class UsageError(HttpllmError):
    """A flag's value cannot be used (reported as one line, exit status 1)."""


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``serve`` command."""
    serve = sub.add_parser("serve", help="serve the document as an MCP server",
                           description="Serve every operation as an MCP tool, over stdio "
                                       "(default) or streamable HTTP.")
    serve.add_argument("spec", help="OpenAPI document (path)")
    serve.add_argument("--transport", choices=("stdio", "http"), default="stdio",
                       help="stdio (default) or streamable HTTP")
    serve.add_argument("--host", default="127.0.0.1",
                       help="address to bind over HTTP (default 127.0.0.1)")
    serve.add_argument("--port", type=_port, default=8000,
                       help="TCP port over HTTP (8000; 0 picks a free one)")
    serve.add_argument("--path", default="/mcp", help="endpoint path over HTTP (/mcp)")
    serve.add_argument("--base-url", default=None,
                       help="send requests here instead of the document's server")
    serve.add_argument("--auth", action="append", default=[], metavar="SCHEME=VALUE",
                       help="a credential for a security scheme (user:password for basic); "
                            "prefer --auth-env, which keeps it out of the process list")
    serve.add_argument("--auth-env", action="append", default=[], metavar="SCHEME=VARIABLE",
                       help="read a scheme's credential from an environment variable")
    serve.add_argument("--auth-header", action="append", default=[], metavar="SCHEME=HEADER",
                       help="over HTTP: take a scheme's credential from this header of each "
                            "incoming request (one credential per user)")
    serve.add_argument("--header", action="append", default=[], metavar="NAME=VALUE",
                       help="a header sent with every upstream request")
    serve.add_argument("--forward-header", action="append", default=[], metavar="NAME",
                       help="over HTTP: copy this incoming request header upstream")
    serve.add_argument("--no-output-schemas", action="store_true",
                       help="list no outputSchema and answer text only (for APIs whose "
                            "answers drift from their documented schemas)")
    serve.add_argument("--mode", choices=("tools", "discover"), default="tools",
                       help="'tools': one tool per operation (default); 'discover': three "
                            "tools, search -> describe -> invoke, for APIs too large to "
                            "list (needs the search extra)")
    serve.add_argument("--max-result-chars", type=int, default=None, metavar="N",
                       help="cut answers longer than N characters, with a note (40000)")
    serve.add_argument("--max-page-bytes", type=at_least(0), default=None, metavar="BYTES",
                       help="list the tools in pages of at most BYTES bytes, which hosts "
                            "follow by cursor (1048576); 0: one page, for a host that "
                            "reads only the first")
    add_compile_options(serve)
    serve.set_defaults(handler=run, provider="mcp")
    serve._option_string_actions["--provider"].help = "tool dialect; default mcp"


def _port(text: str) -> int:
    """argparse type: a TCP port, 0 to 65535."""
    try:
        port = int(text)
    except ValueError:
        port = -1
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"expected a port from 0 to 65535, not {text!r}")
    return port


def _pairs(values: list[str], flag: str) -> dict[str, str]:
    out = {}
    for item in values:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise UsageError(f"{flag} {item.split('=', 1)[0]!r}: expected NAME=VALUE")
        out[key] = value
    return out


def _schemes(app: Application) -> dict[str, Any]:
    return {k: v for f in app.functions for k, v in f.security_schemes.items()}


def credentials_from(args: argparse.Namespace, app: Application) -> dict[str, Any]:
    """``{scheme: credential}`` from ``--auth`` and ``--auth-env``.

    Raises:
        UsageError: a scheme the document does not define, or an unset variable.
    """
    given: dict[str, str] = _pairs(args.auth, "--auth")
    for scheme, variable in _pairs(args.auth_env, "--auth-env").items():
        if variable not in os.environ:
            raise UsageError(f"--auth-env {scheme}={variable}: {variable} is not set")
        given[scheme] = os.environ[variable]
    schemes = _schemes(app)
    _known(schemes, [*given, *_pairs(args.auth_header, "--auth-header")])
    out: dict[str, Any] = {}
    for scheme, value in given.items():
        basic = schemes.get(scheme, {})
        is_basic = isinstance(basic, Mapping) and str(basic.get("scheme", "")).lower() == "basic"
        out[scheme] = tuple(value.split(":", 1)) if is_basic and ":" in value else value
    return out


def _known(schemes: Mapping[str, Any], names: list[str]) -> None:
    for name in names:
        if name not in schemes:
            known = ", ".join(sorted(schemes)) or "none"
            raise UsageError(f"no security scheme {name!r} among the served operations "
                             f"(known: {known})")


def _hook(pairs: Mapping[str, str]) -> Any:
    if not pairs:
        return None

    def from_headers(call: Any) -> dict[str, str]:
        return {scheme: call.headers[header.lower()] for scheme, header in pairs.items()
                if header.lower() in call.headers}

    return from_headers


def run(args: argparse.Namespace) -> int:
    if args.spec == "-" and args.transport == "stdio":
        from httpllm.cli._common import UsageError as FlagError

        raise FlagError("SPEC - reads the document from standard input, which carries the "
                        "protocol over stdio: name the document by its path")
    app = compile_from(args)
    # The compiled document lives as long as the process: keep the collector from walking
    # its objects again on every full collection (one took 60 ms on GitHub's).
    gc.freeze()
    auth = credentials_from(args, app)
    for error in app.errors:
        where = f"{error.method.upper()} {error.path}".strip()
        print(f"httpllm: left out {where}: {error.pointer}: {error.message}", file=sys.stderr)
    try:
        from httpllm import server
    except ImportError as exc:
        raise UsageError("serving over MCP needs the mcp extra: "
                         "pip install 'httpllm[mcp]'") from exc
    options: dict[str, Any] = {
        "base_url": args.base_url, "auth": auth,
        "auth_hook": _hook(_pairs(args.auth_header, "--auth-header")),
        "headers": _pairs(args.header, "--header"), "forward_headers": args.forward_header,
        "output_schemas": not args.no_output_schemas,
    }
    if args.max_result_chars is not None:
        options["max_result_chars"] = args.max_result_chars
    if args.max_page_bytes is not None:
        if 0 < args.max_page_bytes < server.MIN_PAGE_BYTES:
            raise UsageError(f"--max-page-bytes {args.max_page_bytes}: expected 0 (one page) "
                             f"or at least {server.MIN_PAGE_BYTES} bytes")
        options["max_page_bytes"] = args.max_page_bytes
    shown = f"{len(app.functions):,} tools"
    if args.mode == "discover":
        from httpllm.server.discover import discover_tools

        options["tools"] = discover_tools(app)
        shown = f"3 tools (search, describe, invoke) over {len(app.functions):,} operations"
    sock = None
    if args.transport == "http":
        try:
            from httpllm.server.run import bind

            sock = bind(args.host, args.port)
        except OSError as exc:
            raise UsageError(f"--host {args.host} --port {args.port}: cannot listen there "
                             f"({exc.strerror or exc})") from exc
    port = sock.getsockname()[1] if sock is not None else args.port
    host = f"[{args.host}]" if ":" in args.host else args.host
    where = f"http://{host}:{port}{args.path}" if args.transport == "http" else "stdio"
    if args.transport == "http" and args.host not in _LOOPBACK:
        print(f"httpllm: warning: {args.host} is reachable from other machines; the "
              "server has no authentication of its own", file=sys.stderr)
    print(f"httpllm: serving {shown} over {where}"
          + (f" ({len(app.errors):,} operations left out)" if app.errors else ""),
          file=sys.stderr, flush=True)
    server.serve(app, args.transport, host=args.host, port=port, path=args.path, sock=sock,
                 **options)
    return 0
