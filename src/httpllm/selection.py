"""Operation selection: ``include=`` / ``exclude=`` by tag, path glob, method, operationId.

A selector is a string or a predicate ``(method, path, operation) -> bool``:

- ``"tag:pets"`` — operations tagged ``pets``;
- ``"GET /pets/*"`` — method and path glob (``fnmatch``); ``"/pets/*"`` — any method;
- ``"method:delete"`` — by method;
- ``"operationId:list*"`` — by operationId (glob); ``"listPets"`` — by operationId, or by
  the function name the operation gets (``repos_get-content`` for ``repos/get-content``)
  when the caller says how names are made (``name_of``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from fnmatch import fnmatchcase
from typing import Any

from httpllm.parse import METHODS, OperationSite

__all__ = ["Selector", "matches", "select"]

Selector = str | Callable[[str, str, dict[str, Any]], bool]
_METHOD_PATH = re.compile(r"^(?P<method>[A-Za-z]+)\s+(?P<path>/.*)$")


def matches(selector: Selector, site: OperationSite,
            name_of: Callable[[OperationSite], str] | None = None) -> bool:
    """Whether one selector picks the operation at ``site``; ``name_of``: the function
    name the operation gets, matched like its operationId."""
    if callable(selector):
        return bool(selector(site.method, site.path, site.node))
    text = selector.strip()
    if text.startswith("tag:"):
        tags = site.node.get("tags")
        return isinstance(tags, list) and text[4:] in tags
    if text.startswith("method:"):
        return site.method == text[7:].strip().lower()
    if text.startswith("path:"):
        return fnmatchcase(site.path, text[5:].strip())
    if text.startswith("/"):
        return fnmatchcase(site.path, text)
    found = _METHOD_PATH.match(text)
    if found and found["method"].lower() in METHODS:
        return site.method == found["method"].lower() and fnmatchcase(site.path, found["path"])
    by_id = text.startswith("operationId:")
    pattern = text[12:] if by_id else text
    op_id = site.node.get("operationId")
    if isinstance(op_id, str) and (op_id == pattern or fnmatchcase(op_id, pattern)):
        return True  # equal first: an operationId such as "[weird]" is no glob of itself
    if by_id or name_of is None:
        return False
    name = name_of(site)
    return name == pattern or fnmatchcase(name, pattern)


def select(
    sites: Iterable[OperationSite],
    include: Iterable[Selector] | Selector | None,
    exclude: Iterable[Selector] | Selector | None,
    name_of: Callable[[OperationSite], str] | None = None,
) -> list[OperationSite]:
    """The sites picked by any ``include`` selector (all when ``None``) and no ``exclude``
    (``name_of``: as for :func:`matches`)."""
    inc = _listed(include)
    exc = _listed(exclude)
    out = []
    for site in sites:
        if inc is not None and not any(matches(s, site, name_of) for s in inc):
            continue
        if exc is not None and any(matches(s, site, name_of) for s in exc):
            continue
        out.append(site)
    return out


def _listed(selectors: Iterable[Selector] | Selector | None) -> tuple[Selector, ...] | None:
    """The selectors as a tuple: one selector alone, or an iterable read once (a generator
    would be used up by the first operation and match none after it)."""
    if selectors is None:
        return None
    if isinstance(selectors, str) or callable(selectors):
        return (selectors,)
    return tuple(selectors)
