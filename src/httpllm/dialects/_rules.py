"""Shared dialect rules: small pure node rules, each reporting every change it makes.

Rules see a node whose children are already rendered and return the node (the same
object when unchanged). They never drop anything without ``ctx.lose``.
"""

from __future__ import annotations

import json
from typing import Any

from httpllm._types import Schema
from httpllm.dialects._base import RenderContext
from httpllm.normalize.nullable import allows_null, with_null

__all__ = [
    "CONSTRAINTS",
    "JSON_SCHEMA_2020_12",
    "close_objects",
    "describe",
    "filter_keywords",
    "maps_as_entries",
    "ref_alone",
    "typed_nodes",
]

CONSTRAINTS = frozenset(
    {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minLength",
     "maxLength", "pattern", "format", "minItems", "maxItems", "uniqueItems", "minProperties",
     "maxProperties", "default", "contentMediaType", "contentEncoding", "minContains",
     "maxContains", "dependentRequired", "title", "deprecated", "readOnly", "writeOnly",
     "examples", "const"}
)
"""Keywords whose meaning survives as text: moved into the description as ``@keyword value``
tags when a dialect cannot take them (samchon/openapi's ``@minimum 0`` convention)."""

JSON_SCHEMA_2020_12 = frozenset(
    {"$ref", "$defs", "type", "enum", "const", "properties", "required",
     "additionalProperties", "patternProperties", "propertyNames", "items", "prefixItems",
     "contains", "minContains", "maxContains", "minItems", "maxItems", "uniqueItems",
     "minProperties", "maxProperties", "dependentRequired", "dependentSchemas", "anyOf",
     "oneOf", "allOf", "not", "if", "then", "else", "unevaluatedItems",
     "unevaluatedProperties", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
     "multipleOf", "minLength", "maxLength", "pattern", "format", "contentMediaType",
     "contentEncoding", "contentSchema", "title", "description", "default", "examples",
     "deprecated", "readOnly", "writeOnly", "$comment"}
)
"""Every keyword of JSON Schema 2020-12 (core, applicator, validation, meta-data, content)."""


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def describe(node: dict[str, Any], tags: list[tuple[str, Any]]) -> dict[str, Any]:
    """Append ``@keyword value`` lines to the node's description.

    >>> describe({"type": "integer", "description": "Page size."}, [("minimum", 1)])
    {'type': 'integer', 'description': 'Page size.\\n@minimum 1'}
    """
    if not tags:
        return node
    lines = [f"@{key} {_text(value)}" for key, value in tags]
    text = node.get("description")
    body = "\n".join(lines)
    return {**node, "description": f"{text}\n{body}" if isinstance(text, str) and text else body}


def filter_keywords(node: dict[str, Any], ctx: RenderContext) -> Schema:
    """Keep the dialect's keywords; constraints (and with ``strip_constraints``, every
    validation keyword) go into the description, anything else is dropped."""
    keep = ctx.dialect.keywords
    if ctx.strict and ctx.dialect.strict_keywords is not None:
        keep = ctx.dialect.strict_keywords
    strip = ctx.options.strip_constraints
    if keep is None and not strip:
        return node
    moved: list[tuple[str, Any]] = []
    dropped: list[str] = []
    for key, value in node.items():
        if key == "description":
            continue
        allowed = keep is None or key in keep
        if allowed and not (strip and key in CONSTRAINTS and key not in ("title", "const")):
            continue
        if key in CONSTRAINTS and not (key == "const" and allowed):
            moved.append((key, value))
        else:
            dropped.append(key)
    if not moved and not dropped:
        return node
    for key, value in moved:
        ctx.lose(key, "described", value)
    for key in dropped:
        ctx.lose(key, "dropped", node[key])
    out = {k: v for k, v in node.items() if k not in dropped and k not in dict(moved)}
    return describe(out, moved)


def ref_alone(node: dict[str, Any], ctx: RenderContext) -> Schema:
    """A ``$ref`` with siblings becomes ``{"anyOf": [{"$ref": ...}], ...siblings}``: strict
    OpenAI rejects siblings next to ``$ref`` (openai-python ``lib/_pydantic.py``)."""
    if "$ref" not in node or len(node) == 1:
        return node
    siblings = {k: v for k, v in node.items() if k != "$ref"}
    return {**siblings, "anyOf": [{"$ref": node["$ref"]}]}


