"""Model Context Protocol (``mcp``): a ``tools/list`` ``Tool``, with its output schema.

``inputSchema`` is the emended JSON Schema 2020-12 object, ``$defs`` kept, with JSON Schema
2020-12's keywords only: any other key is dropped with a loss (a typo such as ``max_items``,
a 2019-09 ``$recursiveRef``, or the keys of a file a ``$ref`` inlined that was no schema: a
settings file's API key went to the model). ``outputSchema``
is the success response's schema; protocol 2025-11-25 restricts it to ``type: "object"``
at the root, so any other output (an array, a scalar, a union, a ``$ref``) is wrapped as
``{"type": "object", "properties": {"result": ...}, "required": ["result"]}`` with its
``$defs`` hoisted to the wrapper: the structured-content convention of the MCP Python
SDK, whose servers return such a value as ``{"result": value}``. A server built on httpllm
returns ``structuredContent`` in that shape (see :func:`output_schema`). Each tool also
carries ``annotations`` from the HTTP method's semantics (RFC 9110 section 9.2: safe
methods are read-only; PUT and DELETE are idempotent); every tool reaches an outside API,
so ``openWorldHint`` is true.

What a tool carries is bounded: each output schema to :data:`OUTPUT_MAX` bytes (the render
step ``outputs``: repeated named schemas once under ``$defs``, deep levels cut, with a
``cut`` loss), and every ``pattern`` (input and output) is written as ECMA-262 with the
``u`` flag reads it (:mod:`httpllm.dialects._patterns`), since JavaScript clients compile
them so.

Source: modelcontextprotocol ``docs/specification/2025-11-25/server/tools.mdx`` (Tool,
output schema, structured content) and ``2026-07-28``; python-sdk ``mcp_types/_v2025_11_25``
(``Tool``, ``OutputSchema``), ``mcp/shared/tool_name_validation.py`` (SEP-986);
docs/provider-rules.md sections 1, 2a, 2b.
"""

from __future__ import annotations

from typing import Any

from httpllm._types import JSON, Schema
from httpllm.dialects._base import Dialect, Options, RenderContext
from httpllm.dialects._patterns import ecma_patterns
from httpllm.dialects._rules import JSON_SCHEMA_2020_12, filter_keywords
from httpllm.dialects.anthropic import ARGUMENT_CHARACTERS, ARGUMENT_MAX
from httpllm.records import Function

__all__ = ["DIALECTS", "MCP", "OUTPUT_MAX", "RESULT", "hints", "output_schema"]

RESULT = "result"
"""The property a non-object output is wrapped in."""

OUTPUT_MAX = 16 * 1024
"""Most bytes of one tool's ``outputSchema`` (compact JSON): the official TypeScript SDK
client compiles an Ajv validator for every output schema when it lists, at about 0.1-0.3
MB of schema per second on a 2-core machine (measured here on GitHub's 1,223 tools: 6.8 MB
of output schemas, 24-70 s); 16 KiB keeps the top levels a model reads (Stripe's
``Account``: its own properties and theirs) at about 0.1 s per tool."""

_SAFE = frozenset({"get", "head", "options", "trace"})
_IDEMPOTENT = _SAFE | {"put", "delete"}


def _wrapped(output: Schema) -> bool:
    """Whether :func:`output_schema` wraps ``output`` (anything but a ``type: "object"``
    root), asked without building the wrapper."""
    return not (isinstance(output, dict) and output.get("type") == "object")


def output_schema(output: Schema) -> tuple[Schema, bool]:
    """``(object schema, whether it was wrapped under "result")`` for an output schema.

    >>> output_schema({"type": "array", "items": {"type": "string"}})[0]["required"]
    ['result']
    """
    if not _wrapped(output):
        return output, False
    inner = output
    defs: dict[str, Any] = {}
    if isinstance(output, dict) and "$defs" in output:
        defs = output["$defs"]
        inner = {k: v for k, v in output.items() if k != "$defs"}
    wrapped: dict[str, Any] = {"type": "object", "properties": {RESULT: inner},
                               "required": [RESULT]}
    if defs:
        wrapped["$defs"] = defs
    return wrapped, True


def hints(method: str) -> dict[str, bool]:
    """MCP tool hints from the HTTP method (RFC 9110 sections 9.2.1 and 9.2.2)."""
    if method in _SAFE:
        return {"readOnlyHint": True, "openWorldHint": True}
    return {"readOnlyHint": False, "idempotentHint": method in _IDEMPOTENT,
            "openWorldHint": True}


def _record_wrap(parameters: Schema, function: Function, ctx: RenderContext) -> Schema:
    if function.output is not None and _wrapped(function.output):
        ctx.pointer = function.pointer
        ctx.lose("outputSchema", "rewritten", None,
                 f'non-object output wrapped as {{"{RESULT}": ...}}: protocol 2025-11-25 '
                 "wants an object outputSchema; structuredContent follows the same shape")
    return parameters


def _envelope(function: Function, options: Options) -> JSON:
    tool: dict[str, Any] = {"name": function.name}
    if function.description:
        tool["description"] = function.description
    tool["inputSchema"] = function.parameters
    if function.output is not None:
        tool["outputSchema"] = output_schema(function.output)[0]
    tool["annotations"] = hints(function.method)
    return tool


MCP = Dialect(
    name="mcp",
    tool_calls="mcp",
    keywords=JSON_SCHEMA_2020_12,
    refs="keep",
    one_of=True,
    # JavaScript clients compile patterns with the u flag and refuse the whole listing
    # over one they cannot (issue 28: SendGrid, PayPal, DigitalOcean, Okta).
    rules=(filter_keywords, ecma_patterns),
    finish=_record_wrap,
    envelope=_envelope,
    outputs=True,
    output_max=OUTPUT_MAX,
    # MCP itself allows any property name, but the clients that pass a server's tools to
    # Claude (Claude Code, Claude Desktop) send them to the Messages API, which refuses the
    # whole tool list for one key outside ^[a-zA-Z0-9_.-]{1,64}$ (anthropics/claude-code
    # #79418 is an MCP server's tool): the same names as for Claude.
    argument_characters=ARGUMENT_CHARACTERS,
    argument_max=ARGUMENT_MAX,
    source="https://modelcontextprotocol.io/specification/2025-11-25/server/tools",
)
"""``{"name", "description"?, "inputSchema", "outputSchema"?, "annotations"}``."""

DIALECTS = (MCP,)
