"""OpenAI-compatible servers (``llama``, ``qwen``, ``deepseek``): vLLM, llama.cpp, DeepSeek.

The OpenAI Chat envelope without OpenAI's own limits. vLLM hands ``parameters`` to the
model's chat template, where every JSON Schema keyword is shown to the model as written.
Calls are constrained by a grammar (xgrammar) only for ``tool_choice="required"``, a named
tool, or a tool marked ``strict`` (vLLM with ``VLLM_ENFORCE_STRICT_TOOL_CALLING``, the
default; older releases ignore the flag). ``strict=True`` therefore marks the tool strict
and moves into the description what xgrammar cannot enforce, which would make vLLM refuse
the request or switch backend: ``multipleOf``, ``uniqueItems``, ``contains``,
``minContains``, ``maxContains``, ``patternProperties``, ``propertyNames``, string formats
outside xgrammar's list, and ``minLength``/``maxLength`` beside ``pattern`` or ``format``
(xgrammar silently drops those bounds); an object that says nothing of other properties, or
a tuple of items, says they are open (``additionalProperties: true``, ``items: true``), as
xgrammar's strict mode closes what a schema leaves unsaid. Recursive schemas stay under
``$defs`` (vLLM merges the tools' ``$defs`` into one root; names are unique within one
document); ``unroll=N`` expands them so that no ``$defs`` is left (``refs="on-request"``:
the render step ``unroll_rendered``, after the rules). ``deepseek`` in strict mode follows
DeepSeek's beta endpoint (``base_url=https://api.deepseek.com/beta``): OpenAI-style strict
objects (all properties required, optional ones nullable), a smaller keyword set (no
``const``: a one-value ``enum`` instead, which the model is held to), and
OpenAI's size limits (DeepSeek documents none; its strict mode follows OpenAI's); object and
array keywords on other types (``{"type": "string", "additionalProperties": true}``) are
dropped, as OpenAI's strict mode rejects them; a property both optional and nullable takes
OpenAI's real-null marker (``{"null": true}``, see ``dialects.openai.null_marker``).

Source: vllm-project/vllm ``docs/features/tool_calling.md``,
``vllm/v1/structured_output/backend_xgrammar.py`` (``has_xgrammar_unsupported_json_features``,
``STRING_SUPPORTED_FORMATS``), ``vllm/tool_parsers/utils.py``;
https://api-docs.deepseek.com/guides/tool_calls; docs/provider-rules.md sections 1, 2b, 2d, 4.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from httpllm._types import Schema
from httpllm.dialects._base import RenderContext, leaf_triggers
from httpllm.dialects._rules import (
    JSON_SCHEMA_2020_12,
    close_objects,
    const_as_enum,
    filter_keywords,
    foreign_keywords,
    maps_as_entries,
    ref_alone,
    to_description,
    typed_nodes,
)
from httpllm.dialects._texts import ambiguous_texts
from httpllm.dialects.openai import (
    CHATGPT,
    null_marker,
    strict_booleans,
    strict_limits,
    tuple_items,
)
from httpllm.loss import Loss
from httpllm.pointer import escape
from httpllm.records import Function
from httpllm.refs import def_name_of, def_ref
from httpllm.walk import transform

__all__ = ["DEEPSEEK", "DEEPSEEK_STRICT_KEYWORDS", "DIALECTS", "FALLBACK_SUFFIX", "LLAMA",
           "QWEN", "XGRAMMAR_FORMATS"]

XGRAMMAR_FORMATS = frozenset(
    {"email", "date", "time", "date-time", "duration", "ipv4", "ipv6", "hostname", "uuid",
     "uri", "uri-reference", "uri-template", "json-pointer", "relative-json-pointer"}
)
"""String formats xgrammar enforces (vLLM ``STRING_SUPPORTED_FORMATS``)."""


def _beside_pattern(value: Any, node: dict[str, Any]) -> bool:
    return "pattern" in node or "format" in node


def _string_format(value: Any, node: dict[str, Any]) -> bool:
    # xgrammar checks formats on strings only; int64, float ... are plain hints.
    return node.get("type") == "string" and value not in XGRAMMAR_FORMATS


_XGRAMMAR = to_description({
    "multipleOf": None, "uniqueItems": None, "contains": None, "minContains": None,
    "maxContains": None, "patternProperties": None, "propertyNames": None,
    "format": _string_format,
    "minLength": _beside_pattern, "maxLength": _beside_pattern,
}, "not enforced by xgrammar (vLLM structured outputs)")

DEEPSEEK_STRICT_KEYWORDS = frozenset(
    {"type", "properties", "required", "additionalProperties", "items", "enum", "anyOf",
     "$ref", "$defs", "description"}
)
"""What DeepSeek's strict mode documents (object, string, number, integer, boolean, array,
enum, anyOf, ``$ref``/``$defs``); sources disagree on ``pattern``, ``format`` and bounds,
so they go into the description."""


@leaf_triggers()  # an object leaf is always visited; other leaves are kept
def _open_unsaid(node: dict[str, Any], ctx: RenderContext) -> Schema:
    """An object without ``properties`` or ``additionalProperties`` says
    ``additionalProperties: true``, and a tuple without ``items`` says ``items: true``:
    the same instances in JSON Schema, but xgrammar's strict mode (the grammar vLLM builds
    for a strict tool) closes what a schema leaves unsaid, so a free-form object could only
    be ``{}`` and a tuple no longer than its positions. After :data:`_XGRAMMAR`, whose
    ``patternProperties`` in the description leaves such an object.

    Source: mlc-ai/xgrammar ``cpp/json_schema_converter.cc`` (``ParseObject``:
    ``allow_additional_properties = !strict_mode`` unless the schema says; ``ParseArray``
    the same for items), ``compile_json_schema``'s ``strict_mode=True`` default, which
    vLLM's ``backend_xgrammar.py`` keeps.
    """
    if "additionalProperties" not in node and "properties" not in node and _is_object(node):
        return {**node, "additionalProperties": True}
    if "prefixItems" in node and "items" not in node:
        return {**node, "items": True}
    return node


@leaf_triggers()
def _open_unsaid_loose(node: dict[str, Any], ctx: RenderContext) -> Schema:
    """:func:`_open_unsaid` outside strict mode too: vLLM constrains a call by the same
    grammar for a named tool or ``tool_choice: "required"``, strict or not, so a non-strict
    tool's free-form object could only be ``{}`` there. In strict mode the strict rules
    decide (DeepSeek's closes every object).

    Source: vLLM ``docs/features/tool_calling.md`` "Constrained Decoding Behavior" (named
    tool or ``required``: always schema-constrained); docs/provider-rules.md, vLLM.
    """
    return node if ctx.strict else _open_unsaid(node, ctx)


def _is_object(node: dict[str, Any]) -> bool:
    kind = node.get("type")
    return kind == "object" or (isinstance(kind, list) and "object" in kind)


FALLBACK_SUFFIX = "__nonstrict"
"""Added to each ``$defs`` name of a strict-mode function that fell back to non-strict."""


def _fallback_defs(parameters: Schema, function: Function, ctx: RenderContext) -> Schema:
    """A function that fell back from strict mode renders its ``$defs`` non-strict, while
    the strict functions of the same list render the same names strict; vLLM merges every
    tool's root ``$defs`` into one map and refuses a name defined twice (issue 18). Such a
    function's definitions get :data:`FALLBACK_SUFFIX` (a ``renamed`` loss)."""
    defs = parameters.get("$defs") if isinstance(parameters, dict) else None
    if not ctx.options.strict or function.strict or not isinstance(defs, dict) or not defs:
        return parameters
    names = {name: name + FALLBACK_SUFFIX for name in defs}

    def visit(node: dict[str, Any], at: str) -> Schema:
        ref = node.get("$ref")
        name = def_name_of(ref) if isinstance(ref, str) else None
        if name in names:
            return {**node, "$ref": def_ref(names[name])}
        return node

    body = {k: v for k, v in parameters.items() if k != "$defs"}
    out = transform(body, visit, pointer="parameters#")
    renamed = {names[name]: transform(schema, visit, pointer=f"parameters#/$defs/{escape(name)}")
               for name, schema in defs.items()}
    ctx.losses.append(Loss(pointer="parameters#/$defs", keyword="$defs", action="renamed",
                           value=sorted(defs), dialect=ctx.dialect.name,
                           note=f"fell back to non-strict: definitions renamed <name>"
                                f"{FALLBACK_SUFFIX}, as strict tools define those names"))
    return {**out, "$defs": renamed}


LLAMA = replace(
    CHATGPT,
    name="llama",
    aliases=("vllm", "openai-compatible"),
    keywords=JSON_SCHEMA_2020_12,
    strict_keywords=None,
    description_max=None,
    tool_limit=None,
    rules=(filter_keywords, _open_unsaid_loose),
    strict_rules=(_XGRAMMAR, _open_unsaid),
    strict_objects="unsaid",
    strict_limits=(),
    refs="on-request",
    finish=_fallback_defs,
    source="https://docs.vllm.ai/en/latest/features/tool_calling.html",
    strict_depth_max=None,
    strict_properties_max=None,
    tokenizer=None,
    tool_search=None,
    limit_sources={},
)
"""Llama (and any model) behind vLLM or llama.cpp's OpenAI-compatible server."""

QWEN = replace(LLAMA, name="qwen", aliases=())
"""Qwen behind vLLM / SGLang / DashScope's OpenAI-compatible endpoint."""

@leaf_triggers("const")
def _strict_const(node: dict[str, Any], ctx: RenderContext) -> Schema:
    """In strict mode, ``const: v`` -> ``enum: [v]`` (an ``enum`` beside it narrowed to
    ``v``, :func:`~httpllm.dialects._lossy.const_as_enum`): DeepSeek's strict subset has
    ``enum`` but no ``const``, and a const moved into the description held the model to
    nothing (``{"type": "string", "const": "a"}`` let it send any string). Outside strict
    mode every keyword is kept."""
    return const_as_enum(node, ctx) if ctx.strict else node


DEEPSEEK = replace(
    LLAMA,
    name="deepseek",
    aliases=(),
    strict_keywords=DEEPSEEK_STRICT_KEYWORDS,
    rules=(tuple_items, _strict_const, filter_keywords, _open_unsaid_loose),
    strict_rules=(_XGRAMMAR, strict_booleans, foreign_keywords, ref_alone, typed_nodes,
                  ambiguous_texts, maps_as_entries, null_marker, close_objects),
    strict_objects="required",
    strict_limits=(strict_limits,),
    source="https://api-docs.deepseek.com/guides/tool_calls",
)
"""DeepSeek's API (strict only on its beta endpoint) and DeepSeek weights behind vLLM."""

DIALECTS = (LLAMA, QWEN, DEEPSEEK)
