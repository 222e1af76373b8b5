"""Gemini `parameters` round trip: a value valid for the document's schema, spelled as a
model answering the Gemini rendering spells it (a non-string const or enum value as its
JSON text, tuple items as themselves), is decoded back to that value, which validate
accepts and the request carries as it would the value itself."""

from __future__ import annotations

import json
from typing import Any

import pytest
from jsonschema import Draft202012Validator

import httpllm
from httpllm.execute import build_request, decode
from httpllm.execute.request import assemble

TAGGED = {"anyOf": [
    {"type": "object", "required": ["kind", "a"],
     "properties": {"kind": {"const": 1}, "a": {"type": "integer"}}},
    {"type": "object", "required": ["b"],
     "properties": {"kind": {"type": "string"}, "b": {"const": True}}},
]}

BODY = {
    "type": "object",
    "properties": {
        "int": {"const": 5}, "num": {"const": -1.5}, "yes": {"const": True},
        "none": {"const": None}, "obj": {"const": {"a": [1, None]}}, "arr": {"const": [1, "x"]},
        "mixed": {"enum": [1, 2.5, False, "s"]},
        "deep": {"type": "array", "items": {"type": "object", "properties": {
            "k": {"const": 7},
            "t": {"type": "array", "items": False,
                  "prefixItems": [{"enum": [1, 2]}, {"type": "string"}, {"const": False}]}}}},
        "open": {"type": "array", "prefixItems": [{"type": "integer"}],
                 "items": {"type": "boolean"}},
        "tagged": TAGGED,
    },
}

PARAMETERS = [
    {"name": "c", "in": "query", "required": True, "schema": {"const": 5}},
    {"name": "e", "in": "query", "schema": {"enum": [5]}},
    {"name": "t", "in": "query", "schema": {"type": "array", "items": False,
                                             "prefixItems": [{"type": "string"},
                                                             {"type": "integer"}]}},
]


def _document() -> dict[str, Any]:
    operation = {"operationId": "g", "parameters": PARAMETERS,
                 "requestBody": {"content": {"application/json": {"schema": BODY}}},
                 "responses": {"200": {"description": "ok"}}}
    return {"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
            "servers": [{"url": "https://api.example.com"}], "paths": {"/g": {"post": operation}}}


SAMPLES = [
    {"c": 5},
    {"c": 5, "e": 5, "t": ["a", 1]},
    {"c": 5, "t": ["1", 2], "body": {"int": 5, "num": -1.5, "yes": True, "none": None}},
    {"c": 5, "body": {"obj": {"a": [1, None]}, "arr": [1, "x"], "mixed": False}},
    {"c": 5, "body": {"mixed": "s", "deep": [{"k": 7, "t": [2, "1", False]}, {"t": [1]}]}},
    {"c": 5, "body": {"open": [3, True, False], "tagged": {"kind": 1, "a": 3}}},
    {"c": 5, "body": {"open": [], "mixed": 2.5, "tagged": {"kind": "x", "b": True}}},
]


def as_json_schema(node: Any) -> Any:
    """A Gemini `Schema` as JSON Schema: `nullable: true` allows null."""
    if not isinstance(node, dict):
        return node
    out = {k: v for k, v in node.items() if k != "nullable"}
    for key in ("items", "anyOf"):
        if key in out:
            out[key] = ([as_json_schema(m) for m in out[key]] if key == "anyOf"
                        else as_json_schema(out[key]))
    if "properties" in out:
        out["properties"] = {k: as_json_schema(v) for k, v in out["properties"].items()}
    return {"anyOf": [out, {"type": "null"}]} if node.get("nullable") else out


def as_sent(value: Any, node: dict[str, Any]) -> Any:
    """`value` as a model answering the rendered `node` sends it: where the rendering has
    a string (a string enum, JSON text) a non-string is its JSON text; in a union, the
    value itself where a member takes it, else the first member's spelling that fits."""
    if "anyOf" in node:
        fits = [sent for sent, member in ((as_sent(value, m), m) for m in node["anyOf"])
                if Draft202012Validator(as_json_schema(member)).is_valid(sent)]
        assert fits, f"no member of {node} takes {value!r}"
        return next((sent for sent in fits if sent == value), fits[0])
    if node.get("type") == "string" and value is not None and not isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, dict):
        return {k: as_sent(v, node.get("properties", {}).get(k, {})) for k, v in value.items()}
    if isinstance(value, list):
        return [as_sent(v, node["items"]) for v in value]
    return value


