"""What a command tells on standard error about a compile: skipped operations and warnings
grouped by kind (each one under ``-v``), and the one-line summary that ends every compile.

The exit statuses of a partial result (see :mod:`httpllm.cli`) are decided here too:
``--fail-on`` names what counts as a failure.
"""

from __future__ import annotations

import collections
import re
import sys
from collections.abc import Iterable
from typing import TYPE_CHECKING

from httpllm.cli._common import in_flags
from httpllm.cli._terminal import say

if TYPE_CHECKING:
    from httpllm import _api
    from httpllm._api import Application

__all__ = ["FAIL_ON", "PARTIAL", "failed", "kind", "report", "summary", "why_empty"]

PARTIAL = 3
"""Exit status of a result that ``--fail-on`` counts as failed, or of a compile that gave
no tool at all."""

FAIL_ON = ("skipped", "fallback", "warning")
"""What ``--fail-on`` may name: an operation skipped, a strict-mode fallback, a warning."""

_VARIABLE = re.compile(r"'[^']*'|\"[^\"]*\"|`[^`]*`|#/\S*|(?:[a-z][a-z+]*://|/)\S*|\d[\d,.]*")
"""What differs between messages of one kind: quoted names, pointers, paths and URLs,
numbers."""


def kind(message: str) -> str:
    """The kind of a warning or error message: its first clause, with numbers, quoted
    names, pointers, paths and URLs left out, so that messages differing only in those
    group together (the key of a group, never shown).

    >>> kind("1,223 tools exceed chatgpt's limit of 128 per request; select fewer")
    "_ tools exceed chatgpt's limit of _ per request"
    >>> kind("/x/spec/schemas/a.yaml is outside the document's folder /x/spec/namespaces")
    "_ is outside the document's folder _"
    """
    head = re.split(r"[:;(]", message, maxsplit=1)[0]
    return " ".join(_VARIABLE.sub("_", head).split())


def _grouped(lines: Iterable[tuple[str, str]]) -> list[tuple[int, list[str]]]:
    """``(count, [detail ...])`` of ``(message, detail)`` pairs grouped by :func:`kind`,
    most frequent first; each group's details in the order met."""
    groups: dict[str, list[str]] = collections.defaultdict(list)
    for message, detail in lines:
        groups[kind(message)].append(detail)
    ordered = sorted(groups.items(), key=lambda item: (-len(item[1]), item[0]))
    return [(len(details), details) for _, details in ordered]


def fallbacks(app: Application) -> list[str]:
    """The functions declared non-strict although strict mode was asked for."""
    return [f.name for f in app.functions if any(x.action == "fallback" for x in f.losses)]


def report(app: Application, *, verbose: bool, hidden: Iterable[_api.Warning] = ()) -> None:
    """Skipped operations and warnings on standard error, one line per kind: the first
    one in full (its figures, what was done, the flag that helps) and how many more are
    alike (every one, with its pointer, under ``verbose``). ``hidden``: warnings that do
    not apply to what the command wrote (the tool limit, for groups)."""
    skipped = [(e.message, f"{e.method.upper()} {e.path}".strip() + f": {e.pointer}: "
                f"{e.message}") for e in app.errors]
    shown = [w for w in app.warnings if w not in set(hidden)]
    for label, pairs in (("skipped", skipped),
                         ("warning", [(w.message, f"{w.pointer}: {w.message}")
                                      for w in shown])):
        for count, details in _grouped(pairs):
            if verbose:
                for detail in details:
                    _say(f"{label}: {in_flags(detail)}")
            elif count == 1:
                _say(f"{label}: {in_flags(details[0])}")
            else:
                _say(f"{label}: {in_flags(details[0])} (and {count - 1:,} more like it; "
                     "-v lists each)")
    gated = [e for e in app.errors if e.kind == "AccessDenied"]
    opened = [e for e in gated if "(pass " in e.message]  # a flag would let it be read
    if opened:
        _say(f"{len(opened):,} of {app.operations:,} operations skipped because a $ref needs "
             "a file or URL the gate refused: pass the flag the message names (--root DIR, "
             f"--allow-outside-root or --allow-network), or --exclude them (exit {PARTIAL})")
    beside = [e for e in gated if "given as text" in e.message]  # no folder to read from
    if beside:
        _say(f"{len(beside):,} of {app.operations:,} operations skipped because a $ref names "
             "a file beside the document, which was read from standard input (or given as "
             f"text): name the document by its path instead (exit {PARTIAL})")
    if len(gated) > len(opened) + len(beside):
        refused = len(gated) - len(opened) - len(beside)
        _say(f"{refused:,} of {app.operations:,} operations skipped because a $ref points at "
             "a file or value that is not part of the API description (a settings file, a "
             "dotfile, no JSON or YAML): no flag reads it; fix the $ref or --exclude them "
             f"(exit {PARTIAL})")


