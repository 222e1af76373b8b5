"""Numeric formats as bounds: ``int32``, ``int64``, ``float``, ``double`` and the other sized
numbers of the OpenAPI Format Registry.

jsonschema-rs hands custom formats strings only, so a number's format cannot be checked as a
format. :func:`bounded` instead copies the function's schema and gives every node with a
numeric format its range as ``minimum``/``maximum`` (kept when the node's own bound is at
least as tight); :func:`format_of_bound` tells an error on such an added bound apart, so it
is reported as the format's.

Source: OpenAPI 3.1.0 section 4.4 (Data Types: ``int32``, ``int64``, ``float``,
``double``); OpenAPI Format Registry (``int8``, ``int16``, ``uint8`` ... ``uint64``);
IEEE 754 binary32 and binary64 (largest finite values).
"""

from __future__ import annotations

import sys
from typing import Any

from httpllm import pointer
from httpllm._types import Schema
from httpllm.execute.decode import resolve
from httpllm.walk import transform

__all__ = ["RANGES", "bounded", "describe", "format_of_bound"]

FLOAT_MAX = (2 - 2**-23) * 2**127
"""The largest finite IEEE 754 binary32 value, 3.4028234663852886e+38."""

RANGES: dict[str, tuple[int | float, int | float]] = {
    "int8": (-(2**7), 2**7 - 1),
    "int16": (-(2**15), 2**15 - 1),
    "int32": (-(2**31), 2**31 - 1),
    "int64": (-(2**63), 2**63 - 1),
    "uint8": (0, 2**8 - 1),
    "uint16": (0, 2**16 - 1),
    "uint32": (0, 2**32 - 1),
    "uint64": (0, 2**64 - 1),
    "float": (-FLOAT_MAX, FLOAT_MAX),
    "double": (-sys.float_info.max, sys.float_info.max),
}
"""Numeric format -> the inclusive range of the values it holds."""

_LOWER = ("minimum", "exclusiveMinimum")
_UPPER = ("maximum", "exclusiveMaximum")


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _add_bounds(node: dict[str, Any], at: str) -> dict[str, Any]:
    """``transform`` visitor: ``node`` with its numeric format's range as bounds."""
    fmt = node.get("format")
    if not isinstance(fmt, str) or fmt not in RANGES:
        return node
    low, high = RANGES[fmt]
    added: dict[str, int | float] = {}
    if not any(_number(node.get(k)) and node[k] >= low for k in _LOWER):
        added["minimum"] = low
    if not any(_number(node.get(k)) and node[k] <= high for k in _UPPER):
        added["maximum"] = high
    return {**node, **added} if added else node


def bounded(schema: Schema) -> Schema:
    """A copy of ``schema`` in which every numeric format also states its range.

    Untouched subtrees are shared with ``schema``, which is never changed; the walk is
    iterative (:func:`httpllm.walk.transform`).

    >>> bounded({"type": "integer", "format": "int32", "minimum": 0})["maximum"]
    2147483647

    Raises:
        LimitExceeded: the schema nests deeper than the walker's limit.
    """
    return transform(schema, _add_bounds)


def format_of_bound(
    original: Schema, with_bounds: Schema, schema_path: list[str | int]
) -> str | None:
    """The numeric format whose range made a ``minimum``/``maximum`` error, or ``None``.

    Args:
        original: the function's schema.
        with_bounds: :func:`bounded` of it, which the validator was compiled from.
        schema_path: the failing keyword's location (``["properties", "n", "maximum"]``).
    """
    if not schema_path or schema_path[-1] not in ("minimum", "maximum"):
        return None
    keyword = str(schema_path[-1])
    at = pointer.join("#", *schema_path[:-1])
    node = resolve(at, with_bounds)
    if not isinstance(node, dict):
        return None
    fmt = node.get("format")
    if not isinstance(fmt, str) or fmt not in RANGES:
        return None
    own = resolve(at, original)
    if isinstance(own, dict) and keyword in own and own[keyword] == node.get(keyword):
        return None
    return fmt


def describe(fmt: str) -> str:
    """What a value of a numeric format must be, for a model to read.

    >>> describe("int32")
    'an integer in the int32 range, -2147483648 to 2147483647'
    """
    low, high = RANGES[fmt]
    noun = "a number" if fmt in ("float", "double") else "an integer"
    return f"{noun} in the {fmt} range, {low} to {high}"
