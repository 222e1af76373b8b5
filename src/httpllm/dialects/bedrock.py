"""AWS Bedrock Converse (``bedrock``): ``toolConfig.tools[]`` entries, strict like Claude.

The schema rules are Claude's (Claude on Bedrock follows Anthropic's strict subset); only
the envelope differs, and Converse has no field for input examples, so they go into the
description. Other model families on Bedrock receive the same JSON Schema; their subsets
are not documented. Claude's argument names too: Converse refuses a key of the schema's
``properties`` outside ``^[a-zA-Z0-9_.-]{1,64}$`` with Anthropic's message (a
``ValidationException``, [issue]
aws-solutions-library-samples/accelerated-intelligent-document-processing-on-aws#709).

Source: https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ToolSpecification.html;
botocore ``data/bedrock-runtime/2023-09-30/service-2.json`` (``ToolSpecification``,
``ToolName`` 1-64 ``[a-zA-Z0-9_-]+``, ``NonEmptyString`` description);
docs/provider-rules.md sections 1, 2a, 2d.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from httpllm._types import JSON
from httpllm.dialects._base import Options
from httpllm.dialects.anthropic import CLAUDE
from httpllm.records import Function

__all__ = ["BEDROCK", "DIALECTS"]


def _envelope(function: Function, options: Options) -> JSON:
    # Converse rejects an empty description client-side (botocore min length 1).
    spec: dict[str, Any] = {
        "name": function.name,
        "description": function.description or f"{function.method.upper()} {function.path}",
        "inputSchema": {"json": function.parameters},
    }
    if function.strict:
        spec["strict"] = True
    return {"toolSpec": spec}


BEDROCK = replace(
    CLAUDE,
    name="bedrock",
    tool_calls="bedrock",
    aliases=("bedrock-converse",),
    native_examples=False,
    envelope=_envelope,
    source="https://docs.aws.amazon.com/bedrock/latest/userguide/tool-use.html",
    tool_search=None,  # server-side tool search: InvokeModel only, not Converse
    limit_sources={**CLAUDE.limit_sources,
                   "name_max": "[sdk] botocore bedrock-runtime service-2.json ToolName",
                   "argument_max": "[issue] aws-solutions-library-samples/"
                                   "accelerated-intelligent-document-processing-on-aws#709"},
)
"""``{"toolSpec": {"name", "description", "inputSchema": {"json": ...}, "strict"?}}``."""

DIALECTS = (BEDROCK,)
