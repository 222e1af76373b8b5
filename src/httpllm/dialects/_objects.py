"""Strict-mode shape rules: a ``$ref`` alone, keywords of the node's own type, a type on
every node, maps as entry lists, closed and sealed objects (OpenAI, Anthropic, DeepSeek strict)."""

from __future__ import annotations

from typing import Any

from httpllm._memo import IdentityCache
from httpllm._types import Schema
from httpllm.dialects._base import RenderContext, leaf_triggers
from httpllm.dialects._keywords import CONSTRAINTS, describe, one_per_text
from httpllm.dialects._texts import Texts, record, sent_as_text
from httpllm.errors import Unrepresentable
from httpllm.normalize.nullable import allows_null, with_null

__all__ = [
    "close_objects",
    "foreign_keywords",
    "maps_as_entries",
    "ref_alone",
    "seal_objects",
    "typed_nodes",
]


@leaf_triggers("$ref")
def ref_alone(node: dict[str, Any], ctx: RenderContext) -> Schema:
    """A ``$ref`` with siblings becomes ``{"anyOf": [{"$ref": ...}], ...siblings}``: strict
    OpenAI rejects siblings next to ``$ref`` (openai-python ``lib/_pydantic.py``)."""
    if "$ref" not in node or len(node) == 1:
        return node
    siblings = {k: v for k, v in node.items() if k != "$ref"}
    return {**siblings, "anyOf": [{"$ref": node["$ref"]}]}


_APPLIES_TO = {"properties": "object", "required": "object", "additionalProperties": "object",
               "items": "array"}


_APPLIES_KEYS = frozenset(_APPLIES_TO)


@leaf_triggers(*_APPLIES_KEYS)
def foreign_keywords(node: dict[str, Any], ctx: RenderContext) -> Schema:
    """Object and array keywords on a node whose ``type`` excludes objects or arrays are
    dropped, with a loss entry. *Equivalent* (JSON Schema 2020-12 applies them to objects
    or arrays only), but strict modes check them anyway: ``{"type": "string",
    "additionalProperties": true}`` is rejected there (an untyped ``true`` schema).

    >>> foreign_keywords({"type": "string", "additionalProperties": True}, CTX)
    {'type': 'string'}
    """
    kind = node.get("type")
    if not isinstance(kind, (str, list)) or _APPLIES_KEYS.isdisjoint(node):
        return node
    kinds = {kind} if isinstance(kind, str) else set(kind)
    foreign = [key for key in node if key in _APPLIES_TO and _APPLIES_TO[key] not in kinds]
    if not foreign:
        return node
    for key in foreign:
        ctx.lose(key, "dropped", node[key], f"no effect: the type is not {_APPLIES_TO[key]}")
    return {k: v for k, v in node.items() if k not in foreign}


_TYPED = frozenset({"type", "anyOf", "oneOf", "$ref", "allOf"})
"""A node with one of these keywords has its type (or its members have theirs)."""


_JSON_TEXT = "A JSON value, as JSON text."


@leaf_triggers()  # a leaf with a type is kept
def typed_nodes(node: dict[str, Any], ctx: RenderContext) -> Schema:
    """Give every node a ``type``: inferred from ``properties``/``items``/``enum``; an
    untyped node (any value) becomes ``{"type": "string"}`` with a loss entry (strict
    modes reject untyped nodes: "schema must have a 'type' key"); so does one whose
    ``enum``/``const`` holds an object or an array (JSON text, the values described, one
    per text as ``one_per_text`` keeps them: ``execute.decode`` reads the text back,
    ``validate`` checks the values)."""
    if not _TYPED.isdisjoint(node):
        return node
    if "properties" in node or "additionalProperties" in node:
        return {**node, "type": "object"}
    if "items" in node or "prefixItems" in node:
        return {**node, "type": "array"}
    values = node.get("enum", [node["const"]] if "const" in node else None)
    structured = isinstance(values, list) and any(isinstance(v, (dict, list)) for v in values)
    if isinstance(values, list) and values and not structured:
        kinds = {"string" if isinstance(v, str) else "boolean" if isinstance(v, bool) else
                 "integer" if isinstance(v, int) else "number" if isinstance(v, float) else
                 "null" for v in values}
        if len(kinds) == 1:
            return {**node, "type": kinds.pop()}
        return node
    if not ctx.options.lenient:
        raise Unrepresentable(f"{ctx.pointer}: a schema without a type (any value) cannot be "
                              "expressed in strict mode (lenient=False)")
    ctx.lose("type", "rewritten", None, "any value: typed as string")
    if not structured:  # any value, as JSON text (execute.decode: a string stays a string)
        return record({**node, "type": "string"}, Texts(json=True), ctx)
    # object or array constants have no strict form: JSON text, the values described
    moved: list[tuple[str, Any]] = [
        (k, one_per_text(node[k], ctx) if k == "enum" and isinstance(node[k], list) else node[k])
        for k in ("const", "enum") if k in node]
    for key, value in moved:
        ctx.lose(key, "described", value, "object or array values: sent as JSON text")
    rest = {k: v for k, v in node.items() if k not in ("const", "enum")}
    text = rest.get("description")
    rest["description"] = f"{text}\n{_JSON_TEXT}" if isinstance(text, str) and text else (
        _JSON_TEXT)
    values = node.get("enum", [node.get("const")])
    return record(describe({**rest, "type": "string"}, moved),
                  Texts(values=sent_as_text(values if isinstance(values, list) else [])), ctx)


