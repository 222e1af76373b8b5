"""Pass: ``oneOf``/``anyOf`` -> one flat, de-duplicated ``anyOf``.

The emended form has one union keyword, ``anyOf``: members that are themselves bare
unions are spliced in, equal members kept once, ``null`` last, and a one-member union
is replaced by its member.

A request ``oneOf`` whose alternatives may overlap keeps its exclusivity as the mark
:data:`~httpllm.normalize._context.EXCLUSIVE` beside the ``anyOf``, which
``execute.validate`` reads as ``oneOf`` (:func:`as_one_of`). Its members are kept as
written, ``null`` last: not spliced ("exactly one of A, (B or C)" is not "exactly one of A,
B, C") nor de-duplicated (a value matching A matches "A, A, B" twice). No mark where the
alternatives are provably disjoint (:func:`disjoint`: distinct types, distinct
``const``/``enum`` values, or a required tag property with distinct values; a ``$ref``
alternative read as its emended target, as the discriminator pass reads its variants, which
also drops the mark once it tagged every variant), where ``oneOf`` and ``anyOf`` are the
same. Contract: *equivalent* with the
mark read as ``oneOf``; response schemas are not marked (*widens*: ``validate`` never checks
them).
Source: JSON Schema 2020-12 sections 10.2.1.2 (``anyOf``) and 10.2.1.3 (``oneOf``).
"""

from __future__ import annotations

import itertools
import operator
from collections.abc import Callable
from typing import Any

from httpllm._types import Schema
from httpllm.errors import HttpllmError
from httpllm.normalize._context import (
    ANNOTATIONS,
    EXCLUSIVE,
    PassContext,
    acts_on,
    canonical,
    is_ref,
    ref_name,
    types_of,
    value_key,
)
from httpllm.normalize.mixed_types import matches
from httpllm.walk import transform

__all__ = ["EXCLUSIVE", "as_one_of", "disjoint", "unions"]

_BARE = frozenset({"anyOf", "title", "$comment"})
_MAX_PAIRS = 32
"""Most alternatives :func:`disjoint` compares pairwise; a longer union is just marked."""


def _flatten(members: list[Schema]) -> list[Schema]:
    out: list[Schema] = []
    seen: set[str] = set()
    nulls: list[Schema] = []
    stack = list(reversed(members))
    while stack:
        member = stack.pop()
        if isinstance(member, dict) and "anyOf" in member and set(member) <= _BARE:
            stack.extend(reversed(member["anyOf"]))
            continue
        key = canonical(member)
        if key in seen:
            continue
        seen.add(key)
        (nulls if member == {"type": "null"} else out).append(member)
    return out + nulls


def _null_last(members: list[Schema]) -> list[Schema]:
    """An exclusive union's members as written, ``null`` last (order means nothing)."""
    return ([m for m in members if m != {"type": "null"}]
            + [m for m in members if m == {"type": "null"}])


Resolve = Callable[[str], Schema | None]


def _target(member: Schema, resolve: Resolve) -> Schema:
    """A ``$ref`` member's emended target (``None`` when it cannot be had yet)."""
    return resolve(ref_name(member)) if is_ref(member) else member


def _values(node: dict[str, Any]) -> list[Any] | None:
    if "const" in node:
        return [node["const"]]
    enum = node.get("enum")
    return enum if isinstance(enum, list) else None


def _overlap(ta: set[str], tb: set[str]) -> bool:
    numbers = {"integer", "number"}
    return bool(ta & tb) or bool(ta & numbers and tb & numbers)


def _apart(a: Schema, b: Schema, resolve: Resolve, tags: bool = True) -> bool:
    """Whether no value matches both ``a`` and ``b``, as far as their types, listed values
    and (with ``tags``) required tag properties tell; ``False`` when it cannot be told."""
    a, b = _target(a, resolve), _target(b, resolve)
    if not isinstance(a, dict) or not isinstance(b, dict) or is_ref(a) or is_ref(b):
        return False
    ta, tb, va, vb = types_of(a), types_of(b), _values(a), _values(b)
    if va is not None and vb is not None:
        return not {value_key(v) for v in va} & {value_key(v) for v in vb}
    if ta is not None and tb is not None and not _overlap(ta, tb):
        return True
    for values, kinds in ((va, tb), (vb, ta)):
        if values is not None and kinds is not None:
            return not any(matches(v, k) for v in values for k in kinds)
    return tags and _tagged_apart(a, b, ta, tb, resolve)


def _tagged_apart(a: dict[str, Any], b: dict[str, Any], ta: set[str] | None,
                  tb: set[str] | None, resolve: Resolve) -> bool:
    """Objects (one of them typed ``object``) that both require a property whose values
    cannot be equal (a discriminator tag, ``kind: {const: "card"}``)."""
    if {"object"} not in (ta, tb):
        return False
    pa, pb = a.get("properties"), b.get("properties")
    ra, rb = a.get("required"), b.get("required")
    if not (isinstance(pa, dict) and isinstance(pb, dict) and isinstance(ra, list)
            and isinstance(rb, list)):
        return False
    return any(name in pa and name in pb and _apart(pa[name], pb[name], resolve, tags=False)
               for name in ra if name in rb)


