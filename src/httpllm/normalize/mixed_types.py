"""Pass: ``type: [string, integer, ...]`` -> a union of single-typed schemas.

Contract: *equivalent*. Each member keeps the keywords that apply to its type
(JSON Schema Validation 2020-12 section 6: each keyword constrains one instance type).
"""

from __future__ import annotations

from typing import Any

from httpllm._types import Schema
from httpllm.normalize._context import PassContext, acts_on, describes

__all__ = ["TYPE_KEYWORDS", "matches", "mixed_types"]

TYPE_KEYWORDS: dict[str, frozenset[str]] = {
    "string": frozenset({"minLength", "maxLength", "pattern", "format", "contentMediaType",
                         "contentEncoding", "contentSchema"}),
    "number": frozenset({"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
                         "multipleOf", "format"}),
    "array": frozenset({"items", "prefixItems", "additionalItems", "minItems", "maxItems",
                        "uniqueItems", "contains", "minContains", "maxContains",
                        "unevaluatedItems"}),
    "object": frozenset({"properties", "required", "additionalProperties", "patternProperties",
                         "minProperties", "maxProperties", "propertyNames",
                         "dependentRequired", "dependentSchemas", "unevaluatedProperties"}),
}
TYPE_KEYWORDS["integer"] = TYPE_KEYWORDS["number"]
_TYPED = frozenset().union(*TYPE_KEYWORDS.values())
_PY_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,), "integer": (int,), "number": (int, float), "boolean": (bool,),
    "array": (list,), "object": (dict,), "null": (type(None),),
}


def matches(value: Any, kind: str) -> bool:
    """Whether a JSON value is of a JSON Schema type (``1.0`` is an integer, ``true`` is not)."""
    if isinstance(value, bool) and kind in ("integer", "number"):
        return False
    if kind == "integer" and isinstance(value, float):
        return value.is_integer()
    return isinstance(value, _PY_TYPES.get(kind, (object,)))


def _admits_null(node: dict[str, Any]) -> bool:
    enum = node.get("enum")
    return (not isinstance(enum, list) or None in enum) and node.get("const") is None


@acts_on("type", types=())
def mixed_types(node: dict[str, Any], ctx: PassContext) -> Schema:
    """Split a node whose ``type`` lists several non-null types into an ``anyOf``.

    >>> mixed_types({"type": ["string", "integer"], "maxLength": 3}, CTX)
    {'anyOf': [{'type': 'string', 'maxLength': 3}, {'type': 'integer'}]}
    """
    types = node.get("type")
    if not isinstance(types, list):
        return node
    kinds = [t for t in dict.fromkeys(types) if isinstance(t, str)]
    non_null = [t for t in kinds if t != "null"]
    if len(non_null) < 2:
        return node
    outer = {k: v for k, v in node.items() if describes(k)}
    shared = {k: v for k, v in node.items()
              if not describes(k) and k not in _TYPED and k not in ("type", "enum", "const")}
    members: list[Schema] = []
    for kind in kinds:
        member: dict[str, Any] = {"type": kind, **shared}
        member.update({k: v for k, v in node.items() if k in TYPE_KEYWORDS.get(kind, ())})
        if kind == "null":  # `null` is its only value: an enum or const adds nothing
            if _admits_null(node):
                members.append(member)
            continue
        if "enum" in node and isinstance(node["enum"], list):
            values = [v for v in node["enum"] if matches(v, kind)]
            if not values:
                continue
            member["enum"] = values
        if "const" in node:
            if not matches(node["const"], kind):
                continue
            member["const"] = node["const"]
        members.append(member)
    if not members:
        ctx.report(ctx.pointer, "no type in the type list admits the enum/const values")
        return node
    return {**outer, "anyOf": members}
