"""A schema within a size bound: repeated named schemas shared once, deep levels cut.

A schema as a tool carries it can be far larger than its document (each place a named
schema is used gets its own inlined copy; a recursive graph goes under ``$defs`` in every
tool that reaches it): Stripe's ``tools/list`` was 215 MB, a median tool 727 KB of output
schema; Kubernetes' ``createAppsV1NamespacedStatefulSet`` 350 KB of parameters (70k
tokens). :func:`bound` gives a form of at most ``limit`` bytes of JSON:

1. the schema is expanded level by level (a *level* is one step into ``properties``,
   ``items``, ``additionalProperties`` and the other keywords about nested values;
   ``anyOf``/``allOf``/``$ref`` stay on the same level), ``$ref``\\ s into the root's
   ``$defs`` followed;
2. a named schema that appears more than once (the same node, at the same remaining depth)
   is written once under ``$defs`` and referred to (``{"$ref": "#/$defs/Name"}``);
3. the deepest levels that fit are kept; a node past them becomes a *stub*: its ``type``
   (an array keeps ``items``, as any value: every provider's dialect needs one) and the
   first sentence of its ``description``, nothing else, so every value the schema
   accepted is still accepted (the bound only widens).

When even the first level does not fit, the stubs lose their descriptions, and at last
the root itself is a stub. The caller reports the result (:class:`Bounded`) as a loss.
Iterative, memoized by ``(node, level)``: the cost is the number of distinct nodes times
the levels kept, never the size of the expanded tree.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from httpllm._types import Schema
from httpllm.pointer import escape
from httpllm.refs import def_name_of, def_ref
from httpllm.walk import (
    IN_ARRAY,
    IN_MAPPING,
    IN_VALUE,
    FoldMemo,
    children,
    fold,
    is_leaf,
    rebuild,
)

__all__ = ["LEVELS_MAX", "Bounded", "Sizes", "bound", "byte_size", "weigh"]

LEVELS_MAX = 24
"""Most levels :func:`bound` tries to keep."""

_NESTED = frozenset({"properties", "patternProperties", "additionalProperties", "items",
                     "prefixItems", "additionalItems", "unevaluatedItems",
                     "unevaluatedProperties", "contains", "propertyNames"})
"""Keywords about values nested in the instance: one level deeper."""

_STUB_TEXT = 160
"""Longest description a stub keeps, in characters."""

_SENTENCE = re.compile(r"(?<=[.!?])\s|\n")
_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")


_ENCODE = json.encoder.encode_basestring


def _dumps(value: Any) -> int:
    """Bytes of ``value`` as compact UTF-8 JSON. Strings, lists, whole and finite numbers
    are counted without ``json.dumps`` (most of a schema's values: a call costs more than
    the counting), with the encoder's own spelling (``int.__repr__``, ``float.__repr__``)."""
    kind = type(value)
    if kind is str:
        text = _ENCODE(value)
        return len(text) if text.isascii() else len(text.encode())
    if kind is list:  # [a,b,c]: brackets, a comma between two items
        return len(value) + 1 + sum(map(_dumps, value)) if value else 2
    if value is None or kind is bool:
        return 4 if value is not False else 5
    if kind is int:
        return len(int.__repr__(value))
    if kind is float and math.isfinite(value):
        return len(float.__repr__(value))
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode())


def _own(node: dict[str, Any]) -> int:
    """Bytes of ``node`` as compact JSON, its subschemas not counted (their keys, commas
    and brackets are). A string key or value (most of them) is counted here, not by a
    call of :func:`_dumps`."""
    size = len(node) + 1 if node else 2
    for key, value in node.items():
        if type(key) is str:
            text = _ENCODE(key)
            size += (len(text) if text.isascii() else len(text.encode())) + 1
        else:
            size += _dumps(key) + 1
        if type(value) is str:
            text = _ENCODE(value)
            size += len(text) if text.isascii() else len(text.encode())
        elif key in IN_MAPPING and isinstance(value, dict):
            size += 2 + max(len(value) - 1, 0) + sum(_dumps(k) + 1 for k in value)
            size += sum(5 for v in value.values() if v is True)
            size += sum(6 for v in value.values() if v is False)
        elif key in IN_ARRAY and isinstance(value, list):
            size += 2 + max(len(value) - 1, 0)
            size += sum(_dumps(v) for v in value if not isinstance(v, dict))
        elif not (key in IN_VALUE and isinstance(value, dict)):
            size += _dumps(value)
    return size


