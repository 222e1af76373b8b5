"""OpenAI (``chatgpt``): Chat Completions or Responses envelope, non-strict and strict.

Source: https://platform.openai.com/docs/guides/function-calling and
https://platform.openai.com/docs/guides/structured-outputs (supported schemas);
openai-python ``types/chat/chat_completion_function_tool_param.py`` and
``types/responses/function_tool_param.py``; docs/provider-rules.md sections 1, 2b, 2c.
"""

from __future__ import annotations

from typing import Any

from httpllm._types import JSON, Schema
from httpllm.compose.function import Function
from httpllm.dialects._base import Dialect, Options, RenderContext
from httpllm.dialects._rules import (
    JSON_SCHEMA_2020_12,
    close_objects,
    describe,
    filter_keywords,
    maps_as_entries,
    ref_alone,
    typed_nodes,
)
from httpllm.walk import children

__all__ = [
    "CHATGPT",
    "DIALECTS",
    "OPENAI_STRICT_FORMATS",
    "OPENAI_STRICT_KEYWORDS",
    "strict_limits",
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


def strict_limits(parameters: Schema) -> list[str]:
    """OpenAI strict size limits: 5,000 properties, 10 levels of nesting, 1,000 enum
    values, 120,000 characters of names and enum/const values."""
    problems: list[str] = []
    props = enums = chars = 0
    deepest = 0
    stack: list[tuple[Any, int]] = [(parameters, 0)]
    seen: set[int] = set()
    while stack:
        node, depth = stack.pop()
        if not isinstance(node, dict):
            continue
        if id(node) in seen:
            continue
        seen.add(id(node))
        level = depth + (1 if node.get("type") == "object" else 0)
        deepest = max(deepest, level)
        names = node.get("properties", {})
        props += len(names)
        chars += sum(len(n) for n in names)
        values = node.get("enum", [])
        enums += len(values)
        chars += sum(len(str(v)) for v in values)
        chars += sum(len(n) for n in node.get("$defs", {}))
        stack.extend((sub, level) for _, _, sub in children(node))
    if props > 5000:
        problems.append(f"{props} properties (strict mode allows 5,000)")
    if deepest > 10:
        problems.append(f"{deepest} levels of object nesting (strict mode allows 10)")
    if enums > 1000:
        problems.append(f"{enums} enum values (strict mode allows 1,000)")
    if chars > 120_000:
        problems.append(f"{chars} characters of names and values (strict mode allows 120,000)")
    return problems


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
    rules=(filter_keywords,),
    strict_rules=(ref_alone, typed_nodes, maps_as_entries, _strict_formats, close_objects),
    strict_limits=(strict_limits,),
    envelope=_envelope,
    source="https://platform.openai.com/docs/guides/function-calling",
)
"""OpenAI Chat Completions ``{"type": "function", "function": {...}}``; with
``envelope="responses"`` the flat Responses shape with ``strict`` always present."""

DIALECTS = (CHATGPT,)
