"""``httpllm inspect``: what a document offers before it is handed to a model — its
operations with their arguments, the servers (with their variables), the security
schemes a call may need credentials for, recursive schemas (each cycle), skipped
operations and warnings; ``--json`` for machines."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from httpllm.cli._common import (
    SPEC_HELP,
    add_compile_options,
    compile_from,
    dumps,
    flag_takes,
    in_flags,
    write,
)
from httpllm.cli._common import security_schemes as _schemes
from httpllm.cli._terminal import say
from httpllm.cli.budget import add_budget_options, run_budget
from httpllm.load import without_userinfo

if TYPE_CHECKING:
    from httpllm._api import Application

__all__ = ["register"]


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``inspect`` command."""
    insp = sub.add_parser("inspect", help="operations, servers, security schemes, "
                                          "recursive schemas and errors")
    insp.add_argument("spec", help=SPEC_HELP)
    add_compile_options(insp)
    add_budget_options(insp)
    insp.set_defaults(handler=run)


def _servers(app: Application) -> list[dict[str, Any]]:
    """The servers the functions use, each once; a ``user:pass@`` in a URL is not shown
    (compile warns about it; the requests refuse it)."""
    seen: dict[str, dict[str, Any]] = {}
    for function in app.functions:
        for server in function.servers:
            url = without_userinfo(server.url)
            seen.setdefault(url, {"url": url, "variables": server.variables})
    return list(seen.values())


def _scheme_line(name: str, scheme: dict[str, Any]) -> str:
    kind = str(scheme.get("type"))
    if not flag_takes(scheme):
        how = f"http {scheme.get('scheme', '')}".strip() if kind == "http" else kind
        return f"  {name:<24} {how:<40} (no flag: give the httpx client its auth in Python)"
    if kind == "http":
        how = f"http {scheme.get('scheme', '')}".strip()
        value = "USER:PASSWORD" if str(scheme.get("scheme")).lower() == "basic" else "TOKEN"
    elif kind == "apiKey":
        how = f"API key in {scheme.get('in')} {scheme.get('name')!r}"
        value = "KEY"
    else:
        how, value = kind, "TOKEN"
    return f"  {name:<24} {how:<40} --auth {name}={value}"


def as_json(app: Application) -> dict[str, Any]:
    """The inspection as one JSON object."""
    return {
        "version": app.version,
        "provider": app.provider,
        "operations": app.operations,
        "functions": [{"name": f.name, "method": f.method, "path": f.path,
                       "operation_id": f.operation_id, "tags": list(f.tags),
                       "arguments": [{"name": a.name, "in": a.location, "required": a.required}
                                     for a in f.arguments],
                       "security": list(f.security)} for f in app.functions],
        "servers": _servers(app),
        "security_schemes": _schemes(app),
        "cycles": [list(c) for c in app.cycles],
        "errors": [e.to_json() for e in app.errors],
        "warnings": [w.to_json() for w in app.warnings],
    }


def run(args: argparse.Namespace) -> int:
    """``httpllm inspect``."""
    app = compile_from(args)
    if args.budget:
        return run_budget(args, app)
    if args.json:
        write(dumps(as_json(app)), None)
        return 0
    _print(app)
    return 0


def _count(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _print(app: Application) -> None:
    """The inspection as text."""
    say(f"OpenAPI {app.version}: {_count(len(app.functions), 'function')}, "
        f"{_count(len(app.errors), 'error')}, provider {app.provider}")
    say()
    say("Operations:")
    for f in app.functions:
        args_text = ", ".join(f"{a.name}{'' if a.required else '?'}:{a.location}"
                              for a in f.arguments)
        say(f"  {f.name:<40} {f.method.upper():<7} {f.path}  ({args_text})")
    say()
    say("Servers:")
    for server in _servers(app):
        from httpllm.execute.wire import VARIABLE

        variables = ", ".join(f"{n}={server['variables'][n]}" if n in server["variables"]
                              else f"{n} (no default: give it)"
                              for n in dict.fromkeys(VARIABLE.findall(server["url"])))
        say(f"  {server['url']}" + (f"  ({variables}; --server-var NAME=VALUE on call)"
                                    if variables else ""))
    if not _servers(app):
        say("  (none: pass --base-url on call)")
    say()
    say("Security schemes:")
    for name, scheme in sorted(_schemes(app).items()):
        say(_scheme_line(name, scheme))
    if not _schemes(app):
        say("  (none)")
    say()
    say("Recursive schemas:")
    for cycle in app.cycles:
        say("  cycle: " + " -> ".join([*cycle, cycle[0]]))
    if not app.cycles:
        say("  (none)")
    say()
    say("Errors:")
    for error in app.errors:
        say(f"  {error.method.upper()} {error.path}: {error.pointer}: "
            f"{in_flags(error.message)}")
    if not app.errors:
        say("  (none)")
    for warning in app.warnings:
        say(f"  warning: {warning.pointer}: {in_flags(warning.message)}")