def _combine(node: dict[str, Any], kids: list[int]) -> int:
    return _own(node) + sum(kids)


def byte_size(schema: Schema, memo: FoldMemo | None = None) -> int:
    """Bytes of ``schema`` as compact UTF-8 JSON (a shared subtree counted at each place,
    as serialized); computed once per distinct node per ``memo``."""
    if not isinstance(schema, dict):
        return _dumps(schema)
    return fold(schema, _combine, 0, memo)


class _TreeBytes:
    """:func:`byte_size` of the schemas one :class:`Sizes` sees, each distinct node's
    subtree counted once: an int by id, the roots measured held in a list (their nodes
    are what the ids name). Not a :func:`~httpllm.walk.fold` memo, whose ``(node, value)``
    tuple per node (11,000 for GitHub's MCP outputs) made the cyclic collector run a full
    collection during an ``mcp`` compile; here the only containers made die at once."""

    __slots__ = ("_held", "_of")

    def __init__(self) -> None:
        self._of: dict[int, int] = {}
        self._held: list[Any] = []

    def size(self, root: Schema) -> int:
        """Bytes of ``root``; every subschema's remembered (the root's too: it is held)."""
        if not isinstance(root, dict):
            return _dumps(root)
        of = self._of
        known = of.get(id(root))
        if known is not None:
            return known
        self._held.append(root)
        # (node, None) on the way down; (node, its subschemas) once they are stacked
        stack: list[tuple[dict[str, Any], list[Any] | None]] = [(root, None)]
        while stack:
            node, subs = stack.pop()
            if subs is None:
                if id(node) in of:
                    continue  # met again, on another path
                # a boolean subschema's bytes are its holder's (_own)
                subs = [sub for _, _, sub in children(node) if isinstance(sub, dict)]
                stack.append((node, subs))
                for sub in subs:
                    if id(sub) in of:
                        continue
                    if is_leaf(sub):  # most nodes: counted at once, never stacked
                        of[id(sub)] = _own(sub)
                    else:
                        stack.append((sub, None))
                continue
            if id(node) not in of:
                of[id(node)] = _own(node) + sum(of[id(sub)] for sub in subs)
        return of[id(root)]


def _weigh(node: dict[str, Any], kids: list[tuple[int, int, int]]) -> tuple[int, int, int]:
    depth, size, weight = 0, 1, _own(node)
    for d, n, w in kids:
        if d >= depth:
            depth = d + 1
        size += n
        weight += w
    return depth, size, weight


def weigh(schema: Schema, memo: FoldMemo) -> tuple[int, int, int]:
    """``(depth, nodes, bytes)`` of ``schema`` as serialized: ``compose.inline.measure``
    and :func:`byte_size` in one walk (a boolean subschema is one node, its bytes counted
    by its holder); each distinct node once per ``memo`` (:attr:`Sizes.weights`)."""
    if not isinstance(schema, dict):
        return 0, 1, _dumps(schema)
    return fold(schema, _weigh, (0, 1, 0), memo)


@dataclass(frozen=True, slots=True, kw_only=True)
class Bounded:
    """What :func:`bound` made.

    Attributes:
        schema: the bounded schema.
        before: bytes of the schema given.
        after: bytes of ``schema``.
        levels: the levels kept (``None``: all of them, only repeats were shared;
            ``-1``: not even the first, the root is a stub).
        shared: the named schemas written once under ``$defs`` instead of repeated
            (their names before the ``_<digest>`` suffix).
    """

    schema: Schema
    before: int
    after: int
    levels: int | None
    shared: tuple[str, ...] = ()

    @property
    def cut(self) -> bool:
        """Whether any level was cut (else only repeats were shared)."""
        return self.levels is not None


