"""Pass: an array without ``items`` gets ``items: {}`` (any value), said explicitly.

Contract: *equivalent* (an absent ``items`` accepts any item, JSON Schema 2020-12
section 10.3.1.2). Providers reject untyped arrays ("array schema missing items"); a
dialect that needs a type turns ``{}`` into its own default and reports it.
"""

from __future__ import annotations

from typing import Any

from httpllm._types import Schema
from httpllm.normalize._context import PassContext, acts_on

__all__ = ["array_items"]


@acts_on("type", types=("array",))
def array_items(node: dict[str, Any], ctx: PassContext) -> Schema:
    """Add ``items: {}`` to a ``type: array`` node that has neither ``items`` nor ``prefixItems``.

    >>> array_items({"type": "array"}, CTX)
    {'type': 'array', 'items': {}}
    """
    if node.get("type") != "array" or "items" in node or "prefixItems" in node:
        return node
    return {**node, "items": {}}
