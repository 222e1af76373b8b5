"""Normalize: staged, pure passes that turn document schemas into *emended schemas*.

The emended form is a JSON Schema 2020-12 subset: one union keyword (``anyOf``; a request
``oneOf`` whose alternatives may overlap is marked exclusive beside it, see
:mod:`.unions`), null as a ``{"type": "null"}`` member, ``allOf`` merged, discriminator
tags required, direction applied, no OpenAPI-only keywords, every ``$ref`` rewritten to
``#/$defs/<name>``.

The walker visits each node once, children first, and applies the whole :data:`PASSES`
tuple to it, so a new pass costs no new walk; a pass that declares the keywords it acts on
(:func:`~._context.acts_on`, :func:`~._context.keeps`) is not called on a node holding
none of them. The order
matters: what is not a schema where one is expected leaves first (every pass after reads
a subschema there), numbers no double holds next (no pass computes with them); 3.0 exclusive
bounds are numbers before ``allOf`` intersects them; unions are spelled ``anyOf`` before
``allOf`` merges them; ``allOf`` and the discriminator run before ``nullable`` wraps the node in a
union, and before ``required_properties`` declares what the merged object requires and
``union_properties`` what its union's members hold. A
subschema a pass builds (a member ``mixed_types`` splits off, the part
``nullable`` wraps) gets the passes after that one (:func:`_apply`), so every node of the
result is emended.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from httpllm._json import first_unheld
from httpllm._types import Schema
from httpllm.normalize._context import PassContext, opens
from httpllm.normalize.all_of import all_of
from httpllm.normalize.array_items import array_items
from httpllm.normalize.direction import direction
from httpllm.normalize.discriminator import discriminator
from httpllm.normalize.exclusive_bounds import exclusive_bounds
from httpllm.normalize.kinds import kinds
from httpllm.normalize.mixed_types import mixed_types
from httpllm.normalize.nullable import nullable, with_null
from httpllm.normalize.numbers import numbers
from httpllm.normalize.required_properties import required_properties
from httpllm.normalize.shapes import shapes
from httpllm.normalize.union_properties import union_properties
from httpllm.normalize.unions import unions
from httpllm.walk import children, rebuild, transform

__all__ = ["INERT_KEYS", "PASSES", "Pass", "PassContext", "emend", "inert", "leaf_emend",
           "nullable_leaf", "quiet"]

Pass = Callable[[dict[str, Any], PassContext], Schema]

PASSES: tuple[Pass, ...] = (
    shapes,
    numbers,
    kinds,
    exclusive_bounds,
    unions,
    all_of,
    discriminator,
    required_properties,
    union_properties,
    mixed_types,
    nullable,
    array_items,
    direction,
)
"""Every pass, in the order each node goes through them."""

_Leaf = Callable[[dict[str, Any]], dict[str, Any] | None]
"""A walk's ``leaf``: a leaf's emended form when it needs no visit, else ``None``."""

_KEY_SETS = 1024
"""Most key lists (and most key lists with a type name) a :class:`_Plan` remembers the
passes of (a document of odd nodes, or many
documents, would otherwise grow it without end; past that, they are worked out per node)."""


class _Plan:
    """Passes in order, with the passes a node needs by the keys it holds (and its ``type``
    when it is one name): a pass whose gate (:func:`~._context.opens`) the node misses
    returns it as it is and is not called. Most nodes share a handful of key lists
    (``type`` and ``description``...), so the gates are read once per key list and type
    rather than once per node."""

    __slots__ = ("_after", "_by_keys", "_by_type", "passes")

    def __init__(self, passes: tuple[Pass, ...]) -> None:
        self.passes = passes
        self._by_keys: dict[tuple[str, ...], tuple[tuple[int, Pass], ...]] = {}
        self._by_type: dict[tuple[tuple[str, ...], str], tuple[tuple[int, Pass], ...]] = {}
        self._after: dict[int, _Plan] = {}

    def steps(self, node: dict[str, Any]) -> tuple[tuple[int, Pass], ...]:
        """``(index, pass)`` of each pass ``node`` needs, in order."""
        keys = tuple(node)
        kind = node.get("type")
        if kind.__class__ is not str:
            found = self._by_keys.get(keys)
            if found is None:
                found = self._remember(self._by_keys, keys, keys, None)
            return found
        typed = (keys, kind)
        found = self._by_type.get(typed)
        if found is None:
            found = self._remember(self._by_type, typed, keys, kind)
        return found

    def _remember(self, memo: dict[Any, tuple[tuple[int, Pass], ...]], key: Any,
                  keys: tuple[str, ...], kind: str | None) -> tuple[tuple[int, Pass], ...]:
        found = tuple((i, step) for i, step in enumerate(self.passes)
                      if opens(step, keys, kind))
        if len(memo) < _KEY_SETS:
            memo[key] = found
        return found

    def after(self, index: int) -> _Plan:
        """The plan of the passes after the one at ``index``."""
        found = self._after.get(index)
        if found is None:
            found = self._after[index] = _Plan(self.passes[index + 1 :])
        return found


_PLAN = _Plan(PASSES)


def emend(
    schema: Schema,
    ctx: PassContext,
    *,
    pointer: str,
    rewrite_ref: Callable[[dict[str, Any], str], dict[str, Any]],
    passes: tuple[Pass, ...] = PASSES,
    rewrite_mapping: Callable[[str, str], dict[str, Schema]] | None = None,
    known_ref: _Leaf | None = None,
) -> Schema:
    """Run ``passes`` over every node of ``schema``, children first.

    Args:
        schema: a document schema (never mutated).
        ctx: the pass context (its ``pointer`` is kept current by this function).
        pointer: the document pointer of ``schema``.
        rewrite_ref: turns a ``{"$ref": ...}`` node into its emended spelling
            (``#/$defs/<name>``); may raise ``RefError``.
        passes: the passes to run (all of them unless a caller wants a subset).
        rewrite_mapping: ``(ref, pointer) -> {name: emended subschema}`` for a ``$ref`` that
            stands for a whole ``properties`` map (``properties: {$ref: attrs.yml#/X}``, not
            in the specification but common in split documents); ``None`` leaves it.
        known_ref: ``{"$ref": ...} -> its emended spelling`` for a lone ``$ref`` below the
            root whose target is already named, else ``None``: such a node (the commonest
            after plain leaves: 1,413 of the 4,178 a response close of GitHub's description
            visits) is neither listed nor visited. Its result must be what ``rewrite_ref``
            gives and say nothing: every pass returns ``{"$ref": "#/$defs/N"}`` as it is
            (only ``direction``'s gate lets it in, and it keeps ``$ref``).

    Raises:
        RefError: a ``$ref`` does not resolve.
        LimitExceeded: the schema nests too deep.
    """

    plan = _PLAN if passes is PASSES else _Plan(passes)

    def visit(node: dict[str, Any], at: str) -> Schema:
        ctx.pointer = at
        if "$ref" in node:
            node = rewrite_ref(node, at)
        if rewrite_mapping is not None and not _MAPPING_SET.isdisjoint(node):
            node = _mapping_refs(node, at, rewrite_mapping)
        return _apply(node, plan, ctx)

    leaf = None if passes is not PASSES else leaf_emend(keep_examples=ctx.examples is not None)
    if leaf is not None and known_ref is not None:
        leaf = _with_refs(leaf, known_ref)
    return transform(schema, visit, pointer=pointer, leaf=leaf)


def _with_refs(leaf: _Leaf, known_ref: _Leaf) -> _Leaf:
    """``leaf``, and ``known_ref`` for a lone ``$ref`` (which ``leaf`` never takes)."""
    def either(node: dict[str, Any]) -> dict[str, Any] | None:
        if "$ref" in node:
            return known_ref(node) if len(node) == 1 else None
        return leaf(node)

    return either


INERT_KEYS = frozenset({"type", "format", "enum", "description", "title", "deprecated"})
"""The keywords a leaf :func:`inert` accepts may hold."""

_PLAIN_TYPES = frozenset({"string", "number", "integer", "boolean", "object", "null"})
"""Type names no pass rewrites on a leaf (``array`` gets ``items``)."""


def inert(node: dict[str, Any]) -> bool:
    """Whether every pass of :data:`PASSES`, in either direction, returns the leaf ``node``
    as it is and says nothing (no loss, report or example kept): its keys are among
    :data:`INERT_KEYS`, ``type`` (if any) is one :data:`_PLAIN_TYPES` name, ``format``,
    ``description`` and ``title`` strings and ``enum`` a non-empty list of distinct
    strings. Such a leaf is not visited by :func:`emend`'s walk (about a third of GitHub's
    schema nodes: ``{"type": "string", "description": ...}``), so it is not listed, nor
    given a pointer.
    ``tests/normalize/test_inert.py`` holds every pass to it.

    >>> inert({"type": "string", "format": "uri"}), inert({"type": "array"})
    (True, False)
    """
    return _inert_leaf(node) is not None


def _inert_leaf(node: dict[str, Any]) -> dict[str, Any] | None:
    """``node`` if it is :func:`inert`, else ``None``: the request direction's ``leaf``
    (the rule itself, here: a walk calls this once per leaf)."""
    if not node.keys() <= INERT_KEYS:
        return None
    kind = node.get("type", "null")  # absent reads as a plain name; `type: null` is none
    if kind.__class__ is not str or kind not in _PLAIN_TYPES:
        return None
    if "format" in node and node["format"].__class__ is not str:
        return None
    if ("description" in node and node["description"].__class__ is not str) or (
            "title" in node and node["title"].__class__ is not str):
        return None  # `kinds` drops it
    if "enum" not in node:
        return node
    enum = node["enum"]  # a list of distinct strings (else `kinds` has work on it)
    return node if (enum.__class__ is list and all(v.__class__ is str for v in enum)
                    and enum and len(set(enum)) == len(enum)) else None


_EXAMPLE_KEYS = ("example", "examples")
_QUIET_KEYS = INERT_KEYS | frozenset(_EXAMPLE_KEYS)


def quiet(node: dict[str, Any]) -> dict[str, Any] | None:
    """The emended form of a leaf ``node`` when no examples are kept (``ctx.examples`` is
    ``None``: the response direction's), if every pass but ``direction`` returns it as it
    is and ``direction`` only drops its ``example``/``examples`` and says nothing; else
    ``None``. That holds when the leaf less those keys is :func:`inert` and they hold
    no number a double does not hold (``numbers`` would report it): a third of the
    response direction's visits (``{"type": "string", "example": "octocat"}``) are
    not made.

    >>> quiet({"type": "string", "example": "x"}), quiet({"type": "array", "example": []})
    ({'type': 'string'}, None)
    """
    if _inert_leaf(node) is not None:
        return node
    if not node.keys() <= _QUIET_KEYS:
        return None
    rest = {k: v for k, v in node.items() if k not in _EXAMPLE_KEYS}
    if _inert_leaf(rest) is None:
        return None
    for key in _EXAMPLE_KEYS:
        if key in node and first_unheld(node[key]) is not None:
            return None
    return rest


_NULLABLE_TYPES = _PLAIN_TYPES - {"null"}
"""Type names :func:`nullable_leaf` takes (``null`` or null is null: the passes keep it)."""


def nullable_leaf(node: dict[str, Any], rule: _Leaf) -> dict[str, Any] | None:
    """The emended form of a leaf ``{"type": T, "nullable": true, ...}`` whose rest (the
    leaf less ``nullable``) ``rule`` (:func:`inert`'s or :func:`quiet`'s) takes, ``T``
    one :data:`_PLAIN_TYPES` name but ``null``: the rest's form or null
    (:func:`~.nullable.with_null`), as the passes make it, and they say nothing. Then
    ``nullable`` wraps the rest in a union whose members are inert, and ``direction``
    drops the examples ``with_null`` put outside (the rule took them, where it takes any),
    so the passes after ``nullable`` (:func:`_settle`) are not run on it: a fifth of the
    response direction's visits (``{"type": "string", "nullable": true}``) are not made.

    >>> nullable_leaf({"type": "string", "nullable": True, "example": "x"}, quiet)
    {'anyOf': [{'type': 'string'}, {'type': 'null'}]}
    """
    if node.get("nullable") is not True:
        return None
    kind = node.get("type")
    if kind.__class__ is not str or kind not in _NULLABLE_TYPES:
        return None
    form = rule({k: v for k, v in node.items() if k != "nullable"})
    return None if form is None else with_null(form)


def _or_nullable(rule: _Leaf) -> _Leaf:
    """``rule``, and where it does not take a leaf holding ``nullable``, its
    :func:`nullable_leaf`."""
    def leaf(node: dict[str, Any]) -> dict[str, Any] | None:
        found = rule(node)
        return found if found is not None or "nullable" not in node else nullable_leaf(
            node, rule)

    return leaf


_request_leaf = _or_nullable(_inert_leaf)
""":func:`leaf_emend` where examples are kept."""

_response_leaf = _or_nullable(quiet)
""":func:`leaf_emend` where no examples are kept."""


def leaf_emend(*, keep_examples: bool) -> _Leaf:
    """What every pass makes of a leaf without visiting it, or ``None`` (the leaf is
    visited): :func:`inert`'s rule where examples are kept (the request direction's),
    :func:`quiet` where they are not (the response direction's), and either's
    :func:`nullable_leaf`. A walk's ``leaf``, and
    :class:`~httpllm.normalize.named.NamedSchemas`' for a site that is one leaf."""
    return _request_leaf if keep_examples else _response_leaf


_MAPPINGS = ("properties", "patternProperties", "dependentSchemas")
_MAPPING_SET = frozenset(_MAPPINGS)


def _mapping_refs(node: dict[str, Any], at: str,
                  rewrite: Callable[[str, str], dict[str, Schema]]) -> dict[str, Any]:
    """Replace a ``{"$ref": ...}`` that stands for a whole subschema map by that map."""
    found = {}
    for keyword in _MAPPINGS:
        value = node.get(keyword)
        if value is not None and isinstance(value, dict) and len(value) == 1 and isinstance(
            value.get("$ref"), str
        ):
            found[keyword] = rewrite(value["$ref"], f"{at}/{keyword}")
    return {**node, **found} if found else node


def _apply(node: dict[str, Any], plan: _Plan, ctx: PassContext) -> Schema:
    """Run the passes of ``plan`` in order on one node whose children are already emended.

    A node a pass changed goes through the passes after that one as the new node it is (its
    keys, so the passes it needs, may differ). A subschema a pass builds (the members
    ``mixed_types`` splits off, the part ``nullable`` wraps in a union) was never walked:
    the passes after that one run on it too, so every node of the result is in the emended
    form. Bounded: each level has fewer passes left.
    """
    for i, step in plan.steps(node):
        result = step(node, ctx)
        if result is node:
            continue
        if not isinstance(result, dict):
            return result
        rest = plan.after(i)
        if not rest.passes:
            return result
        return _apply(_settle(result, node, rest, ctx), rest, ctx)
    return node


def _settle(new: dict[str, Any], old: dict[str, Any], rest: _Plan,
            ctx: PassContext) -> dict[str, Any]:
    """Run ``rest`` on the direct subschemas of ``new`` that ``old`` did not have."""
    before = {id(sub) for _, _, sub in children(old)}
    changes = []
    for keyword, key, sub in children(new):
        if isinstance(sub, dict) and id(sub) not in before:
            done = _apply(sub, rest, ctx)
            if done is not sub:
                changes.append((keyword, key, done))
    out: dict[str, Any] = rebuild(new, changes) if changes else new
    return out
