"""The one schema walker: iterative, post-order, by a keyword table.

Children are found by keyword (never by ``type``, which misses ``properties`` when ``type``
is absent or a list), the way python-jsonschema/referencing ``_subresources_of`` does. A
``$ref`` is a leaf. The walk uses an explicit stack, so no input depth can raise
``RecursionError``; a depth past ``max_depth`` raises :class:`LimitExceeded`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, TypeVar

from httpllm._limits import DEFAULT_LIMITS
from httpllm._memo import HeldById
from httpllm.errors import LimitExceeded
from httpllm.pointer import escape

__all__ = ["IN_ARRAY", "IN_MAPPING", "IN_VALUE", "Child", "FoldMemo", "Placed",
           "children", "fold", "is_leaf", "nodes", "rebuild", "refs_in", "subschemas",
           "transform"]

IN_VALUE = frozenset(
    {
        "items",
        "additionalItems",
        "additionalProperties",
        "not",
        "if",
        "then",
        "else",
        "contains",
        "propertyNames",
        "unevaluatedItems",
        "unevaluatedProperties",
        "contentSchema",
    }
)
"""Keywords whose value is one subschema (``items`` may also be a list in old drafts)."""

IN_ARRAY = frozenset({"allOf", "anyOf", "oneOf", "prefixItems"})
"""Keywords whose value is a list of subschemas."""

IN_MAPPING = frozenset(
    {"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"}
)
"""Keywords whose value maps names to subschemas."""


_SUBSCHEMA_KEYWORDS = IN_VALUE | IN_ARRAY | IN_MAPPING

Visit = Callable[[dict[str, Any], str], Any]

Child = tuple[str, str | int | None, Any]
"""``(keyword, key_or_index, subschema)``: one direct subschema, as :func:`children` lists it."""

_T = TypeVar("_T")

FoldMemo = HeldById[Any]
"""The results of :func:`fold`, kept by the caller across folds over schemas that share
subtrees (the functions of one compile): ``id(node) -> value``, every node folded held in
``held`` (:class:`~httpllm._memo.HeldById`'s rule). Only the walker writes it."""

Placed = HeldById[tuple[str, Any, tuple[Any, ...]]]
""":func:`transform`'s results of roots' subschemas at the place they were walked, kept by
the caller across walks of roots that share subschemas not in ``origins`` (a path
parameter's schema is one object in every function that has the parameter):
``id(subschema) -> (pointer, result, records)``, every subschema held in ``held``. Only
the walker writes it."""


def children(node: dict[str, Any]) -> list[Child]:
    """``(keyword, key_or_index, subschema)`` for each direct subschema of ``node``, in
    keyword order. ``key_or_index`` is ``None`` for :data:`IN_VALUE` keywords.

    A list, not a generator: every walker calls this once per node, and building the list
    in one frame costs half of what resuming nested generators did.
    """
    out: list[Child] = []
    if ("$ref" in node and len(node) == 1) or _SUBSCHEMA_KEYWORDS.isdisjoint(node):
        return out
    for keyword, value in node.items():
        if keyword not in _SUBSCHEMA_KEYWORDS:
            continue
        if keyword in IN_MAPPING:
            if isinstance(value, dict):
                for key, sub in value.items():
                    if isinstance(sub, (dict, bool)):
                        out.append((keyword, key, sub))
        elif isinstance(value, list):  # IN_ARRAY, or the draft-4 tuple form of ``items``
            for index, sub in enumerate(value):
                if isinstance(sub, (dict, bool)):
                    out.append((keyword, index, sub))
        elif keyword in IN_VALUE and isinstance(value, (dict, bool)):
            out.append((keyword, None, value))
    return out


is_leaf: Callable[[dict[str, Any]], bool] = _SUBSCHEMA_KEYWORDS.isdisjoint
"""Whether a node has no subschema keyword at all (then :func:`children` is empty; a
``$ref`` alone is a leaf too). One set operation, and a C call (no Python frame per node):
walkers skip a leaf's listing."""


def rebuild(node: dict[str, Any], changes: list[Child]) -> Any:
    """A copy of ``node`` with each ``(keyword, key_or_index, new)`` subschema replaced
    (only the containers that change are copied)."""
    out = dict(node)
    copied: set[str] = set()
    for keyword, key, new in changes:
        if key is None:
            out[keyword] = new
            continue
        if keyword not in copied:
            container = out[keyword]
            out[keyword] = list(container) if isinstance(container, list) else dict(container)
            copied.add(keyword)
        out[keyword][key] = new
    return out


Entry = tuple[Any, str, int, str, str | int | None]
"""``(node, pointer, parent index, keyword, key)`` of one node in a walk."""


def _listing(root: Any, pointer: str, max_depth: int, memo: dict[int, Any],
             origins: dict[int, str],
             kids: list[Child] | None = None,
             leaf: Callable[[dict[str, Any]], Any] | None = None,
             placed: Placed | None = None,
             ) -> tuple[list[Entry], dict[int, list[Child]], dict[int, tuple[Any, Any]]]:
    """``(entries, settled, reused)``: every node under ``root`` in pre-order (a
    descendant of an entry has a larger index, so walking the list backwards visits
    children first), the changes the leaves not listed make (``parent index ->
    changes``), and ``index -> (result, records)`` of the root's subschemas ``placed``
    holds at their pointer. Memoized and reused nodes are not entered.

    Only the nodes ``visit`` will see get their pointer (``""`` for memoized and boolean
    subschemas): building every pointer was a fifth of a walk's cost. ``kids``: the root's
    :func:`children`, when the caller has listed them already. A leaf below the root whose
    result ``leaf`` gives is not listed at all (see :func:`transform`); a result that is
    not the leaf itself goes into ``settled`` as the visit's would.
    """
    entries: list[Entry] = []
    settled: dict[int, list[Child]] = {}
    reused: dict[int, tuple[Any, Any]] = {}
    append = entries.append
    # (node, parent's pointer, parent index, keyword, key, depth); the root's own pointer
    # stands in for its parent's (parent index -1).
    stack: list[tuple[Any, str, int, str, str | int | None, int]] = [
        (root, pointer, -1, "", None, 0)
    ]
    pop, push = stack.pop, stack.append
    skipped, walk_nodes = 0, DEFAULT_LIMITS.walk_nodes  # nodes counted, not listed
    while stack:
        node, ptr, parent, keyword, key, depth = pop()
        if not isinstance(node, dict) or id(node) in memo:
            append((node, "", parent, keyword, key))
            continue
        # A leaf whose result is known: its parent takes it (kept, if it is the leaf
        # itself), unvisited. Past the node limit it is listed, so as to be refused below.
        if (leaf is not None and parent >= 0 and depth < max_depth
                and len(entries) + skipped < walk_nodes
                and _SUBSCHEMA_KEYWORDS.isdisjoint(node) and (new := leaf(node)) is not None):
            skipped += 1
            if new is not node:
                settled.setdefault(parent, []).append((keyword, key, new))
            continue
        if id(node) in origins:
            ptr = origins[id(node)]
        elif parent >= 0:
            ptr = f"{ptr}/{keyword}" if key is None else f"{ptr}/{keyword}/{escape(key)}"
        append((node, ptr, parent, keyword, key))
        if len(entries) + skipped > walk_nodes or depth >= max_depth:
            raise _past_limits(len(entries) + skipped, max_depth, ptr)
        if parent == 0 and placed and (hit := placed.get(id(node))) is not None and (
                hit[0] == ptr):
            reused[len(entries) - 1] = hit[1:]  # walked before at this place
            continue
        if _SUBSCHEMA_KEYWORDS.isdisjoint(node):
            continue  # a leaf (most nodes): nothing to list
        index = len(entries) - 1
        depth += 1
        if kids is not None:  # only the root's were given
            for kw, k, sub in kids:
                push((sub, ptr, index, kw, k, depth))
            kids = None
        else:
            _push_children(node, ptr, index, depth, push)
    return entries, settled, reused


def _past_limits(listed: int, max_depth: int, pointer: str) -> LimitExceeded:
    """:func:`_listing`'s refusal of a walk past ``walk_nodes`` nodes (a shared subtree
    counts once per path) or ``max_depth`` levels, at the node listed last."""
    if listed > DEFAULT_LIMITS.walk_nodes:
        return LimitExceeded(f"schema has more than {DEFAULT_LIMITS.walk_nodes} nodes",
                             pointer=pointer)
    return LimitExceeded(f"schema nesting deeper than {max_depth} levels", pointer=pointer)


def _push_children(node: dict[str, Any], ptr: str, index: int, depth: int,
                   push: Callable[[tuple[Any, str, int, str, str | int | None, int]], None],
                   ) -> None:
    """:func:`_listing`'s :func:`children`: each subschema pushed as it is found, with no
    list of triples in between (this runs for every node with subschemas of every walk)."""
    for keyword, value in node.items():
        if keyword not in _SUBSCHEMA_KEYWORDS:
            continue
        if keyword in IN_MAPPING:
            if isinstance(value, dict):
                for k, sub in value.items():
                    if isinstance(sub, (dict, bool)):
                        push((sub, ptr, index, keyword, k, depth))
        elif isinstance(value, list):
            for i, sub in enumerate(value):
                if isinstance(sub, (dict, bool)):
                    push((sub, ptr, index, keyword, i, depth))
        elif keyword in IN_VALUE and isinstance(value, (dict, bool)):
            push((value, ptr, index, keyword, None, depth))


def transform(
    root: Any,
    visit: Visit,
    *,
    pointer: str = "#",
    max_depth: int = DEFAULT_LIMITS.walk_depth,
    memo: dict[int, tuple[Any, tuple[Any, ...]]] | None = None,
    origins: dict[int, str] | None = None,
    sink: list[Any] | None = None,
    leaf: Callable[[dict[str, Any]], Any] | None = None,
    placed: Placed | None = None,
) -> Any:
    """Rebuild ``root`` bottom-up, calling ``visit(node, pointer)`` on every object node.

    ``visit`` sees each node with its children already transformed and returns the
    replacement (the same object when nothing changed: identity means "unchanged", and
    untouched subtrees are shared, never copied). Boolean schemas are passed through.

    Args:
        root: the schema to walk.
        visit: ``(node, pointer) -> new node``.
        pointer: the JSON pointer of ``root``.
        max_depth: maximum nesting of subschemas.
        memo: ``id(node) -> (result, records)`` for shared subtrees walked before: such a
            node is not descended again; its result is reused and its records re-emitted
            into ``sink``. Nodes listed in ``origins`` are added after their walk.
        origins: ``id(node) -> pointer``: shared nodes whose pointer restarts there (the
            named schema a subtree was inlined from).
        sink: the list ``visit`` appends its records to (e.g. loss entries); needed with
            ``memo`` so that each memoized subtree keeps the records it produced.
        leaf: ``node -> result or None`` for a leaf (a node without subschemas) below
            ``root``: a result (the leaf itself when ``visit`` keeps it, else its
            replacement) promises that ``visit`` would return it and do nothing else
            (record, report, read the pointer), so the leaf is not visited, nor listed, nor
            given a pointer; ``None``: the leaf is visited. Most nodes are leaves. With a
            ``memo``, a leaf skipped is not memoized (nor needs to be).
        placed: with ``memo`` and ``sink``, the results of roots' subschemas that are not
            in ``origins``, by identity with the pointer each was walked at
            (:data:`Placed`): a subschema of ``root`` met again at that pointer is not
            descended again; its result is reused and its records re-emitted, as
            ``memo``'s are. Every subschema of ``root`` visited (not in ``origins``) is
            added, its first pointer kept. Sound as long as ``visit``'s result and
            records depend only on the node, the results below it and the pointer: a
            subschema of a root is always one level deep (and ``max_depth`` the same for
            every walk given one ``placed``).

    Raises:
        LimitExceeded: nesting deeper than ``max_depth``.
    """
    kids = None
    if (memo is not None and (memo or placed) and max_depth > 0 and isinstance(root, dict)
            and id(root) not in memo):
        kids = children(root)
        base = origins.get(id(root), pointer) if origins else pointer
        known = _known_kids(kids, memo, leaf if max_depth > 1 else None, placed, base)
        if known is not None:
            return _shallow(root, known, visit, pointer, memo, origins or {}, sink)
    elif memo is None and max_depth > 0 and isinstance(root, dict) and is_leaf(root):
        # A lone node (most parameters' schemas): nothing to list.
        return visit(root, origins.get(id(root), pointer) if origins else pointer)
    entries, settled, reused = _listing(root, pointer, max_depth, memo or {}, origins or {},
                                        kids, leaf, placed)
    if memo is None and sink is None:
        return _plain(entries, visit, settled)
    return _recorded(entries, visit, memo, origins, sink, settled, reused, placed)


def _recorded(entries: list[Entry], visit: Visit,
              memo: dict[int, tuple[Any, tuple[Any, ...]]] | None,
              origins: dict[int, str] | None, sink: list[Any] | None,
              changes: dict[int, list[Child]],
              reused: dict[int, tuple[Any, Any]] | None = None,
              placed: Placed | None = None) -> Any:
    """:func:`transform`'s loop with a memo or records: a memoized node (or one of
    ``reused``, by index) hands over its result and re-emits its records; a node in
    ``origins`` is memoized after its visit with the records its subtree produced, any
    other subschema of the root goes into ``placed`` (when given) with its pointer."""
    results: list[Any] = [None] * len(entries)
    starts: dict[int, int] = {}  # index -> first record of its subtree in ``sink``
    for index in range(len(entries) - 1, -1, -1):
        node, ptr, parent, keyword, key = entries[index]
        start = starts.pop(index, len(sink) if sink is not None else 0)
        if not isinstance(node, dict):
            new: Any = node
        elif memo is not None and id(node) in memo:
            new, records = memo[id(node)]
            if sink is not None:
                start = min(start, len(sink))
                sink.extend(records)
        elif reused and index in reused:
            new, records = reused[index]
            if sink is not None:
                start = min(start, len(sink))
                sink.extend(records)
        else:
            pending = changes.pop(index, None)
            current = rebuild(node, pending) if pending else node
            new = visit(current, ptr)
            if memo is not None and origins is not None and id(node) in origins:
                memo[id(node)] = (new, tuple(sink[start:]) if sink is not None else ())
            elif parent == 0 and placed is not None and id(node) not in placed:
                placed.keep(node, (ptr, new, tuple(sink[start:]) if sink is not None else ()))
        results[index] = new
        if parent >= 0:
            starts[parent] = min(starts.get(parent, start), start)
            if new is not node:
                changes.setdefault(parent, []).append((keyword, key, new))
    return results[0]


def _plain(entries: list[Entry], visit: Visit, changes: dict[int, list[Child]]) -> Any:
    """:func:`transform`'s loop without a memo or records to keep (the emend and inline
    walks): each visited node hands its replacement to its parent, and the root's is the
    result. ``changes``: ``index -> replaced subschemas`` of the leaves not listed."""
    new: Any = None
    for index in range(len(entries) - 1, -1, -1):
        node, ptr, parent, keyword, key = entries[index]
        if not isinstance(node, dict):
            new = node
            continue
        pending = changes.pop(index, None)
        new = visit(rebuild(node, pending) if pending else node, ptr)
        if parent >= 0 and new is not node:
            changes.setdefault(parent, []).append((keyword, key, new))
    return new


def _known_kids(kids: list[Child], memo: dict[int, tuple[Any, tuple[Any, ...]]],
                leaf: Callable[[dict[str, Any]], Any] | None,
                placed: Placed | None = None, pointer: str = ""
                ) -> list[tuple[Child, Any, tuple[Any, ...]]] | None:
    """``(child, result, records)`` of each of a root's subschemas when all are known
    without a walk: memoized, boolean, a leaf whose result ``leaf`` gives (no records),
    or in ``placed`` at its pointer below the root's ``pointer``; else ``None``."""
    out: list[tuple[Child, Any, tuple[Any, ...]]] = []
    for kid in kids:
        sub = kid[2]
        if not isinstance(sub, dict):
            out.append((kid, sub, ()))
            continue
        hit = memo.get(id(sub))
        if hit is not None:
            out.append((kid, *hit))
            continue
        if leaf is not None and _SUBSCHEMA_KEYWORDS.isdisjoint(sub):
            new = leaf(sub)
            if new is not None:
                out.append((kid, new, ()))
                continue
        there = placed.get(id(sub)) if placed else None
        keyword, key = kid[0], kid[1]
        if there is None or there[0] != (f"{pointer}/{keyword}" if key is None
                                         else f"{pointer}/{keyword}/{escape(key)}"):
            return None
        out.append((kid, there[1], there[2]))
    return out


def _shallow(root: dict[str, Any], kids: list[tuple[Child, Any, tuple[Any, ...]]],
             visit: Visit, pointer: str, memo: dict[int, tuple[Any, tuple[Any, ...]]],
             origins: dict[int, str], sink: list[Any] | None) -> Any:
    """:func:`transform` of a root whose subschemas' results are all known (a function's
    parameters object once its arguments' schemas have been seen): ``kids`` are
    :func:`_known_kids`; the same result and records, in the same order, without listing
    the tree."""
    start = len(sink) if sink is not None else 0
    changes = []
    for (keyword, key, sub), new, records in kids:
        if sink is not None:
            sink.extend(records)
        if new is not sub:
            changes.append((keyword, key, new))
    result = visit(rebuild(root, changes) if changes else root, origins.get(id(root), pointer))
    if id(root) in origins:
        memo[id(root)] = (result, tuple(sink[start:]) if sink is not None else ())
    return result


def fold(root: Any, combine: Callable[[dict[str, Any], list[_T]], _T], boolean: _T,
         memo: FoldMemo | None = None) -> _T:
    """A value computed bottom-up: ``combine(node, values)`` for each object node, where
    ``values`` are its :func:`children`'s values in order and ``boolean`` stands for a
    boolean subschema (and is the value of a boolean ``root``).

    Each distinct node is combined once per ``memo`` (by identity), so the cost is the
    number of distinct nodes even when the tree as serialized is far larger; a value must
    therefore depend only on the subtree, never on the path to it. A root whose
    subschemas are all in ``memo`` already (a function's parameters object once its
    arguments have been folded) is combined without listing the tree and not
    remembered (no other schema holds it). Iterative: no input depth raises
    ``RecursionError``.
    """
    if not isinstance(root, dict):
        return boolean
    memo = FoldMemo() if memo is None else memo
    hit = memo.get(id(root), _MISSING)
    if hit is not _MISSING:
        return hit  # type: ignore[no-any-return]
    kids = children(root)
    values = _known(kids, boolean, memo)
    if values is not None:
        return combine(root, values)
    _fold_tree(root, kids, combine, boolean, memo)
    return memo[id(root)]  # type: ignore[no-any-return]


_MISSING: Any = object()


def _fold_tree(root: dict[str, Any], kids: list[Child],
               combine: Callable[[dict[str, Any], list[_T]], _T], boolean: _T,
               memo: FoldMemo) -> None:
    """:func:`fold`'s walk: every node under ``root`` (whose children are ``kids``) into
    ``memo``, children first."""
    # (node, None) on the way down; (node, its subschemas) once they are on the stack
    stack: list[tuple[dict[str, Any], list[Any] | None]] = [(root, None)]
    # ``HeldById.keep`` spelled out: a node is combined only while its id is not in
    # ``values``, so each is held once (as a call, the store took 1.5 times as long:
    # timeit, 100,000 nodes)
    values, hold, leaf = memo, memo.held.append, _SUBSCHEMA_KEYWORDS.isdisjoint
    while stack:
        node, subs = stack.pop()
        if id(node) in values:
            continue  # met again, on another path
        if subs is not None:
            values[id(node)] = combine(node, [values[id(s)] if isinstance(s, dict)
                                              else boolean for s in subs])
            hold(node)
            continue
        subs = [s for _, _, s in (children(node) if node is not root else kids)]
        stack.append((node, subs))
        for sub in subs:
            if not isinstance(sub, dict):
                continue
            if leaf(sub):  # most nodes: combined at once, never stacked
                if id(sub) not in values:
                    values[id(sub)] = combine(sub, [])
                    hold(sub)
            else:
                stack.append((sub, None))


def _known(kids: list[Child], boolean: _T, values: dict[int, Any]) -> list[_T] | None:
    """The values of ``kids`` when every one is in ``values`` (or boolean), else ``None``."""
    out: list[_T] = []
    for _, _, sub in kids:
        if not isinstance(sub, dict):
            out.append(boolean)
            continue
        hit = values.get(id(sub), _MISSING)
        if hit is _MISSING:
            return None
        out.append(hit)
    return out


def refs_in(schema: Any) -> list[str]:
    """Every ``$ref`` string in ``schema`` (the node itself and its subschemas, each
    distinct node once), without following any, in depth-first order, first occurrence
    kept. Iterative."""
    found: dict[str, None] = {}
    seen: set[int] = set()
    stack = [schema]
    pop, push = stack.pop, stack.append
    while stack:
        node = pop()
        if not isinstance(node, dict):
            continue
        ref = node.get("$ref")
        if isinstance(ref, str):
            found[ref] = None  # met again: its first place is kept
        if _SUBSCHEMA_KEYWORDS.isdisjoint(node) or id(node) in seen:
            continue  # a leaf (most nodes) is read once per place, and not remembered
        seen.add(id(node))
        if not ("$ref" in node and len(node) == 1):
            _push_subschemas(node, push)
    return list(found)


def _push_subschemas(node: dict[str, Any], push: Callable[[Any], None]) -> None:
    """:func:`children`'s subschemas in order, each pushed as it is found, with no triple
    made (and values no subschema may be left for the caller to skip)."""
    for keyword, value in node.items():
        if keyword not in _SUBSCHEMA_KEYWORDS:
            continue
        if keyword in IN_MAPPING:
            if isinstance(value, dict):
                for sub in value.values():
                    push(sub)
        elif isinstance(value, list):
            for sub in value:
                push(sub)
        elif keyword in IN_VALUE:
            push(value)


def subschemas(node: dict[str, Any]) -> list[Any]:
    """The subschemas of :func:`children`, in order, without their keywords and keys (a
    walker that needs no pointer makes no triple per child)."""
    out: list[Any] = []
    if _SUBSCHEMA_KEYWORDS.isdisjoint(node) or ("$ref" in node and len(node) == 1):
        return out
    push = out.append
    for keyword, value in node.items():
        if keyword not in _SUBSCHEMA_KEYWORDS:
            continue
        if keyword in IN_MAPPING:
            if isinstance(value, dict):
                for sub in value.values():
                    if isinstance(sub, (dict, bool)):
                        push(sub)
        elif isinstance(value, list):
            for sub in value:
                if isinstance(sub, (dict, bool)):
                    push(sub)
        elif keyword in IN_VALUE and isinstance(value, (dict, bool)):
            push(value)
    return out


def nodes(root: Any, pointer: str = "#") -> Iterator[tuple[dict[str, Any], str]]:
    """Each distinct object node under ``root`` once, in pre-order (subschemas in keyword
    order), with the pointer at which it first occurs; ``$ref`` is not followed.
    Iterative.

    >>> [at for _, at in nodes({"items": {"type": "string"}}, "p#")]
    ['p#', 'p#/items']
    """
    seen: set[int] = set()
    stack: list[tuple[Any, str]] = [(root, pointer)]
    while stack:
        node, at = stack.pop()
        if not isinstance(node, dict) or id(node) in seen:
            continue
        seen.add(id(node))
        yield node, at
        stack.extend((sub, f"{at}/{kw}" if key is None else f"{at}/{kw}/{escape(key)}")
                     for kw, key, sub in reversed(children(node)))
