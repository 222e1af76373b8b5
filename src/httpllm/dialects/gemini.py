"""Google Gemini (``gemini``, alias ``google``): ``functionDeclarations``.

By default each declaration carries ``parameters``, the OpenAPI-3.0-subset ``Schema`` that
every Gemini endpoint (Developer API, Vertex AI, Live) accepts: refs inlined, recursion
unrolled (``unroll=k``) or reported, null as ``nullable: true``, ``const`` as a one-value
enum, string-only enums, formats per type, no ``additionalProperties`` and no object
without properties. Type names are lower-case JSON Schema names (the API and the SDK read
them case-insensitively; the SDK serializes ``STRING``). ``envelope="json-schema"`` sends
``parametersJsonSchema`` instead: JSON Schema with local ``$ref``s, recursion only through
optional properties.

``tools()`` is ``[{"functionDeclarations": [...]}]``: one ``Tool`` holding every declaration,
what ``GenerateContentConfig(tools=app.tools())`` takes.

Values the model sends differ from the operation's in three places. Each function is
marked ``Function.extra["decode"] = True`` and ``execute.decode`` restores the values from
``Function.schema`` (the emended schema, which keeps the original types, consts and enums):
a const or enum of non-strings is sent as strings (``"2"`` -> ``2``: the value whose JSON
text matches, of any JSON type; each text offered once, for the first value with it, the
others reported dropped; in a union with a string member that takes such a text, the
text reads as the value and the string is reported lost, ``dialects._texts``); an
object without properties is sent as JSON text, a map
with a typed value as ``[{"key", "value"}]`` entries; with ``collapse_deep`` a subtree past
``max_depth`` as JSON text. A tuple (``prefixItems``) is an array of the union of its
position schemas, its values sent as themselves (``validate`` checks the positions).

Source: google-genai 3.6.1 ``types.FunctionDeclaration``, ``types.Schema`` (formats: "for
NUMBER type: float, double; for INTEGER type: int32, int64; for STRING type: enum,
date-time"), ``types.Tool``; docs/provider-rules.md sections 1, 2b, 3.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from httpllm._types import JSON, Schema
from httpllm.dialects._base import Dialect, Options, RenderContext
from httpllm.dialects._keywords import one_per_text
from httpllm.dialects._rules import (
    booleans,
    const_as_enum,
    describe,
    filter_keywords,
    flatten_all_of,
    nullable_as_flag,
    recursive_defs,
    required_known,
    tuples_as_arrays,
    tuples_as_unions,
    typed_nodes,
)
from httpllm.dialects._texts import Texts, ambiguous_texts, record, sent_as_text
from httpllm.errors import Unrepresentable
from httpllm.pointer import escape
from httpllm.records import Function
from httpllm.refs import def_name_of
from httpllm.walk import FoldMemo, children, fold

__all__ = ["DIALECTS", "FORMATS", "GEMINI", "GEMINI_JSON", "SCHEMA_FIELDS"]

SCHEMA_FIELDS = frozenset(
    {"type", "format", "title", "description", "nullable", "enum", "properties", "required",
     "items", "anyOf", "default", "example", "minimum", "maximum", "minLength", "maxLength",
     "pattern", "minItems", "maxItems", "minProperties", "maxProperties"}
)
"""The ``Schema`` fields httpllm sends (``ref``/``defs``/``additionalProperties`` exist in
the SDK but not on every endpoint)."""

JSON_SCHEMA_FIELDS = frozenset(
    {"$defs", "$ref", "type", "format", "title", "description", "enum", "items", "prefixItems",
     "minItems", "maxItems", "minimum", "maximum", "anyOf", "properties",
     "additionalProperties", "required"}
)
"""What ``parametersJsonSchema`` supports (``responseJsonSchema`` API reference)."""

FORMATS = {"string": frozenset({"enum", "date-time"}), "integer": frozenset({"int32", "int64"}),
           "number": frozenset({"float", "double"})}
"""Formats every endpoint accepts ("only 'enum' and 'date-time' are supported for STRING
type", google-gemini/gemini-cli#3178); others go into the description."""

_ANY = {"type": "string", "description": "Any JSON value, as JSON text."}
_NULL = {"type": "string", "nullable": True, "description": "Always null."}
_ROOT = "parameters#"


_TUPLE_UNION = tuples_as_unions(_ANY)
_NULLABLE = nullable_as_flag(_NULL)


def _tuples(node: dict[str, Any], ctx: RenderContext) -> Schema:
    """A tuple is an array of the union of its positions (``tuples_as_unions``): values
    travel as themselves, ``validate`` checks each position. A null member of that new
    union (a node no rule visits) becomes ``nullable: true``, as elsewhere."""
    out = _TUPLE_UNION(node, ctx)
    items = out.get("items") if out is not node else None
    if isinstance(items, dict) and "anyOf" in items:
        return {**out, "items": _NULLABLE(items, ctx)}
    return out


def _objects(node: dict[str, Any], ctx: RenderContext) -> Schema:
    """An object without properties (a map, free-form or empty) cannot be an OBJECT: a
    typed map becomes ``[{"key", "value"}]`` entries, anything else a string of JSON."""
    if node.get("type") != "object" or node.get("properties") or ctx.pointer == _ROOT:
        return node
    extra = node.get("additionalProperties")
    keep = {k: v for k, v in node.items() if k in ("description", "title", "nullable")}
    ctx.lose("additionalProperties", "rewritten", extra if isinstance(extra, dict) else None,
             "an object without properties")
    for key in node:  # in the node's order: the loss report is deterministic
        if key not in keep and key not in ("type", "additionalProperties", "properties"):
            ctx.lose(key, "dropped", node[key], "on an object without properties")
    if isinstance(extra, dict) and extra:
        entry = {"type": "object", "properties": {"key": {"type": "string"}, "value": extra},
                 "required": ["key", "value"]}
        return describe({**keep, "type": "array", "items": entry},
                        [("map", "a list of {key, value} entries")])
    out = describe({**keep, "type": "string"}, [("json", "a JSON object, as JSON text")])
    return record(out, Texts(json=True), ctx)


def _enums(node: dict[str, Any], ctx: RenderContext) -> Schema:
    """Enums hold strings only, none empty: other values are sent as their JSON text, one
    value per text (``one_per_text``: of ``[1, "1"]`` only ``1`` can be offered, ``"1"``
    is dropped with a loss, and ``execute.decode`` reads ``"1"`` as ``1``)."""
    values = node.get("enum")
    if not isinstance(values, list):
        return node
    if not values:
        ctx.lose("enum", "dropped", [], "an empty enum (no value allowed)")
        return {k: v for k, v in node.items() if k != "enum"}
    if node.get("type") == "string" and "" not in values and all(
            isinstance(v, str) for v in values):
        return node
    distinct = one_per_text(values, ctx)
    texts = [v if isinstance(v, str) else json.dumps(v) for v in distinct]
    kept = [t for t in dict.fromkeys(texts) if t]
    out = {**node, "type": "string", "enum": kept}
    if node.get("type", "string") != "string":
        ctx.lose("type", "rewritten", node["type"], "enum values are strings")
    if "" in texts:
        ctx.lose("enum", "dropped", "", "Gemini rejects an empty enum member")
        out = describe(out, [("enum", 'also "" (the empty string)')])
    if texts != distinct:
        ctx.lose("enum", "rewritten", values, "sent as strings; execute.decode restores them",
                 undo="enum-as-text")
        if "default" in node and not isinstance(node["default"], str):
            out["default"] = json.dumps(node["default"])
    if not kept:
        out.pop("enum")
    sent = sent_as_text(distinct)
    return record(out, Texts(values=sent), ctx) if sent else out


def _formats(node: dict[str, Any], ctx: RenderContext) -> Schema:
    if "items" in node and node.get("type") != "array":
        ctx.lose("items", "dropped", node["items"], "items on a non-array")
        node = {k: v for k, v in node.items() if k != "items"}
    fmt = node.get("format")
    if fmt is None or fmt in FORMATS.get(str(node.get("type")), ()):
        return node
    ctx.lose("format", "described", fmt, "format not accepted by every Gemini endpoint")
    return describe({k: v for k, v in node.items() if k != "format"}, [("format", fmt)])


def _through_required(root: dict[str, Any]) -> str | None:
    """Where a recursive schema refers to one on its cycle without an optional property
    between ("cyclic refs ... only allowed in non-required properties"): a
    :func:`walk.fold <httpllm.walk.fold>` over each recursive definition, whose value is
    the first such place below a node (``"/items (a ref to N)"``) or ``None``."""
    names = set(recursive_defs(root))
    memo = FoldMemo()

    def combine(node: dict[str, Any], values: list[str | None]) -> str | None:
        ref = node.get("$ref")
        name = def_name_of(ref) if isinstance(ref, str) else None
        if name in names:
            return f" (a ref to {name})"
        required = node.get("required", [])
        # the last subschema first: the order the walk this fold replaced reported in
        for (keyword, key, _), hit in zip(reversed(children(node)), reversed(values),
                                          strict=True):
            if hit is not None and not (keyword == "properties" and key not in required):
                return (f"/{keyword}" if key is None else f"/{keyword}/{escape(key)}") + hit
        return None

    for name in sorted(names):
        hit = fold(root["$defs"][name], combine, None, memo)
        if hit is not None:
            return f"#/$defs/{escape(name)}{hit}"
    return None


def _json_finish(parameters: Schema, function: Function, ctx: RenderContext) -> Schema:
    bad = _through_required(parameters) if isinstance(parameters, dict) else None
    if bad is not None:
        raise Unrepresentable(f"{function.name}: recursion through required properties at "
                              f"{bad}; Gemini allows it only in optional ones",
                              pointer=function.pointer or None)
    return parameters


def _declaration(function: Function, options: Options, key: str = "parameters") -> JSON:
    out: dict[str, Any] = {"name": function.name}
    if function.description:
        out["description"] = function.description
    params = function.parameters
    if isinstance(params, dict) and params.get("properties"):
        out[key] = params
    return out


def _json_declaration(function: Function, options: Options) -> JSON:
    return _declaration(function, options, "parametersJsonSchema")


def _group(declarations: list[JSON]) -> list[JSON]:
    return [{"functionDeclarations": declarations}] if declarations else []


GEMINI = Dialect(
    name="gemini",
    tool_calls="gemini",
    aliases=("google",),
    keywords=SCHEMA_FIELDS,
    refs="inline",
    name_max=64,
    name_pattern=r"^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$",
    tool_limit=512,
    limit_sources={
        "name_max": "the smaller where the sources disagree: [doc] Gemini API v1beta and "
                    "Vertex AI aiplatform v1 FunctionDeclaration.name (\"maximum length of "
                    "64\"; the API's errors say 64), [sdk] google-genai 3.6 types.py (128)",
        "tool_limit": "[issue] google-gemini/gemini-cli#19083 (At most 512 function "
                      "declarations)",
    },
    rules=(_tuples, booleans(_ANY), const_as_enum, flatten_all_of,
           nullable_as_flag(_NULL), tuples_as_arrays(_ANY), typed_nodes, _objects,
           _enums, ambiguous_texts, _formats, filter_keywords, required_known),
    envelope=_declaration,
    group=_group,
    envelopes=("parameters", "json-schema"),
    variant=lambda options: _variant(options),
    decodes=True,
    source="https://ai.google.dev/api/caching#FunctionDeclaration",
)
"""``{"functionDeclarations": [{"name", "description", "parameters"}]}``; ``parameters``
is left out for a function without arguments ("should be non-empty for OBJECT type")."""

GEMINI_JSON = replace(
    GEMINI,
    name="gemini-json",
    aliases=(),
    keywords=JSON_SCHEMA_FIELDS,
    refs="keep",
    rules=(booleans({}), const_as_enum, filter_keywords, required_known),
    finish=_json_finish,
    envelope=_json_declaration,
    variant=None,
    decodes=False,
)
"""``parametersJsonSchema`` (no client-side validation; the Live API is reported to call
such functions with empty arguments, googleapis/python-genai#1147). Also chosen by
``provider="gemini", envelope="json-schema"``, under the name ``gemini``."""

_GEMINI_JSON_AS_GEMINI = replace(GEMINI_JSON, name=GEMINI.name)


def _variant(options: Options) -> Dialect:
    return _GEMINI_JSON_AS_GEMINI if options.envelope == "json-schema" else GEMINI


DIALECTS = (GEMINI, GEMINI_JSON)
