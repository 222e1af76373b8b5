"""``httpllm inspect SPEC --budget``: the budget report as a table (or ``--json``)."""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING

from httpllm.cli._common import compile_from, positive, write
from httpllm.cli._terminal import one_line
from httpllm.toolsets.budget import Budget, budget, strict_eligibility

if TYPE_CHECKING:
    from httpllm._api import Application

__all__ = ["add_budget_options", "run_budget"]


def add_budget_options(parser: argparse.ArgumentParser) -> None:
    """``--budget``, ``--json``, ``--max-tools`` and ``--max-tokens``."""
    parser.add_argument("--budget", action="store_true",
                        help="tokens, arguments, depth and strict eligibility per tool, and "
                             "the totals against the provider's limits")
    parser.add_argument("--json", action="store_true",
                        help="print JSON (the inspection, or with --budget its report)")
    parser.add_argument("--max-tools", type=positive, default=None, metavar="N",
                        help="with --budget: your own limit on tools per request")
    parser.add_argument("--max-tokens", type=positive, default=None, metavar="T",
                        help="with --budget: your own limit on the tool list's tokens")


def run_budget(args: argparse.Namespace, app: Application) -> int:
    """Print the budget report of ``app``; strict eligibility comes from a second compile
    with ``--strict`` when the provider has a strict mode and it was not asked."""
    checked = app
    if app.dialect.has_strict and not app.options.strict:
        checked = compile_from(replace_strict(args))
    report = budget(app, strict=strict_eligibility(checked), max_tools=args.max_tools,
                    max_tokens=args.max_tokens)
    write(json.dumps(report.to_json(), indent=2) if args.json else render(report), None)
    return 0


def replace_strict(args: argparse.Namespace) -> argparse.Namespace:
    """The same arguments with ``--strict``."""
    return argparse.Namespace(**{**vars(args), "strict": True})


def render(report: Budget) -> str:
    """The report as text: one line per tool, then the totals against each limit
    (each :func:`~httpllm.cli._terminal.one_line`)."""
    width = max([len(t.name) for t in report.tools] + [8])
    lines = [f"provider {report.provider}; tokens counted with {report.tokenizer}", "",
             f"{'function':<{width}} {'tokens':>7} {'args':>5} {'depth':>5}  strict"]
    for t in report.tools:
        mark = "-" if t.strict is None else "yes" if t.strict else "no"
        why = f" ({t.reason})" if t.reason and t.strict is not None else ""
        lines.append(f"{t.name:<{width}} {t.tokens:>7,} {t.parameters:>5} {t.depth:>5}  "
                     f"{mark}{why}")
    lines += ["", f"total tokens of the tool list: {report.total_tokens:,}", "", "limits:"]
    for limit in report.limits:
        bound = "no documented limit" if limit.limit is None else f"limit {limit.limit:,}"
        state = "  OVER" if limit.over else f"; {limit.note}" if limit.note else ""
        source = f"  (source: {limit.source})" if limit.source else ""
        lines.append(f"  {limit.name}: {limit.value:,} ({bound}){state}{source}")
    return "\n".join(one_line(line) for line in lines)

