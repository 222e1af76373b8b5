"""Pass kinds: a keyword whose value has the wrong JSON type leaves the schema, a loss at
its pointer (a warning for responses)."""

from __future__ import annotations

from typing import Any

import pytest

from httpllm.errors import LimitExceeded
from httpllm.loss import Loss
from httpllm.normalize import emend
from httpllm.normalize.kinds import kinds

from ._support import check_pure, context, deep, run


def _run(schema: dict[str, Any], direction: str = "request"
         ) -> tuple[Any, list[Loss], list[tuple[str, str]]]:
    reports: list[tuple[str, str]] = []
    losses: list[Loss] = []
    ctx = context(direction, reports=reports)  # type: ignore[arg-type]
    ctx.lose = losses.append
    out = emend(schema, ctx, pointer="#/s", rewrite_ref=lambda node, at: node, passes=(kinds,))
    return out, losses, reports


@pytest.mark.parametrize(("schema", "out", "action"), [
    ({"type": "string", "pattern": 5}, {"type": "string"}, "dropped"),
    ({"type": "string", "format": ["date"]}, {"type": "string"}, "dropped"),
    ({"type": "array", "uniqueItems": "yes"}, {"type": "array"}, "dropped"),
    ({"type": "string", "nullable": "true"}, {"type": "string"}, "dropped"),
    ({"type": "string", "readOnly": 1}, {"type": "string"}, "dropped"),
    ({"type": "strnig"}, {}, "dropped"),
    ({"type": []}, {}, "dropped"),
    ({"type": None, "format": "uri"}, {"format": "uri"}, "dropped"),
    ({"type": ["string", 5]}, {"type": ["string"]}, "rewritten"),
    ({"type": ["string", "string", "null"]}, {"type": ["string", "null"]}, "rewritten"),
    ({"type": "object", "required": True}, {"type": "object"}, "dropped"),
    ({"type": "object", "required": None}, {"type": "object"}, "dropped"),
    ({"type": "object", "required": [{"a": 1}]}, {"type": "object"}, "dropped"),
    ({"type": "object", "required": ["a", ["b"], 3]}, {"type": "object", "required": ["a"]},
     "rewritten"),
    ({"type": "object", "required": ["a", "b", "a"]}, {"type": "object", "required": ["a", "b"]},
     "rewritten"),
    ({"type": "string", "enum": "a"}, {"type": "string"}, "dropped"),
    ({"enum": {"a": 1}}, {}, "dropped"),
    ({"type": "string", "enum": ["a", "b", "a"]}, {"type": "string", "enum": ["a", "b"]},
     "rewritten"),
    ({"enum": [1, 1.0, True, "1"]}, {"enum": [1, True, "1"]}, "rewritten"),
    ({"enum": [[1], [1.0], {"a": 2.0}, {"a": 2}]}, {"enum": [[1], {"a": 2.0}]}, "rewritten"),
    ({"type": "string", "enum": [], "description": "d"},
     {"type": "string", "not": {}, "description": "d"}, "rewritten"),
    ({"type": "string", "title": 5}, {"type": "string"}, "dropped"),
    ({"type": "object", "description": {"x": 1}}, {"type": "object"}, "dropped"),
    ({"type": "string", "contentEncoding": 5}, {"type": "string"}, "dropped"),
    ({"type": "string", "contentMediaType": ["a/b"]}, {"type": "string"}, "dropped"),
    ({"type": "string", "$comment": 1}, {"type": "string"}, "dropped"),
])
def test_a_keyword_of_the_wrong_type_leaves_with_a_loss(
        schema: dict[str, Any], out: dict[str, Any], action: str) -> None:
    """pattern, format, uniqueItems, nullable, readOnly, type, required, enum and the
    annotations (title, description, $comment, contentEncoding, contentMediaType: Ajv
    refuses one that is no string) holding a value of the wrong JSON type (sent to
    providers as written, or ignored) are dropped, a type or required list keeps its
    names, each once; an enum keeps each value once (equal
    as JSON values) and an empty one is ``not: {}``: Ajv refuses a duplicate or an empty
    enum, and the MCP TypeScript SDK client then lists no tool. One loss at the keyword's
    pointer."""
    got, losses, _ = _run(schema)
    assert got == out
    [loss] = losses
    assert loss.action == action and loss.pointer.startswith("#/s/")
    assert check_pure(kinds, schema) == out


def test_well_typed_keywords_are_left_alone() -> None:
    """A schema whose keywords have their types is returned as it is, with no loss."""
    schema = {"type": ["string", "null"], "pattern": "^a", "format": "date",
              "uniqueItems": False}
    got, losses, _ = _run(schema)
    assert got is schema and losses == []


def test_the_response_direction_warns() -> None:
    """For responses the same drop is a warning at the keyword's pointer."""
    got, losses, reports = _run({"pattern": 5}, "response")
    assert got == {} and losses == []
    assert reports == [("#/s/pattern", "pattern dropped: expected a string (a regular "
                        "expression), not 5; values it refused are taken")]


@pytest.mark.parametrize("required", [[{"a": 1}], [["x"]], None, "a", True])
def test_a_malformed_required_never_sinks_the_document(required: Any) -> None:
    """``required`` holding an object or a list reached ``required_properties`` and
    ``allOf`` merging before its check, and the whole compile raised ``TypeError`` in
    every dialect: now the operation compiles, its tool requires nothing, and the drop is
    a loss at the keyword's pointer."""
    import httpllm

    schema = {"type": "object", "properties": {"a": {"type": "string"}},
              "required": required}
    document = {"openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "paths": {"/a": {
        "post": {"operationId": "op", "requestBody": {"content": {"application/json": {
            "schema": {"allOf": [schema, {"required": required}]}}}},
            "responses": {"200": {"description": "ok"}}}}}}
    for provider in httpllm.providers():
        [function] = httpllm.compile(document, provider).functions
        assert [loss.pointer for loss in function.losses if loss.keyword == "required"] == [
            "#/paths/~1a/post/requestBody/content/application~1json/schema/allOf/0/required",
            "#/paths/~1a/post/requestBody/content/application~1json/schema/allOf/1/required",
        ], provider


def test_depth_10000_is_limit_exceeded() -> None:
    """A schema 10,000 levels deep raises LimitExceeded, not RecursionError."""
    with pytest.raises(LimitExceeded):
        run(kinds, deep(10_000))
