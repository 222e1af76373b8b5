"""``httpllm call``: validate a tool call and print (or send) the request."""

from __future__ import annotations

import argparse
import json
import sys

from httpllm.cli._common import add_compile_options, compile_from

__all__ = ["register"]


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``call`` command."""
    call = sub.add_parser("call", help="validate a tool call and print (or send) the request")
    call.add_argument("spec", help="OpenAPI document (path)")
    call.add_argument("function", help="function name")
    call.add_argument("--args", required=True, help="the arguments, as JSON")
    call.add_argument("--base-url", default=None, help="server URL to use")
    call.add_argument("--send", action="store_true", help="send the request")
    call.add_argument("--auth", action="append", metavar="SCHEME=VALUE",
                      help="a credential for a security scheme (repeatable)")
    add_compile_options(call)
    call.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from httpllm.execute import build_request, validate

    app = compile_from(args)
    function = app.function(args.function)
    result = validate(function, args.args)
    if not result.ok:
        print(result.feedback(), file=sys.stderr)
        return 1
    for note in result.notes:
        print(f"httpllm: note: {note.message}", file=sys.stderr)
    auth = dict(item.split("=", 1) for item in args.auth or [] if "=" in item) or None
    # The printed request is not sent: it shows the call even without --auth.
    request = build_request(function, args.args, base_url=args.base_url, auth=auth,
                            require_auth=bool(args.send))
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


