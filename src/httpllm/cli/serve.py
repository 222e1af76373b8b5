"""``httpllm serve``: the document as an MCP server over stdio or streamable HTTP.

Stdout carries the protocol and nothing else (stdio transport): the start-up report (the
operations left out, the tool count) goes to stderr. Credentials come from flags, from
environment variables (``--auth-env``, which keeps them out of the process list) or, over
HTTP, from a header of each incoming request (``--auth-header``, one credential per user).

Over HTTP the endpoint admits clients by bearer token (``--require-token VARIABLE``, or
OAuth access tokens with ``--oauth-issuer``/``--oauth-jwks``/``--resource-url``), refuses
an address other machines reach without one unless ``--allow-unauthenticated``, checks
``Host``/``Origin`` on every address (``--allow-host``/``--allow-origin`` add to what it
accepts) and bounds what each client holds (``--max-sessions-per-client`` ...).
``--workers N`` runs N processes (with ``--stateless``: no session ties a client to one).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from httpllm._escape import is_token
from httpllm.cli._common import UsageError as FlagError
from httpllm.cli._common import (
    add_compile_options,
    at_least,
    auth_from,
    base_url,
    compile_from,
    json_or_text,
    key_values,
    security_schemes,
    unknown_scheme,
)
from httpllm.cli._report import PARTIAL, why_empty
from httpllm.cli._terminal import say
from httpllm.errors import HttpllmError, MissingExtra

if TYPE_CHECKING:
    from httpllm._api import Application

__all__ = ["register", "worker_app"]

_WORKER_ARGS = "HTTPLLM_SERVE_WORKER_ARGS"
"""Environment variable carrying the parsed flags to ``--workers`` processes."""
_HTTP_ONLY = ("auth_header", "forward_header", "require_token", "oauth_issuer", "oauth_jwks",
              "resource_url", "oauth_scope", "allow_unauthenticated", "allow_host",
              "allow_origin", "json_response", "stateless")
"""Flags (as ``args`` attributes) that mean nothing over stdio."""


class UsageError(HttpllmError):
    """A flag's value cannot be used (reported as one line, exit status 1)."""


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``serve`` command."""
    serve = sub.add_parser("serve", help="serve the document as an MCP server",
                           description="Serve every operation as an MCP tool, over stdio "
                                       "(default) or streamable HTTP.")
    serve.add_argument("spec", help="OpenAPI or Swagger document: a path, an http(s) URL "
                       "(with --allow-network), or - for stdin with --transport http (over "
                       "stdio, stdin carries the protocol)")
    serve.add_argument("--transport", choices=("stdio", "http"), default="stdio",
                       help="stdio (default) or streamable HTTP")
    serve.add_argument("--host", default="127.0.0.1",
                       help="address to bind over HTTP (default 127.0.0.1)")
    serve.add_argument("--port", type=_port, default=8000,
                       help="TCP port over HTTP (8000; 0 picks a free one)")
    serve.add_argument("--path", default="/mcp", type=_endpoint_path,
                       help="endpoint path over HTTP (/mcp)")
    serve.add_argument("--base-url", default=None, type=base_url,
                       help="send requests here instead of the document's server")
    serve.add_argument("--host-arg", action="append", metavar="NAME=VALUE",
                       help="a value for an argument kept from the model with --separate "
                            "(JSON, or plain text); the model cannot set it")
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
    serve.add_argument("--output-schemas", choices=("auto", "on", "off"), default="auto",
                       help="list each tool's outputSchema and answer structuredContent: "
                            "'on'; 'off' answers text only (for APIs whose answers drift "
                            "from their documents); 'auto' (default): on when the schemas "
                            "together stay small enough for clients to compile quickly")
    serve.add_argument("--no-output-schemas", action="store_const", const="off",
                       dest="output_schemas", help="the same as --output-schemas off")
    serve.add_argument("--mode", choices=("tools", "discover", "code"), default="tools",
                       help="'tools': one tool per operation (default); 'discover': three "
                            "tools, search -> describe -> invoke, for APIs too large to "
                            "list (needs the search extra); 'code': two tools, search_docs "
                            "and execute, the model writing TypeScript against the API in a "
                            "sandbox (needs the code extra)")
    serve.add_argument("--read-only", action="store_true",
                       help="with --mode code: programs may call only GET and HEAD operations")
    serve.add_argument("--max-result-chars", type=at_least(1), default=None, metavar="N",
                       help="cut answers longer than N characters, with a note (40000)")
    serve.add_argument("--max-answer-bytes", type=at_least(1), default=None, metavar="N",
                       help="read at most N bytes of an upstream answer (10485760)")
    serve.add_argument("--max-page-bytes", type=at_least(0), default=None, metavar="BYTES",
                       help="list the tools in pages of at most BYTES bytes, which hosts "
                            "follow by cursor (1048576); 0: one page, for a host that "
                            "reads only the first")
    _http_options(serve)
    add_compile_options(serve)
    serve.set_defaults(handler=run, provider="mcp")
    serve._option_string_actions["--provider"].help = "tool dialect; default mcp"


def _http_options(serve: argparse.ArgumentParser) -> None:
    """The flags of the HTTP transport: admission, transport options, limits."""
    admit = serve.add_argument_group(
        "HTTP: who is admitted", "Over HTTP, a non-loopback --host needs --require-token or "
        "--oauth-issuer (or --allow-unauthenticated). The token admits a client to this "
        "server and is never sent upstream.")
    admit.add_argument("--require-token", action="append", default=[], metavar="VARIABLE",
                       help="admit requests with 'Authorization: Bearer <token>', the token "
                            "read from this environment variable (repeat: one per client)")
    admit.add_argument("--oauth-issuer", metavar="URL",
                       help="admit OAuth access tokens (JWT) from this authorization server "
                            "(serves RFC 9728 metadata; needs --oauth-jwks and --resource-url)")
    admit.add_argument("--oauth-jwks", metavar="URL",
                       help="the authorization server's JWK Set (its jwks_uri)")
    admit.add_argument("--resource-url", metavar="URL",
                       help="this endpoint's public URL, the audience tokens must name "
                            "(https://mcp.example.com/mcp)")
    admit.add_argument("--oauth-scope", action="append", default=[], metavar="SCOPE",
                       help="a scope every token must carry (repeatable)")
    admit.add_argument("--allow-unauthenticated", action="store_true",
                       help="serve a non-loopback --host without any token")
    admit.add_argument("--allow-host", action="append", default=[], metavar="NAME",
                       help="a Host header to accept besides loopback and the bind address "
                            "(NAME: any port; NAME:PORT: that one)")
    admit.add_argument("--allow-origin", action="append", default=[], metavar="ORIGIN",
                       help="a browser Origin to accept besides loopback pages "
                            "(https://app.example.com; others get 403)")
    http = serve.add_argument_group("HTTP: transport and limits")
    http.add_argument("--json-response", action="store_true",
                      help="answer each request with one JSON object instead of an SSE stream")
    http.add_argument("--stateless", action="store_true",
                      help="no sessions: any request can reach any process")
    http.add_argument("--workers", type=at_least(1), default=1, metavar="N",
                      help="run N server processes on the port (needs --stateless)")
    http.add_argument("--keep-alive", type=_seconds, default=75.0, metavar="SECONDS",
                      help="keep idle connections open this long (75)")
    http.add_argument("--header-timeout", type=_seconds, default=10.0, metavar="SECONDS",
                      help="close a connection whose request headers take longer (10)")
    http.add_argument("--max-sessions-per-client", type=at_least(1), default=100,
                      metavar="N", help="open sessions per client (token, else address); "
                                        "past it its least recently used idle one ends (100)")
    http.add_argument("--session-idle-timeout", type=_seconds, default=1800.0,
                      metavar="SECONDS", help="end a session idle this long (1800)")
    http.add_argument("--max-calls-per-session", type=at_least(1), default=8, metavar="N",
                      help="upstream calls one session has in flight; more wait (8)")
    http.add_argument("--max-calls-per-client", type=at_least(1), default=32, metavar="N",
                      help="upstream calls one client has in flight over its sessions (32)")


def _seconds(text: str) -> float:
    """argparse type: a positive number of seconds."""
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds, not {text!r}")
    return value


def _port(text: str) -> int:
    """argparse type: a TCP port, 0 to 65535."""
    try:
        port = int(text)
    except ValueError:
        port = -1
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"expected a port from 0 to 65535, not {text!r}")
    return port


def _endpoint_path(text: str) -> str:
    """argparse type: the endpoint's path, absolute (``/mcp``): Starlette routes only a
    path that starts with ``/`` (``--path mcp`` failed as an internal error once the
    server had started), and a ``?``, ``#``, space or control character is no path of a
    URL a client can name (RFC 3986 section 3.3)."""
    if not text.startswith("/") or any(c in text for c in "?# ") or not text.isprintable():
        raise argparse.ArgumentTypeError(f"expected an absolute path such as /mcp, not {text!r}")
    return text


def _pairs(values: list[str], flag: str) -> dict[str, str]:
    return key_values(values, flag)  # exit 2 on a malformed item, as on every command


def _host_headers(args: argparse.Namespace) -> dict[str, str]:
    """``--header NAME=VALUE`` as a dict, after ``--forward-header`` names are checked.

    A name is an RFC 9110 token and a value holds no CR, LF or NUL (section 5.5): httpx
    refuses either on every upstream request, so a server started with one answered every
    call with a transport error.

    Raises:
        FlagError: a name that is no token, or a value no request can carry.
    """
    for name in args.forward_header:
        if not is_token(name):
            raise FlagError(f"--forward-header {name!r} is not a header name (RFC 9110 token: "
                            "letters, digits and !#$%&'*+.^_`|~-)")
    headers = _pairs(args.header, "--header")
    for name, value in headers.items():
        if not is_token(name):
            raise FlagError(f"--header {name!r}=...: not a header name (RFC 9110 token: "
                            "letters, digits and !#$%&'*+.^_`|~-)")
        if any(c in value for c in "\r\n\0"):
            raise FlagError(f"--header {name}=...: the value holds a CR, LF or NUL character, "
                            "which no request can carry")
    return headers


def credentials_from(args: argparse.Namespace, app: Application) -> dict[str, Any]:
    """``{scheme: credential}`` from ``--auth`` and ``--auth-env``
    (:func:`httpllm.cli._common.auth_from`: the same checks and words as ``call``).

    Raises:
        UsageError (of ``_common``, exit 2): a scheme the document does not define, an
            ``--auth-header`` value that is not a header name, or what
            :func:`~httpllm.cli._common.auth_from` refuses.
    """
    known = security_schemes(app)
    for scheme, header in _pairs(args.auth_header, "--auth-header").items():
        if scheme not in known:
            raise FlagError(f"--auth-header {scheme}=...: "
                            f"{unknown_scheme(app, scheme, what='served')}")
        if not is_token(header):
            raise FlagError(f"--auth-header {scheme}=HEADER: {header!r} is not a header name "
                            "(RFC 9110 token: letters, digits and !#$%&'*+.^_`|~-)")
    return auth_from(app, args.auth, args.auth_env) or {}


def _tell_sizes(app: Any) -> None:
    """The compile's size warnings on stderr: the whole list's, the first tool too large
    alone (and how many more), and how many tools had their parameters cut (``httpllm
    compile -v`` lists each)."""
    for warning in app.warnings:
        if warning.pointer == "#/paths" and "tokens" in warning.message:
            say(f"httpllm: warning: {warning.message}", file=sys.stderr)
    large = [w for w in app.warnings if w.rule == "tool-too-large"]
    if large:
        more = f" (and {len(large) - 1:,} more like it; httpllm compile -v lists each)" if (
            len(large) > 1) else ""
        say(f"httpllm: warning: {large[0].message}{more}", file=sys.stderr)
    cut = sum(1 for f in app.functions for loss in f.losses if loss.action == "cut")
    if cut:
        say(f"httpllm: warning: {cut:,} tools had their parameters or output schema cut to "
            "fit (httpllm compile -v lists each)", file=sys.stderr)


def _tell_output_schemas(app: Any, mode: str) -> None:
    """One stderr line when ``--output-schemas auto`` leaves the schemas out."""
    from httpllm.server.tools import OUTPUT_BUDGET, output_schemas_listed

    listed, size = output_schemas_listed(app.functions, mode)  # type: ignore[arg-type]
    if mode == "auto" and not listed:
        say(f"httpllm: output schemas left out: {size / 2**20:.1f} MiB for "
            f"{len(app.functions):,} tools (auto lists up to {OUTPUT_BUDGET // 1024} KiB, "
            "which clients compile in a few seconds); answers are text; "
            "--output-schemas on lists them", file=sys.stderr)


def _output_schemas(app: Any, mode: str) -> bool:
    """``--output-schemas`` decided here (``auto`` by the listing's size), so the server
    does not log its own unprefixed copy of :func:`_tell_output_schemas`' line."""
    from httpllm.server.tools import output_schemas_listed

    return output_schemas_listed(app.functions, mode)[0]  # type: ignore[arg-type]


def _hook(pairs: Mapping[str, str]) -> Any:
    if not pairs:
        return None
    from httpllm.server.credentials import FromRequestHeaders

    return FromRequestHeaders(dict(pairs))


def _admission(args: argparse.Namespace) -> dict[str, Any]:
    """``token_verifier``/``auth_settings`` from the admission flags.

    Raises:
        FlagError: an unset variable, a missing companion flag, a token forwarded upstream,
            a non-loopback --host with no way to admit clients, an --allow-host that is no
            host or an --allow-origin that is no origin.
    """
    from httpllm.errors import OptionError
    from httpllm.server.admission import allowed_host, allowed_origin, is_loopback

    if args.transport == "stdio":
        given = [name for name in _HTTP_ONLY if getattr(args, name)]
        if given or args.workers > 1:
            flag = "--" + (given[0] if given else "workers").replace("_", "-")
            raise FlagError(f"{flag} works over HTTP only (add --transport http)")
        return {}
    try:  # "evil" allowed no browser page, "https://x" no Host, and nothing said so
        args.allow_host = [allowed_host(value) for value in args.allow_host]
        args.allow_origin = [allowed_origin(value) for value in args.allow_origin]
    except OptionError as exc:
        flag = "--allow-host" if exc.option == "allowed_hosts" else "--allow-origin"
        raise FlagError(f"{flag} {exc.message}") from None
    if args.workers > 1 and not args.stateless:
        raise FlagError(f"--workers {args.workers} needs --stateless (a session lives in "
                        "one process, and the next request may reach another)")
    options = _verifier(args)
    if options:
        sent = [*args.forward_header, *_pairs(args.auth_header, "--auth-header").values()]
        if any(name.lower() == "authorization" for name in sent):
            raise FlagError("Authorization carries the token that admits clients to this "
                            "server; it is never sent upstream (use another header for "
                            "--forward-header/--auth-header)")
    elif not is_loopback(args.host) and not args.allow_unauthenticated:
        raise FlagError(f"--host {args.host} is reachable from other machines: add "
                        "--require-token VARIABLE or --oauth-issuer URL, or "
                        "--allow-unauthenticated")
    return options


def _verifier(args: argparse.Namespace) -> dict[str, Any]:
    if args.require_token and args.oauth_issuer:
        raise FlagError("--require-token and --oauth-issuer: choose one way to admit clients")
    if args.require_token:
        from httpllm.server.admission import StaticTokens

        tokens = {}
        for variable in args.require_token:
            if not os.environ.get(variable):
                raise FlagError(f"--require-token {variable}: {variable} is not set or empty")
            tokens[variable] = os.environ[variable]
        return {"token_verifier": StaticTokens(tokens)}
    if args.oauth_issuer is None:
        if args.oauth_jwks or args.resource_url or args.oauth_scope:
            raise FlagError("--oauth-jwks, --resource-url and --oauth-scope need --oauth-issuer")
        return {}
    for flag, value in (("--oauth-jwks", args.oauth_jwks),
                        ("--resource-url", args.resource_url)):
        if not value:
            raise FlagError(f"--oauth-issuer needs {flag} URL")
    for flag, value in (("--oauth-issuer", args.oauth_issuer),
                        ("--oauth-jwks", args.oauth_jwks),
                        ("--resource-url", args.resource_url)):
        if not value.startswith(("https://", "http://")):
            raise FlagError(f"{flag} {value}: expected an http(s) URL")
    from httpllm.server.admission import oauth_resource

    try:
        return oauth_resource(issuer=args.oauth_issuer, jwks_url=args.oauth_jwks,
                              resource=args.resource_url, scopes=args.oauth_scope)
    except Exception as exc:  # pydantic's URL check, PyJWT's scheme check
        detail = str(exc).splitlines()[0]
        raise FlagError(f"--oauth-issuer/--oauth-jwks/--resource-url: {detail}") from None


def _limits(args: argparse.Namespace) -> Any:
    from httpllm.server.limits import Limits

    return Limits(sessions_per_client=args.max_sessions_per_client,
                  session_idle_timeout=args.session_idle_timeout,
                  calls_per_session=args.max_calls_per_session,
                  calls_per_client=args.max_calls_per_client)


def _page_bytes(size: int) -> int:
    """``--max-page-bytes``: 0 or a page the server can fill.

    Raises:
        FlagError: any other size.
    """
    from httpllm.server.listing import MIN_PAGE_BYTES

    if 0 < size < MIN_PAGE_BYTES:
        raise FlagError(f"--max-page-bytes {size}: expected 0 (one page) or at least "
                        f"{MIN_PAGE_BYTES} bytes")
    return size


def _server_options(args: argparse.Namespace, app: Application,
                    admission: Mapping[str, Any]) -> dict[str, Any]:
    """The keyword arguments of ``mcp_server`` the flags say (``admission``: from
    :func:`_admission`)."""
    options: dict[str, Any] = {
        "base_url": args.base_url, "auth": credentials_from(args, app),
        "auth_hook": _hook(_pairs(args.auth_header, "--auth-header")),
        "headers": _host_headers(args), "forward_headers": args.forward_header,
        "output_schemas": _output_schemas(app, args.output_schemas), "limits": _limits(args),
        **admission,
    }
    host = {k: json_or_text(v) for k, v in key_values(args.host_arg, "--host-arg").items()}
    if host:
        options["host_arguments"] = host
    if args.max_result_chars is not None:
        options["max_result_chars"] = args.max_result_chars
    if args.max_answer_bytes is not None:
        options["max_answer_bytes"] = args.max_answer_bytes
    if args.max_page_bytes is not None:
        options["max_page_bytes"] = _page_bytes(args.max_page_bytes)
    if args.mode == "discover":
        from httpllm.server.discover import discover_tools

        options["tools"] = discover_tools(app)
    elif args.mode == "code":
        from httpllm.server.code import code_tools

        options["tools"] = code_tools(app, read_only=args.read_only,
                                      max_answer_chars=args.max_result_chars)
    return options


def _http_app(args: argparse.Namespace, server: Any) -> Any:
    from httpllm.server.run import http_app

    return http_app(server, host=args.host, path=args.path, json_response=args.json_response,
                    stateless=args.stateless, allowed_hosts=args.allow_host,
                    allowed_origins=args.allow_origin)


def worker_app() -> Any:
    """The ASGI app of one ``--workers`` process (a uvicorn factory): the parent's flags,
    from the environment, compiled and served as the parent would."""
    from httpllm.server import mcp_server

    args = argparse.Namespace(**json.loads(os.environ[_WORKER_ARGS]))
    app = compile_from(args)
    gc.freeze()
    return _http_app(args, mcp_server(app, **_server_options(args, app, _admission(args))))


def _run_workers(args: argparse.Namespace, sock: Any) -> None:
    """``--workers N``: N processes accepting on ``sock``, each building its own app from
    the flags (:func:`worker_app`)."""
    from httpllm.server.run import serve_workers

    os.environ[_WORKER_ARGS] = json.dumps(
        {k: v for k, v in vars(args).items() if k != "handler"})
    serve_workers("httpllm.cli.serve:worker_app", sock=sock, workers=args.workers,
                  keep_alive=args.keep_alive, header_timeout=args.header_timeout)


def _check_mode_and_source(args: argparse.Namespace) -> None:
    """Flags of the mode and the document that cannot go together.

    Raises:
        FlagError: naming them.
    """
    if args.output_schemas == "on" and args.mode != "tools":
        # the trio and code mode list no output schema: "on" would be ignored silently
        raise FlagError(f"--output-schemas on applies to --mode tools; --mode {args.mode} "
                        "lists no output schema (its answers are text)")
    if args.read_only and args.mode != "code":
        # served tools are the operations the document has: choose them, never ignore it
        raise FlagError("--read-only applies to --mode code; to serve only reading "
                        "operations, --include method:GET --include method:HEAD")
    if args.spec == "-" and (args.transport == "stdio" or args.workers > 1):
        raise FlagError("SPEC - reads the document from standard input, which "
                        + ("carries the protocol over stdio" if args.transport == "stdio" else
                           "--workers processes cannot share")
                        + ": name the document by its path")


def run(args: argparse.Namespace) -> int:
    if args.mode == "code":  # one named type per named schema: smaller declarations
        args.reference = True
    _check_mode_and_source(args)
    try:
        from httpllm.server import serve
        from httpllm.server.admission import is_loopback
    except MissingExtra as exc:
        raise UsageError(exc.message) from exc
    admission = _admission(args)
    _host_headers(args)  # before the compile, as the other flags
    app = compile_from(args)
    # The compiled document lives as long as the process: keep the collector from walking
    # its objects again on every full collection (one took 60 ms on GitHub's).
    gc.freeze()
    credentials_from(args, app)  # flag errors before the report
    for error in app.errors:
        where = f"{error.method.upper()} {error.path}".strip()
        say(f"httpllm: left out {where}: {error.pointer}: {error.message}", file=sys.stderr)
    if not app.functions:  # a host would start a server that lists nothing, silently
        say(f"httpllm: error: no tools to serve: {why_empty(app)}", file=sys.stderr)
        return PARTIAL
    options = _server_options(args, app, admission)
    shown = f"{len(app.functions):,} tool{'s' if len(app.functions) != 1 else ''}"
    if args.mode == "discover":
        shown = f"3 tools (search, describe, invoke) over {len(app.functions):,} operations"
    elif args.mode == "code":
        shown = f"2 tools (search_docs, execute) over {len(app.functions):,} operations"
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
    if args.transport == "http" and "token_verifier" not in options and not is_loopback(
            args.host):
        say(f"httpllm: warning: {args.host} is reachable from other machines and "
            "--allow-unauthenticated lets anyone who reaches it call every tool",
            file=sys.stderr)
    if args.mode == "tools":
        _tell_sizes(app)
        _tell_output_schemas(app, args.output_schemas)
    admitted = ("" if args.transport == "stdio" else
                ", OAuth access tokens required" if "auth_settings" in options else
                ", bearer token required" if "token_verifier" in options else "")
    say(f"httpllm: serving {shown} over {where}{admitted}"
        + (f" ({len(app.errors):,} operation{'s' if len(app.errors) != 1 else ''} left out)"
           if app.errors else ""),
        file=sys.stderr, flush=True)
    if args.workers > 1:
        _run_workers(args, sock)
        return 0
    serve(app, args.transport, host=args.host, port=port, path=args.path, sock=sock,
          json_response=args.json_response, stateless=args.stateless,
          allowed_hosts=args.allow_host, allowed_origins=args.allow_origin,
          allow_unauthenticated=args.allow_unauthenticated, keep_alive=args.keep_alive,
          header_timeout=args.header_timeout, **options)
    return 0
