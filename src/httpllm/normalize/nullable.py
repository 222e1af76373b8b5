"""Pass: every way of saying "or null" -> one ``anyOf`` member ``{"type": "null"}``.

Handles OpenAPI 3.0 ``nullable: true``, 3.1 ``type: [X, "null"]``, ``null`` in ``enum``
and ``const: null``. Contract: *equivalent* (3.0 ``nullable`` read as "null is also
allowed", OpenAPI 3.0.3 section 4.7.24.1).
"""

from __future__ import annotations

from typing import Any

from httpllm._types import Schema
from httpllm.normalize._context import ANNOTATIONS, PassContext

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


def with_null(node: dict[str, Any]) -> dict[str, Any]:
    """``node`` or null: annotations stay outside, the rest becomes one union member."""
    if allows_null(node):
        return node
    outer = {k: v for k, v in node.items() if k in ANNOTATIONS}
    inner = {k: v for k, v in node.items() if k not in ANNOTATIONS}
    if set(inner) == {"anyOf"}:
        return {**outer, "anyOf": [*inner["anyOf"], NULL]}
    return {**outer, "anyOf": [inner or {}, NULL]}


def nullable(node: dict[str, Any], ctx: PassContext) -> Schema:
    """Rewrite ``nullable``, ``[X, "null"]`` types and null enum/const members.

    >>> nullable({"type": "string", "nullable": True}, CTX)
    {'anyOf': [{'type': 'string'}, {'type': 'null'}]}
    """
    types = node.get("type")
    null_enum = isinstance(node.get("enum"), list) and None in node["enum"]
    flagged = "nullable" in node
    list_type = isinstance(types, list)
    if not (flagged or null_enum or list_type or ("const" in node and node["const"] is None)):
        return node
    out = dict(node)
    add_null = out.pop("nullable", False) is True
    if list_type:
        kinds = [t for t in dict.fromkeys(types) if isinstance(t, str)]
        if "null" in kinds and len(kinds) > 1:
            add_null = True
            kinds.remove("null")
        if len(kinds) == 1:
            out["type"] = kinds[0]
        elif not kinds:
            out.pop("type")
    if null_enum:
        values = [v for v in out["enum"] if v is not None]
        add_null = True
        if values:
            out["enum"] = values
        else:
            return {k: v for k, v in out.items() if k in ANNOTATIONS} | NULL
    if "const" in out and out["const"] is None:
        out.pop("const")
        return {k: v for k, v in out.items() if k in ANNOTATIONS} | NULL
    return with_null(out) if add_null else out