def disjoint(members: list[Schema], resolve: Resolve) -> bool:
    """Whether no value matches two of ``members`` (so ``oneOf`` and ``anyOf`` over them
    accept the same values), as far as types, ``const``/``enum`` values and required tag
    properties tell; ``$ref`` members are read through ``resolve``.

    >>> disjoint([{"type": "string"}, {"type": "integer"}], lambda name: None)
    True
    >>> disjoint([{"type": "integer"}, {"type": "number"}], lambda name: None)
    False
    """
    if len(members) > _MAX_PAIRS:
        return False
    known: dict[str, Schema | None] = {}

    def once(name: str) -> Schema | None:
        # Each pair reads both its members' targets: resolved once per name, not once per
        # pair (``resolve`` records what the emend merged; recording it again changes nothing).
        if name not in known:
            known[name] = resolve(name)
        return known[name]

    return all(_apart(a, b, once) for a, b in itertools.combinations(members, 2))


def _probe(ctx: PassContext) -> Resolve:
    """``ctx.resolve`` for :func:`disjoint`: ``None`` (not known to be disjoint) for a named
    schema that cannot be emended (it is reported where the document uses it) or is being
    emended (a cycle)."""

    def resolve(name: str) -> Schema | None:
        try:
            return ctx.resolve(name)
        except HttpllmError:
            return None

    return resolve


def _exclusive(one_of: list[Schema], ctx: PassContext) -> dict[str, Any] | None:
    """``{"anyOf": ..., EXCLUSIVE: True}`` for a request ``oneOf`` whose alternatives may
    overlap, its members as written (``null`` last); ``None`` where a plain ``anyOf`` says
    the same (disjoint alternatives, one alternative)."""
    if ctx.direction != "request" or len(one_of) < 2 or disjoint(one_of, _probe(ctx)):
        return None
    return {"anyOf": _null_last(one_of), EXCLUSIVE: True}


@acts_on("oneOf", "anyOf")
def unions(node: dict[str, Any], ctx: PassContext) -> Schema:
    """Turn ``oneOf`` into ``anyOf``, flatten nested unions and drop duplicates.

    >>> unions({"anyOf": [{"type": "null"},
    ...                   {"anyOf": [{"type": "string"}, {"type": "null"}]}]}, CTX)
    {'anyOf': [{'type': 'string'}, {'type': 'null'}]}
    >>> unions({"oneOf": [{"required": ["a"]}, {"required": ["b"]}]}, CTX)
    {'anyOf': [{'required': ['a']}, {'required': ['b']}], 'x-httpllm-oneOf': True}
    """
    if "oneOf" not in node and "anyOf" not in node:
        return node
    out = dict(node)
    one_of = out.pop("oneOf", None)
    any_of = out.pop("anyOf", None)
    exclusive = _exclusive(one_of, ctx) if isinstance(one_of, list) else None
    if isinstance(one_of, list) and isinstance(any_of, list):
        # Both present: an intersection of two unions, left for the allOf pass.
        out["allOf"] = [*out.get("allOf", []), exclusive or {"anyOf": one_of}]
        members = any_of
    elif exclusive is not None:
        return {**out, **exclusive}
    else:
        members = one_of if isinstance(one_of, list) else any_of
    if not isinstance(members, list) or not members:
        ctx.report(ctx.pointer, "a union needs a non-empty list of schemas")
        return out
    members = _null_last(members) if out.get(EXCLUSIVE) is True else _flatten(members)
    if len(members) == 1 and isinstance(members[0], dict) and "discriminator" not in out:
        only = members[0]
        if set(out) <= ANNOTATIONS:
            return {**only, **out}  # the site's own annotations win over the member's
        out["allOf"] = [*out.get("allOf", []), only]
        return out
    if one_of is None and len(members) == len(any_of) and all(map(operator.is_, members, any_of)):
        return node  # already flat: identity means unchanged
    out["anyOf"] = members
    return out


def _spelled_one_of(node: dict[str, Any], at: str) -> Schema:
    if node.get(EXCLUSIVE) is not True or not isinstance(node.get("anyOf"), list):
        return node
    return {("oneOf" if k == "anyOf" else k): v for k, v in node.items() if k != EXCLUSIVE}


def as_one_of(schema: Schema) -> Schema:
    """``schema`` with every exclusive union spelled ``oneOf`` again (its mark gone): the
    schema that accepts exactly what the document's own schema accepts. The same object
    when there is no mark; shared subtrees without one stay shared.

    >>> as_one_of({"anyOf": [{"required": ["a"]}, {}], "x-httpllm-oneOf": True})
    {'oneOf': [{'required': ['a']}, {}]}

    Raises:
        LimitExceeded: the schema nests deeper than the walker's limit.
    """
    return transform(schema, _spelled_one_of)
