"""``httpllm search``: the operations that best serve a task said in words."""

from __future__ import annotations

import argparse
import json
import sys

from httpllm._api import Application
from httpllm.cli._common import SPEC_HELP, UsageError, add_compile_options, compile_from

__all__ = ["register"]


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``search`` command."""
    find = sub.add_parser("search", help="find the operations that serve a task")
    find.add_argument("spec", help=SPEC_HELP)
    find.add_argument("query", help="the task in words, e.g. 'merge a PR'")
    find.add_argument("-k", type=_positive, default=10, metavar="N",
                      help="how many operations to print (default 10)")
    find.add_argument("--tag", default=None, help="only operations with this tag")
    find.add_argument("--ranker", choices=("auto", "bm25", "hybrid"), default=None,
                      help="bm25 alone, or hybrid (BM25 + the sentence embeddings of the "
                           "search-embed extra); default auto: hybrid when installed")
    find.add_argument("--json", action="store_true", help="print JSON")
    add_compile_options(find)
    find.set_defaults(handler=run)


def _positive(text: str) -> int:
    try:
        number = int(text)
    except ValueError:
        number = 0
    if number < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1, got {text!r}")
    return number


def _check_tag(app: Application, tag: str | None) -> None:
    """``--tag`` names a tag of some operation, else a usage error listing the tags."""
    tags = sorted({t for f in app.functions for t in f.tags})
    if tag is None or tag in tags:
        return
    shown = ", ".join(tags[:30]) + (f" ... ({len(tags)} in all)" if len(tags) > 30 else "")
    raise UsageError(f"--tag {tag}: no operation has the tag {tag!r} (tags: "
                     f"{shown or 'none'})")


def run(args: argparse.Namespace) -> int:
    from httpllm.toolsets.search import SearchIndex, one_line

    if not args.query.strip():
        raise UsageError("QUERY is empty: say the task in words, e.g. 'merge a PR'")
    app = compile_from(args)
    _check_tag(app, args.tag)
    index = SearchIndex(app.functions, ranker=args.ranker)
    found = index.search(args.query, args.k, tag=args.tag)
    if not found:
        print(f"httpllm: no operation matches {args.query!r}"
              + (f" with tag {args.tag!r}" if args.tag else ""), file=sys.stderr)
    else:
        print(f"httpllm: ranked by {index.ranker}", file=sys.stderr)
    if args.json:
        print(json.dumps([{"name": f.name, "operationId": f.operation_id,
                           "method": f.method.upper(), "path": f.path,
                           "summary": one_line(f)} for f in found],
                         indent=2, ensure_ascii=False))
        return 0
    for f in found:  # the function's name first: what `httpllm call` takes
        other = f"  (operationId {f.operation_id})" if f.operation_id not in (None, f.name) else ""
        print(f"{f.name}  {f.method.upper()} {f.path}  {one_line(f)}{other}")
    return 0