@pytest.fixture(scope="module")
def app() -> httpllm.Application:
    return httpllm.compile(_document(), "gemini")


@pytest.mark.parametrize("value", SAMPLES, ids=range(len(SAMPLES)))
def test_round_trip(app: httpllm.Application, value: dict[str, Any]) -> None:
    """The sample is valid for the document's schema; spelled for the Gemini rendering it
    is valid there, decodes to itself, validates, and builds the sample's own request."""
    function = app.function("g")
    assert Draft202012Validator(function.schema).is_valid(value)
    sent = as_sent(value, function.parameters)
    assert Draft202012Validator(as_json_schema(function.parameters)).is_valid(sent)
    assert decode(function, json.dumps(sent)) == value
    checked = app.validate("g", sent)
    assert checked.ok, checked.errors
    request, expected = build_request(function, sent), assemble(function, value)
    assert (request.method, request.url, request.content) == (
        expected.method, expected.url, expected.content)


def test_the_spelling_differs_from_the_value(app: httpllm.Application) -> None:
    """The samples do exercise the rewrites: constants travel as text, tuples as values."""
    sent = as_sent(SAMPLES[1], app.function("g").parameters)
    assert sent == {"c": "5", "e": "5", "t": ["a", 1]}


UNIONS = [
    ({"anyOf": [{"type": "string"}, {"const": 5}]}, ["5", "a", 5]),
    ({"anyOf": [{"type": "string", "enum": ["5", "x"]}, {"const": 5}]}, ["5", "x", 5]),
    ({"anyOf": [{"const": 5}, {"type": "string", "enum": ["5", "x"]}]}, ["5", "x", 5]),
    ({"oneOf": [{"type": "string"}, {"enum": [True, None, 2]}]},
     [True, None, 2, "true", "null", "2", "b"]),
    ({"type": ["string", "integer"], "enum": ["5", 5, "a"]}, ["5", 5, "a"]),
    ({"anyOf": [{"type": ["string", "null"]}, {"const": 1.5}]}, [None, 1.5, "1.5", "x"]),
    ({"type": "array", "items": {"anyOf": [{"type": "string"}, {"const": False}]}},
     [[False, "false", "x"]]),
    ({"anyOf": [{"type": "string"}, {"const": {"a": 1}}]}, [{"a": 1}, '{"a": 1}', "x"]),
]


@pytest.mark.parametrize(("schema", "values"), UNIONS, ids=[
    "const", "string-enum-first", "const-first", "enum", "type-array", "nullable", "items",
    "object-const"])
def test_union_of_a_string_and_values_sent_as_text(schema: Any, values: list[Any]) -> None:
    """Each value of a union of a string member and values sent as text, spelled for the
    Gemini rendering, decodes to itself, but for the strings the render reported lost:
    those read as the non-string value with their text, whatever the members' order."""
    document = {"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
                "paths": {"/u": {"post": {"operationId": "u", "requestBody": {
                    "required": True, "content": {"application/json": {"schema": {
                        "type": "object", "properties": {"v": schema}}}}},
                    "responses": {"200": {"description": "ok"}}}}}}
    function = httpllm.compile(document, "gemini").function("u")
    lost = {v for x in function.losses if x.keyword == "anyOf" and x.action == "dropped"
            for v in x.value or ()}
    assert lost
    for value in values:
        arguments = {"body": {"v": value}}
        assert Draft202012Validator(function.schema).is_valid(arguments)
        sent = as_sent(arguments, function.parameters)
        decoded = decode(function, json.dumps(sent))["body"]["v"]
        items = value if isinstance(value, list) else [value]
        got = decoded if isinstance(value, list) else [decoded]
        for item, back in zip(items, got, strict=True):
            if isinstance(item, str) and item in lost:
                assert not isinstance(back, str) and json.dumps(back) == item
            else:
                assert back == item and type(back) is type(item)