class Sizes:
    """What :func:`bound` measured, kept by the caller for schemas that share nodes (the
    functions of one compile): sizes of subtrees and of nodes alone, by identity (every
    node measured is held, so an id is never reused while it lives; sizes are kept as
    ints by id, no container per node, which the cyclic collector would count)."""

    def __init__(self) -> None:
        self.trees = _TreeBytes()
        self.weights = FoldMemo()  # :func:`weigh`'s
        self.owns: dict[int, int] = {}  # :func:`_own` by id of a node ``held``
        self.held: list[Any] = []
        # brief -> (names, what the builders of roots without $defs made with them)
        self.built: dict[bool, tuple[Any, _Built]] = {}

    def _built(self, names: Callable[[Any], str | None] | None, brief: bool) -> _Built:
        """The nodes built for roots without ``$defs`` with ``names`` (a node's expansion
        to some levels is the same whichever such root reaches it: the outputs of one
        compile share their named schemas, each built once per depth)."""
        hit = self.built.get(brief)
        if hit is None or hit[0] is not names:
            hit = self.built[brief] = (names, _Built())
        return hit[1]

    def own(self, node: dict[str, Any]) -> int:
        """:func:`_own` of a node, once per node."""
        hit = self.owns.get(id(node))
        if hit is None:
            self.held.append(node)
            hit = self.owns[id(node)] = _own(node)
        return hit


def bound(schema: Schema, limit: int, *, names: Callable[[Any], str | None] | None = None,
          keep_root_properties: bool = False, sizes: Sizes | None = None,
          before: int | None = None) -> Bounded | None:
    """``schema`` within ``limit`` bytes of compact JSON, or ``None`` when it fits already.

    Args:
        schema: a root schema (its ``$defs`` are where its ``$ref``\\ s point).
        limit: most bytes.
        names: a name for a shared node (the named schema it was inlined from), or
            ``None``; nodes of the root's ``$defs`` are named by their key.
        keep_root_properties: never move a root property's own schema under ``$defs``
            (a parameters object: each argument keeps its schema in place).
        sizes: the caller's :class:`Sizes` (for schemas that share nodes).
        before: :func:`byte_size` of ``schema``, when the caller has it already.
    """
    sizes = Sizes() if sizes is None else sizes
    if before is None:
        before = sizes.trees.size(schema)
    if before <= limit or not isinstance(schema, dict):
        return None
    best: _Expansion | None = None
    builder = _Builder(schema, names, sizes)
    for levels in range(LEVELS_MAX + 1):
        made = _Expansion(builder, levels, keep_root_properties, sizes)
        if made.measure(limit) > limit:
            break
        best = made
        if not made.cut:
            break
    if best is None:
        made = _Expansion(_Builder(schema, names, sizes, brief=True), 0, keep_root_properties,
                          sizes)
        if made.measure(limit) <= limit:
            best = made
    if best is None:
        stub = _stub(schema, brief=False)
        return Bounded(schema=stub, before=before, after=byte_size(stub), levels=-1)
    out = best.materialize()
    return Bounded(schema=out, before=before, after=sizes.trees.size(out),
                   levels=best.levels if best.cut else None,
                   shared=tuple(sorted(best.shared.values())))


def _stub(node: Any, *, brief: bool) -> Any:
    """What a node past the levels kept becomes: its ``type`` (an array's ``items`` any
    value) and the first sentence of its description (none when ``brief``)."""
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    kind = node.get("type")
    if isinstance(kind, (str, list)):
        out["type"] = kind
    if "items" in node:  # providers require an array's items: any value, as the bound widens
        out["items"] = {}
    text = node.get("description")
    if not brief and isinstance(text, str) and text.strip():
        text = text.strip()
        # the first sentence if it is short enough: a boundary within the first
        # _STUB_TEXT + 1 characters (searching the whole text cost a stub 40 us)
        end = _SENTENCE.search(text, 0, _STUB_TEXT + 1)
        first = text[:end.start()] if end is not None else text
        out["description"] = first if len(first) <= _STUB_TEXT else (
            first[:_STUB_TEXT - 1].rstrip() + "…")
    return out


