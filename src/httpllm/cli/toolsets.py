"""``httpllm compile`` options for large APIs: ``--group-by`` (one file per tool list plus
an index) and ``--defer`` (the provider's native deferred loading)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from httpllm.cli._common import UsageError, dumps, positive, write
from httpllm.cli._terminal import say
from httpllm.errors import HttpllmError

if TYPE_CHECKING:
    from httpllm._api import Application

__all__ = ["add_toolset_options", "check_defer", "run_toolsets"]

INDEX = "_index.json"  # group files never start with "_": no group can overwrite it


def add_toolset_options(parser: argparse.ArgumentParser) -> None:
    """``--group-by``, ``--max-tools``, ``--max-tokens``, ``--defer``, ``--always``,
    ``--search``."""
    parser.add_argument("--group-by", choices=("tag", "path"), default=None,
                        help="write one tool list per group into the -o folder, plus "
                             f"{INDEX}")
    parser.add_argument("--max-tools", type=positive, default=None, metavar="N",
                        help="with --group-by: at most N tools per group (default: the "
                             "provider's limit per request)")
    parser.add_argument("--max-tokens", type=positive, default=None, metavar="T",
                        help="with --group-by: at most T tokens per group (tokens extra)")
    parser.add_argument("--defer", action="store_true",
                        help="the provider's native deferred loading (claude, chatgpt): a "
                             "tool-search tool, the rest loaded on demand")
    parser.add_argument("--always", action="extend", nargs="+", default=None, metavar="NAME",
                        help="with --defer: keep these functions loaded (one or more, "
                             "repeatable; default: the three GET operations needing the "
                             "fewest arguments)")
    parser.add_argument("--search", choices=("bm25", "regex"), default="bm25",
                        help="with --defer on claude: the tool-search variant")


def run_toolsets(args: argparse.Namespace, app: Application) -> int | None:
    """Handle ``--group-by`` or ``--defer``: the characters written, or ``None`` when
    neither was given.

    Raises:
        UsageError: a flag that needs another one without it.
    """
    if args.group_by is not None:
        return _write_groups(args, app)
    if args.defer:
        _check_always(app, args.always or [])
        tools = app.deferred_tools(always=args.always, search=args.search)
        return write(dumps(tools), args.output)
    if args.max_tools is not None or args.max_tokens is not None:
        raise UsageError("--max-tools/--max-tokens need --group-by")
    if args.always:
        raise UsageError("--always needs --defer")
    return None


def check_defer(provider: str) -> None:
    """``--defer`` needs a provider with native deferred loading: checked before the
    document is compiled.

    Raises:
        UsageError: the provider has none (the message names those that have and what
            else to use).
    """
    from httpllm.dialects import get_dialect, providers

    if get_dialect(provider).tool_search is None:
        having = [p for p in providers() if get_dialect(p).tool_search is not None]
        raise UsageError(f"--defer: provider {provider!r} has no native deferred loading "
                         f"({', '.join(having)} have); for it use --discover (search, "
                         "describe, invoke) or --group-by")


def _check_always(app: Application, names: list[str]) -> None:
    """Each ``--always`` name is a function, else a usage error with the closest names."""
    import difflib

    known = {f.name for f in app.functions}
    for name in names:
        if name in known:
            continue
        folded = {k.lower(): k for k in known}
        close = ([folded[name.lower()]] if name.lower() in folded else
                 difflib.get_close_matches(name, known, n=3, cutoff=0.6))
        first = sorted(known)[:8]
        hint = (f"did you mean {', '.join(close)}?" if close else
                f"functions: {', '.join(first)}{' ...' if len(known) > len(first) else ''}")
        raise UsageError(f"--always {name}: no function named {name!r}; {hint} ('httpllm "
                         "inspect' lists them)")


def _write_groups(args: argparse.Namespace, app: Application) -> int:
    from httpllm.toolsets.groups import tools_of

    if not args.output:
        raise UsageError("--group-by needs -o DIR (one file per group)")
    folder = Path(args.output)
    if folder.suffix.lower() in (".json", ".yaml", ".yml") and not folder.is_dir():
        raise UsageError(f"--group-by writes one file per group into a folder: -o {folder} "
                         "looks like a file name; pass a folder (e.g. -o groups/)")
    if folder.exists() and not folder.is_dir():
        raise UsageError(f"--group-by writes one file per group into a folder: -o {folder} "
                         "is a file; pass a folder (e.g. -o groups/)")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise HttpllmError(f"cannot write --output {folder}: {exc.strerror}") from None
    # Each group is one request's tool list: never more tools than the provider takes.
    max_tools = args.max_tools or app.dialect.tool_limit
    found = app.groups(args.group_by, max_tools=max_tools, max_tokens=args.max_tokens)
    index = []
    written = 0
    for group in found:
        name = f"{group.file}.json"
        text = dumps(tools_of(app, group.functions)) + "\n"
        (folder / name).write_text(text, encoding="utf-8")
        written += len(text)
        index.append({**group.to_json(), "file": name})
        if group.over:
            say(f"httpllm: warning: {group.functions[0].pointer}: {group.functions[0].name} "
                f"alone has {group.tokens:,} tokens, over --max-tokens "
                f"{args.max_tokens:,}: a group of its own", file=sys.stderr)
    (folder / INDEX).write_text(json.dumps({"provider": app.provider, "groups": index},
                                           indent=2, ensure_ascii=False) + "\n",
                                encoding="utf-8")
    return written
