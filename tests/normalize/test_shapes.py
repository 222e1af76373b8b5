"""Tests for the `shapes` pass: what is not a schema where one is expected leaves first."""

from __future__ import annotations

from typing import Any

import pytest

import httpllm
from httpllm.normalize import emend
from httpllm.normalize.shapes import shapes

from ._support import check_pure, context


def _run(schema: dict[str, Any]) -> tuple[Any, list[tuple[str, str]]]:
    reports: list[tuple[str, str]] = []
    ctx = context("request", reports=reports)  # type: ignore[arg-type]
    out = emend(schema, ctx, pointer="#/s", rewrite_ref=lambda node, at: node, passes=(shapes,))
    return out, reports


@pytest.mark.parametrize(("schema", "out", "reported"), [
    ({"type": "array", "items": "x"}, {"type": "array"}, ["#/s/items"]),
    ({"anyOf": [{"type": "string"}, 7]}, {"anyOf": [{"type": "string"}]}, ["#/s/anyOf/1"]),
    ({"allOf": [1, 2]}, {}, ["#/s/allOf/0", "#/s/allOf/1"]),
    ({"not": []}, {}, ["#/s/not"]),
    ({"patternProperties": {"^x": 5}}, {"patternProperties": {}}, ["#/s/patternProperties/^x"]),
    ({"properties": [1]}, {}, ["#/s/properties"]),
    ({"properties": {"a/b": "string", "c": {}}, "required": ["a/b", "c"]},
     {"properties": {"c": {}}, "required": ["c"]}, ["#/s/properties/a~1b"]),
    ({"properties": {"a": 1}, "required": ["a"]}, {"properties": {}}, ["#/s/properties/a"]),
    ({"allOf": {"type": "string"}}, {}, ["#/s/allOf"]),
    ({"anyOf": True, "type": "string"}, {"type": "string"}, ["#/s/anyOf"]),
    ({"type": "array", "items": []}, {"type": "array"}, ["#/s/items"]),
])
def test_a_non_schema_in_a_schema_slot_is_dropped_with_a_report(
        schema: dict[str, Any], out: dict[str, Any], reported: list[str]) -> None:
    """A value, or the members of a list or map, that are not schemas where schemas are
    expected are dropped, each reported at its own (escaped) pointer; a property dropped
    leaves `required`. One schema where a list is expected (`allOf: {...}`, which no
    walker reads into) and `items: []` (Ajv refuses it) go too."""
    got, reports = _run(schema)
    assert got == out
    assert [at for at, _ in reports] == reported
    assert check_pure(shapes, schema) == out


def test_schemas_in_their_slots_are_left_alone() -> None:
    """A node whose slots hold schemas (booleans too) is returned as it is."""
    schema = {"type": "object", "properties": {"a": {}, "b": True},
              "additionalProperties": False, "allOf": [{"required": ["a"]}]}
    got, reports = _run(schema)
    assert got is schema and reports == []


@pytest.mark.parametrize("bad", ["a string", [1], 5])
def test_a_bad_slot_beside_all_of_never_sinks_the_document(bad: Any) -> None:
    """`properties: "..."` beside an `allOf` reached `allOf` merging before its check, in
    every dialect and in the response direction (the MCP output), and raised
    AttributeError: the document was lost. Now the operation compiles in every dialect,
    with its output, and the value is reported."""
    document = {"openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "paths": {"/a": {
        "post": {"operationId": "op", "requestBody": {"content": {"application/json": {
            "schema": {"$ref": "#/components/schemas/Cat"}}}},
            "responses": {"200": {"description": "ok", "content": {"application/json": {
                "schema": {"$ref": "#/components/schemas/Cat"}}}}}}}},
        "components": {"schemas": {
            "Pet": {"type": "object", "properties": {"name": {"type": "string"}}},
            "Cat": {"allOf": [{"$ref": "#/components/schemas/Pet"}], "type": "object",
                    "properties": bad}}}}
    for provider in httpllm.providers():
        app = httpllm.compile(document, provider)
        [function] = app.functions
        assert function.output is not None and app.errors == (), provider
        assert "#/components/schemas/Cat/properties" in {
            w.pointer for w in app.warnings}, provider
