"""Mistral (``mistral``): the OpenAI Chat envelope with JSON Schema Draft 7 parameters.

mistral-common (La Plateforme, and vLLM in mistral tokenizer mode) validates ``parameters``
against the Draft 7 meta-schema, so the emended 2020-12 schema is spelled in Draft 7:
``$defs`` becomes ``definitions`` with every ``#/$defs/...`` ref rewritten, ``prefixItems``
becomes the array form of ``items`` (the old ``items`` becomes ``additionalItems``), a
``$ref`` with siblings is wrapped (Draft 7 ignores a ``$ref``'s siblings), and keywords Draft
7 lacks go into the description (constraints) or are dropped. ``parameters`` is always sent
(the SDK requires it). Strict mode closes every object (``additionalProperties: false``,
as the mistralai SDK's strict schema helper does) and keeps ``required`` as it is; the
strict subset is not documented further.

Source: https://docs.mistral.ai/capabilities/function_calling/; mistral-common
``protocol/instruct/validator.py`` (``_validate_function``: Draft 7 meta-schema, name
``^[a-zA-Z0-9_-]{1,64}$``), ``protocol/instruct/tool_calls.py``; mistralai
``client/models/function.py``; docs/provider-rules.md sections 1, 2a, 2d.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from httpllm._types import Schema
from httpllm._vocabulary import DRAFT_7
from httpllm.dialects._base import RenderContext
from httpllm.dialects._rules import (
    filter_keywords,
    maps_as_entries,
    ref_alone,
    seal_objects,
    typed_nodes,
)
from httpllm.dialects._texts import ambiguous_texts
from httpllm.dialects.openai import CHATGPT

__all__ = ["DIALECTS", "DRAFT_7", "MISTRAL"]

_DEFS, _DEFINITIONS = "#/$defs/", "#/definitions/"


def _draft7_refs(node: dict[str, Any], ctx: RenderContext) -> Schema:
    """``$defs`` -> ``definitions``; ``#/$defs/X`` -> ``#/definitions/X``."""
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith(_DEFS):
        node = {**node, "$ref": _DEFINITIONS + ref[len(_DEFS):]}
    if "$defs" not in node:
        return node
    ctx.lose("$defs", "rewritten", None, "Draft 7 spelling: definitions, refs rewritten")
    return {("definitions" if k == "$defs" else k): v for k, v in node.items()}


def _prefix_items(node: dict[str, Any], ctx: RenderContext) -> Schema:
    """2020-12 ``prefixItems`` + ``items`` -> Draft 7 ``items`` array + ``additionalItems``."""
    if "prefixItems" not in node:
        return node
    ctx.lose("prefixItems", "rewritten", None, "Draft 7 spelling: items as an array")
    out = {k: v for k, v in node.items() if k not in ("prefixItems", "items")}
    out["items"] = node["prefixItems"]
    if "items" in node:
        out["additionalItems"] = node["items"]
    return out


MISTRAL = replace(
    CHATGPT,
    name="mistral",
    tool_calls="mistral",
    aliases=("mistral-ai",),
    keywords=DRAFT_7,
    strict_keywords=None,
    description_max=None,
    tool_limit=None,
    rules=(_draft7_refs, _prefix_items, ref_alone, filter_keywords),
    strict_rules=(typed_nodes, ambiguous_texts, maps_as_entries, seal_objects),
    strict_objects="sealed",
    strict_limits=(),
    envelopes=(),
    source="https://docs.mistral.ai/capabilities/function_calling/",
    strict_depth_max=None,
    strict_properties_max=None,
    tokenizer="tekken",
    tool_search=None,
    limit_sources={"name_max": "[src] mistral-common protocol/instruct/validator.py"},
)
"""``{"type": "function", "function": {"name", "description", "parameters", "strict"?}}``."""

DIALECTS = (MISTRAL,)
