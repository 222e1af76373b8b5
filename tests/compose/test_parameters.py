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
