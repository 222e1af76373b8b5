"""Pass: OpenAPI 3.0 boolean ``exclusiveMinimum``/``exclusiveMaximum`` -> 2020-12 numbers.

In OpenAPI 3.0 (JSON Schema draft 4) ``exclusiveMinimum: true`` makes ``minimum``
exclusive; in 2020-12 ``exclusiveMinimum`` is the bound itself, and a boolean there is
invalid (jsonschema-rs refuses the schema; Python's jsonschema compares with ``True == 1``).
``{minimum: 0, exclusiveMinimum: true}`` -> ``{exclusiveMinimum: 0}``; ``false`` is
dropped; ``true`` without ``minimum`` constrains nothing, and is dropped with a report.
Contract: *equivalent* (read as OpenAPI 3.0).
Source: OpenAPI 3.0.3 section 4.7.24.1; JSON Schema Validation 2020-12 sections 6.2.3-6.2.5.
"""

from __future__ import annotations

from typing import Any

from httpllm._types import Schema
from httpllm.normalize._context import PassContext, acts_on

__all__ = ["exclusive_bounds"]

_PAIRS = (("exclusiveMinimum", "minimum"), ("exclusiveMaximum", "maximum"))


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


@acts_on("exclusiveMinimum", "exclusiveMaximum")
def exclusive_bounds(node: dict[str, Any], ctx: PassContext) -> Schema:
    """Turn a boolean ``exclusiveMinimum``/``exclusiveMaximum`` into the numeric form.

    >>> exclusive_bounds({"type": "integer", "minimum": 0, "exclusiveMinimum": True}, CTX)
    {'type': 'integer', 'exclusiveMinimum': 0}
    """
    if not (isinstance(node.get("exclusiveMinimum"), bool)
            or isinstance(node.get("exclusiveMaximum"), bool)):
        return node  # the 2020-12 form already (the common case: keep it cheap)
    out = dict(node)
    for flag, bound in _PAIRS:
        value = out.get(flag)
        if not isinstance(value, bool):
            continue
        del out[flag]
        if value and _number(out.get(bound)):
            out[flag] = out.pop(bound)
        elif value:
            ctx.report(ctx.pointer, f"{flag}: true without a numeric {bound} has no effect; "
                       "dropped")
    return out
