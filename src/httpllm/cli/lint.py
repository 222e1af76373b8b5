"""``httpllm lint``: what in a document makes worse tools, per operation with its pointer.

Exit status 1 when a finding is an error (``httpllm.toolsets.lint`` lists each rule's
severity), so it can gate CI; 0 otherwise.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter

from httpllm.cli._common import SPEC_HELP, add_compile_options, compile_from, positive, write
from httpllm.cli._terminal import one_line
from httpllm.toolsets.budget import strict_eligibility
from httpllm.toolsets.lint import Finding, lint

__all__ = ["register"]


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``lint`` command."""
    parser = sub.add_parser("lint", help="report what makes worse tools (exit 1 on errors)",
                            epilog=rules_text(),
                            formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("spec", help=SPEC_HELP)
    add_compile_options(parser)
    parser.add_argument("--max-tools", type=positive, default=None, metavar="N",
                        help="an error past N tools in one request")
    parser.add_argument("--max-tokens", type=positive, default=None, metavar="T",
                        help="an error past T tokens of tool definitions (needs the tokens "
                             "extra)")
    parser.add_argument("--json", action="store_true", help="print the findings as JSON")
    parser.set_defaults(handler=run)


def rules_text() -> str:
    """The rules by severity, each with what it finds (the bullets of
    :mod:`httpllm.toolsets.lint`'s docstring, the one place they are said)."""
    import re
    import textwrap

    from httpllm.toolsets import lint as rules

    said = {name: " ".join(text.split()).rstrip(";.") for name, text in re.findall(
        r"^- ``([a-z-]+)``: (.*?)(?=^- |^\S|\Z)", rules.__doc__ or "", re.DOTALL | re.MULTILINE)}
    lines = ["rules (an error makes the exit status 1):"]
    for rule in rules.RULES:
        what = re.sub(r":data:`(\w+)`", lambda m: str(getattr(rules, m.group(1), m.group(1))),
                      said.get(rule.name, ""))
        what = re.sub(r"``([^`]*)``", r"\1", what)
        lines += textwrap.wrap(f"{rule.severity:<8} {rule.name}" + (f": {what}" if what else ""),
                               width=88, initial_indent="  ", subsequent_indent=" " * 11,
                               break_on_hyphens=False)
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    app = compile_from(args)
    checked = app
    if app.dialect.has_strict and not app.options.strict:
        checked = compile_from(argparse.Namespace(**{**vars(args), "strict": True}))
    findings = lint(app, strict=strict_eligibility(checked), max_tools=args.max_tools,
                    max_tokens=args.max_tokens)
    write(json.dumps([f.to_json() for f in findings], indent=2) if args.json
          else render(findings), None)
    return 1 if any(f.severity == "error" for f in findings) else 0


def render(findings: list[Finding]) -> str:
    """One line per finding (:func:`~httpllm.cli._terminal.one_line`), then the count by
    severity and rule."""
    lines = [one_line(f"{f.severity}: {f.rule}: {f.function + ': ' if f.function else ''}"
                      f"{f.pointer}: {f.message}") for f in findings]
    counts = Counter((f.severity, f.rule) for f in findings)
    summary = ", ".join(f"{n} {rule}" for (_, rule), n in sorted(counts.items()))
    noun = "finding" if len(findings) == 1 else "findings"
    lines.append(f"{len(findings):,} {noun}" + (f": {summary}" if summary else ""))
    return "\n".join(lines)