def why_empty(app: Application) -> str:
    """Why a compile gave no tool, in the user's terms."""
    if app.operations == 0:
        return ("the document has no operations under paths (webhooks and callbacks are "
                "not compiled)")
    if not app.errors:
        return (f"no operation of the document's {app.operations} matched --include/"
                "--exclude (selectors: tag:T, 'GET /path/*', /path/*, method:M, or a "
                "name or operationId glob; 'httpllm inspect' lists them)")
    return f"every selected operation was skipped ({len(app.errors)})"


def summary(app: Application, *, written: int | None = None, target: str | None = None,
            extra: str = "", tools: int | None = None, warnings: int | None = None) -> str:
    """The one line that ends a compile: tools emitted, operations skipped by kind,
    strict fallbacks, warnings by kind, and what was written where. ``tools``: how many
    tools were written when that is not one per function (``--discover``'s three);
    ``warnings``: how many were reported, when some did not apply.

    >>> # "14 tools for chatgpt; 2 operations skipped (RefError 2); 1 warning; 9.1 kB to out.json"
    """
    count = len(app.functions) if tools is None else tools
    parts = [f"{count} tool{'s' if count != 1 else ''} for "
             f"{app.provider}{' strict' if app.options.strict else ''}"]
    if tools is not None:
        parts[0] += f" over {len(app.functions)} operations"
    if app.errors:
        kinds = collections.Counter(e.kind for e in app.errors)
        parts.append(f"{len(app.errors)} operation{'s' if len(app.errors) != 1 else ''} "
                     "skipped (" + ", ".join(f"{k} {n}" for k, n in kinds.most_common()) + ")")
    fell = fallbacks(app)
    if fell:
        parts.append(f"{len(fell)} strict fallback{'s' if len(fell) != 1 else ''}")
    warned = len(app.warnings) if warnings is None else warnings
    if warned:
        parts.append(f"{warned:,} warning{'s' if warned != 1 else ''}")
    if extra:
        parts.append(extra)
    if written is not None:
        size = f"{written / 1000:.1f} kB" if written >= 1000 else f"{written} B"
        parts.append(f"{size} to {target or 'stdout'}")
    return "; ".join(parts)


def failed(app: Application, fail_on: Iterable[str], *, warnings: int | None = None
           ) -> list[str]:
    """What of ``fail_on`` (see :data:`FAIL_ON`) the result shows, as phrases
    (``warnings``: how many apply, when some did not)."""
    found = []
    wanted = set(fail_on)
    warned = len(app.warnings) if warnings is None else warnings
    if "skipped" in wanted and app.errors:
        found.append(f"{len(app.errors)} skipped")
    if "fallback" in wanted and fallbacks(app):
        found.append(f"{len(fallbacks(app))} strict fallbacks")
    if "warning" in wanted and warned:
        found.append(f"{warned} warnings")
    return found


def _say(line: str) -> None:
    say(f"httpllm: {line}", file=sys.stderr)
