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

from httpllm._json import utf8_size
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
        return utf8_size(text)
    if kind is list:  # [a,b,c]: brackets, a comma between two items
        return len(value) + 1 + sum(map(_dumps, value)) if value else 2
    if value is None or kind is bool:
        return 4 if value is not False else 5
    if kind is int:
        return len(int.__repr__(value))
    if kind is float and math.isfinite(value):
        return len(float.__repr__(value))
    return utf8_size(json.dumps(value, ensure_ascii=False, separators=(",", ":")))


def _own(node: dict[str, Any], listed: list[Any] | None = None) -> int:
    """Bytes of ``node`` as compact JSON, its subschemas not counted (their keys, commas
    and brackets are). A string key or value (most of them) is counted here, not by a
    call of :func:`_dumps`. With ``listed``, the node's object subschemas (those of
    :func:`~httpllm.walk.subschemas`) are appended to it on the way: a walk that needs
    both lists each node once."""
    size = len(node) + 1 if node else 2
    for key, value in node.items():
        if type(key) is str:
            text = _ENCODE(key)
            size += (len(text) if text.isascii() else utf8_size(text)) + 1
        else:
            size += _dumps(key) + 1
        if type(value) is str:
            text = _ENCODE(value)
            size += len(text) if text.isascii() else utf8_size(text)
        elif key in IN_MAPPING and isinstance(value, dict):
            size += _mapping(value, listed)
        elif key in IN_ARRAY and isinstance(value, list):
            size += 2 + max(len(value) - 1, 0)
            size += sum(_dumps(v) for v in value if not isinstance(v, dict))
            if listed is not None:
                listed.extend(v for v in value if isinstance(v, dict))
        elif key in IN_VALUE and isinstance(value, dict):
            if listed is not None:
                listed.append(value)
        else:
            size += _dumps(value)
            if listed is not None and key in IN_VALUE and isinstance(value, list):
                # the draft-4 tuple form of ``items``: a subschema each (counted in both)
                listed.extend(v for v in value if isinstance(v, dict))
    return size


