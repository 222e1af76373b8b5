"""Cut an answer to a budget of characters, never silently: JSON stays JSON (long arrays
keep their first items, then long strings their first characters) and the :class:`Cut`
counts what was left out, so the note the model reads can say how much and how to ask for
less. Plain text keeps its first characters.

Iterative throughout (an upstream answer may nest as deep as ``json.loads`` allows).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from httpllm.records import Function

__all__ = ["DEFAULT_BUDGET", "Cut", "PAGING", "cut_json", "cut_text", "dumps", "narrowing",
           "note"]

DEFAULT_BUDGET = 40_000
"""Most characters of one answer a model reads, by default (the MCP server's
``max_result_chars``, the agent loop's ``max_answer_chars``): about 10k tokens."""

_STRING_CAPS = (1000, 100, 20)
"""String lengths (characters) tried in turn when shortening arrays alone is not enough,
after half the budget (one long text value keeps as much as fits)."""

PAGING = ("limit", "per_page", "perPage", "page_size", "pageSize", "size", "count", "top",
          "$top", "max_results", "maxResults", "first", "last", "fields", "$select", "select",
          "filter", "$filter", "q", "query", "search", "since", "until", "page", "offset",
          "cursor", "after", "before", "page_token", "pageToken", "starting_after")
"""Argument names that ask an API for fewer or narrower items (paging, projection,
filtering), named in the note when the tool takes them."""


def narrowing(function: Function) -> list[str]:
    """The function's query arguments that page, project or filter (see :data:`PAGING`)."""
    names = {a.name for a in function.arguments if a.location == "query" and not a.separated}
    return [n for n in PAGING if n in names]


def dumps(value: Any) -> str:
    """Compact JSON text, non-ASCII kept (the form the model reads and budgets count)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


@dataclass(frozen=True, slots=True, kw_only=True)
class Cut:
    """An answer fitted to a budget.

    Attributes:
        text: what the model reads (at most the budget, in characters).
        value: the shortened JSON value (``None`` for text, or when no JSON shape fits).
        total: characters of the whole answer.
        items: array items left out, over ``arrays`` arrays (each keeps its first ``kept``).
        chars: characters left out of ``strings`` strings; for text, of the text.
    """

    text: str
    value: Any = None
    total: int = 0
    arrays: int = 0
    kept: int = 0
    items: int = 0
    strings: int = 0
    chars: int = 0

    @property
    def cut(self) -> bool:
        """Whether anything was left out."""
        return bool(self.items or self.chars or len(self.text) < self.total)


def cut_text(text: str, budget: int) -> Cut:
    """The first ``budget`` characters of ``text``."""
    if len(text) <= budget:
        return Cut(text=text, total=len(text))
    return Cut(text=text[:budget], total=len(text), chars=len(text) - budget)


def _capped(value: Any, items: int | None, chars: int | None) -> tuple[Any, list[int]]:
    """A copy of ``value`` whose arrays keep their first ``items`` items and strings their
    first ``chars`` characters; ``[arrays cut, items left out, strings cut, characters
    left out, longest array]``."""
    stats = [0, 0, 0, 0, 0]
    holder: list[Any] = [None]
    stack: list[tuple[Any, Any, Any]] = [(value, holder, 0)]
    while stack:
        node, parent, key = stack.pop()
        if isinstance(node, dict):
            new: Any = dict.fromkeys(node)
            stack.extend((v, new, k) for k, v in node.items())
        elif isinstance(node, list):
            stats[4] = max(stats[4], len(node))
            kept = node if items is None or len(node) <= items else node[:items]
            if len(kept) < len(node):
                stats[0] += 1
                stats[1] += len(node) - len(kept)
            new = [None] * len(kept)
            stack.extend((v, new, i) for i, v in enumerate(kept))
        elif isinstance(node, str) and chars is not None and len(node) > chars:
            new = node[:chars] + "…"
            stats[2] += 1
            stats[3] += len(node) - chars
        else:
            new = node
        parent[key] = new
    return holder[0], stats


def cut_json(value: Any, budget: int) -> Cut:
    """``value`` as compact JSON text within ``budget`` characters, shortened as little as
    the budget allows: one cap on every array's length (the largest that fits, found by
    bisection), then also on strings; the JSON text's first characters (``value=None``)
    when no shape fits."""
    text = dumps(value)
    if len(text) <= budget:
        return Cut(text=text, value=value, total=len(text))
    emptied: Cut | None = None  # every array emptied: kept only if no string cap does better
    for chars in (None, *sorted({budget // 2, *_STRING_CAPS}, reverse=True)):
        found = _search(value, budget, chars)
        if found is None:
            continue
        shorter_text, shorter, stats, kept = found
        fitted = Cut(text=shorter_text, value=shorter, total=len(text), arrays=stats[0],
                     kept=kept, items=stats[1], strings=stats[2], chars=stats[3])
        if kept > 0 or stats[0] == 0:
            return fitted
        emptied = emptied or fitted
    return emptied or Cut(text=text[:budget], total=len(text), chars=len(text) - budget)


def _search(value: Any, budget: int,
            chars: int | None) -> tuple[str, Any, list[int], int] | None:
    """The copy with the longest array cap that fits the budget, with its text, stats and
    cap; ``None`` when not even empty arrays fit. Caps are tried 0, 1, 2, 4 ... (each
    copy costs only the items it keeps) until one does not fit, then bisected."""
    best = None
    cap, over = 0, None
    while over is None:
        shorter, stats = _capped(value, cap, chars)
        shorter_text = dumps(shorter)
        if len(shorter_text) > budget:
            over = cap
        else:
            best = (shorter_text, shorter, stats, cap)
            if stats[0] == 0:  # no array was cut: a larger cap changes nothing
                return best
            cap = cap * 2 or 1
    low, high = (best[3] + 1 if best else 0), over - 1
    while low <= high:
        middle = (low + high) // 2
        shorter, stats = _capped(value, middle, chars)
        shorter_text = dumps(shorter)
        if len(shorter_text) <= budget:
            best = (shorter_text, shorter, stats, middle)
            low = middle + 1
        else:
            high = middle - 1
    return best


def note(cut: Cut, budget: int, tool: str, narrowing: list[str]) -> str:
    """The sentence the model reads after a cut answer: how much was left out and how to
    ask for less (``narrowing``: the tool's arguments named in :data:`PAGING`)."""
    parts = []
    if cut.items:
        parts.append(f"{cut.arrays:,} list(s) keep only their first {cut.kept:,} item(s), "
                     f"{cut.items:,} item(s) left out")
    if cut.strings:
        parts.append(f"{cut.strings:,} text value(s) shortened, {cut.chars:,} character(s) "
                     "left out")
    if not parts:
        parts.append(f"only the first {len(cut.text):,} characters are shown, "
                     f"{cut.chars:,} left out")
    how = (f"To get less at once, call {tool} again with " + ", ".join(narrowing) + "."
           if narrowing else
           f"{tool} has no paging or filter argument: ask for a narrower resource if the "
           "API offers one.")
    return (f"[Answer cut to fit {budget:,} characters (it had {cut.total:,}): "
            f"{'; '.join(parts)}. {how}]")
