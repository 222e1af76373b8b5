"""Pass: every way of saying "or null" -> one ``anyOf`` member ``{"type": "null"}``.

Handles OpenAPI 3.0 ``nullable: true``, 3.1 ``type: [X, "null"]``, ``null`` in ``enum``
and ``const: null``. Contract: *equivalent* under JSON Schema 2020-12: null is allowed
exactly when the type, the enum and the const all allow it (``type: string`` with
``enum: [a, null]`` does not: the ``null`` is dropped and reported). OpenAPI 3.0
``nullable: true`` is read as "null is also allowed" (OpenAPI 3.0.3 section 4.7.24.1),
whatever the rest says: it *widens* by exactly ``null``.
"""

from __future__ import annotations

from typing import Any

from httpllm._types import Schema
from httpllm.normalize._context import ANNOTATIONS, EXCLUSIVE, PassContext, acts_on, describes

__all__ = ["NULL", "allows_null", "nullable", "with_null"]

NULL: dict[str, Any] = {"type": "null"}


def allows_null(node: Schema) -> bool:
    """Whether an emended node visibly accepts ``null`` (without following refs)."""
    if node is True or node == {}:
        return True
    if not isinstance(node, dict):
        return False
    if node.get("type") == "null" or node.get("const", 0) is None:
        return True
    return any(isinstance(m, dict) and m.get("type") == "null" for m in node.get("anyOf", ()))


def _refuses_null(member: Any) -> bool:
    """Whether a union member visibly refuses ``null`` (its type, enum or const)."""
    if not isinstance(member, dict) or "$ref" in member:
        return False
    kind = member.get("type")
    if isinstance(kind, str):
        return kind != "null"
    enum = member.get("enum")
    if isinstance(enum, list):
        return None not in enum
    return "const" in member and member["const"] is not None


def with_null(node: dict[str, Any]) -> dict[str, Any]:
    """``node`` or null: annotations (and OpenAPI-only keywords, which the direction pass
    drops) stay outside, the rest becomes one union member. An exclusive union
    (:data:`~httpllm.normalize._context.EXCLUSIVE`) takes ``null`` as one more member only
    when every member refuses ``null`` (else ``null`` could match two of them)."""
    if allows_null(node):
        return node
    outer = {k: v for k, v in node.items() if describes(k)}
    inner = {k: v for k, v in node.items() if not describes(k)}
    if set(inner) == {"anyOf"} or (set(inner) == {"anyOf", EXCLUSIVE}
                                   and all(map(_refuses_null, inner["anyOf"]))):
        return {**outer, **inner, "anyOf": [*inner["anyOf"], NULL]}
    return {**outer, "anyOf": [inner or {}, NULL]}


def _kinds(node: dict[str, Any]) -> list[str] | None:
    types = node.get("type")
    if isinstance(types, list):
        return [t for t in dict.fromkeys(types) if isinstance(t, str)]
    return [types] if isinstance(types, str) else None


def _without_null(node: dict[str, Any], kinds: list[str] | None) -> dict[str, Any] | None:
    """``node`` less its null: no ``nullable``, no ``"null"`` type or enum value, or
    ``None`` when nothing but null is left."""
    out = {k: v for k, v in node.items() if k != "nullable"}
    if kinds is not None and "null" in kinds:
        rest = [k for k in kinds if k != "null"]
        if not rest:
            return None
        out["type"] = rest[0] if len(rest) == 1 else rest
    elif kinds is not None and isinstance(node.get("type"), list):
        out["type"] = kinds[0] if len(kinds) == 1 else kinds
    if "const" in out and out["const"] is None:
        return None
    if isinstance(out.get("enum"), list) and None in out["enum"]:
        out["enum"] = [v for v in out["enum"] if v is not None]
        if not out["enum"]:
            return None
    return out


@acts_on("nullable", "enum", "const", "type", types=())
def nullable(node: dict[str, Any], ctx: PassContext) -> Schema:
    """Rewrite ``nullable``, ``[X, "null"]`` types and null enum/const members.

    >>> nullable({"type": "string", "nullable": True}, CTX)
    {'anyOf': [{'type': 'string'}, {'type': 'null'}]}
    """
    enum = node.get("enum")
    null_enum = isinstance(enum, list) and None in enum
    null_const = "const" in node and node["const"] is None
    types = node.get("type")
    null_type = isinstance(types, list) and ("null" in types or len(types) == 1)
    if not ("nullable" in node or null_enum or null_const or null_type):
        return node  # several types without null: the mixed_types pass's business
    kinds = _kinds(node)
    admits = ((kinds is None or "null" in kinds)
              and (not isinstance(enum, list) or null_enum)
              and ("const" not in node or null_const))
    admits = admits or node.get("nullable") is True
    rest = _without_null(node, kinds)
    if rest is None:
        if admits:
            return {k: v for k, v in node.items() if k in ANNOTATIONS} | NULL
        ctx.report(ctx.pointer, "only null is listed, and the type does not allow null")
        return node
    if (null_enum or null_const) and not admits:
        ctx.report(ctx.pointer, "null is listed, but the type does not allow null; dropped")
    return with_null(rest) if admits else rest
