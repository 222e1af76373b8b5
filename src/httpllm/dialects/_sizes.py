"""The size of a whole tool list, as a compile warning with the figures and the fixes.

Each function's parameters are bounded at compose (``compose.bounded``); a list of many
functions can still fill a model's context before any message (issue 26: Kubernetes'
batch API, 29 tools, 437,000 tokens). Past :data:`LIST_TOKENS` the compile says how large
the list is and how to send less.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from httpllm.dialects._base import Dialect
from httpllm.records import Function

__all__ = ["LIST_TOKENS", "list_size"]

LIST_TOKENS = 32_000
"""Tokens (estimated at 4 bytes of JSON a token) past which a tool list is worth a warning:
a quarter of a 128,000-token context window (see ``toolsets.lint.TOOL_TOKENS``), paid on
every request."""


def list_size(functions: Sequence[Function], dialect: Dialect) -> list[str]:
    """One message when ``functions`` together pass :data:`LIST_TOKENS`, else none."""
    size = sum(len(json.dumps([f.name, f.description, f.parameters], ensure_ascii=False,
                              separators=(",", ":")).encode()) for f in functions)
    tokens = size // 4
    if tokens <= LIST_TOKENS:
        return []
    largest = max(functions, key=lambda f: len(json.dumps(f.parameters)))
    outputs = " or --output-schemas off" if dialect.outputs else ""
    tools = "the 1 tool takes" if len(functions) == 1 else f"the {len(functions):,} tools take"
    return [f"{tools} about {tokens:,} tokens ({size / 2**20:.1f} "
            f"MB of JSON; the largest, {largest.name}) on every request, over "
            f"{LIST_TOKENS:,} (a quarter of a 128k-token context window): send fewer with "
            "--include/--exclude, groups (httpllm toolsets), or serve --mode discover"
            f"{outputs}"]
