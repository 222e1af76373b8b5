"""Ollama (``ollama``): the OpenAI Chat envelope, limited to what the server keeps.

The server reads ``parameters`` into a fixed Go struct: per property only ``type``,
``description``, ``enum``, ``anyOf``, ``items``, ``properties`` and ``required`` survive
(at the root ``type``, ``$defs``, ``items``, ``required``, ``properties``). Everything else
moves into the description as ``@keyword value`` tags (the only way it reaches the model:
constraints, and a typed map's value schema) or is dropped, each with a loss entry;
``$ref`` is inlined (a property-level ``$ref`` is dropped by the server, the property
becomes untyped) and recursion unrolled with
``unroll=k`` or reported. Every ``type`` is one string (a list is a 400, ollama/ollama#5990):
a ``null`` union member is dropped and noted as ``@nullable true``; boolean subschemas
(a 400 too) become ``{}``.

The Python client (``ollama.chat(tools=[...])`` validates dicts with ``ollama._types.Tool``)
keeps even less per property: ``type``, ``items``, ``description``, ``enum``; nested
``properties``, ``required`` and ``anyOf`` vanish before the request is sent. Send the tools
with ``httpx`` or the REST API when that matters.

Source: ollama/ollama ``api/types.go`` (``Tool``, ``ToolFunctionParameters``,
``ToolProperty``); ollama/ollama#17142; docs/provider-rules.md sections 1, 2b, 4.1-4.3.
"""

from __future__ import annotations

from typing import Any

from httpllm._types import JSON, Schema
from httpllm.dialects._base import Dialect, Options, RenderContext
from httpllm.dialects._rules import (
    booleans,
    const_as_enum,
    describe,
    filter_keywords,
    flatten_all_of,
    merge_member,
    null_members,
    required_known,
)
from httpllm.records import Function

__all__ = ["DIALECTS", "OLLAMA", "PROPERTY_FIELDS"]

PROPERTY_FIELDS = frozenset(
    {"type", "description", "enum", "anyOf", "items", "properties", "required"}
)
"""What the server keeps on a property (``api.ToolProperty``)."""


def _without_null(node: dict[str, Any], ctx: RenderContext) -> Schema:
    """``anyOf [X, {"type": "null"}]`` -> X noted ``@nullable true``: Ollama has no
    ``nullable`` and a type list is rejected."""
    others, had_null = null_members(node)
    if not had_null or not others:
        return node
    ctx.lose("anyOf", "described", {"type": "null"}, "null member dropped")
    if len(others) == 1 and isinstance(others[0], dict):
        out = merge_member(node, others[0])
    else:
        out = {**node, "anyOf": others}
    return describe(out, [("nullable", True)])


def _one_type(node: dict[str, Any], ctx: RenderContext) -> Schema:
    """A ``type`` list (never in an emended schema, kept as a guard) -> its first type."""
    kinds = node.get("type")
    if not isinstance(kinds, list):
        return node
    ctx.lose("type", "rewritten", kinds, "one type kept")
    first = [k for k in kinds if k != "null"] or ["null"]
    return {**node, "type": first[0]}


def _map_values(node: dict[str, Any], ctx: RenderContext) -> Schema:
    """``additionalProperties`` given a schema (a typed map: its values' schema, rendered
    already) -> ``@additionalProperties {...}`` in the description: the server keeps no
    such field, and dropping it left the model an untyped object. A boolean is dropped by
    :func:`filter_keywords` (``validate`` still refuses what ``false`` forbids)."""
    extra = node.get("additionalProperties")
    if not isinstance(extra, dict):
        return node
    ctx.lose("additionalProperties", "described", extra, "not kept by the server")
    out = {k: v for k, v in node.items() if k != "additionalProperties"}
    return describe(out, [("additionalProperties", extra)])


def _envelope(function: Function, options: Options) -> JSON:
    return {"type": "function", "function": {"name": function.name,
                                             "description": function.description,
                                             "parameters": function.parameters}}


OLLAMA = Dialect(
    name="ollama",
    tool_calls="ollama",
    keywords=PROPERTY_FIELDS,
    refs="inline",
    rules=(booleans({}), const_as_enum, flatten_all_of, _without_null, _one_type, _map_values,
           filter_keywords, required_known),
    envelope=_envelope,
    source="https://github.com/ollama/ollama/blob/main/docs/api.md#chat-request-with-tools",
)
"""``{"type": "function", "function": {"name", "description", "parameters"}}``."""

DIALECTS = (OLLAMA,)
