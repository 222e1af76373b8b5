"""OpenAI strict mode's size limits, measured on the rendered parameters.

Structured outputs "Objects have limitations on nesting depth and size"
(docs/provider-rules.md 2c): :func:`strict_limits` is the check ``CHATGPT.strict_limits``
(and DeepSeek's) runs on each strict tool; a tool past a limit falls back to non-strict.
"""

from __future__ import annotations

from typing import Any

from httpllm._types import Schema
from httpllm.pointer import escape, parts
from httpllm.walk import children, fold, is_leaf, nodes

__all__ = ["LARGE_ENUM", "MAX_CHARS", "MAX_ENUM_VALUES", "MAX_LARGE_ENUM_CHARS", "MAX_NESTING",
           "MAX_PROPERTIES", "SharedTotals", "strict_limits"]

# OpenAI strict size limits (structured outputs "Objects have limitations on nesting depth
# and size"; docs/provider-rules.md 2c): properties in total, levels of object nesting, enum
# values in total, characters of one enum of more than LARGE_ENUM string values, characters
# of property names, definition names, enum and const values.
MAX_PROPERTIES = 5000
MAX_NESTING = 10
MAX_ENUM_VALUES = 1000
LARGE_ENUM = 250
MAX_LARGE_ENUM_CHARS = 15_000
MAX_CHARS = 120_000


SharedTotals = dict[int, tuple[dict[str, Any], "Totals", tuple[tuple[dict[str, Any], int, int],
                                                                 ...]]]
"""``id(node) -> (node, totals, large enums below)`` of subtrees without a ``$ref``, which
measure the same under any root: shared by the functions of one compile. A dict holding
its nodes rather than an ``IdentityMemo``, which measured slower on this hot path
(docs/architecture.md, "One walker, one ref graph, one memo")."""


def strict_limits(parameters: Schema, memo: SharedTotals | None = None) -> list[str]:
    """OpenAI strict size limits: 5,000 properties, 10 levels of object nesting, 1,000 enum
    values, 15,000 characters of one enum of more than 250 strings, 120,000 characters of
    names and enum/const values.

    Counted on the schema as it is sent: a node shared by several parents counts at each
    (memoized per node, so the count stays linear in distinct nodes), ``$defs`` count once;
    nesting follows ``$ref`` (``#`` and ``#/$defs/Name``) into the definition, and a
    ``$ref`` back into a definition on the path ends it (recursion adds no finite depth).
    The root object is level 1. ``memo`` (see :data:`SharedTotals`) lets the functions of
    one compile measure their shared subtrees once.
    """
    if not isinstance(parameters, dict):
        return []
    shared: SharedTotals = {} if memo is None else memo
    totals = _shallow(parameters, shared)
    if totals is not None and totals[3] <= MAX_NESTING:
        props, enums, chars, depth, _ = totals
        problems: list[str] = []
    else:  # a walk; over the nesting limit, it also finds the deepest path
        walk = _Measure(parameters, shared)
        props, enums, chars, depth, _ = walk.memo[id(parameters)]
        if walk.partial:
            props, enums, chars = _sizes(parameters)
        problems = [f"{_pointer_to(parameters, node)}: an enum of {count} strings has "
                    f"{length} characters (strict mode allows {MAX_LARGE_ENUM_CHARS:,} past "
                    f"{LARGE_ENUM} values)" for node, count, length in walk.large]
    if props > MAX_PROPERTIES:
        problems.append(f"{props} properties (strict mode allows {MAX_PROPERTIES:,})")
    if depth > MAX_NESTING:  # only ever after a walk: the shallow sum stays within
        problems.append(f"{depth} levels of object nesting (strict mode allows "
                        f"{MAX_NESTING}; level {MAX_NESTING + 1} at {walk.past_limit()})")
    if enums > MAX_ENUM_VALUES:
        problems.append(f"{enums} enum values (strict mode allows {MAX_ENUM_VALUES:,})")
    if chars > MAX_CHARS:
        problems.append(f"{chars} characters of names and values (strict mode allows "
                        f"{MAX_CHARS:,})")
    return problems


Sizes = tuple[int, int, int]
"""``(properties, enum values, characters)`` of a subtree."""

_NOTHING: Sizes = (0, 0, 0)

Step = tuple[str, Any, dict[str, Any]]
"""``(keyword, key or index or None, subschema)``; ``("$ref", ref, target)`` for a
``$ref``."""

Totals = tuple[int, int, int, int, Step | None]
"""``(properties, enum values, characters, levels of object nesting, deepest step)`` of a
subtree."""


_EMPTY_LEAF: Totals = (0, 0, 0, 0, None)
_OBJECT_LEAF: Totals = (0, 0, 0, 1, None)

_SIZED = frozenset({"properties", "enum", "$defs", "const"})


