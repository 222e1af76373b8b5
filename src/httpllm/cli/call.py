"""``httpllm call``: validate a tool call and print (or send) the request.

Credentials given with ``--auth``/``--auth-env`` are sent but never printed: the header,
query parameter or cookie that carries one reads ``[redacted]`` (see :func:`preview`), and
the answer printed by ``--send`` has every credential masked in every encoding.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping, Sequence
from typing import Any

from httpllm.cli._common import (
    SPEC_HELP,
    UsageError,
    add_compile_options,
    auth_from,
    base_url,
    compile_from,
    in_flags,
    json_or_text,
    key_values,
    write,
)
from httpllm.cli._terminal import one_line, say
from httpllm.load import without_userinfo
from httpllm.records import Function, Server

__all__ = ["PREVIEW_MASK_FROM", "UPSTREAM_ERROR", "preview", "register"]

UPSTREAM_ERROR = 4
"""Exit status of ``call --send`` when the API answers with a status other than 2xx."""


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``call`` command."""
    call = sub.add_parser(
        "call", help="validate a tool call and print (or send) the request",
        description="Validate a tool call's arguments and print the HTTP request they make "
                    "(credentials masked); --send sends it. Exit status: 0 done, 1 invalid "
                    "arguments or document, 2 a usage error, 4 the API answered non-2xx.")
    call.add_argument("spec", help=SPEC_HELP)
    call.add_argument("function", help="function name")
    call.add_argument("--args", required=True, help="the arguments, as JSON")
    call.add_argument("--base-url", default=None, type=base_url, help="server URL to use")
    call.add_argument("--send", action="store_true", help="send the request")
    call.add_argument("--auth", action="append", metavar="SCHEME=VALUE",
                      help="a credential for a security scheme (repeatable); for HTTP "
                           "Basic SCHEME=USER:PASSWORD")
    call.add_argument("--auth-env", action="append", metavar="SCHEME=ENVVAR",
                      help="a credential read from an environment variable (repeatable)")
    call.add_argument("--host-arg", action="append", metavar="NAME=VALUE",
                      help="a value for an argument kept from the model with --separate "
                           "(JSON, or plain text)")
    call.add_argument("--server-var", action="append", metavar="NAME=VALUE",
                      help="a value for a variable of the server URL")
    add_compile_options(call)
    call.set_defaults(handler=run)



def _note_missing_credentials(function: Function, auth: Mapping[str, Any] | None) -> None:
    """A dry run shows the request without credentials it lacks; say so, and what
    ``--send`` needs, rather than print a request the API would refuse without a word."""
    from httpllm.errors import RequestBuildError
    from httpllm.execute.security import credentials, missing

    try:
        credentials(function, auth or {})
    except RequestBuildError:
        say(f"httpllm: note: not sent; --send would stop, as {function.name} needs "
            f"credentials: {in_flags(missing(function, auth or {}))}", file=sys.stderr)


def _check_server_variables(server: Server, given: Mapping[str, str]) -> None:
    """Each ``--server-var`` names a variable of the server URL, and each variable without
    a default (an ``x-ms-parameterized-host`` account name ...) is given.

    Raises:
        UsageError: an unknown variable, or one without a value.
    """
    from httpllm.execute.wire import VARIABLE

    names = list(dict.fromkeys(VARIABLE.findall(server.url)))
    shown = without_userinfo(server.url)  # a document's user:pass@ is never printed
    unknown = sorted(set(given) - set(names))
    if unknown:
        raise UsageError(f"--server-var {unknown[0]}=...: the server {shown!r} has no "
                         f"variable {unknown[0]!r} (it has: {', '.join(names) or 'none'})")
    missing = [n for n in names if n not in given and n not in server.variables]
    if missing and server.url.startswith(f"{{{missing[0]}}}"):  # the scheme and host
        raise UsageError(f"the server {shown!r} starts with {{{missing[0]}}}, which has "
                         "no default: give the whole URL with --base-url")
    if missing:
        raise UsageError(f"the server {shown!r} needs --server-var {missing[0]}=VALUE "
                         f"(it has no default; or give the whole URL with --base-url)")


def _check_server_values(server: Server, given: Mapping[str, str]) -> None:
    """Each ``--server-var`` value is one the server URL takes (its ``enum``, its part of
    the URL: :func:`~httpllm.execute.request.server_value_error`, the check
    :func:`~httpllm.execute.request.server_url` makes), a usage error as every value a flag
    cannot take (docs/cli.md, exit status 2); it was an error of the input, exit 1, unlike
    ``--server-var nosuch=1``.

    Raises:
        UsageError: a value the server refuses (the message names the variable and its
            value); faults of the server itself stay the document's.
    """
    from httpllm.execute.request import server_value_error

    for name, value in given.items():
        problem = server_value_error(server, name, value)
        if problem is not None:
            raise UsageError(in_flags(f"--server-var: {problem}"))


