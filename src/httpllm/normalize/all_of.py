"""Pass: ``allOf`` members merged into one schema.

Members that are ``$ref``s are merged from their emended target. Properties and
``required`` are united, bounds intersected (the larger minimum, the smaller maximum),
``enum`` intersected, unions distributed. What cannot be merged exactly stays in a
smaller ``allOf``; a contradiction (``type: string`` with ``type: integer``) is reported
and the ``allOf`` is kept as written, never replaced by ``{}``. Contract: *equivalent*,
except that ``additionalProperties: false`` on one member is dropped when another member
adds properties (the usual intent of such documents; that *widens*).
Source: JSON Schema 2020-12 section 10.2.1.1; hypothesis-jsonschema ``merged()``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from httpllm._types import Schema
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
from httpllm.normalize.mixed_types import matches as _matches

__all__ = ["Conflict", "all_of", "merge"]

_MAX = frozenset({"minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties",
                  "minContains"})
_MIN = frozenset({"maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties",
                  "maxContains"})
# minContains/maxContains intersect only under one shared ``contains`` (see _GROUPS).
_MAX_UNION = 16  # largest cross product of two unions that is distributed


class Conflict(Exception):
    """Two members cannot both hold: no instance satisfies the ``allOf``."""


def _same(a: Any, b: Any) -> bool:
    return a is b or canonical(a) == canonical(b)


def _merge_type(a: dict[str, Any], b: dict[str, Any], out: dict[str, Any]) -> None:
    ta, tb = types_of(a), types_of(b)
    if ta is None or tb is None:
        if ta or tb:
            out["type"] = a.get("type", b.get("type"))
        return
    both = ta & tb
    if ("integer" in ta and "number" in tb) or ("number" in ta and "integer" in tb):
        both.add("integer")  # every integer is a number
    if not both:
        raise Conflict(f"type {sorted(ta)} and type {sorted(tb)} have no value in common")
    out["type"] = next(iter(both)) if len(both) == 1 else sorted(both)


def _merge_properties(
    a: dict[str, Any], b: dict[str, Any], out: dict[str, Any], depth: int
) -> list[Schema]:
    left: list[Schema] = []
    pa, pb = a.get("properties", {}), b.get("properties", {})
    if not pa and not pb:
        return left
    # A member's properties stay as they are unless the other member has an
    # ``additionalProperties`` schema, which they must then satisfy too (``_extra``).
    if not pb and not isinstance(b.get("additionalProperties"), dict):
        out["properties"] = pa
        return left
    if not pa and not isinstance(a.get("additionalProperties"), dict):
        out["properties"] = pb
        return left
    merged = {name: _extra(name, sub, b, depth) for name, sub in pa.items()}
    for name, sub in pb.items():
        if name not in merged:
            merged[name] = _extra(name, sub, a, depth)
            continue
        if _same(merged[name], sub):
            continue
        old = merged[name]
        if isinstance(old, dict) and isinstance(sub, dict) and not is_ref(old) and not is_ref(sub):
            merged[name] = merge(old, sub, depth + 1)
        else:
            merged[name] = {"allOf": [old, sub]}
    out["properties"] = merged
    return left


def _extra(name: str, sub: Schema, other: dict[str, Any], depth: int) -> Schema:
    """A property one member declares must also satisfy the other member's
    ``additionalProperties`` schema when the other does not declare it."""
    extra = other.get("additionalProperties")
    if not isinstance(extra, dict) or name in other.get("properties", {}):
        return sub
    try:
        return _pair(sub, extra, depth + 1)
    except Conflict:
        # No value fits both, so the property can never be sent; the object itself still
        # can. Kept exactly, unmerged, rather than failing the whole merge (which would
        # leave a provider without allOf nothing to type the object with).
        return {"allOf": [sub, extra]}


def _merge_closed(a: dict[str, Any], b: dict[str, Any], out: dict[str, Any]) -> None:
    closed = [m for m in (a, b) if m.get("additionalProperties") is False]
    names = set(out.get("properties", {}))
    if closed and any(set(m.get("properties", {})) >= names for m in closed):
        out["additionalProperties"] = False
        return
    extra = [m["additionalProperties"] for m in (a, b)
             if isinstance(m.get("additionalProperties"), dict)]
    if extra:
        out["additionalProperties"] = extra[0] if len(extra) == 1 else merge(extra[0], extra[1])
    elif any(m.get("additionalProperties") is True for m in (a, b)):
        out["additionalProperties"] = True


def _union(node: dict[str, Any]) -> dict[str, Any]:
    """The node's ``anyOf`` with its :data:`EXCLUSIVE` mark, if it has one."""
    return {k: node[k] for k in ("anyOf", EXCLUSIVE) if k in node}


