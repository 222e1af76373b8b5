"""``httpllm inspect``: operations, recursive schemas (each cycle) and errors."""

from __future__ import annotations

import argparse

from httpllm.cli._common import add_compile_options, compile_from
from httpllm.cli.budget import add_budget_options, run_budget

__all__ = ["register"]


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``inspect`` command."""
    insp = sub.add_parser("inspect", help="operations, recursive schemas and errors")
    insp.add_argument("spec", help="OpenAPI document (path)")
    add_compile_options(insp)
    add_budget_options(insp)
    insp.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    app = compile_from(args)
    if args.budget:
        return run_budget(args, app)
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


