"""OpenAI (``chatgpt``): Chat Completions or Responses envelope, non-strict and strict.

Strict mode makes every property required and an optional one nullable, so ``null`` there
means "not given" (``execute.decode`` drops it). A property that is optional *and*
nullable in the document (JSON Merge Patch's "delete this field") would then have no way
to send a real ``null``: :func:`null_marker` adds one member to exactly those properties,
the object :data:`NULL_MARKER` ``{"null": true}``, which ``execute.decode`` turns back into
``null``; ``null`` itself still means omitted. Recorded as a ``rewritten`` loss on
``required``. A property whose own schema declares an object of the single property
``null`` keeps today's reading (a loss entry says so), as the marker would be ambiguous.

Source: https://platform.openai.com/docs/guides/function-calling and
https://platform.openai.com/docs/guides/structured-outputs (supported schemas);
openai-python ``types/chat/chat_completion_function_tool_param.py`` and
``types/responses/function_tool_param.py``; docs/provider-rules.md sections 1, 2b, 2c.
"""

from __future__ import annotations

from typing import Any

from httpllm._types import JSON, Schema
from httpllm.dialects._base import Dialect, Options, RenderContext, leaf_triggers
from httpllm.dialects._openai_limits import MAX_NESTING, MAX_PROPERTIES, strict_limits
from httpllm.dialects._rules import (
    JSON_SCHEMA_2020_12,
    booleans,
    close_objects,
    describe,
    filter_keywords,
    foreign_keywords,
    maps_as_entries,
    ref_alone,
    tuples_as_unions,
    typed_nodes,
)
from httpllm.dialects._texts import ambiguous_texts
from httpllm.normalize.nullable import allows_null
from httpllm.records import Function

__all__ = [
    "CHATGPT",
    "DIALECTS",
    "OPENAI_STRICT_FORMATS",
    "NULL_MARKER",
    "OPENAI_STRICT_KEYWORDS",
    "null_marker",
    "strict_booleans",
    "strict_limits",
    "tuple_items",
]

OPENAI_STRICT_KEYWORDS = frozenset(
    {"type", "properties", "required", "additionalProperties", "items", "enum", "const",
     "anyOf", "$ref", "$defs", "description", "pattern", "format", "minimum", "maximum",
     "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minItems", "maxItems"}
)
"""The keywords httpllm sends in OpenAI strict mode (structured outputs "Supported
properties"). ``minLength``/``maxLength`` are left out: the guide lists them as unsupported
for fine-tuned models and they are described instead."""

OPENAI_STRICT_FORMATS = frozenset(
    {"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"}
)

NULL_MARKER: dict[str, Any] = {
    "type": "object",
    "properties": {"null": {"type": "boolean", "enum": [True]}},
    "required": ["null"],
    "additionalProperties": False,
    "description": 'A real null (e.g. to clear the field); null alone means "not given".',
}
"""The strict-mode spelling of a real ``null`` for a property both optional and nullable
(see :func:`null_marker`; ``execute.decode.MARKED_NULL`` is its instance)."""


_ANY = {"type": "string", "description": "Any JSON value, as JSON text."}

strict_booleans = leaf_triggers()(booleans(_ANY))
"""Strict mode: a boolean subschema has no strict form (untyped: "schema must have a
'type' key"): ``true`` is any value, sent as JSON text (``execute.decode`` reads it back),
a ``false`` property or union member is removed (no value can be given for it); each a
loss. Runs first, so the rules after it see the typed node."""


_MARKED = 'optional and nullable: null means not given; {"null": true} sends a real null'
"""How the loss of a function that offers :data:`NULL_MARKER` begins, for people;
``execute.decode`` reads the loss's ``undo`` (``"null-marker"``) to know the marker is
there, without walking the schema on every call."""


def _marks_null(sub: Any) -> bool:
    """Whether the marker is unambiguous for an optional, nullable property schema: none of
    its members declares an object whose only property is ``null``."""
    if not (isinstance(sub, dict) and allows_null(sub)):
        return False
    found = sub.get("anyOf")
    members: list[Any] = found if isinstance(found, list) else [sub]
    return not any(isinstance(m, dict) and isinstance(m.get("properties"), dict)
                   and set(m["properties"]) == {"null"} for m in members)


def _with_marker(sub: dict[str, Any]) -> dict[str, Any]:
    if isinstance(sub.get("anyOf"), list):
        return {**sub, "anyOf": [*sub["anyOf"], NULL_MARKER]}
    outer = {k: v for k, v in sub.items() if k in ("description", "title")}
    inner = {k: v for k, v in sub.items() if k not in outer}
    return {**outer, "anyOf": [inner, NULL_MARKER]}