def _own_sizes(node: dict[str, Any]) -> Sizes:
    if _SIZED.isdisjoint(node):
        return _NOTHING
    props = enums = chars = 0
    names = node.get("properties")
    if isinstance(names, dict):
        props, chars = len(names), sum(map(len, names))
    values = node.get("enum")
    if isinstance(values, list):
        enums, chars = len(values), chars + sum(map(len, map(str, values)))
    defs = node.get("$defs")
    if isinstance(defs, dict):
        chars += sum(map(len, defs))
    if "const" in node:
        chars += len(str(node["const"]))
    return props, enums, chars


def _large_enum(node: dict[str, Any]) -> tuple[int, int] | None:
    """``(strings, characters)`` of an enum over the large-enum character limit."""
    values = node.get("enum")
    if not isinstance(values, list) or len(values) <= LARGE_ENUM:
        return None
    strings = [v for v in values if isinstance(v, str)]
    length = sum(map(len, strings))
    if len(strings) <= LARGE_ENUM or length <= MAX_LARGE_ENUM_CHARS:
        return None
    return len(strings), length


def _target(root: dict[str, Any], ref: str) -> dict[str, Any] | None:
    """The node ``#`` or ``#/$defs/Name`` names in ``root`` (others: None)."""
    tokens = parts(ref) if ref.startswith("#") else None
    if tokens == []:
        return root
    defs = root.get("$defs")
    if tokens is None or len(tokens) != 2 or tokens[0] != "$defs" or not isinstance(defs, dict):
        return None
    target = defs.get(tokens[1])
    return target if isinstance(target, dict) else None


def _shallow(root: dict[str, Any], shared: SharedTotals) -> Totals | None:
    """:class:`_Measure`'s totals of a node whose subschemas were all measured by earlier
    functions, none with a large enum (a function's parameters object once its arguments
    have been seen), without walking; ``None`` otherwise. The same sums and levels as
    :meth:`_Measure._finish` gives a node without ``$ref``, ``$defs`` or ``enum``."""
    if "$ref" in root or "$defs" in root or "enum" in root:
        return None
    props, enums, chars = _own_sizes(root)
    below, best = 0, None
    for step in children(root):
        sub = step[2]
        if not isinstance(sub, dict):
            continue
        hit = shared.get(id(sub))
        if hit is None or hit[0] is not sub or hit[2]:
            return None
        done = hit[1]
        props, enums, chars = props + done[0], enums + done[1], chars + done[2]
        if done[3] > below:
            below, best = done[3], step
    return props, enums, chars, below + _is_object(root), best