class _Built:
    """What builders made, by node: kept by :class:`Sizes` for the builders of roots
    without ``$defs`` (whose nodes' expansions depend on nothing else)."""

    def __init__(self) -> None:
        self.built: dict[int, Any] = {}  # _key(node, levels left) -> the node built
        self.cut: set[int] = set()  # the keys of built nodes with something cut below
        self.resolved: dict[int, dict[str, Any]] = {}
        self.source: dict[int, Any] = {}  # id(built) -> the node it was built from
        self.held: list[Any] = []  # nodes keyed by id here: their ids must stay unique
        # id(node) -> (keyword, key, subschema resolved, one level deeper) per subschema
        # (a leaf's and a node's without object subschemas: the empty tuple, no list)
        self.subs: dict[int, Sequence[tuple[str, Any, Any, bool]]] = {}
        # id(built node or stub) -> its bytes alone, its object subschemas: what
        # measuring an expansion reads of each node it lists
        self.owns: dict[int, int] = {}
        self.edges: dict[int, Sequence[Any]] = {}


def _key(node: Any, left: int) -> int:
    """``(node, levels left)`` as one int (``left`` is -1 to :data:`LEVELS_MAX`): the
    builders' keys, thousands per compile, are no tuples the cyclic collector counts."""
    return id(node) << 5 | (left + 1)


class _Builder:
    """The expansions of one schema, each node built once per remaining depth (shared by
    the expansions to 0, 1, 2 ... levels, and with :class:`Sizes` by the roots without
    ``$defs`` bounded with the same ``names``)."""

    def __init__(self, root: dict[str, Any], names: Callable[[Any], str | None] | None,
                 sizes: Sizes, *, brief: bool = False) -> None:
        self.root = root
        defs = root.get("$defs")
        self.defs: Mapping[str, Any] = defs if isinstance(defs, dict) else {}
        self.def_names = {id(v): k for k, v in self.defs.items()}
        self.names = names
        self.brief = brief
        self.sizes = sizes
        memo = _Built() if self.defs else sizes._built(names, brief)
        self.built, self.cut, self.resolved = memo.built, memo.cut, memo.resolved
        self.source = memo.source
        self.held, self.subs, self.owns, self.edges = memo.held, memo.subs, memo.owns, memo.edges

    def _resolve(self, node: dict[str, Any]) -> dict[str, Any]:
        """A ``$ref`` into the root's ``$defs`` as its target (siblings merged over it),
        the same object each time for the same node."""
        if not self.defs:
            return node
        found = self.resolved.get(id(node))
        if found is not None:
            return found
        out, seen = node, 0
        while isinstance(out.get("$ref"), str) and (
                name := def_name_of(out["$ref"])) is not None:
            target = self.defs.get(name)
            if not isinstance(target, dict) or seen > 16:
                break
            siblings = {k: v for k, v in out.items() if k != "$ref"}
            out, seen = ({**target, **siblings} if siblings else target), seen + 1
        self.resolved[id(node)] = out
        self.held.extend((node, out))
        return out

    def _kids(self, node: dict[str, Any], left: int) -> list[tuple[str, Any, Any, int]]:
        """``(keyword, key, subschema resolved, levels left for it)`` per subschema (the
        subschemas listed once per node: a node is built at several depths)."""
        subs = self.subs.get(id(node))
        if subs is None:
            self.held.append(node)
            subs = self.subs[id(node)] = [
                (keyword, key, self._resolve(sub) if isinstance(sub, dict) else sub,
                 keyword in _NESTED)
                for keyword, key, sub in children(node) if keyword != "$defs"] or ()
        return [(keyword, key, sub, left - deeper) for keyword, key, sub, deeper in subs]

    def _stub(self, node: dict[str, Any]) -> Any:
        """:func:`_stub` of ``node``, its parts recorded."""
        stub = _stub(node, brief=self.brief)
        self.owns[id(stub)] = _own(stub)
        self.edges[id(stub)] = _edges(stub) or ()
        self.held.extend((node, stub))
        return stub

    def build(self, levels: int) -> tuple[Any, bool]:
        """The root expanded to ``levels`` levels (a DAG), and whether anything was cut."""
        built, opening = self.built, set()
        root = self._resolve(self.root)
        # (node, levels left, its subschemas once they are on the stack)
        stack: list[tuple[dict[str, Any], int, Any]] = [(root, levels, None)]
        while stack:
            node, left, kids = stack.pop()
            key = _key(node, left)
            if key in built:
                continue
            if left < 0:
                stub = built[key] = self._stub(node)
                if stub != node:
                    self.cut.add(key)
                continue
            if kids is None:
                kids = self._kids(node, left)
                opening.add(key)
                stack.append((node, left, kids))
                stack.extend((sub, at, None) for _, _, sub, at in kids
                             if isinstance(sub, dict) and _key(sub, at) not in built
                             and _key(sub, at) not in opening)
                continue
            opening.discard(key)
            self._made(node, key, kids)
        key = _key(root, levels)
        return built[key], key in self.cut

    def _made(self, node: dict[str, Any], key: int,
              kids: list[tuple[str, Any, Any, int]]) -> None:
        """A node whose subschemas are built, built under ``key`` (one met again on its
        own path, a cycle that never goes a level deeper, becomes a stub)."""
        changes, cut, edges = [], False, []
        built = self.built
        for keyword, k, sub, at in kids:
            if isinstance(sub, dict):
                sub_key = _key(sub, at)
                new = built.get(sub_key)
                if new is None:  # being built: met again on its own path
                    new = self._stub(sub)
                    cut = cut or new != sub
                else:
                    cut = cut or sub_key in self.cut
                changes.append((keyword, k, new))
                edges.append(new)
        if "$defs" in node:
            out = {k: v for k, v in node.items() if k != "$defs"}
            made = rebuild(out, changes) if changes else out
            own = _own(made)
        else:  # the same keywords and scalars as its source
            made = rebuild(node, changes) if changes else dict(node)
            own = self.sizes.own(node)
        self.source[id(made)] = node
        self.owns[id(made)] = own
        self.edges[id(made)] = edges or ()
        self.held.append(made)
        self.built[key] = made
        if cut:
            self.cut.add(key)

    def name(self, node: Any) -> str | None:
        """The name a built node is shared under, or ``None``."""
        source = self.source.get(id(node))
        if source is None:
            return None
        found = self.def_names.get(id(source))
        if found is None and self.names is not None:
            found = self.names(source)
        return None if not found else (_UNSAFE.sub("_", found).strip("_") or None)


