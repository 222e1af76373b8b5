"""``httpllm compile``: print or write the tool list (or the loss report), then say on
standard error what was skipped, what fell back and what was warned, in one summary line."""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING, Any

from httpllm.cli._common import (
    SPEC_HELP,
    UsageError,
    add_compile_options,
    compile_from,
    dumps,
    write,
)
from httpllm.cli._report import FAIL_ON, PARTIAL, failed, report, summary, why_empty
from httpllm.cli._terminal import say
from httpllm.cli.toolsets import add_toolset_options, check_defer, run_toolsets
from httpllm.dialects import get_dialect, providers

if TYPE_CHECKING:
    from httpllm._api import Application

__all__ = ["register"]


def _fail_on(text: str) -> list[str]:
    """argparse type of ``--fail-on``: a comma-separated list of :data:`FAIL_ON`."""
    chosen = [item.strip() for item in text.split(",") if item.strip()]
    wrong = [item for item in chosen if item not in FAIL_ON]
    if wrong or not chosen:
        raise argparse.ArgumentTypeError(f"expected some of {', '.join(FAIL_ON)} "
                                         f"(comma-separated), not {text!r}")
    return chosen


def add_report_options(parser: argparse.ArgumentParser) -> None:
    """``-q``, ``-v`` and ``--fail-on``: how much a command tells, and what fails it."""
    parser.add_argument("-q", "--quiet", action="store_true",
                        help="no summary and no warnings on stderr (errors only)")
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="list every skipped operation and warning with its pointer")
    parser.add_argument("--tokens", action="store_true",
                        help="count the tool list's tokens in the summary (the provider's "
                             "tokenizer, or the one approximating it; extra 'tokens')")
    parser.add_argument("--fail-on", type=_fail_on, default=[], metavar="WHAT",
                        help="exit 3 when the result has any of: skipped, fallback, "
                             "warning (comma-separated)")


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``compile`` command."""
    comp = sub.add_parser(
        "compile", help="print or write the tool list",
        description="Compile an OpenAPI document into the provider's tool list. Exit "
                    "status: 0 done, 1 the document cannot be used, 2 a usage error, 3 a "
                    "partial result named by --fail-on, or no tool at all.")
    comp.add_argument("spec", nargs="?", help=SPEC_HELP)
    add_compile_options(comp)
    comp.add_argument("-o", "--output", help="write to this file instead of stdout")
    comp.add_argument("--losses", action="store_true",
                      help="print the loss report instead of the tools")
    comp.add_argument("--list-providers", action="store_true", help="list the providers")
    comp.add_argument("--discover", action="store_true",
                      help="print the search/describe/invoke trio instead of every tool")
    add_report_options(comp)
    add_toolset_options(comp)
    comp.set_defaults(handler=run)


def _providers() -> int:
    for name in providers():
        dialect = get_dialect(name)
        aliases = f" (alias {', '.join(dialect.aliases)})" if dialect.aliases else ""
        strict = " [strict]" if dialect.has_strict else ""
        envelopes = f" envelopes: {', '.join(dialect.envelopes)}" if dialect.envelopes else ""
        say(f"{name}{aliases}{strict}{envelopes}")
    return 0


def finish(app: Application, args: argparse.Namespace, *, written: int | None,
           target: str | None, extra: str = "", tools: int | None = None) -> int:
    """Report, summarize and choose the exit status of a compile's command: a result the
    gate cut (operations skipped because a ``$ref`` needs ``--root``,
    ``--allow-outside-root`` or ``--allow-network``) is partial, as is no tool at all."""
    split = args.group_by is not None or args.defer or args.discover
    hidden = [w for w in app.warnings if split and w.rule == "tool-limit"]
    if not args.quiet:
        report(app, verbose=args.verbose, hidden=hidden)
    status = PARTIAL if any(e.kind == "AccessDenied" for e in app.errors) else 0
    if not app.functions:
        say(f"httpllm: no tools: {why_empty(app)}", file=sys.stderr)
        status = PARTIAL
    bad = failed(app, args.fail_on, warnings=len(app.warnings) - len(hidden))
    if bad:
        status = PARTIAL
    if not args.quiet:
        line = summary(app, written=written, target=target, extra=extra, tools=tools,
                       warnings=len(app.warnings) - len(hidden))
        if bad:
            line += f" (--fail-on: {', '.join(bad)})"
        say(f"httpllm: {line}", file=sys.stderr)
    return status


def _check_output_is_not_the_document(args: argparse.Namespace) -> None:
    """``-o`` naming SPEC itself (``compile api.yaml -o api.yaml``) would replace the
    document with its tools, and the next compile reads an array.

    Raises:
        UsageError: naming both.
    """
    if not args.output or args.output == "-" or args.spec == "-":
        return
    try:
        same = os.path.samefile(args.output, args.spec)
    except OSError:  # -o does not exist yet (or SPEC is a URL): nothing to replace
        return
    if same:
        raise UsageError(f"-o {args.output} is the document SPEC itself: writing the tools "
                         "there would replace it; name another file")


def _check_one_output(args: argparse.Namespace) -> None:
    """``--group-by``, ``--defer``, ``--discover`` and ``--losses`` each write an output of
    their own: one of them at a time. Together, the first of them won and the others were
    ignored without a word (``--discover --group-by tag`` wrote the groups, ``--discover
    --defer`` the deferred list of every tool).

    Raises:
        UsageError: naming the flags given together.
    """
    given = [flag for flag, on in (("--group-by", args.group_by is not None),
                                   ("--defer", args.defer), ("--discover", args.discover),
                                   ("--losses", args.losses)) if on]
    if len(given) > 1:
        raise UsageError(f"{' and '.join(given)}: each writes an output of its own; "
                         "choose one")


def run(args: argparse.Namespace) -> int:
    """``httpllm compile``."""
    if args.list_providers:
        return _providers()
    if not args.spec:
        raise UsageError("compile needs a SPEC (a path, or - for stdin), or --list-providers")
    _check_one_output(args)
    if args.defer:
        check_defer(args.provider)
    _check_output_is_not_the_document(args)
    app = compile_from(args)
    written = run_toolsets(args, app)  # --group-by / --defer write their own output
    if written is not None:
        return finish(app, args, written=written, target=args.output)
    # how many tools --discover wrote: the trio's functions, not their envelopes (Gemini's
    # one Tool holds all three)
    trio: int | None = None
    if args.discover:
        from httpllm.toolsets.discover import discover

        found = discover(app)
        out: Any = found.tools
        trio = len(found.functions)
    elif args.losses:
        out = [loss.to_json() | {"function": f.name} for f in app.functions
               for loss in f.losses]
    else:
        out = app.tools()
    written = write(dumps(out), args.output)
    if args.losses:
        extra = f"{len(out)} loss entr{'y' if len(out) == 1 else 'ies'} written"
    else:
        lost = sum(len(f.losses) for f in app.functions)
        told = [f"{lost:,} loss entr{'y' if lost == 1 else 'ies'} (--losses lists them)"
                ] if lost else []
        extra = "; ".join([*told, *([_tokens(app, out)] if args.tokens else [])])
    return finish(app, args, written=written, target=args.output, extra=extra,
                  tools=trio)


def _tokens(app: Application, tools: list[Any]) -> str:
    """``"N tokens (tokenizer)"`` of a tool list, ``~`` marking an approximation.

    Raises:
        MissingTokenizer: the ``tokens`` extra is not installed.
    """
    from httpllm.toolsets.tokens import count_tool, tokenizer_for

    tokenizer = tokenizer_for(app.dialect)
    total = sum(count_tool(tool, tokenizer) for tool in tools)
    return f"{total:,} tokens ({'' if tokenizer.exact else '~'}{tokenizer.name})"
