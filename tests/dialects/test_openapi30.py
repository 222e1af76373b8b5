"""The "3.0" dialect: OpenAPI 3.0 Schema Objects, checked by openapi-spec-validator."""

from __future__ import annotations

from typing import Any

import pytest
import shared
from checkers import oas30
from sweep import assert_clean
from toolkit import graph_problems, spec_problems

import httpllm

NAMES = ["C01", "C03", "C04", "C07", "C09", "C11", "C13", "C18", "C19", "C21", "C22", "C23",
         "C29"]


def case(name: str, **options: Any) -> Any:
    return httpllm.compile(shared.case(name), "3.0", **options)


def compile_body(schema: Any, **options: Any) -> Any:
    operation = {"operationId": "op",
                 "requestBody": {"required": True,
                                 "content": {"application/json": {"schema": schema}}},
                 "responses": {"200": {"description": "ok"}}}
    doc = {"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
           "paths": {"/x": {"post": operation}}}
    app = httpllm.compile(doc, "3.0", **options)
    assert len(app.functions) == 1, app.errors
    return app.functions[0]


@pytest.mark.parametrize("name", NAMES)
def test_cases_are_valid_openapi_30(name: str) -> None:
    """Each case's parameters are 3.0 Schema Objects (checker and openapi-spec-validator)."""
    app = case(name)
    assert [p for fn in app.functions for p in oas30.check(fn)] == []
    assert [p for fn in app.functions for p in graph_problems(fn.parameters)] == []
    assert spec_problems(app.functions) == []


def test_recursion_lives_under_x_defs() -> None:
    """C01: Folder is under x-defs (3.0 has no $defs) and refs point there; both resolve."""
    fn = case("C01").functions[0]
    p = fn.parameters
    assert "$defs" not in p and set(p["x-defs"]) == {"Folder"}
    assert p["properties"]["body"] == {"$ref": "#/x-defs/Folder"}
    assert p["x-defs"]["Folder"]["properties"]["children"]["items"] == {
        "$ref": "#/x-defs/Folder"}
    assert any(x.keyword == "$defs" for x in fn.losses)


def test_ref_siblings_wrapped_in_all_of() -> None:
    """reference=True: a $ref with a description becomes allOf [$ref] beside it."""
    app = case("C04", reference=True)
    role = app.functions[0].parameters["properties"]["body"]["properties"]["role"]
    assert role == {"description": "New role for the member",
                    "allOf": [{"$ref": "#/x-defs/Role"}]}
    assert [p for fn in app.functions for p in oas30.check(fn)] == []
    assert spec_problems(app.functions) == []


def test_nullable_refs_keep_their_flag_beside_all_of() -> None:
    """A nullable `$ref` (alone or one of several union members) is flagged beside an
    allOf: 3.0 ignores a `$ref`'s siblings (opensearch `DateRangeQuery.to`, elastic
    `chunking_settings`)."""
    node = {"type": "object", "properties": {"n": {"type": "integer"}}}
    source = {"openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "paths": {"/x": {
        "post": {"operationId": "op", "requestBody": {"required": True, "content": {
            "application/json": {"schema": {"$ref": "#/components/schemas/Body"}}}},
            "responses": {"200": {"description": "ok"}}}}},
        "components": {"schemas": {
            "Node": {**node, "properties": {**node["properties"],
                                            "next": {"$ref": "#/components/schemas/Node"}}},
            "Body": {"type": "object", "properties": {
                "one": {"anyOf": [{"$ref": "#/components/schemas/Node"}, {"type": "null"}]},
                "two": {"anyOf": [{"$ref": "#/components/schemas/Node"}, {"type": "string"},
                                  {"type": "null"}]}}}}}}
    fn = httpllm.compile(source, "3.0").functions[0]
    props = fn.parameters["properties"]["body"]["properties"]
    assert props["one"] == {"allOf": [{"$ref": "#/x-defs/Node"}], "nullable": True}
    assert props["two"]["anyOf"] == [{"allOf": [{"$ref": "#/x-defs/Node"}], "nullable": True},
                                     {"type": "string", "nullable": True}]
    assert oas30.check(fn) == [] and graph_problems(fn.parameters) == []
    assert spec_problems([fn]) == []


