"""Small shared type aliases."""

from __future__ import annotations

from typing import Any, Literal

__all__ = ["JSON", "Direction", "Location", "Schema"]

Schema = Any
"""A JSON Schema node: a ``dict`` (or ``True``/``False``). Never mutated once built."""

JSON = Any
"""Any JSON value (``dict``, ``list``, ``str``, ``int``, ``float``, ``bool``, ``None``)."""

Direction = Literal["request", "response"]
"""Which way a schema is used: request schemas drop ``readOnly`` properties, responses
``writeOnly`` ones (OpenAPI 3.1 Schema Object, JSON Schema Validation 2020-12 section 9.4)."""

Location = Literal["path", "query", "header", "cookie", "body"]
"""Where an argument goes in the HTTP request (OpenAPI 3.1 Parameter Object ``in``, plus body)."""