def _is_map(node: dict[str, Any]) -> bool:
    """An object that declares no ``properties`` keyword (an explicit ``properties: {}``
    is a closed, empty object once strict mode closes it)."""
    if node.get("type") != "object" or "properties" in node:
        return False
    return node.get("additionalProperties", True) is not False


_MAP_KEPT = frozenset({"type", "additionalProperties", "description", "title"})
"""The keywords of a map that its entries spelling keeps (or rewrites): every other one
is described (a constraint) or dropped, with a loss."""


@leaf_triggers()  # a map is an object
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
    moved = [(k, v) for k, v in node.items()
             if (k in CONSTRAINTS or k == "enum") and k not in _MAP_KEPT]
    for key, value in moved:
        ctx.lose(key, "described", value, "a map given as entries")
    for key, value in node.items():
        if key not in _MAP_KEPT and key not in CONSTRAINTS and key != "enum":
            ctx.lose(key, "dropped", value, "a map given as entries")
    note = "A map, given as a list of {key, value} entries."
    text = keep.get("description")
    keep["description"] = f"{text}\n{note}" if text else note
    return describe({**keep, "type": "array", "items": entry}, moved)


def _with_null(sub: dict[str, Any], memo: IdentityCache[dict[str, Any]]) -> dict[str, Any]:
    """:func:`with_null` once per shared node (an argument's schema is optional in many
    functions): one object, so later measures and the serializer see it as shared."""
    hit = memo.get(sub)
    return hit if hit is not None else memo.put(sub, with_null(sub))


@leaf_triggers("properties")
def close_objects(node: dict[str, Any], ctx: RenderContext) -> Schema:
    """Strict objects: ``additionalProperties: false``; every property required, the
    optional ones made nullable (OpenAI structured outputs: "all fields must be required";
    optional = a union with null)."""
    if node.get("type") != "object" and "properties" not in node:
        return node
    props = node.get("properties", {})
    required = node.get("required", [])
    named = {name for name in required if isinstance(name, str)}
    optional = [name for name in props if name not in named]
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
        memo = ctx.identity_memo("with_null")
        out["properties"] = {
            name: (_with_null(sub, memo) if name not in named and isinstance(sub, dict)
                   and not allows_null(sub) else sub)
            for name, sub in props.items()
        }
        ctx.lose("required", "rewritten", list(required),
                 "optional properties made required and nullable: " + ", ".join(optional))
    out["required"] = list(props)
    return out


@leaf_triggers("properties")
def seal_objects(node: dict[str, Any], ctx: RenderContext) -> Schema:
    """Every object gets ``additionalProperties: false`` and ``properties``; ``required``
    is left alone (Anthropic strict: "additionalProperties must be false", optional
    properties allowed). Run :func:`maps_as_entries` first, or a map becomes empty."""
    if node.get("type") != "object" and "properties" not in node:
        return node
    extra = node.get("additionalProperties")
    if extra is False and "properties" in node:
        return node
    if extra is not None and extra is not False:
        ctx.lose("additionalProperties", "dropped", extra, "strict mode closes every object")
    return {**node, "properties": node.get("properties", {}), "additionalProperties": False}