def test_nullable_and_const() -> None:
    """null members become nullable: true; const a one-value enum; only-null an enum [null]."""
    fn = compile_body({"type": "object", "properties": {
        "a": {"type": ["string", "null"]}, "b": {"const": 3}, "c": {"type": "null"},
        "d": {"type": ["string", "integer", "null"]}}})
    props = fn.parameters["properties"]["body"]["properties"]
    assert props["a"] == {"type": "string", "nullable": True}
    assert props["b"] == {"enum": [3]}
    assert props["c"] == {"type": "string", "nullable": True, "enum": [None]}
    assert props["d"] == {"anyOf": [{"type": "string", "nullable": True},
                                    {"type": "integer", "nullable": True}]}


def test_exclusive_bounds_become_booleans() -> None:
    """exclusiveMinimum: 0 -> minimum 0 + exclusiveMinimum true; a tighter minimum wins."""
    fn = compile_body({"type": "object", "properties": {
        "x": {"type": "number", "exclusiveMinimum": 0},
        "y": {"type": "number", "minimum": 5, "exclusiveMinimum": 1, "exclusiveMaximum": 9}}})
    props = fn.parameters["properties"]["body"]["properties"]
    assert props["x"] == {"type": "number", "minimum": 0, "exclusiveMinimum": True}
    assert props["y"] == {"type": "number", "minimum": 5, "maximum": 9,
                          "exclusiveMaximum": True}


def test_defaults_and_enums_fit_their_schema() -> None:
    """A default of the wrong type is dropped (reported); repeated enum values kept once."""
    fn = compile_body({"type": "object", "properties": {
        "a": {"type": "string", "default": 0}, "b": {"type": "string", "enum": ["x", "x"]},
        "c": {"type": "integer", "default": 2}}})
    props = fn.parameters["properties"]["body"]["properties"]
    assert props["a"] == {"type": "string"} and props["b"]["enum"] == ["x"]
    assert props["c"]["default"] == 2
    assert any(x.keyword == "default" and x.action == "dropped" for x in fn.losses)
    assert spec_problems([fn]) == []


def test_json_schema_only_keywords_are_described() -> None:
    """prefixItems, dependentRequired and boolean subschemas are spelled the 3.0 way."""
    fn = compile_body({"type": "object", "dependentRequired": {"a": ["b"]}, "properties": {
        "t": {"type": "array", "prefixItems": [{"type": "string"}]}, "any": True,
        "none": False}})
    b = fn.parameters["properties"]["body"]
    assert "@dependentRequired" in b["description"]
    assert b["properties"]["t"]["items"] == {} and "prefixItems" not in b["properties"]["t"]
    assert b["properties"]["any"] == {} and b["properties"]["none"] == {"not": {}}
    assert oas30.check(fn) == [] and spec_problems([fn]) == []


@pytest.mark.corpus
@pytest.mark.parametrize("mode", ["3.0"])
def test_corpus(mode: str) -> None:
    """Every function of a real 3.x document has a 3.0 Schema Object as parameters
    (openapi-spec-validator agrees on the small ones)."""
    assert_clean(mode)


def _body_of(schema: dict[str, Any], provider: str) -> tuple[Any, list[Any]]:
    doc = {"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
           "paths": {"/a": {"post": {"operationId": "a", "requestBody": {
               "required": True, "content": {"application/json": {"schema": schema}}},
               "responses": {"204": {"description": "ok"}}}}}}
    fn = httpllm.compile(doc, provider).functions[0]
    return fn.parameters["properties"]["body"], list(fn.losses)


def test_an_enum_keeps_true_beside_1_and_false_beside_0() -> None:
    """`enum: [1, "1", true, 0, false, 1.0]` is four distinct JSON values and one repeat
    (1.0 is 1; JSON Schema 2020-12 core 4.2.2): Python's `True == 1` removed `true` and
    `false` as repeats, with a loss saying so, and the model could not send them."""
    body, losses = _body_of({"enum": [1, "1", True, 0, False, 1.0]}, "3.0")
    assert body["enum"] == [1, "1", True, 0, False]
    assert [(x.keyword, x.note.split(" (")[0]) for x in losses] == [
        ("enum", "enum lists 1 value(s) more than once: each is kept once")]


@pytest.mark.parametrize("provider", ["3.0", "gemini", "ollama"])
def test_a_const_outside_its_enum_by_json_equality_leaves_no_value(provider: str) -> None:
    """`const: true` beside `enum: [1]` admits no value (JSON's true is not 1); made a
    one-value enum where `const` is not kept, it was `[true]`, a value validate refuses."""
    body, _ = _body_of({"type": "object", "properties": {"x": {"const": True, "enum": [1]}}},
                       provider)
    assert body["properties"]["x"].get("enum") in ([], None)
