"""The ``httpllm`` command: one module per subcommand, each with ``register(sub)`` adding
its parser and handler; :data:`COMMANDS` lists them in the order ``--help`` shows.

Exit status: 0 on success; 1 with a one-line message on stderr when the input is invalid
(an :class:`~httpllm.errors.HttpllmError`); 2 for a usage error (argparse).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from httpllm.cli import call, compile, inspect, serve
from httpllm.errors import HttpllmError

__all__ = ["COMMANDS", "main"]

COMMANDS = (compile, inspect, call, serve)
"""The subcommand modules, each with ``register(sub)``."""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="httpllm", description=(
        "Compile OpenAPI 3.0/3.1 documents into LLM function-calling tools."))
    sub = parser.add_subparsers(dest="command", required=True)
    for command in COMMANDS:
        command.register(sub)
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
