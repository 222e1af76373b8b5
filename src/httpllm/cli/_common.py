"""What the commands share: the compile options, compiling from them, writing output and
reporting skipped operations and warnings."""

from __future__ import annotations

import argparse
import sys

from httpllm._api import Application, compile

__all__ = ["add_compile_options", "compile_from", "report_errors", "write"]


def add_compile_options(parser: argparse.ArgumentParser) -> None:
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
    parser.add_argument("--root", default=None, metavar="DIR",
                        help="$refs may read files under DIR (e.g. the repository) instead "
                             "of the document's folder")


def compile_from(args: argparse.Namespace) -> Application:
    return compile(args.spec, args.provider, strict=args.strict, reference=args.reference,
                   strip_constraints=args.strip_constraints, unroll=args.unroll,
                   envelope=args.envelope, include=args.include, exclude=args.exclude,
                   allow_network=args.allow_network,
                   allow_outside_root=args.allow_outside_root, root=args.root)


def write(text: str, output: str | None) -> None:
    if output:
        with open(output, "w", encoding="utf-8") as handle:
            handle.write(text + "\n")
    else:
        sys.stdout.write(text + "\n")


def report_errors(app: Application) -> None:
    for error in app.errors:
        where = f"{error.method.upper()} {error.path}".strip()
        print(f"httpllm: skipped {where}: {error.pointer}: {error.message}", file=sys.stderr)
    for warning in app.warnings:
        print(f"httpllm: warning: {warning.pointer}: {warning.message}", file=sys.stderr)