_STRUCTURAL = ("type", "anyOf", "oneOf", "$ref", "enum", "const", "allOf")


def typed_nodes(node: dict[str, Any], ctx: RenderContext) -> Schema:
    """Give every node a ``type``: inferred from ``properties``/``items``/``enum``; an
    untyped node (any value) becomes ``{"type": "string"}`` with a loss entry (strict
    modes reject untyped nodes: "schema must have a 'type' key")."""
    if any(k in node for k in _STRUCTURAL if k not in ("enum", "const")):
        return node
    if "properties" in node or "additionalProperties" in node:
        return {**node, "type": "object"}
    if "items" in node or "prefixItems" in node:
        return {**node, "type": "array"}
    values = node.get("enum", [node["const"]] if "const" in node else None)
    if isinstance(values, list) and values:
        kinds = {"string" if isinstance(v, str) else "boolean" if isinstance(v, bool) else
                 "integer" if isinstance(v, int) else "number" if isinstance(v, float) else
                 "null" if v is None else "object" for v in values}
        if len(kinds) == 1:
            return {**node, "type": kinds.pop()}
        return node
    if not ctx.options.lenient:
        ctx.fail("a schema without a type (any value) cannot be expressed in strict mode")
    ctx.lose("type", "rewritten", None, "any value: typed as string")
    return {**node, "type": "string"}


def _is_map(node: dict[str, Any]) -> bool:
    """An object that declares no ``properties`` keyword (an explicit ``properties: {}``
    is a closed, empty object once strict mode closes it)."""
    if node.get("type") != "object" or "properties" in node:
        return False
    return node.get("additionalProperties", True) is not False


def maps_as_entries(node: dict[str, Any], ctx: RenderContext) -> Schema:
    """A map (object without properties) becomes an array of ``{key, value}`` entries.

    Strict modes demand ``additionalProperties: false``, which would make a map always
    empty (openai/openai-python#2004). ``execute.decode`` turns the entries back into a
    map; a value the document leaves untyped travels as JSON text.
    """
    if not _is_map(node):
        return node
    extra = node.get("additionalProperties", True)
    if isinstance(extra, dict) and extra:
        value: Schema = extra
    else:
        value = {"type": "string", "description": "The value, as JSON text."}
    entry = {"type": "object", "properties": {"key": {"type": "string"}, "value": value},
             "required": ["key", "value"], "additionalProperties": False}
    keep = {k: v for k, v in node.items() if k in ("description", "title")}
    ctx.lose("additionalProperties", "rewritten", extra if extra is not True else True,
             "map given as an array of {key, value} entries")
    note = "A map, given as a list of {key, value} entries."
    text = keep.get("description")
    keep["description"] = f"{text}\n{note}" if text else note
    return {**keep, "type": "array", "items": entry}


def close_objects(node: dict[str, Any], ctx: RenderContext) -> Schema:
    """Strict objects: ``additionalProperties: false``; every property required, the
    optional ones made nullable (OpenAI structured outputs: "all fields must be required";
    optional = a union with null)."""
    if node.get("type") != "object" and "properties" not in node:
        return node
    props = node.get("properties", {})
    required = node.get("required", [])
    optional = [name for name in props if name not in required]
    extra = node.get("additionalProperties")
    if (node.get("additionalProperties") is False and not optional
            and list(required) == list(props) and "properties" in node):
        return node
    out = dict(node)
    if extra is not None and extra is not False:
        ctx.lose("additionalProperties", "dropped", extra, "strict mode closes every object")
    out["additionalProperties"] = False
    out.setdefault("properties", {})
    if optional:
        out["properties"] = {
            name: (with_null(sub) if name in optional and isinstance(sub, dict)
                   and not allows_null(sub) else sub)
            for name, sub in props.items()
        }
        ctx.lose("required", "rewritten", list(required),
                 "optional properties made required and nullable: " + ", ".join(optional))
    out["required"] = list(props)
    return out