def _merge_unions(a: dict[str, Any], b: dict[str, Any], out: dict[str, Any],
                  depth: int) -> list[Schema]:
    """Distribute two unions into one (each member a merged pair); an exclusive union
    (:data:`EXCLUSIVE`) beside a plain one is not distributed: "exactly one of A" and "at
    least one of B" is no one union of pairs. Two exclusive unions give an exclusive one
    (a value matches exactly one pair exactly when it matches one member of each)."""
    ua, ub = a.get("anyOf"), b.get("anyOf")
    if ua is None or ub is None:
        if ua is not None or ub is not None:
            out.update(_union(a if ua is not None else b))
        return []
    exclusive = a.get(EXCLUSIVE) is True
    if len(ua) * len(ub) > _MAX_UNION or exclusive != (b.get(EXCLUSIVE) is True):
        out.update(_union(a))
        return [_union(b)]
    if exclusive:
        out[EXCLUSIVE] = True
    members: list[Schema] = []
    for x in ua:
        for y in ub:
            try:
                members.append(_pair(x, y, depth + 1))
            except Conflict:
                continue
    if not members:
        raise Conflict("no member of one union is compatible with a member of the other")
    out["anyOf"] = members
    return []


def _pair(x: Schema, y: Schema, depth: int) -> Schema:
    if isinstance(x, dict) and isinstance(y, dict) and not is_ref(x) and not is_ref(y):
        return merge(x, y, depth)
    return {"allOf": [x, y]}


def _merge_enum(a: dict[str, Any], b: dict[str, Any], out: dict[str, Any]) -> None:
    """Intersect ``enum``s and ``const``s, and keep only the values the merged type allows."""
    lists = [m["enum"] for m in (a, b) if isinstance(m.get("enum"), list)]
    lists += [[m["const"]] for m in (a, b) if "const" in m]
    if not lists:
        return
    keys = [{value_key(v) for v in values} for values in lists[1:]]
    values = [v for v in lists[0] if all(value_key(v) in k for k in keys)]
    kinds = types_of(out)
    if kinds is not None:
        values = [v for v in values if any(_matches(v, kind) for kind in kinds)]
    if not values:
        raise Conflict("no value of the enum/const is allowed by every member")
    if any("const" in m for m in (a, b)):
        out["const"] = values[0]
    else:
        out["enum"] = values


def _merge_rest(a: dict[str, Any], b: dict[str, Any], out: dict[str, Any],
                depth: int, grouped: frozenset[str]) -> list[Schema]:
    left: list[Schema] = []
    done = {"type", "properties", "additionalProperties", "anyOf", EXCLUSIVE, "enum", "const",
            "required", "allOf", *grouped}
    for key in dict.fromkeys([*a, *b]):
        if key in done:
            continue
        if key not in a or key not in b:
            out[key] = a[key] if key in a else b[key]
        elif key in ANNOTATIONS or _same(a[key], b[key]):
            out[key] = a[key]
        elif key in _MAX and _number(a[key]) and _number(b[key]):
            out[key] = max(a[key], b[key])
        elif key in _MIN and _number(a[key]) and _number(b[key]):
            out[key] = min(a[key], b[key])
        elif key == "items" and isinstance(a[key], dict) and isinstance(b[key], dict):
            out[key] = _pair(a[key], b[key], depth + 1)
        elif key == "format":
            out[key] = a[key]  # two formats: the first is kept; both stay hints
        else:
            out[key] = a[key]
            left.append({key: b[key]})
    return left


_GROUPS = (
    ("contains", frozenset({"contains", "minContains", "maxContains"})),
    ("prefixItems", frozenset({"prefixItems", "items"})),
)
"""Keywords that mean something only together, each group with the keyword that makes it
one: ``minContains`` counts what ``contains`` matches, ``items`` starts after
``prefixItems``."""


def _merge_groups(a: dict[str, Any], b: dict[str, Any], out: dict[str, Any]) -> frozenset[str]:
    """When both members have a group that differs, keep ``a``'s in ``out``; the caller
    keeps ``b``'s whole in ``allOf``. Returns the keywords so handled."""
    handled: set[str] = set()
    for anchor, group in _GROUPS:
        if anchor not in a and anchor not in b:
            continue
        if not group & a.keys() or not group & b.keys():
            continue
        if anchor == "contains" and _same(a.get(anchor), b.get(anchor)):
            continue  # one ``contains``: its counts intersect like other bounds
        if all(_same(a.get(k), b.get(k)) for k in group):
            continue
        out.update({k: a[k] for k in group if k in a})
        handled |= group
    return frozenset(handled)


