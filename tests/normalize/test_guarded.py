"""Reference cycles that pass no property or item: cut where they close, with a warning
(normalize/guarded.py, read by NamedSchemas.finish)."""

from __future__ import annotations

import json
from typing import Any

import pytest

import httpllm
from httpllm.execute import validate
from httpllm.normalize.guarded import cut_refs, unguarded_refs

from .test_named import named, ref


def test_unguarded_refs_go_through_in_place_keywords_only() -> None:
    schema = {"allOf": [{"$ref": "#/$defs/A"}], "not": {"anyOf": [{"$ref": "#/$defs/B"}]},
              "if": {"$ref": "#/$defs/C"}, "dependentSchemas": {"x": {"$ref": "#/$defs/D"}},
              "properties": {"p": {"$ref": "#/$defs/E"}}, "items": {"$ref": "#/$defs/F"}}
    assert unguarded_refs(schema) == {"A", "B", "C", "D"}


def test_cut_refs_rebuilds_only_the_path_to_the_cut() -> None:
    kept = {"type": "string"}
    schema = {"anyOf": [{"$ref": "#/$defs/A", "description": "d"}, kept],
              "properties": {"a": {"$ref": "#/$defs/A"}}}
    cut: list[str] = []
    out = cut_refs(schema, {"A"}, cut.append)
    assert out == {"anyOf": [{"description": "d"}, kept],
                   "properties": {"a": {"$ref": "#/$defs/A"}}}
    assert out["anyOf"][1] is kept and out["properties"] is schema["properties"]
    assert cut == ["A"] and schema["anyOf"][0] == {"$ref": "#/$defs/A", "description": "d"}
    assert cut_refs(schema, {"B"}, cut.append) is schema


@pytest.mark.parametrize("schemas", [
    {"A": {"oneOf": [ref("B")]}, "B": {"oneOf": [ref("C")]},  # oasdiff's circular3
     "C": {"oneOf": [ref("A")]}},
    {"A": {"oneOf": [ref("A")]}},
    {"A": {"anyOf": [ref("B"), {"type": "string"}]},
     "B": {"anyOf": [ref("A"), {"type": "integer"}]}},
    {"A": {"allOf": [ref("A")], "type": "object"}},
])
def test_a_cycle_in_place_is_cut_with_a_warning(schemas: dict[str, Any]) -> None:
    """Each such cycle leaves no cycle in the graph, and one warning names it."""
    store, warnings = named(schemas)
    for name in schemas:
        store.emended(name, "request")
    graph = store.finish()
    assert graph.cycles == []
    [(at, message)] = warnings
    assert at == "#/components/schemas/A" and message.startswith("$ref cycle A -> ")
    assert "passes no property or item" in message


def test_a_cycle_through_a_property_is_kept() -> None:
    """A tree (a cycle through ``properties``) is recursion JSON Schema defines: kept."""
    store, warnings = named({"Node": {"type": "object", "properties": {
        "next": ref("Node"), "alt": {"anyOf": [ref("Node"), {"type": "null"}]}}}})
    store.emended("Node", "request")
    assert store.finish().cycles == [["Node"]] and warnings == []


def _document() -> dict[str, Any]:
    loop = {"$ref": "#/components/schemas/circular1"}
    return {"openapi": "3.0.1", "info": {"title": "c", "version": "1"}, "paths": {"/t": {
        "post": {"operationId": "postT", "requestBody": {"content": {"application/json": {
            "schema": loop}}}, "responses": {"200": {"description": "ok", "content": {
                "application/json": {"schema": loop}}}}}}},
        "components": {"schemas": {
            "circular1": {"oneOf": [{"$ref": "#/components/schemas/circular2"}]},
            "circular2": {"oneOf": [{"$ref": "#/components/schemas/circular3"}]},
            "circular3": {"oneOf": [{"$ref": "#/components/schemas/circular1"}]}}}}


@pytest.mark.parametrize("reference", [False, True])
def test_no_listing_holds_a_cycle_in_place(reference: bool) -> None:
    """In every dialect, with refs kept or inlined, the tool (and its output) hold no
    cycle that passes no property or item; validate reads the body as any value."""
    for provider in httpllm.providers():
        app = httpllm.compile(_document(), provider, reference=reference)
        [function] = app.functions
        for schema in (function.schema, function.output):
            defs = (schema or {}).get("$defs", {})
            for name, definition in defs.items():
                assert name not in unguarded_refs(definition), (provider, name)
            assert "circular" not in json.dumps(schema) or reference, provider
        assert any("$ref cycle" in w.message for w in app.warnings), provider
        assert validate(function, {"body": {"any": 1}}).ok
