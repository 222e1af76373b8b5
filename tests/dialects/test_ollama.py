"""The ollama dialect: bug-case expectations, rules, client round trip, corpus (invariant 7)."""

from __future__ import annotations

from typing import Any

import pytest
import shared
from checkers import ollama
from sweep import assert_clean
from toolkit import type_lists

import httpllm


def case(name: str, **options: Any) -> Any:
    return httpllm.compile(shared.case(name), "ollama", **options)


def only(app: Any) -> Any:
    assert len(app.functions) == 1, app.errors
    return app.functions[0]


def body(fn: Any) -> Any:
    return fn.parameters["properties"]["body"]


def compile_body(schema: Any, **options: Any) -> Any:
    operation = {"operationId": "op",
                 "requestBody": {"required": True,
                                 "content": {"application/json": {"schema": schema}}},
                 "responses": {"200": {"description": "ok"}}}
    doc = {"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
           "paths": {"/x": {"post": operation}}}
    return only(httpllm.compile(doc, "ollama", **options))


def test_c01_recursion_error_or_unrolled() -> None:
    """C01: an error naming the cycle by default; unroll=2 inlines two levels, no $ref."""
    app = case("C01")
    assert app.functions == () and "Folder -> Folder" in app.errors[0].message
    fn = only(case("C01", unroll=2))
    assert "$ref" not in str(fn.parameters)
    inner = body(fn)["properties"]["children"]["items"]
    assert "children" not in inner["properties"]


def test_c03_refs_inlined() -> None:
    """C03: no property-level $ref (the server would drop it); shapes inline."""
    fn = only(case("C03"))
    assert "$ref" not in str(fn.parameters)
    assert body(fn)["properties"]["location"]["required"] == ["name", "region"]
    assert fn.parameters["properties"]["units"]["enum"] == ["metric", "imperial"]


def test_c07_and_c09_single_types() -> None:
    """C07/C09: every type is one string; nullability is noted, requiredness unchanged."""
    fn = only(case("C07"))
    assert type_lists(fn.parameters) == []
    assert body(fn)["properties"]["price"]["type"] == "number"
    assert "@nullable true" in body(fn)["properties"]["price"]["description"]
    b = body(only(case("C09")))
    assert b["properties"]["timezone"]["type"] == "string"
    assert b["properties"]["offsetMinutes"]["type"] == "integer"
    assert b["required"] == ["instant", "timezone"]


def test_c13_formats_described() -> None:
    """C13: formats are not kept by the server: they go into the description."""
    fn = only(case("C13"))
    url = body(fn)["properties"]["url"]
    assert "format" not in url and "@format uri" in url["description"]
    assert any(x.keyword == "format" and x.action == "described" for x in fn.losses)


def test_c18_untyped_items_stay_any() -> None:
    """C18: fields keeps items {} (any); ids items integer, format described."""
    props = only(case("C18")).parameters["properties"]
    assert props["fields"]["items"] == {}
    assert props["ids"]["items"]["type"] == "integer"


def test_c19_empty_parameters_object() -> None:
    """C19: zero-argument functions have {type: object, properties: {}}."""
    for fn in case("C19").functions:
        assert fn.parameters == {"type": "object", "properties": {}}


def test_c21_c23_unions_kept_as_any_of() -> None:
    """C21/C23: the server keeps anyOf; const tags are one-value enums."""
    members = body(only(case("C23")))["anyOf"]
    assert [m["properties"]["channel"]["enum"] for m in members] == [["email"], ["sms"]]
    assert "anyOf" in body(only(case("C21")))


def test_c22_constraints_described() -> None:
    """C22: both bounds of top reach the model as description tags."""
    top = body(only(case("C22")))["properties"]["top"]
    assert "@minimum 1" in top["description"] and "@maximum 1000" in top["description"]


def test_c29_full_depth_unless_limited() -> None:
    """C29: unchanged without max_depth; collapse_deep works here too."""
    only(case("C29"))
    fn = only(case("C29", max_depth=4, collapse_deep=True))
    block = body(fn)["properties"]["sections"]["items"]["properties"]["blocks"]["items"]
    assert block["properties"]["rows"]["type"] == "string"
    assert fn.extra["decode"] is True  # execute.decode JSON-decodes rows


@pytest.mark.parametrize("name", ["C01", "C03", "C04", "C07", "C09", "C11", "C13", "C18",
                                  "C19", "C21", "C22", "C23", "C29"])
def test_cases_pass_checker(name: str) -> None:
    """Every case's tools pass the Ollama checker (invariant 7, client round trip)."""
    for tool in case(name, unroll=2).tools():
        assert ollama.check(tool) == []


def test_only_server_fields_remain() -> None:
    """Property keywords are limited to what the server keeps; the rest is described."""
    fn = compile_body({"type": "object", "properties": {
        "n": {"type": "integer", "minimum": 1, "default": 3, "title": "N"},
        "m": {"type": "object", "additionalProperties": {"type": "string"}},
        "b": True}})
    assert ollama.server_dropped(fn.parameters) == []
    n = body(fn)["properties"]["n"]
    assert n["description"].splitlines() == ["@minimum 1", "@default 3", "@title N"]
    assert body(fn)["properties"]["b"] == {}
    assert any(x.keyword == "additionalProperties" for x in fn.losses)


def test_a_typed_map_keeps_its_value_schema_in_the_description() -> None:
    """A map's value schema (`additionalProperties: {...}`), which the server does not keep,
    is described (it was dropped: the model saw an untyped object); a boolean is dropped."""
    fn = compile_body({"type": "object", "properties": {
        "m": {"type": "object", "description": "Labels.",
              "additionalProperties": {"type": "integer", "minimum": 0}},
        "c": {"type": "object", "properties": {"a": {"type": "string"}},
              "additionalProperties": False}}})
    props = body(fn)["properties"]
    assert props["m"] == {"type": "object", "description": 'Labels.\n@additionalProperties '
                          '{"type": "integer", "description": "@minimum 0"}'}
    assert "description" not in props["c"] and ollama.server_dropped(fn.parameters) == []
    assert [(x.keyword, x.action) for x in fn.losses if x.keyword == "additionalProperties"
            ] == [("additionalProperties", "described"), ("additionalProperties", "dropped")]


def test_client_round_trip_report() -> None:
    """The ollama-python client drops nested properties; the checker still accepts the tool."""
    from ollama._types import Tool

    tool = only_tool(case("C03"))
    dumped = Tool.model_validate(tool).model_dump(exclude_none=True, by_alias=True)
    location = dumped["function"]["parameters"]["properties"]["body"]
    assert "properties" not in location  # nested objects vanish in the client
    assert ollama.check(tool) == []


def only_tool(app: Any) -> Any:
    tools = app.tools()
    assert len(tools) == 1
    return tools[0]


@pytest.mark.corpus
@pytest.mark.parametrize("mode", ["ollama"])
def test_corpus(mode: str) -> None:
    """Every tool compiled from a real 3.x document passes the Ollama checker, one type
    per node."""
    assert_clean(mode)
