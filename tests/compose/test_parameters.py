"""The keyword parameters object: argument names, media types, what is not an argument."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import httpllm
from httpllm._types import Location
from httpllm.compose.parameters import (
    LOCATIONS,
    PATH_SEGMENT,
    ParameterSpec,
    argument_names,
    pick_media_type,
    without_flags,
)


def spec(name: str, location: Location) -> ParameterSpec:
    return ParameterSpec(name=name, location=location, node={}, pointer="#", base="root:")


def test_distinct_names_are_kept() -> None:
    """Parameters whose names differ keep them."""
    specs = [spec("id", "path"), spec("q", "query"), spec("X-Trace", "header")]
    assert argument_names(specs, has_body=True) == ["id", "q", "X-Trace"]


def test_collisions_get_the_location_suffix() -> None:
    """A name another location already uses gets `__<in>`, path first then query, header,
    cookie; the body keeps `body`."""
    specs = [spec("id", "query"), spec("id", "cookie"), spec("id", "path"), spec("id", "header"),
             spec("body", "query")]
    assert argument_names(specs, has_body=True) == [
        "id__query", "id__cookie", "id", "id__header", "body__query"]
    assert argument_names([spec("body", "query")], has_body=False) == ["body"]


def test_suffix_collisions_are_numbered() -> None:
    """A suffixed name that is itself taken gets a number."""
    specs = [spec("id__query", "path"), spec("id", "path"), spec("id", "query")]
    assert argument_names(specs, has_body=False) == ["id__query", "id", "id__query2"]


@given(st.lists(st.tuples(st.sampled_from(["id", "body", "q", "id__query"]),
                          st.sampled_from(LOCATIONS)), max_size=12, unique=True),
       st.booleans())
def test_argument_names_never_collide(pairs: list[tuple[str, Location]], has_body: bool) -> None:
    """Every parameter gets its own argument, never `body` when there is a body."""
    names = argument_names([spec(n, loc) for n, loc in pairs], has_body)
    assert len(set(names)) == len(names)
    assert not has_body or "body" not in names
    assert argument_names([spec(n, loc) for n, loc in pairs], has_body) == names


@pytest.mark.parametrize(
    ("content", "chosen"),
    [
        ({}, None),
        ({"text/plain": {}, "application/json": {}}, "application/json"),
        ({"Application/JSON; charset=utf-8": {}}, "Application/JSON; charset=utf-8"),
        ({"multipart/form-data": {}, "application/x-www-form-urlencoded": {}},
         "application/x-www-form-urlencoded"),
        ({"application/xml": {}, "application/vnd.api+json": {}}, "application/vnd.api+json"),
        ({"text/html": {}, "*/*": {}}, "*/*"),
        ({"application/xml": {}, "text/csv": {}}, "application/xml"),
        ({"application/octet-stream": {}, "image/png": {}}, "application/octet-stream"),
    ],
)
def test_pick_media_type(content: dict[str, Any], chosen: str | None) -> None:
    """JSON first, then form, multipart, text, binary, then any `+json` or `*/*`, then the
    first listed."""
    assert pick_media_type(content) == chosen


def c25() -> dict[str, Any]:
    return {
        "openapi": "3.0.3",
        "info": {"title": "t", "version": "1"},
        "components": {"securitySchemes": {
            "key": {"type": "apiKey", "in": "header", "name": "X-API-Key"}}},
        "paths": {"/users/{id}": {
            "parameters": [{"name": "version", "in": "query", "schema": {"type": "string"}}],
            "put": {
                "operationId": "replaceUser",
                "parameters": [
                    {"name": "id", "in": "path", "required": True, "schema": {"type": "string"}},
                    {"name": "version", "in": "query", "schema": {"type": "integer"}},
                    {"name": "id", "in": "header", "schema": {"type": "string"}},
                    {"name": "Accept", "in": "header", "schema": {"type": "string"}},
                    {"name": "Content-Type", "in": "header", "schema": {"type": "string"}},
                    {"name": "authorization", "in": "header", "schema": {"type": "string"}},
                    {"name": "x-api-key", "in": "header", "schema": {"type": "string"}},
                ],
                "requestBody": {"required": True, "content": {"application/json": {"schema": {
                    "type": "object", "required": ["id"],
                    "properties": {"id": {"type": "string"}, "version": {"type": "integer"}}}}}},
                "responses": {"200": {"description": "ok"}},
            },
        }},
    }


def test_compile_keyword_parameters_object() -> None:
    """Path, query and header parameters and the body are one object: the body is wrapped,
    a colliding name is suffixed, the operation's parameter overrides the path item's, and
    transport headers and credentials are not arguments."""
    function = httpllm.compile(c25(), "3.1").function("replaceUser")
    assert function.parameters["properties"] == {
        "id": {"type": "string", "pattern": PATH_SEGMENT},
        "version": {"type": "integer"},
        "id__header": {"type": "string"},
        "body": {"type": "object", "required": ["id"],
                 "properties": {"id": {"type": "string"}, "version": {"type": "integer"}}},
    }
    assert function.parameters["required"] == ["id", "body"]
    assert [(a.name, a.location, a.original) for a in function.arguments] == [
        ("id", "path", "id"), ("version", "query", "version"), ("id__header", "header", "id"),
        ("body", "body", None)]


def test_without_flags_drops_them_from_the_schema_and_its_alternatives() -> None:
    """`readOnly`/`writeOnly` go from the schema and its union members, each reported with
    its place; a schema without them comes back as the same object."""
    member = {"type": "integer", "readOnly": True}
    out, found = without_flags({"anyOf": [member, {"type": "null"}], "writeOnly": False})
    assert out == {"anyOf": [{"type": "integer"}, {"type": "null"}]}
    assert [(at, flag, value) for _, at, flag, value in found] == [
        ("", "writeOnly", False), ("/anyOf/0", "readOnly", True)]
    plain = {"type": "string", "properties": {"a": {"readOnly": True}}}
    assert without_flags(plain) == (plain, [])


READ_ONLY_ID = {
    "openapi": "3.0.3", "info": {"title": "t", "version": "1"},
    "paths": {"/items/{id}": {"put": {
        "operationId": "putItem",
        "parameters": [
            {"name": "id", "in": "path", "required": True,
             "schema": {"$ref": "#/components/schemas/Id"}},
            {"name": "since", "in": "query",
             "schema": {"type": "string", "format": "date-time", "readOnly": True}}],
        "requestBody": {"content": {"application/json": {"schema": {
            "$ref": "#/components/schemas/Item"}}}},
        "responses": {"200": {"description": "ok"}}}}},
    "components": {"schemas": {
        "Id": {"type": "string", "readOnly": True, "description": "Managed by the API."},
        "Item": {"type": "object", "writeOnly": True,
                 "properties": {"id": {"$ref": "#/components/schemas/Id"},
                                "name": {"type": "string"}}}}},
}


@pytest.mark.parametrize(("provider", "strict", "reference"), [
    ("3.1", False, False), ("chatgpt", True, False), ("3.1", False, True),
    ("chatgpt", False, True)])
def test_a_read_only_parameter_is_offered_without_the_flag(provider: str, strict: bool,
                                                            reference: bool) -> None:
    """A path parameter whose schema is a `readOnly` id type is still an argument, but its
    schema (and the body's, and a query parameter's) no longer says `readOnly`/`writeOnly`;
    each dropped flag is a loss naming the argument. A `readOnly` property of the body is
    still left out of the request. With `reference=True` the flagged `$defs` entry an
    argument refers to is opened in its place (its flags then go the same way)."""
    fn = httpllm.compile(READ_ONLY_ID, provider, strict=strict,
                         reference=reference).function("putItem")
    props = fn.parameters["properties"]
    assert list(props) == ["id", "since", "body"]
    text = repr(fn.parameters)
    assert "readOnly" not in text and "writeOnly" not in text
    body = props["body"]["anyOf"][0] if strict else props["body"]  # optional: or null
    assert list(body["properties"]) == ["name"]
    flags = sorted((x.pointer, x.keyword, x.note) for x in fn.losses
                   if x.keyword in ("readOnly", "writeOnly") and x.action == "dropped"
                   and "still sent" in x.note)
    assert flags == [
        ("#/components/schemas/Id/readOnly", "readOnly",
         "readOnly describes properties; argument 'id' is still sent"),
        ("#/components/schemas/Item/writeOnly", "writeOnly",
         "writeOnly describes properties; the request body is still sent"),
        ("#/paths/~1items~1{id}/put/parameters/1/schema/readOnly", "readOnly",
         "readOnly describes properties; argument 'since' is still sent"),
    ]
    assert httpllm.compile(READ_ONLY_ID, provider, strict=strict, reference=reference).validate(
        "putItem", {"id": "a1", "body": {"name": "n"}}).ok
