"""Anthropic (``claude``): the Messages API tool, non-strict and strict, with input examples.

Source: https://platform.claude.com/docs/en/agents-and-tools/tool-use/define-tools,
https://platform.claude.com/docs/en/agents-and-tools/tool-use/strict-tool-use and
https://platform.claude.com/docs/en/build-with-claude/structured-outputs (JSON Schema
limitations); anthropic-sdk-python ``types/tool_param.py`` and ``lib/_parse/_transform.py``
(``transform_schema``); docs/provider-rules.md sections 1, 2a-2d.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from httpllm._types import JSON, Schema
from httpllm.dialects._base import Dialect, Options, RenderContext, leaf_triggers
from httpllm.dialects._rules import (
    JSON_SCHEMA_2020_12,
    filter_keywords,
    maps_as_entries,
    ref_alone,
    seal_objects,
    to_description,
    typed_nodes,
)
from httpllm.dialects._texts import ambiguous_texts
from httpllm.dialects.openai import strict_booleans, tuple_items
from httpllm.records import Function
from httpllm.walk import FoldMemo, fold

__all__ = [
    "ARGUMENT_CHARACTERS",
    "ARGUMENT_MAX",
    "CLAUDE",
    "CLAUDE_STRICT_FORMATS",
    "CLAUDE_STRICT_KEYWORDS",
    "DIALECTS",
    "request_limits",
    "strict_budget",
    "strict_limits",
]

CLAUDE_STRICT_KEYWORDS = frozenset(
    {"$ref", "$defs", "type", "enum", "const", "anyOf", "allOf", "properties", "required",
     "additionalProperties", "items", "minItems", "format", "title", "description"}
)
"""The keywords strict mode keeps: those the SDK's ``transform_schema`` keeps. Numeric
and length bounds are unsupported (400); ``pattern`` and ``default``, which the guide
allows with caveats (no lookaround, backreferences or ``\\b``), go into the description
as the SDK does, since an OpenAPI pattern using them would fail the whole request."""

CLAUDE_STRICT_FORMATS = frozenset(
    {"date-time", "time", "date", "duration", "email", "hostname", "uri", "ipv4", "ipv6",
     "uuid"}
)
"""String formats strict mode accepts (``SupportedStringFormats`` of the SDK)."""

OPTIONAL_MAX, UNION_MAX, STRICT_TOOLS_MAX = 24, 16, 20
"""Strict limits per request: optional properties, union-typed properties, strict tools."""

ARGUMENT_CHARACTERS, ARGUMENT_MAX = "a-zA-Z0-9_.-", 64
"""The keys ``input_schema.properties`` may have: ``^[a-zA-Z0-9_.-]{1,64}$``, else the
whole request fails (400 "tools.14.custom.input_schema.properties: Property keys should
match pattern '^[a-zA-Z0-9_.-]{1,64}$'", anthropics/claude-code#79418; not on the
define-tools page). Arguments named otherwise are renamed (``Dialect.argument_characters``)."""


def _not_literals(values: Any, node: dict[str, Any]) -> bool:
    items = values if isinstance(values, list) else [values]
    return not items or not all(v is None or isinstance(v, (str, int, float, bool))
                                for v in items)


def _off(kind: str) -> Any:
    """Test: the node is not of type ``kind`` (the SDK keeps the keyword only there)."""
    return lambda value, node: node.get("type") != kind


_STRICT_VALUES = to_description({
    "format": lambda v, n: n.get("type") != "string" or v not in CLAUDE_STRICT_FORMATS,
    "minItems": lambda v, n: n.get("type") != "array" or v not in (0, 1),
    "items": _off("array"),
    "enum": _not_literals,
    "const": _not_literals,
    "properties": _off("object"),
    "required": _off("object"),
    "additionalProperties": _off("object"),
}, "not supported in strict mode")


@leaf_triggers("allOf", "required")
def _inexpressible(node: dict[str, Any], ctx: RenderContext) -> Schema:
    """Strict mode has no form for a union member that only says which properties are
    required (``anyOf: [{required: [a]}, {required: [b]}]`` beside ``properties``), nor
    for ``allOf`` with a ``$ref``: the tool falls back to non-strict."""
    members = node.get("allOf")
    if isinstance(members, list) and any(isinstance(m, dict) and "$ref" in m for m in members):
        ctx.fail("allOf with $ref is not supported in strict mode")
    if "required" in node and not {"type", "properties", "anyOf", "$ref", "enum"} & set(node):
        ctx.fail("a schema that only lists required properties has no strict form")
    return node


_NO_BUDGET = (0, 0)


def _budget(node: dict[str, Any], kids: list[tuple[int, int]]) -> tuple[int, int]:
    props, members = node.get("properties"), node.get("anyOf")
    if not kids and not props and not members and not isinstance(node.get("type"), list):
        return _NO_BUDGET  # most nodes: a leaf with no property and no union
    required = node.get("required")
    names = props if isinstance(props, dict) else ()
    needed = required if isinstance(required, list) else ()
    optional = sum(1 for p in names if p not in needed)
    unions = int(len(members or ()) > 1 or isinstance(node.get("type"), list))
    for below in kids:
        optional, unions = optional + below[0], unions + below[1]
    return optional, unions


def strict_budget(parameters: Schema, memo: FoldMemo | None = None) -> tuple[int, int]:
    """``(optional properties, union-typed properties)`` of one schema, each shared
    subtree counted once per place it appears (as the grammar sees it).

    A union is an ``anyOf`` of two or more members or a list-valued ``type``. A
    :func:`walk.fold <httpllm.walk.fold>`: ``memo`` may be shared by calls over schemas
    that share subtrees (the functions of one compile); each node is then visited once.
    """
    return fold(parameters, _budget, (0, 0), memo)


def strict_limits(parameters: Schema, memo: FoldMemo | None = None) -> list[str]:
    """One tool over the whole request's budget can never be strict (``memo``: as for
    :func:`strict_budget`)."""
    optional, unions = strict_budget(parameters, memo)
    problems = []
    if optional > OPTIONAL_MAX:
        problems.append(f"{optional} optional properties (strict mode allows {OPTIONAL_MAX} "
                        "per request)")
    if unions > UNION_MAX:
        problems.append(f"{unions} union-typed properties (strict mode allows {UNION_MAX} "
                        "per request)")
    return problems


def request_limits(functions: Sequence[Function]) -> list[str]:
    """The strict budget of all strict tools sent together (provider-rules.md 2c)."""
    strict = [f for f in functions if f.strict]
    if not strict:
        return []
    memo = FoldMemo()  # the functions share rendered subtrees
    budgets = [strict_budget(f.parameters, memo) for f in strict]
    optional, unions = sum(b[0] for b in budgets), sum(b[1] for b in budgets)
    limits = ((len(strict), STRICT_TOOLS_MAX, "strict tools"),
              (optional, OPTIONAL_MAX, "optional properties"),
              (unions, UNION_MAX, "union-typed properties"))
    return [f"{count} {what} across the strict tools exceed the {limit} allowed per "
            "request; send fewer strict tools together" for count, limit, what in limits
            if count > limit]


def _envelope(function: Function, options: Options) -> JSON:
    tool: dict[str, Any] = {"name": function.name}
    if function.description:
        tool["description"] = function.description
    tool["input_schema"] = function.parameters
    if function.strict:
        tool["strict"] = True
    if function.extra.get("input_examples"):
        tool["input_examples"] = function.extra["input_examples"]
    return tool


CLAUDE = Dialect(
    name="claude",
    tool_calls="anthropic",
    aliases=("anthropic",),
    keywords=JSON_SCHEMA_2020_12,
    strict_keywords=CLAUDE_STRICT_KEYWORDS,
    refs="keep",
    rules=(tuple_items, filter_keywords),
    strict_rules=(strict_booleans, _inexpressible, ref_alone, typed_nodes,
                  ambiguous_texts, maps_as_entries, _STRICT_VALUES, seal_objects),
    strict_objects="sealed",
    strict_recursion=False,
    strict_limits=(strict_limits,),
    request_limits=(request_limits,),
    native_examples=True,
    envelope=_envelope,
    source="https://platform.claude.com/docs/en/agents-and-tools/tool-use/define-tools",
    strict_tool_limit=STRICT_TOOLS_MAX,
    tool_search="anthropic",
    argument_characters=ARGUMENT_CHARACTERS,
    argument_max=ARGUMENT_MAX,
    limit_sources={
        "argument_max": "[issue] anthropics/claude-code#79418 (400 \"Property keys should "
                        "match pattern '^[a-zA-Z0-9_.-]{1,64}$'\")",
        "name_max": "[doc] platform.claude.com/docs/en/agents-and-tools/tool-use/define-tools "
                    "(64 kept: the common rule)",
        "strict_tool_limit": "[doc] platform.claude.com/docs/en/agents-and-tools/tool-use/"
                             "strict-tool-use",
    },
)
"""``{"name", "description"?, "input_schema", "strict"?, "input_examples"?}``."""

DIALECTS = (CLAUDE,)
