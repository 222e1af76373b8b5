"""OpenAI (``chatgpt``): Chat Completions or Responses envelope, non-strict and strict.

Source: https://platform.openai.com/docs/guides/function-calling and
https://platform.openai.com/docs/guides/structured-outputs (supported schemas);
openai-python ``types/chat/chat_completion_function_tool_param.py`` and
``types/responses/function_tool_param.py``; docs/provider-rules.md sections 1, 2b, 2c.
"""

from __future__ import annotations

from typing import Any

from httpllm._types import JSON, Schema
from httpllm.dialects._base import Dialect, Options, RenderContext
from httpllm.dialects._openai_limits import strict_limits
from httpllm.dialects._rules import (
    JSON_SCHEMA_2020_12,
    close_objects,
    describe,
    filter_keywords,
    foreign_keywords,
    maps_as_entries,
    ref_alone,
    typed_nodes,
)
from httpllm.records import Function

__all__ = [
    "CHATGPT",
    "DIALECTS",
    "OPENAI_STRICT_FORMATS",
    "OPENAI_STRICT_KEYWORDS",
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

def _strict_formats(node: dict[str, Any], ctx: RenderContext) -> Schema:
    fmt = node.get("format")
    if fmt is None or fmt in OPENAI_STRICT_FORMATS:
        return node
    ctx.lose("format", "described", fmt, "format not supported in strict mode")
    return describe({k: v for k, v in node.items() if k != "format"}, [("format", fmt)])


def tuple_items(node: dict[str, Any], ctx: RenderContext) -> Schema:
    """Strict mode: a tuple (``prefixItems``) becomes ``items``, the union (``anyOf``) of
    the prefix item schemas and of ``items`` when it is a schema; a closed tuple
    (``items: false``) also gets ``maxItems``. *Widens* (any member at any position) and,
    where ``items`` was absent, *narrows* (extra items must match a member); reported.
    A tuple of boolean schemas only has no strict form: the function falls back.

    ``{"type": "array", "prefixItems": [A, B]}`` -> ``{"type": "array", "items":
    {"anyOf": [A, B]}}``

    Runs before :func:`filter_keywords`, which drops ``prefixItems`` (not a strict keyword):
    strict arrays need ``items`` ("array schema missing items").
    """
    prefix = node.get("prefixItems")
    if not ctx.strict or not isinstance(prefix, list):
        return node
    rest = node.get("items")
    members: list[Any] = []
    for member in [*prefix, rest]:
        if isinstance(member, dict) and member not in members:
            members.append(member)
    if not members:
        ctx.fail("a tuple of boolean schemas has no strict form")
        return node
    out = {k: v for k, v in node.items() if k != "prefixItems"}
    out["items"] = members[0] if len(members) == 1 else {"anyOf": members}
    note = "a tuple: items of any member type, in any order"
    if rest is False:
        most = node.get("maxItems")
        most = min(most, len(prefix)) if isinstance(most, int) else len(prefix)
        out["maxItems"] = most
        note += f", at most {most}"
    ctx.lose("prefixItems", "rewritten", prefix, note)
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
    aliases=("openai",),
    keywords=JSON_SCHEMA_2020_12,
    strict_keywords=OPENAI_STRICT_KEYWORDS,
    refs="keep",
    union="anyOf",
    name_max=64,
    description_max=1024,
    tool_limit=128,
    rules=(tuple_items, filter_keywords),
    strict_rules=(foreign_keywords, ref_alone, typed_nodes, maps_as_entries, _strict_formats,
                  close_objects),
    strict_limits=(strict_limits,),
    envelope=_envelope,
    source="https://platform.openai.com/docs/guides/function-calling",
)
"""OpenAI Chat Completions ``{"type": "function", "function": {...}}``; with
``envelope="responses"`` the flat Responses shape with ``strict`` always present."""

DIALECTS = (CHATGPT,)