class _Measure:
    """One iterative post-order walk of a parameters schema, memoized per node.

    ``memo[id(node)]`` is :data:`Totals`: the sizes are summed over the children
    (``$defs`` included, ``$ref`` not followed); the levels are 1 for an object plus the
    deepest of its children but ``$defs``, a ``$ref`` standing for its target, and a node
    met again while its own levels are being computed counts 0. Such a node is a
    ``$ref``'s target, or (``partial``) a node shared by a definition and a place outside
    it, first met outside: then the sizes missed it and :func:`_sizes` counts them again.
    """

    def __init__(self, root: dict[str, Any], shared: SharedTotals) -> None:
        self.root = root
        self.memo: dict[int, Totals] = {}
        self.large: list[tuple[dict[str, Any], int, int]] = []
        self.partial = False
        self.shared = shared
        self._free: dict[int, tuple[tuple[dict[str, Any], int, int], ...]] = {}
        self._reported: set[int] = set()
        memo = self.memo
        opened: set[int] = set()
        stack: list[tuple[dict[str, Any], list[Step] | None]] = [(root, None)]
        while stack:
            node, kids = stack.pop()
            if kids is not None:
                memo[id(node)] = self._finish(node, kids)
                continue
            if id(node) in memo or id(node) in opened:
                continue
            hit = shared.get(id(node))
            if hit is not None and hit[0] is node:
                memo[id(node)] = hit[1]
                self._free[id(node)] = hit[2]
                self._report(hit[2])
                continue
            kids = self._steps(node)
            if not kids:  # a leaf: finished at once
                memo[id(node)] = self._finish(node, kids)
                continue
            opened.add(id(node))
            stack.append((node, kids))
            for step in kids:
                sub = step[2]
                if id(sub) in memo:
                    continue
                hit = shared.get(id(sub))
                if hit is not None and hit[0] is sub and not hit[2]:
                    # Measured by an earlier function, no large enum to report: done now
                    # (a hit with large enums is entered, to report them in walk order).
                    memo[id(sub)] = hit[1]
                    self._free[id(sub)] = hit[2]
                    continue
                if "enum" not in sub and "$ref" not in sub and is_leaf(sub):
                    # No subschema and no large enum to report (which must keep walk
                    # order): finished now, not pushed (two fifths of GitHub's nodes).
                    memo[id(sub)] = self._leaf(sub)
                    continue
                stack.append((sub, None))

    def _report(self, found: tuple[tuple[dict[str, Any], int, int], ...]) -> None:
        """Add large enums to :attr:`large`, each node once (a subtree measured by an
        earlier function brings those below it, some of which may be known already)."""
        for entry in found:
            if id(entry[0]) not in self._reported:
                self._reported.add(id(entry[0]))
                self.large.append(entry)

    def _steps(self, node: dict[str, Any]) -> list[Step]:
        """The children, ``$defs`` first (the walk pops the last first, so a definition is
        first entered through a ``$ref``, where its nesting counts), then the target."""
        kids: list[Step] = [step for step in children(node) if isinstance(step[2], dict)]
        if "$defs" in node:
            kids.sort(key=lambda step: step[0] != "$defs")
        ref = node.get("$ref")
        target = _target(self.root, ref) if isinstance(ref, str) else None
        if target is not None:
            kids.append(("$ref", ref, target))
        return kids

    def _leaf(self, node: dict[str, Any]) -> Totals:
        """:meth:`_finish` of a node without subschemas, ``$ref`` or ``enum`` (nothing
        below it, no large enum): its own sizes, shared at once."""
        sizes = _own_sizes(node)
        kind = node.get("type")
        if sizes is _NOTHING and kind.__class__ is str:  # most leaves: one of two totals
            totals = _OBJECT_LEAF if kind == "object" else _EMPTY_LEAF
        else:
            totals = (*sizes, _is_object(node), None)
        self._free[id(node)] = ()
        self.shared[id(node)] = (node, totals, ())
        return totals

    def _finish(self, node: dict[str, Any], kids: list[Step]) -> Totals:
        props, enums, chars = _own_sizes(node)
        below, best = 0, None
        ref = "$ref" in node
        memo, free = self.memo, self._free
        shareable = not ref  # no $ref in the subtree: the same totals under any root
        for step in kids:
            keyword, sub = step[0], step[2]
            done = memo.get(id(sub))
            if done is None:  # still open: met again through a $ref
                self.partial = self.partial or keyword != "$ref"
                shareable = False
                continue
            shareable = shareable and id(sub) in free
            if keyword != "$ref":
                props, enums, chars = props + done[0], enums + done[1], chars + done[2]
            if done[3] > below and keyword != "$defs" and (keyword == "$ref" or not ref):
                below, best = done[3], step
        own: tuple[tuple[dict[str, Any], int, int], ...] = ()
        if "enum" in node:
            large = _large_enum(node)
            if large is not None:
                own = ((node, *large),)
                self._report(own)
        totals = (props, enums, chars, below + _is_object(node), best)
        if shareable:
            # In the order a fresh walk finds them: the last child is walked first.
            found: tuple[tuple[dict[str, Any], int, int], ...] = ()
            for step in reversed(kids):
                below_found = free[id(step[2])]
                if below_found:
                    found += below_found
            found += own
            free[id(node)] = found
            self.shared[id(node)] = (node, totals, found)
        return totals

    def past_limit(self) -> str:
        """The pointer of the first object past :data:`MAX_NESTING` on a deepest path.

        Each node's step leads to a node finished before it, so the path ends."""
        node, at, level = self.root, "parameters#", 0
        while True:
            level += _is_object(node)
            done = self.memo.get(id(node))  # below a shared subtree: only in the shared memo
            step = (done if done is not None else self.shared[id(node)][1])[4]
            if level > MAX_NESTING or step is None:
                return at
            keyword, key, node = step
            at = ("parameters" + key if keyword == "$ref" else
                  f"{at}/{keyword}" if key is None else f"{at}/{keyword}/{escape(key)}")


def _add_sizes(node: dict[str, Any], kids: list[Sizes]) -> Sizes:
    props, enums, chars = _own_sizes(node)
    for p, e, c in kids:
        props, enums, chars = props + p, enums + e, chars + c
    return props, enums, chars


def _sizes(root: dict[str, Any]) -> Sizes:
    """:data:`Sizes` of the tree under ``root`` by its children alone (no ``$ref``
    followed, so nothing is ever open): a :func:`walk.fold <httpllm.walk.fold>`."""
    return fold(root, _add_sizes, _NOTHING)


def _is_object(node: dict[str, Any]) -> bool:
    kind = node.get("type")
    return kind == "object" or (isinstance(kind, list) and "object" in kind)


def _pointer_to(root: dict[str, Any], target: dict[str, Any]) -> str:
    """The first pointer (pre-order) at which ``target`` occurs under ``root``."""
    return next((at for node, at in nodes(root, "parameters#") if node is target),
                "parameters#")