class _Expansion:
    """One expansion of a schema to ``levels`` levels, repeats shared under ``$defs``."""

    def __init__(self, builder: _Builder, levels: int, keep_root_properties: bool,
                 sizes: Sizes) -> None:
        self.builder = builder
        self.levels = levels
        self.keep = keep_root_properties
        self.sizes = sizes
        self.root_built, self.cut = builder.build(levels)
        self.order: list[dict[str, Any]] = []
        self.shared: dict[int, str] = {}

    def measure(self, limit: int) -> int:
        """Choose the repeats to share and return the bytes of the result; past ``limit``
        maybe a lower bound of them instead (still past ``limit``).

        Rule: every distinct node of the expansion is written at least once, shared or
        not, so the sum of the nodes' own bytes is at most the result's; when that sum
        is already past ``limit`` the repeats are not chosen (the expansion is refused
        all the same: the largest levels tried, where most of a bound's work was)."""
        root = self.root_built
        if not isinstance(root, dict):
            return _dumps(root)
        owns = self.builder.owns
        order, edges = _post_order(root, self.builder.edges)
        self.order = order
        floor = 0
        for node in order:
            own = owns.get(id(node))
            floor += _own(node) if own is None else own
        if floor > limit:
            return floor
        counts = _occurrences(root, order, edges)
        protected = ({id(v) for v in root.get("properties", {}).values()}
                     if self.keep and isinstance(root.get("properties"), dict) else set())
        tree: dict[int, int] = {}
        alone: dict[int, int] = {}  # each shared node counted as a $ref
        taken: set[str] = set()
        for node in order:  # children first: a deeper repeat is named before its holder
            own = owns.get(id(node))
            if own is None:
                own = _own(node)
            kids = edges[id(node)]
            tree[id(node)] = own + sum(tree[id(k)] for k in kids)
            alone[id(node)] = own + sum(_ref_size(self.shared[id(k)]) if id(k) in self.shared
                                        else alone[id(k)] for k in kids)
            if counts[id(node)] < 2 or node is root or id(node) in protected:
                continue
            base = self.builder.name(node)
            if base is None or tree[id(node)] < 2 * _ref_size(base):
                continue
            name, n = base, 2
            while name in taken:
                name, n = f"{base}_{n}", n + 1
            taken.add(name)
            self.shared[id(node)] = name
        total = alone[id(root)]
        if self.shared:  # ,"$defs":{"name":{...},...}
            total += 10 + sum(_dumps(name) + 8 + alone[key] for key, name in self.shared.items())
            total += len(self.shared) - 1
        return total

    def materialize(self) -> Any:
        """The measured result as a schema."""
        return _materialize(self.root_built, self.order, self.shared)