def _mapping(value: dict[Any, Any], listed: list[Any] | None) -> int:
    """:func:`_own`'s bytes of a keyword's mapping of names to subschemas: its braces,
    commas and ``"name":``\\ s, a boolean subschema's bytes (one more than ``true``, as
    always counted), not an object subschema's (appended to ``listed``)."""
    size = 2 + max(len(value) - 1, 0)
    for name, sub in value.items():  # "name": (a property name is most often a str)
        if type(name) is str:
            text = _ENCODE(name)
            size += (len(text) if text.isascii() else utf8_size(text)) + 1
        else:
            size += _dumps(name) + 1
        if sub is True:
            size += 5
        elif sub is False:
            size += 6
        elif listed is not None and isinstance(sub, dict):
            listed.append(sub)
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

    __slots__ = ("_held", "_of", "_owns")

    def __init__(self, owns: dict[int, int]) -> None:
        self._of: dict[int, int] = {}
        self._owns = owns  # :attr:`Sizes.owns`: each node's own bytes, written here too
        self._held: list[Any] = []

    def size(self, root: Schema) -> int:
        """Bytes of ``root``; every subschema's remembered (the root's too: it is held)."""
        if not isinstance(root, dict):
            return _dumps(root)
        of, owns = self._of, self._owns
        known = of.get(id(root))
        if known is not None:
            return known
        self._held.append(root)
        leaf = is_leaf
        # (node, None) on the way down; (node, its subschemas) once they are stacked
        stack: list[tuple[dict[str, Any], list[Any] | None]] = [(root, None)]
        while stack:
            node, subs = stack.pop()
            if subs is None:
                if id(node) in of:
                    continue  # met again, on another path
                # its own bytes counted as its subschemas are listed (a boolean
                # subschema's bytes are its own: _own)
                subs = []
                owns[id(node)] = _own(node, subs)
                stack.append((node, subs))
                for sub in subs:
                    if id(sub) in of:
                        continue
                    if leaf(sub):  # most nodes: counted at once, never stacked
                        of[id(sub)] = owns[id(sub)] = _own(sub)
                    else:
                        stack.append((sub, None))
                continue
            if id(node) not in of:
                total = owns[id(node)]
                for sub in subs:
                    total += of[id(sub)]
                of[id(node)] = total
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
        # :func:`_own` by id of a node ``held`` or under a root :attr:`trees` holds
        self.owns: dict[int, int] = {}
        self.trees = _TreeBytes(self.owns)
        self.weights = FoldMemo()  # :func:`weigh`'s
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
    return Bounded(schema=out, before=before, after=best.size(),
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
    """What builders found, by node and by key (:func:`_key`): kept by :class:`Sizes` for
    the builders of roots without ``$defs`` (whose nodes' expansions depend on nothing
    else). Every value is an int (or a node listed), so the containers here are a few
    dicts and one list of ints per node with object subschemas: an expansion is measured
    on these numbers, and only the one kept is made of dicts (:meth:`_Expansion.materialize`).
    """

    def __init__(self) -> None:
        self.nodes: dict[int, dict[str, Any]] = {}  # id -> each resolved node met (held)
        # id(node) -> per object subschema (resolved), in listing order: its _key at the
        # node's own levels left minus ``left + 1`` (``id(sub) << 5``, less 1 one level
        # deeper): the key of a subschema of ``(node, left)`` is this plus ``left + 1``
        self.edges: dict[int, Sequence[int]] = {}
        self.owns: dict[int, int] = {}  # id(node) -> its bytes built (subschemas, $defs not)
        self.stubs: dict[int, int] = {}  # id(node) -> its stub's bytes * 2 + (stub != node)
        self.labels: dict[int, str | None] = {}  # id(node) -> the name it is shared under
        self.done: set[int] = set()  # the keys built
        self.cut: set[int] = set()  # the keys built with something cut below
        # key -> bit i set when its i-th subschema was met again on its own path (a stub)
        self.backs: dict[int, int] = {}
        self.plain: dict[int, Any] = {}  # key -> its dict made, no $ref below it
        self.digests: dict[int, str] = {}  # key -> the digest of its plain dict's JSON
        self.resolved: dict[int, dict[str, Any]] = {}
        self.held: list[Any] = []  # the nodes ``resolved`` is keyed by


def _key(node: Any, left: int) -> int:
    """``(node, levels left)`` as one int (``left`` is -1 to :data:`LEVELS_MAX`): the
    builders' keys, thousands per compile, are no tuples the cyclic collector counts."""
    return id(node) << 5 | (left + 1)


class _Builder:
    """The expansions of one schema, each node built once per remaining depth (shared by
    the expansions to 0, 1, 2 ... levels, and with :class:`Sizes` by the roots without
    ``$defs`` bounded with the same ``names``).

    A node *built* is only recorded: its key done, whether something is cut below it, and
    which of its subschemas were met again on its own path (a cycle that never goes a
    level deeper: those become stubs). Its bytes are its source's (:attr:`_Built.owns`)
    and its subschemas' keys follow from :attr:`_Built.edges`; the first expansion that
    is measured to fit is made into dicts by :meth:`_Expansion.materialize`."""

    def __init__(self, root: dict[str, Any], names: Callable[[Any], str | None] | None,
                 sizes: Sizes, *, brief: bool = False) -> None:
        self.root = root
        defs = root.get("$defs")
        self.defs: Mapping[str, Any] = defs if isinstance(defs, dict) else {}
        self.def_names = {id(v): k for k, v in self.defs.items()}
        self.names = names
        self.brief = brief
        self.sizes = sizes
        self.memo = _Built() if self.defs else sizes._built(names, brief)

    def _resolve(self, node: dict[str, Any]) -> dict[str, Any]:
        """A ``$ref`` into the root's ``$defs`` as its target (siblings merged over it),
        the same object each time for the same node."""
        if not self.defs:
            return node
        resolved = self.memo.resolved
        found = resolved.get(id(node))
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
        resolved[id(node)] = out
        self.memo.held.append(node)
        return out

    def _subs(self, node: dict[str, Any]) -> list[tuple[str, Any, Any]]:
        """``(keyword, key, subschema)`` per object subschema of ``node`` (not its
        ``$defs``), in listing order: what :attr:`_Built.edges` numbers."""
        return [(keyword, key, sub) for keyword, key, sub in children(node)
                if keyword != "$defs" and isinstance(sub, dict)]

    def _list(self, node: dict[str, Any]) -> Sequence[int]:
        """:attr:`_Built.edges` of a resolved node, its bytes and subschemas recorded."""
        memo = self.memo
        edges = memo.edges.get(id(node))
        if edges is not None:
            return edges
        nodes, out = memo.nodes, []
        resolve = self._resolve if self.defs else None
        for keyword, _, sub in children(node):  # what _subs lists
            if keyword == "$defs" or not isinstance(sub, dict):
                continue
            if resolve is not None:
                sub = resolve(sub)
            nodes[id(sub)] = sub
            out.append((id(sub) << 5) - (keyword in _NESTED))
        if "$defs" in node:
            memo.owns[id(node)] = _own({k: v for k, v in node.items() if k != "$defs"})
        else:  # the same keywords and scalars as its source
            memo.owns[id(node)] = self.sizes.own(node)
        memo.edges[id(node)] = edges = out or ()
        return edges

    def stub(self, node_id: int) -> int:
        """The bytes of the stub of node ``node_id``, times 2, plus 1 when the stub is not
        the node itself (something is cut)."""
        info = self.memo.stubs.get(node_id)
        if info is None:
            node = self.memo.nodes[node_id]
            stub = _stub(node, brief=self.brief)
            size = _own(stub) + (2 if "items" in stub else 0)  # an array's {} items
            info = self.memo.stubs[node_id] = size * 2 + (stub != node)
        return info

    def build(self, levels: int) -> int:
        """The key of the root expanded to ``levels`` levels, each key below it built."""
        memo = self.memo
        root = self._resolve(self.root)
        memo.nodes[id(root)] = root
        top = _key(root, levels)
        done, nodes, listed, stubs = memo.done, memo.nodes, memo.edges, memo.stubs
        opening: set[int] = set()
        # a key to build; its negative once its subschemas are stacked above it
        stack = [top]
        while stack:
            key = stack.pop()
            if key < 0:
                opening.discard(-key)
                self._made(-key)
                continue
            if key in done:
                continue
            left1 = key & 31  # levels left + 1
            if not left1:  # past the levels kept: a stub
                done.add(key)
                stub = stubs.get(key >> 5)  # (most stubs are measured already)
                if (self.stub(key >> 5) if stub is None else stub) & 1:
                    memo.cut.add(key)
                continue
            edges = listed.get(key >> 5)  # (most nodes are listed already)
            if edges is None:
                edges = self._list(nodes[key >> 5])
            opening.add(key)
            stack.append(-key)
            for base in edges:
                sub = base + left1
                if sub not in done and sub not in opening:
                    stack.append(sub)
        return top

    def _made(self, key: int) -> None:
        """A key whose subschemas are built, built (one met again on its own path, a cycle
        that never goes a level deeper, becomes a stub)."""
        memo = self.memo
        done, cut, left1 = memo.done, memo.cut, key & 31
        back, below, bit = 0, False, 1
        for base in memo.edges[key >> 5]:
            sub = base + left1
            if sub not in done:  # being built: met again on its own path
                back |= bit
                # its stub measured now, always: _Expansion reads it from _Built.stubs
                if self.stub(sub >> 5) & 1:
                    below = True
            elif not below and sub in cut:
                below = True
            bit <<= 1
        if back:
            memo.backs[key] = back
        if below:
            cut.add(key)
        done.add(key)

    def make(self, key: int, done: dict[int, Any], final: dict[int, str]) -> Any:
        """The dict of ``key``, its subschemas made already (``done``; a shared one as a
        ``$ref`` to its name in ``final``); remembered as the plain form of ``key`` when
        none of them is a ``$ref`` or above one. Always a new dict, never the source: the
        render steps report a node the inliner made (``Inliner.origins``, by id) at its
        named schema's pointer, a copy at its place in the bounded schema."""
        memo, brief = self.memo, self.brief
        nodes, plain = memo.nodes, memo.plain
        node = nodes[key >> 5]
        left1, back, edges = key & 31, memo.backs.get(key, 0), memo.edges[key >> 5]
        changes, alike = [], True
        for i, (keyword, k, _) in enumerate(self._subs(node)):
            sub = edges[i] + left1
            if back >> i & 1:  # met again on its own path
                new = _stub(nodes[sub >> 5], brief=brief)
            elif not sub & 31:  # one stub per key
                new = plain.get(sub)
                if new is None:
                    new = plain[sub] = _stub(nodes[sub >> 5], brief=brief)
            else:
                name = final.get(sub)
                new = {"$ref": def_ref(name)} if name is not None else done[sub]
                alike = alike and name is None and new is plain.get(sub)
            changes.append((keyword, k, new))
        source = ({k: v for k, v in node.items() if k != "$defs"} if "$defs" in node
                  else node)
        made = rebuild(source, changes) if changes else dict(source)
        if alike:
            plain[key] = made
        return made

    def name(self, node_id: int) -> str | None:
        """The name node ``node_id`` is shared under, or ``None``."""
        labels = self.memo.labels
        if node_id in labels:
            return labels[node_id]
        source = self.memo.nodes[node_id]
        found = self.def_names.get(node_id)
        if found is None and self.names is not None:
            found = self.names(source)
        label = labels[node_id] = (None if not found
                                   else (_UNSAFE.sub("_", found).strip("_") or None))
        return label


class _Expansion:
    """One expansion of a schema to ``levels`` levels, repeats shared under ``$defs``.

    Measured on keys (:func:`_key`): a node of the expansion is a key, a stub (a key at
    -1 levels left, or a subschema met again on its own path) is its bytes only, never
    shared."""

    def __init__(self, builder: _Builder, levels: int, keep_root_properties: bool,
                 sizes: Sizes) -> None:
        self.builder = builder
        self.levels = levels
        self.keep = keep_root_properties
        self.sizes = sizes
        self.top = builder.build(levels)
        self.cut = self.top in builder.memo.cut
        self.order: list[int] = []  # the keys, not the stubs, children first
        self.shared: dict[int, str] = {}  # key -> name
        self.total = 0  # what :meth:`measure` returned

    def _order(self, limit: int) -> int:
        """Fill :attr:`order` (each key once, children before parents, as a depth-first
        walk meets them) and return the sum of each distinct node's own bytes (stubs'
        too); past ``limit``, stop there and return what was summed. (Every stub of the
        expansion is in :attr:`_Built.stubs`: :meth:`_Builder.build` measured it.)"""
        memo = self.builder.memo
        edges_of, owns, backs, stubs = memo.edges, memo.owns, memo.backs, memo.stubs
        order, seen = self.order, set[int]()
        push, met = order.append, seen.add
        floor = 0
        stack = [self.top]  # a key; its negative once its subschemas are stacked
        stacked = stack.append
        while stack:
            key = stack.pop()
            if key < 0:
                push(-key)
                continue
            if key in seen:  # stacked twice, met first from the later holder
                continue
            met(key)
            floor += owns[key >> 5]
            if floor > limit:
                return floor
            stacked(-key)
            left1, back = key & 31, backs.get(key, 0)
            edges = edges_of[key >> 5]
            if back:  # a subschema met again on its own path
                floor += self._back_subs(key, back, seen, stack)
                continue
            for base in reversed(edges):  # most keys
                sub = base + left1
                if sub in seen:
                    continue
                if sub & 31:
                    stacked(sub)
                else:  # one stub per key
                    met(sub)
                    floor += stubs[sub >> 5] >> 1
        return floor

    def _back_subs(self, key: int, back: int, seen: set[int], stack: list[int]) -> int:
        """:meth:`_order`'s step over the subschemas of a key with some met again on its
        own path (``back``'s bits): each of those its own stub; the bytes of the stubs."""
        memo = self.builder.memo
        stubs, edges, left1 = memo.stubs, memo.edges[key >> 5], key & 31
        floor = 0
        for i in range(len(edges) - 1, -1, -1):
            sub = edges[i] + left1
            if back >> i & 1:  # its own stub
                floor += stubs[sub >> 5] >> 1
            elif sub in seen:
                continue
            elif sub & 31:
                stack.append(sub)
            else:  # one stub per key
                seen.add(sub)
                floor += stubs[sub >> 5] >> 1
        return floor

    def _counts(self) -> dict[int, int]:
        """How many times each key appears in the tree the expansion serializes to."""
        edges_of, backs = self.builder.memo.edges, self.builder.memo.backs
        counts = dict.fromkeys(self.order, 0)
        counts[self.top] = 1
        for key in reversed(self.order):  # parents first
            n, left1, back = counts[key], key & 31, backs.get(key, 0)
            if not back:
                for base in edges_of[key >> 5]:
                    sub = base + left1
                    if sub & 31:
                        counts[sub] += n
                continue
            for i, base in enumerate(edges_of[key >> 5]):
                sub = base + left1
                if sub & 31 and not back >> i & 1:
                    counts[sub] += n
        return counts

    def _protected(self) -> set[int]:
        """The keys of the root's properties, when they keep their schemas in place."""
        root = self.builder.memo.nodes[self.top >> 5]
        if not self.keep or not isinstance(root.get("properties"), dict):
            return set()
        memo, top = self.builder.memo, self.top
        edges, back = memo.edges[top >> 5], memo.backs.get(top, 0)
        return {edges[i] + (top & 31) for i, (keyword, _, _) in
                enumerate(self.builder._subs(root))
                if keyword == "properties" and not back >> i & 1}

    def measure(self, limit: int) -> int:
        """Choose the repeats to share and return the bytes of the result; past ``limit``
        maybe a lower bound of them instead (still past ``limit``).

        Rule: every distinct node of the expansion is written at least once, shared or
        not, so the sum of the nodes' own bytes is at most the result's; once that sum
        is past ``limit`` the walk stops and the repeats are not chosen (the expansion is
        refused all the same: the largest levels tried, where most of a bound's work was)."""
        floor = self._order(limit)
        if floor > limit:
            return floor
        builder, top = self.builder, self.top
        memo = builder.memo
        edges_of, owns, backs, stubs = memo.edges, memo.owns, memo.backs, memo.stubs
        counts, protected = self._counts(), self._protected()
        tree: dict[int, int] = {}
        alone: dict[int, int] = {}  # each shared node counted as a $ref
        shared, taken = self.shared, set()
        for key in self.order:  # children first: a deeper repeat is named before its holder
            t = a = owns[key >> 5]
            left1, back = key & 31, backs.get(key, 0)
            if not back:  # most keys
                for base in edges_of[key >> 5]:
                    sub = base + left1
                    if not sub & 31:
                        size = stubs[sub >> 5] >> 1
                        t, a = t + size, a + size
                        continue
                    t += tree[sub]
                    name = shared.get(sub) if shared else None
                    a += alone[sub] if name is None else _ref_size(name)
            else:
                for i, base in enumerate(edges_of[key >> 5]):
                    sub = base + left1
                    if not sub & 31 or back >> i & 1:
                        size = stubs[sub >> 5] >> 1
                        t, a = t + size, a + size
                        continue
                    t += tree[sub]
                    name = shared.get(sub)
                    a += alone[sub] if name is None else _ref_size(name)
            tree[key], alone[key] = t, a
            if counts[key] < 2 or key == top or key in protected:
                continue
            base_name = builder.name(key >> 5)
            if base_name is None or t < 2 * _ref_size(base_name):
                continue
            name, n = base_name, 2
            while name in taken:
                name, n = f"{base_name}_{n}", n + 1
            taken.add(name)
            shared[key] = name
        total = alone[top]
        if shared:  # ,"$defs":{"name":{...},...}
            total += 10 + sum(_dumps(name) + 8 + alone[key] for key, name in shared.items())
            total += len(shared) - 1
        self.total = total
        return total

    def size(self) -> int:
        """Bytes of :meth:`materialize`'s result, from what :meth:`measure` summed (no walk
        of the dicts made: a bounded output's nodes are new, each would be measured).

        :meth:`measure`'s total is what decides (the levels kept, the repeats shared) and
        stays as it always was, though not exact when something is shared: its
        :func:`_ref_size` counts the quotes of the name (2 bytes too many per ``$ref``
        written) and its ``,"$defs":{`` not the closing brace (1 byte too few)."""
        if not self.shared:
            return self.total
        memo, shared = self.builder.memo, self.shared
        edges_of, backs = memo.edges, memo.backs
        refs: dict[int, int] = {}  # key -> the $refs written in its form (shared ones as $refs)
        for key in self.order:  # children first
            n, left1, back = 0, key & 31, backs.get(key, 0)
            for i, base in enumerate(edges_of[key >> 5]):
                sub = base + left1
                if sub & 31 and not back >> i & 1:
                    n += 1 if sub in shared else refs[sub]
            refs[key] = n
        written = refs[self.top] + sum(refs[key] for key in shared)
        return self.total - 2 * written + 1

    def materialize(self) -> Any:
        """The measured result as a schema: each key's node made once, children first,
        each shared one written once under the root's ``$defs``, named
        ``<name>_<digest>`` (the first 6 hex digits of its content's SHA-256): a name
        means one schema across a tool list, which servers that merge every tool's
        ``$defs`` need (vLLM; issue 18).

        A node with no ``$ref`` below it is the same dict for every expansion that keeps
        its key (:attr:`_Built.plain`: the outputs of one compile share their named
        schemas); only the nodes above a shared one are made for this expansion."""
        builder, shared = self.builder, self.shared
        plain = builder.memo.plain
        done: dict[int, Any] = {}
        final: dict[int, str] = {}
        defs: dict[str, Any] = {}
        for key in self.order:
            made = plain.get(key)
            if made is None or (shared and not self._plain(key, done)):
                made = builder.make(key, done, final)
            done[key] = made
            if key in shared:
                name = f"{shared[key]}_{self._digest(key, made)}"
                final[key] = name
                defs[name] = made
        out = done[self.top]
        return {**out, "$defs": dict(sorted(defs.items()))} if defs else out

    def _digest(self, key: int, made: Any) -> str:
        """The first 6 hex digits of the SHA-256 of ``made``'s JSON (keys sorted), the
        form of ``key``: once per key when that is its plain form (the same dict in every
        expansion that shares it; GitHub's MCP outputs: 60 shared, 21 distinct)."""
        memo = self.builder.memo
        plain = made is memo.plain.get(key)
        if plain and key in memo.digests:
            return memo.digests[key]
        text = json.dumps(made, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:6]
        if plain:
            memo.digests[key] = digest
        return digest

    def _plain(self, key: int, done: dict[int, Any]) -> bool:
        """Whether each subschema of ``key`` (made already) is its plain form."""
        memo = self.builder.memo
        left1, back, plain = key & 31, memo.backs.get(key, 0), memo.plain
        for i, base in enumerate(memo.edges[key >> 5]):
            sub = base + left1
            if sub & 31 and not back >> i & 1 and (
                    sub in self.shared or done[sub] is not plain.get(sub)):
                return False
        return True


def _ref_size(name: str) -> int:
    """Bytes of ``{"$ref":"#/$defs/<name>_<digest>"}``."""
    return 26 + _dumps(escape(name))
