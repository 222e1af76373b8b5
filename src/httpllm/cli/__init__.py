"""The ``httpllm`` command: one module per subcommand, each with ``register(sub)`` adding
its parser and handler; :data:`COMMANDS` lists them in the order ``--help`` shows.

Exit status (the same for every command):

- 0: done.
- 1: the input cannot be used (an invalid or unreadable document, an unknown function,
  invalid arguments, a file that cannot be written); one line on stderr.
- 2: a usage error (an unknown flag, a value a flag cannot take: ``--unroll -1``,
  ``--envelope bogus``, ``--strict`` for a provider without one); one line on stderr.
- 3: a partial result that ``--fail-on skipped,fallback,warning`` names, operations
  skipped because a ``$ref`` needs ``--root``, ``--allow-outside-root`` or
  ``--allow-network``, or a compile that gave no tool at all.
- 4: ``call --send``: the API answered with a status other than 2xx.

Messages speak in flags (``--allow-outside-root``), never in Python option names, and a
command never ends in a traceback: anything unexpected is reported in one line as a bug.
Nothing printed drives the terminal: control characters and escape sequences from a
document, an answer or an error are shown escaped, and each line a command says is one
line, a line break from a document shown as ``\\n`` (:mod:`httpllm.cli._terminal`). A usage
error of a subcommand names it (``httpllm search: error: ...``), an unknown argument too.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from httpllm.cli import call, compile, inspect, lint, search, serve
from httpllm.cli._common import UsageError, in_flags
from httpllm.cli._terminal import one_line, printable_output, say
from httpllm.errors import HttpllmError

__all__ = ["COMMANDS", "main"]

COMMANDS = (compile, inspect, call, serve, search, lint)
"""The subcommand modules, each with ``register(sub)``."""

USAGE = 2
"""Exit status of a usage error (argparse's own)."""


class _Parser(argparse.ArgumentParser):
    """argparse with its usage errors in one line (``httpllm: error: ...``), exit 2: a
    line break in an argument it quotes as given (``unrecognized arguments: a<LF>b``) is
    shown escaped (:func:`~httpllm.cli._terminal.one_line`), as in every line the
    command says."""

    def error(self, message: str) -> NoReturn:
        self.exit(USAGE, one_line(f"{self.prog}: error: {message}") + "\n")


class _Command(_Parser):
    """A subcommand's parser: an argument it does not know is its own usage error
    (``httpllm search: error: unrecognized arguments: --method get``), as its other ones.
    argparse leaves a subparser's extras to the main parser, which named ``httpllm``
    alone (cpython ``argparse._SubParsersAction.__call__``)."""

    def parse_known_args(self, args: Any = None, namespace: Any = None) -> Any:
        parsed, extras = super().parse_known_args(args, namespace)
        if extras:
            self.error(f"unrecognized arguments: {' '.join(extras)}")
        return parsed, extras


def _parser() -> argparse.ArgumentParser:
    from httpllm import __version__

    parser = _Parser(prog="httpllm", description=(
        "Compile OpenAPI 3.0-3.2 and Swagger 2.0 documents into LLM function-calling tools, "
        "and turn tool calls back into HTTP requests."))
    parser.add_argument("--version", action="version", version=f"httpllm {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Command)
    for command in COMMANDS:
        command.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status (see the table above)."""
    with printable_output():
        return _run(argv)


def _run(argv: Sequence[str] | None) -> int:
    args = _parser().parse_args(argv)
    try:
        status: int = args.handler(args)
        sys.stdout.flush()  # within the try: output the system refuses is said here
    except UsageError as exc:
        say(f"httpllm {args.command}: error: {exc}", file=sys.stderr)
        return USAGE
    except HttpllmError as exc:
        say(f"httpllm: error: {in_flags(_in_user_terms(exc, args))}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # a bug of ours: one line, never a traceback for the user
        say(f"httpllm: internal error ({type(exc).__name__}: {exc}); please report it "
            "with the command that caused it", file=sys.stderr)
        return 1
    return status


def _in_user_terms(exc: HttpllmError, args: argparse.Namespace) -> str:
    """The error's line, a document read from ``-`` named ``<stdin>`` (the loader names
    the bytes it was given ``<bytes>``, which the user never gave)."""
    if getattr(args, "spec", None) == "-" and exc.source == "<bytes>":
        return str(HttpllmError(exc.message, pointer=exc.pointer, source="<stdin>"))
    return str(exc)


if __name__ == "__main__":
    raise SystemExit(main())