def _ref_size(name: str) -> int:
    """Bytes of ``{"$ref":"#/$defs/<name>_<digest>"}``."""
    return 26 + _dumps(escape(name))


def _edges(node: dict[str, Any]) -> list[Any]:
    return [sub for _, _, sub in children(node) if isinstance(sub, dict)]


def _post_order(root: Any, known: dict[int, Sequence[Any]]
                ) -> tuple[list[dict[str, Any]], dict[int, Sequence[Any]]]:
    """Each distinct node of a DAG once, children before parents, and each one's object
    subschemas (from ``known`` when it has them)."""
    order: list[dict[str, Any]] = []
    edges: dict[int, Sequence[Any]] = {}
    if not isinstance(root, dict):
        return order, edges
    stack: list[tuple[dict[str, Any], bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        if done:
            order.append(node)
            continue
        if id(node) in edges:
            continue
        subs = known.get(id(node))
        if subs is None:
            subs = edges[id(node)] = _edges(node)
        else:
            edges[id(node)] = subs
        stack.append((node, True))
        stack.extend((sub, False) for sub in reversed(subs) if id(sub) not in edges)
    return order, edges


def _occurrences(root: Any, order: list[dict[str, Any]],
                 edges: dict[int, Sequence[Any]]) -> dict[int, int]:
    """How many times each node appears in the tree a DAG serializes to."""
    counts = {id(node): 0 for node in order}
    if isinstance(root, dict):
        counts[id(root)] = 1
    for node in reversed(order):  # parents first
        for sub in edges[id(node)]:
            counts[id(sub)] += counts[id(node)]
    return counts


def _materialize(root: Any, order: list[dict[str, Any]], shared: dict[int, str]) -> Any:
    """The DAG as a tree, each shared node written once under the root's ``$defs``, named
    ``<name>_<digest>`` (the first 6 hex digits of its content's SHA-256): a name means one
    schema across a tool list, which servers that merge every tool's ``$defs`` need
    (vLLM; issue 18)."""
    if not isinstance(root, dict):
        return root
    done: dict[int, Any] = {}
    final: dict[int, str] = {}
    defs: dict[str, Any] = {}
    for node in order:
        changes = []
        for keyword, key, sub in children(node):
            if not isinstance(sub, dict):
                continue
            name = final.get(id(sub))
            new = {"$ref": def_ref(name)} if name is not None else done[id(sub)]
            if new is not sub:
                changes.append((keyword, key, new))
        made = done[id(node)] = rebuild(node, changes) if changes else node
        if id(node) in shared:
            text = json.dumps(made, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
            name = f"{shared[id(node)]}_{hashlib.sha256(text.encode()).hexdigest()[:6]}"
            final[id(node)] = name
            defs[name] = made
    out = done[id(root)]
    return {**out, "$defs": dict(sorted(defs.items()))} if defs else out