def _entangled(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """``a``'s ``patternProperties`` exempt names from ``b``'s ``additionalProperties``
    once merged into one schema: such pairs are not merged."""
    extra = b.get("additionalProperties")
    return "patternProperties" in a and extra is not None and extra is not True


def merge(a: dict[str, Any], b: dict[str, Any], depth: int = 0) -> dict[str, Any]:
    """Merge two emended object-or-scalar schemas into one that accepts what both accept.

    Annotations of ``a`` win. What cannot be merged exactly is returned under ``allOf``.

    Raises:
        Conflict: no instance satisfies both.
    """
    if depth > 32 or _entangled(a, b) or _entangled(b, a):
        return {"allOf": [a, b]}
    out: dict[str, Any] = {}
    grouped = _merge_groups(a, b, out)
    _merge_type(a, b, out)
    left = _merge_properties(a, b, out, depth)
    required = list(dict.fromkeys([*a.get("required", []), *b.get("required", [])]))
    if required:
        out["required"] = required
    _merge_closed(a, b, out)
    left += _merge_unions(a, b, out, depth)
    _merge_enum(a, b, out)
    left += _merge_rest(a, b, out, depth, grouped)
    if grouped:
        left.append({k: b[k] for k in grouped if k in b})
    left += [*a.get("allOf", []), *b.get("allOf", [])]
    if left:
        out["allOf"] = left
    _check_bounds(out)
    union = out.get("anyOf")
    if isinstance(union, list) and len(union) == 1 and isinstance(union[0], dict) and not (
        is_ref(union[0])
    ):  # the other members were contradictions: the union is its one member
        rest = {k: v for k, v in out.items() if k != "anyOf" and k != EXCLUSIVE}
        return merge(rest, union[0], depth + 1)
    return out


_BOUNDS: dict[str, tuple[tuple[str, str], ...]] = {
    "integer": (("minimum", "maximum"),),
    "number": (("minimum", "maximum"),),
    "string": (("minLength", "maxLength"),),
    "array": (("minItems", "maxItems"),),
    "object": (("minProperties", "maxProperties"),),
}


def _check_bounds(out: dict[str, Any]) -> None:
    """A lower bound above the upper one leaves no value of the node's one type."""
    kind = out.get("type")
    for low, high in _BOUNDS.get(kind, ()) if isinstance(kind, str) else ():
        if _number(out.get(low)) and _number(out.get(high)) and out[low] > out[high]:
            raise Conflict(f"{low} {out[low]} is above {high} {out[high]}")


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _member(member: Schema, resolve: Callable[[str], Schema | None]) -> Schema | None:
    if not isinstance(member, dict):
        return member
    if not is_ref(member):
        return member
    target = resolve(ref_name(member))
    if not isinstance(target, dict):
        return None
    siblings = {k: v for k, v in member.items() if k != "$ref"}
    return {**target, **siblings} if siblings else target


_DESCRIPTIVE = ANNOTATIONS | {"example", "externalDocs", "xml"}


def _annotated_ref(node: dict[str, Any], members: list[Any], ctx: PassContext) -> Schema | None:
    """``{description: ..., allOf: [{$ref: X}]}`` (OpenAPI 3.0's way to describe a ``$ref``)
    -> ``{$ref: X, description: ...}``: the reference is kept, not merged, so a document
    that says so of every property does not inline its whole schema graph into each named
    schema (Elastic's grows to 18 MB per function that way). Not at the root of a named
    schema, where it may be inheritance (``Cat: allOf: [Pet]``): merged as before."""
    if len(members) != 1 or not is_ref(members[0]) or ctx.pointer == ctx.root:
        return None
    if not all(k == "allOf" or k in _DESCRIPTIVE or k.startswith("x-") for k in node):
        return None
    return {**members[0], **{k: v for k, v in node.items() if k != "allOf"}}


@acts_on("allOf")
def all_of(node: dict[str, Any], ctx: PassContext) -> Schema:
    """Merge the ``allOf`` members of ``node`` (and ``node``'s own keywords) into one schema.

    >>> all_of({"allOf": [{"type": "object", "properties": {"a": {"type": "string"}}},
    ...                   {"required": ["a"]}]}, CTX)
    {'type': 'object', 'properties': {'a': {'type': 'string'}}, 'required': ['a']}
    """
    members = node.get("allOf")
    if not isinstance(members, list):
        return node
    annotated = _annotated_ref(node, members, ctx)
    if annotated is not None:
        return annotated
    own = {k: v for k, v in node.items() if k != "allOf"}
    merged: dict[str, Any] = own
    kept: list[Schema] = []
    for raw in members:
        member = _member(raw, ctx.resolve)
        if member is None and is_ref(raw):
            member = _member(raw, ctx.resolve_base)
        if member is True or member == {}:
            continue
        if not isinstance(member, dict):
            kept.append(raw)
            continue
        try:
            merged = merge(merged, member)
        except Conflict as exc:
            ctx.report(ctx.pointer, f"allOf members contradict each other: {exc}")
            return node
    if kept:
        merged = {**merged, "allOf": [*merged.get("allOf", []), *kept]}
    if merged == node:
        return node  # what could not be merged before still cannot: identity means unchanged
    return merged
