"""The size of a whole tool list, as a compile warning with the figures and the fixes.

Each function's parameters are bounded at compose (``compose.bounded``); a list of many
functions can still fill a model's context before any message (issue 26: Kubernetes'
batch API, 29 tools, 437,000 tokens). Past :data:`LIST_TOKENS` the compile says how large
the list is and how to send less; past :data:`TOOL_TOKENS`, which tool alone is too large.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from httpllm._json import utf8_size
from httpllm.dialects._base import Dialect
from httpllm.records import Function

__all__ = ["LIST_TOKENS", "TOOL_TOKENS", "size_warnings"]

LIST_TOKENS = 32_000
"""Tokens (estimated at 4 bytes of JSON a token) past which a tool list is worth a warning:
a quarter of a 128,000-token context window, paid on every request."""

TOOL_TOKENS = 12_800
"""Tokens past which one tool alone is worth a warning (``httpllm lint``'s
``tool-too-large``): a tenth of a 128,000-token context window, the smallest of the
providers' current models (GPT-4o, Llama 3.1, Mistral Large). Compose bounds parameters
below it (``compose.bounded``), but a dialect that writes every named schema out in place
(Gemini) can pass it again: Okta's ``updateUserProfile`` is 139 KiB for gemini."""


def _compact(value: object) -> int:
    """Bytes of ``value`` as compact UTF-8 JSON (:func:`~httpllm._json.utf8_size`)."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return utf8_size(text)


def _largest(functions: Sequence[Function], parameters: list[int]) -> Function:
    """The first function whose parameters' ``json.dumps`` (default spacing, ASCII) is
    longest, given each one's compact size: that text is at least the compact bytes and
    at most three times them (a separator gains a space, a character of 2-4 UTF-8 bytes
    becomes a 6- or 12-character escape), so only parameters within a third of the
    largest compact size are serialized again."""
    floor = max(parameters)
    return max((f for f, n in zip(functions, parameters, strict=True) if 3 * n >= floor),
               key=lambda f: len(json.dumps(f.parameters)))


def size_warnings(functions: Sequence[Function], dialect: Dialect) -> list[tuple[str, str]]:
    """``(pointer, message)`` for the whole list past :data:`LIST_TOKENS` (``#/paths``),
    then for each function past :data:`TOOL_TOKENS` (its pointer), as ``dialect`` sends
    them; tokens estimated at 4 bytes of compact JSON (name, description, parameters)."""
    parameters = [_compact(f.parameters) for f in functions]
    # [name,description,parameters]: the pair's bytes, a comma, the parameters' bytes
    sizes = [_compact([f.name, f.description]) + 1 + n
             for f, n in zip(functions, parameters, strict=True)]
    out = []
    size = sum(sizes)
    if size // 4 > LIST_TOKENS:
        largest = _largest(functions, parameters)
        outputs = " or --output-schemas off" if dialect.outputs else ""
        tools = ("the 1 tool takes" if len(functions) == 1
                 else f"the {len(functions):,} tools take")
        out.append(("#/paths", f"{tools} about {size // 4:,} tokens ({size / 2**20:.1f} MB of "
                    f"JSON; the largest, {largest.name}) on every request, over "
                    f"{LIST_TOKENS:,} (a quarter of a 128k-token context window): send fewer "
                    "with --include/--exclude, groups (httpllm toolsets), or serve --mode "
                    f"discover{outputs}"))
    out.extend((f.pointer, f"one tool takes about {n // 4:,} tokens as {dialect.name} gets it "
                f"({f.name}: {n / 1024:,.0f} KiB of JSON), over {TOOL_TOKENS:,} alone (a tenth "
                "of a 128k-token context window): leave it out (--exclude), put it in a group "
                "of its own, or serve --mode discover")
               for f, n in zip(functions, sizes, strict=True) if n // 4 > TOOL_TOKENS)
    return out