def run(args: argparse.Namespace) -> int:
    """``httpllm call``."""
    from httpllm.execute import build_request, execute, validate  # httpx: only when calling
    from httpllm.execute.answer import location
    from httpllm.execute.security import credentials, redact, secrets_of

    app = compile_from(args)
    function = app.function(args.function)
    host = {k: json_or_text(v) for k, v in key_values(args.host_arg, "--host-arg").items()}
    result = validate(function, args.args, host_arguments=host or None)
    if not result.ok:
        for line in result.feedback_lines():
            say(line, file=sys.stderr)
        return 1
    for note in result.notes:
        say(f"httpllm: note: {note.message}", file=sys.stderr)
    auth = auth_from(app, args.auth, args.auth_env)
    variables = key_values(args.server_var, "--server-var")
    server = function.servers[0] if function.servers and not args.base_url else None
    if server is not None:
        _check_server_variables(server, variables)
        _check_server_values(server, variables)
    options: dict[str, Any] = {
        "base_url": args.base_url, "auth": auth, "host_arguments": host or None,
        "server_variables": variables or None,
    }
    # The printed request is not sent: it shows the call even without --auth.
    request = build_request(function, args.args, **options, require_auth=bool(args.send))
    write("\n".join(preview(request, credentials(function, auth or {}, required=False),
                             secrets_of(auth))), None)
    if not args.send:
        _note_missing_credentials(function, auth)
        return 0
    response = execute(function, args.args, **options)
    say()
    say(f"=> {response.status}")
    moved = location(response, secrets_of(auth))
    if moved:  # a redirect not followed: where it points is the answer
        say(f"Location: {moved}")
    body = response.body
    # The answer may echo the request: every credential masked, in every encoding.
    write(redact(body if isinstance(body, str) else json.dumps(body, indent=2),
                 secrets_of(auth), cut=response.truncated), None)
    if response.truncated:
        size = f"{response.size:,}" if response.size is not None else "an unknown number of"
        say(f"httpllm: note: the answer was cut at {len(response.content):,} bytes of "
            f"{size}", file=sys.stderr)
    if not 200 <= response.status < 300:
        say(f"httpllm: the API answered {response.status} (exit {UPSTREAM_ERROR})",
            file=sys.stderr)
        return UPSTREAM_ERROR
    return 0


PREVIEW_MASK_FROM = 8
"""Characters from which a credential is also masked wherever else it shows in the printed
request (a value that long does not occur by chance); a shorter one (``--auth apiKey=x``)
only where it is placed, so ``x`` in ``x-api-key`` or ``Rex`` in the body stay readable."""


def preview(request: Any, placements: Sequence[tuple[str, str, str]],
            secrets: tuple[str, ...]) -> list[str]:
    """The request as ``call`` prints it: each credential masked where it is placed — the
    header that carries it (``Authorization: Bearer [redacted]``), its query parameter,
    its cookie — and a credential of :data:`PREVIEW_MASK_FROM` characters or more wherever
    else it occurs. The rest is the user's own call, shown as it will be sent: the request
    line and each header on one line (:func:`~httpllm.cli._terminal.one_line`), then the
    body as it is.

    >>> import httpx
    >>> request = httpx.Request("GET", "http://x/pets?api_key=Rex&name=Rex",
    ...                         headers={"x-api-key": "x"})
    >>> preview(request, [("query", "api_key", "Rex"), ("header", "x-api-key", "x")], ("Rex",))
    ['GET http://x/pets?api_key=[redacted]&name=Rex', 'host: x', 'x-api-key: [redacted]']
    """
    from urllib.parse import unquote_plus

    from httpllm.execute.security import REDACTED, redact

    headers = {n.lower() for kind, n, _ in placements if kind == "header"}
    queries = {n for kind, n, _ in placements if kind == "query"}
    cookies = {n for kind, n, _ in placements if kind == "cookie"}
    long = tuple(s for s in secrets if len(s) >= PREVIEW_MASK_FROM)
    url = str(request.url)
    if queries and "?" in url:
        base, _, query = url.partition("?")
        url = base + "?" + "&".join(
            f"{k}={REDACTED}" if unquote_plus(k) in queries else f"{k}{eq}{v}"
            for k, eq, v in (pair.partition("=") for pair in query.split("&")))
    lines = [f"{request.method} {url}"]
    for key, value in request.headers.items():
        if key.lower() in headers:
            scheme, _, token = value.partition(" ")
            value = f"{scheme} {REDACTED}" if token and key.lower() == "authorization" \
                else REDACTED
        elif key.lower() == "cookie" and cookies:
            value = "; ".join(f"{n}={REDACTED}" if n in cookies else f"{n}={v}" for n, _, v in
                              (pair.partition("=") for pair in value.split("; ")))
        lines.append(f"{key}: {value}")
    lines = [one_line(redact(line, long)) for line in lines]
    if request.content:
        lines += ["", redact(request.content.decode("utf-8", "replace"), long)]
    return lines
