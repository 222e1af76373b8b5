"""A function's schema within the limits of a serialized schema (compose/bounded.py)."""

from __future__ import annotations

from typing import Any

import httpllm
from httpllm.compose.inline import INLINE_MAX_NODES
from httpllm.load import DEFAULT_LIMITS, Limits


def _document(schemas: dict[str, Any], root: str) -> dict[str, Any]:
    return {"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
            "paths": {"/x": {"post": {"operationId": "make", "requestBody": {"content": {
                "application/json": {"schema": {"$ref": f"#/components/schemas/{root}"}}}},
                "responses": {"200": {"description": "ok"}}}}},
            "components": {"schemas": schemas}}


def test_a_chain_deeper_than_the_limit_once_inlined_is_an_error() -> None:
    """Named schemas nesting past `Limits.parameters_depth` levels once inlined make the
    operation an error naming the limit, not a RecursionError."""
    depth = DEFAULT_LIMITS.parameters_depth
    n = depth + 10
    schemas = {f"S{i}": {"type": "object",
                         "properties": {"next": {"$ref": f"#/components/schemas/S{i + 1}"}}}
               for i in range(n)}
    schemas[f"S{n}"] = {"type": "string"}
    app = httpllm.compile(_document(schemas, "S0"))
    assert not app.functions
    assert [e.kind for e in app.errors] == ["LimitExceeded"]
    assert f"(limit {depth})" in app.errors[0].message


def test_the_compile_s_limits_bound_the_parameters() -> None:
    """`compile(limits=...)` sets the parameters' depth limit for that compile: a chain
    the default takes is refused under a lower one, which the error names."""
    schemas = {f"S{i}": {"type": "object",
                         "properties": {"next": {"$ref": f"#/components/schemas/S{i + 1}"}}}
               for i in range(20)}
    schemas["S20"] = {"type": "string"}
    assert httpllm.compile(_document(schemas, "S0")).functions
    app = httpllm.compile(_document(schemas, "S0"), limits=Limits(parameters_depth=10))
    assert [e.kind for e in app.errors] == ["LimitExceeded"]
    assert "(limit 10)" in app.errors[0].message


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


def _kubernetes_like() -> dict[str, Any]:
    """A body whose named schemas nest with long descriptions (Kubernetes' PodSpec): few
    nodes, many bytes."""
    text = "A long description of this field, as Kubernetes writes them. " * 20
    schemas: dict[str, Any] = {"Leaf": {"type": "object", "description": text, "properties": {
        f"f{i}": {"type": "string", "description": text} for i in range(60)}}}
    for level in range(4):
        below = "Leaf" if level == 0 else f"L{level - 1}"
        schemas[f"L{level}"] = {"type": "object", "description": text, "properties": {
            f"p{i}": {"$ref": f"#/components/schemas/{below}"} for i in range(3)}}
    return _document(schemas, "L3")


def test_parameters_past_the_byte_limit_are_cut_with_a_loss_and_validate_keeps_all() -> None:
    """Parameters of a few hundred nodes but megabytes (the 5,000-node rule never fired
    for Kubernetes) keep their refs, are cut to the limit with a `cut` loss, a warning and
    a sentence in the description, while `validate` still checks the whole schema."""
    from httpllm.compose.bounded import PARAMETERS_MAX
    from httpllm.compose.prune import byte_size
    from httpllm.execute import validate

    app = httpllm.compile(_kubernetes_like(), "chatgpt")
    (function,) = app.functions
    assert byte_size(function.schema) > PARAMETERS_MAX
    assert byte_size(function.parameters) <= PARAMETERS_MAX
    (cut,) = [x for x in function.losses if x.action == "cut"]
    assert cut.keyword == "parameters" and "cut to" in cut.note
    assert "Arguments are described to" in function.description
    assert any("kept under $defs" in w.message for w in app.warnings)
    assert any("cut to" in w.message for w in app.warnings)
    deep = {"body": {"p0": {"p0": {"p0": {"p0": {"f0": 3}}}}}}
    assert not validate(function, deep).ok


def test_the_byte_limit_is_shared_by_a_documents_operations() -> None:
    """48 KiB each up to about 170 operations, then 8 MiB shared, never under 16 KiB."""
    from httpllm.compose.bounded import parameters_limit

    assert parameters_limit(1) == parameters_limit(170) == 48 * 1024
    assert parameters_limit(400) == 8 * 1024 * 1024 // 400
    assert parameters_limit(5000) == 16 * 1024
