"""What a JSON value is, in JSON Schema's type names, for messages and type checks."""

from __future__ import annotations

from typing import Any

__all__ = ["article", "kind", "type_name"]


def type_name(value: Any) -> str:
    """The JSON Schema type of a decoded JSON value: ``"null"``, ``"boolean"``,
    ``"integer"``, ``"number"``, ``"string"``, ``"array"`` or ``"object"`` (anything else).

    >>> [type_name(v) for v in (None, True, 1, 1.5, "a", [], {})]
    ['null', 'boolean', 'integer', 'number', 'string', 'array', 'object']
    """
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list | tuple):
        return "array"
    return "object"


def kind(value: Any) -> str:
    """:func:`type_name` with its article, for messages: ``"an integer"``, ``"a string"``,
    ``"null"``.

    >>> kind(1), kind("x"), kind(None)
    ('an integer', 'a string', 'null')
    """
    return article(type_name(value))


def article(name: str) -> str:
    """``"an array"``, ``"a string"``; ``"null"`` as it is."""
    if name == "null":
        return "null"
    return f"an {name}" if name[:1] in "aeiou" else f"a {name}"
