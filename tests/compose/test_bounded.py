"""A function's schema within the limits of a serialized schema (compose/bounded.py)."""

from __future__ import annotations

from typing import Any

import httpllm
from httpllm.compose.bounded import MAX_DEPTH
from httpllm.compose.inline import INLINE_MAX_NODES


def _document(schemas: dict[str, Any], root: str) -> dict[str, Any]:
    return {"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
            "paths": {"/x": {"post": {"operationId": "make", "requestBody": {"content": {
                "application/json": {"schema": {"$ref": f"#/components/schemas/{root}"}}}},
                "responses": {"200": {"description": "ok"}}}}},
            "components": {"schemas": schemas}}


def test_a_chain_deeper_than_the_limit_once_inlined_is_an_error() -> None:
    """Named schemas nesting past MAX_DEPTH levels once inlined make the operation an
    error naming the limit, not a RecursionError."""
    n = MAX_DEPTH + 10
    schemas = {f"S{i}": {"type": "object",
                         "properties": {"next": {"$ref": f"#/components/schemas/S{i + 1}"}}}
               for i in range(n)}
    schemas[f"S{n}"] = {"type": "string"}
    app = httpllm.compile(_document(schemas, "S0"))
    assert not app.functions
    assert [e.kind for e in app.errors] == ["LimitExceeded"]
    assert f"(limit {MAX_DEPTH})" in app.errors[0].message


def test_a_function_past_the_inline_size_keeps_its_named_schemas() -> None:
    """A function whose inlined schema would pass INLINE_MAX_NODES keeps the named schemas
    under $defs, with a warning at the operation."""
    leaf = {"type": "object", "properties": {f"p{i}": {"type": "string"} for i in range(60)}}
    wide = {"type": "object",
            "properties": {f"q{i}": {"$ref": "#/components/schemas/Leaf"} for i in range(100)}}
    app = httpllm.compile(_document({"Leaf": leaf, "Wide": wide}, "Wide"))
    (function,) = app.functions
    assert "Leaf" in function.parameters["$defs"]
    assert [w.pointer for w in app.warnings] == ["#/paths/~1x/post"]
    assert f"(limit {INLINE_MAX_NODES:,})" in app.warnings[0].message