@leaf_triggers("properties")
def null_marker(node: dict[str, Any], ctx: RenderContext) -> Schema:
    """Strict mode: a property optional and nullable in the document gets the member
    :data:`NULL_MARKER`, so a real ``null`` can be sent although ``null`` means "not
    given" once :func:`~httpllm.dialects._rules.close_objects` makes it required.
    Runs before ``close_objects``. *Widens* the model's schema by one reversible spelling;
    ``execute.decode`` undoes it.

    ``{"properties": {"note": {"anyOf": [{"type": "string"}, {"type": "null"}]}}}`` ->
    ``note``: ``{"anyOf": [{"type": "string"}, {"type": "null"}, NULL_MARKER]}``
    """
    props = node.get("properties")
    if not isinstance(props, dict) or not props:
        return node
    required = node.get("required")
    named = set(required) if isinstance(required, list) else set()
    optional = [n for n, sub in props.items() if n not in named and isinstance(sub, dict)
                and allows_null(sub)]
    if not optional:
        return node
    memo = ctx.identity_memo("null_marker")
    marked = [n for n in optional if _marks_null(props[n])]
    if marked:
        ctx.lose("required", "rewritten", None, f"{_MARKED}: " + ", ".join(marked),
                 undo="null-marker")
    left = [n for n in optional if n not in marked]
    if left:
        ctx.lose("required", "rewritten", None, "optional and nullable, but the marker would be "
                 "ambiguous: null means not given, a real null cannot be sent: "
                 + ", ".join(left))
    if not marked:
        return node
    out = dict(props)
    for name in marked:
        hit = memo.get(props[name])
        out[name] = hit if hit is not None else memo.put(props[name], _with_marker(props[name]))
    return {**node, "properties": out}


@leaf_triggers("format")
def _strict_formats(node: dict[str, Any], ctx: RenderContext) -> Schema:
    fmt = node.get("format")
    if fmt is None or fmt in OPENAI_STRICT_FORMATS:
        return node
    ctx.lose("format", "described", fmt, "format not supported in strict mode")
    return describe({k: v for k, v in node.items() if k != "format"}, [("format", fmt)])


_TUPLE_UNION = tuples_as_unions(None)


@leaf_triggers("prefixItems")
def tuple_items(node: dict[str, Any], ctx: RenderContext) -> Schema:
    """Strict mode: a tuple (``prefixItems``) becomes ``items``, the union of its members
    (:func:`~httpllm.dialects._lossy.tuples_as_unions`: a closed tuple gets ``maxItems``;
    widens and, where ``items`` was absent, narrows; reported). A tuple of boolean schemas
    only has no strict form: the function falls back.

    Runs before :func:`filter_keywords`, which drops ``prefixItems`` (not a strict keyword):
    strict arrays need ``items`` ("array schema missing items").
    """
    if not ctx.strict or not isinstance(node.get("prefixItems"), list):
        return node
    out = _TUPLE_UNION(node, ctx)
    if out is node:
        ctx.fail("a tuple of boolean schemas has no strict form")
    return out


def _envelope(function: Function, options: Options) -> JSON:
    body: dict[str, Any] = {"name": function.name, "description": function.description,
                            "parameters": function.parameters}
    if options.envelope == "responses":
        return {"type": "function", **body, "strict": function.strict}
    if function.strict:
        body["strict"] = True
    return {"type": "function", "function": body}


CHATGPT = Dialect(
    name="chatgpt",
    tool_calls="chat",
    aliases=("openai",),
    keywords=JSON_SCHEMA_2020_12,
    strict_keywords=OPENAI_STRICT_KEYWORDS,
    refs="keep",
    name_max=64,
    description_max=1024,
    tool_limit=128,
    rules=(tuple_items, filter_keywords),
    strict_rules=(strict_booleans, foreign_keywords, ref_alone, typed_nodes,
                  ambiguous_texts, maps_as_entries, _strict_formats, null_marker, close_objects),
    strict_objects="required",
    strict_limits=(strict_limits,),
    envelope=_envelope,
    envelopes=("chat", "responses"),
    source="https://platform.openai.com/docs/guides/function-calling",
    strict_depth_max=MAX_NESTING,
    strict_properties_max=MAX_PROPERTIES,
    tokenizer="o200k_base",
    tool_search="openai",
    limit_sources={
        "name_max": "[sdk] openai-python types/shared_params/function_definition.py",
        "description_max": "[issue] langchain-ai/open_deep_research#80 (string_above_max_length)",
        "tool_limit": "[issue] microsoft/vscode#259392 (array_above_max_length)",
        "strict_depth_max": "[doc] platform.openai.com/docs/guides/structured-outputs",
        "strict_properties_max": "[doc] platform.openai.com/docs/guides/structured-outputs",
    },
)
"""OpenAI Chat Completions ``{"type": "function", "function": {...}}``; with
``envelope="responses"`` the flat Responses shape with ``strict`` always present."""

DIALECTS = (CHATGPT,)
