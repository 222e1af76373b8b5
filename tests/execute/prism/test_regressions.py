"""Reductions of what the Prism run found, checked without Prism.

Each test states the contract the Prism run relies on: a tool call `validate` accepts becomes
a request that carries it. Tests marked `xfail(strict=True)` are open bugs (reported; the
marker goes when the fix lands, and the test fails as XPASS until then). They are written so
that either fix passes: `validate` refusing the call, or `build_request` sending it.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

import httpllm
from httpllm.errors import RequestBuildError
from httpllm.execute import build_request, validate
from httpllm.records import Function


def open_bug(reason: str) -> pytest.MarkDecorator:
    """An xfail marker for a reported, unfixed bug: XPASS fails, so the marker goes with it."""
    return pytest.mark.xfail(strict=True, raises=AssertionError, reason=reason)


ID = {"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}


def compiled(operation: dict[str, Any], provider: str = "3.1", strict: bool = False) -> Function:
    """The one function of a document with `POST /things/{id}` doing `operation`."""
    document = {
        "openapi": "3.0.3",
        "info": {"title": "regressions", "version": "1"},
        "servers": [{"url": "https://api.example.com"}],
        "paths": {"/things/{id}": {"post": {
            "operationId": "op", **operation, "responses": {"200": {"description": "ok"}},
        }}},
    }
    app = httpllm.compile(document, provider, strict=strict)
    assert not app.errors, app.errors
    return app.functions[0]


def query(name: str, schema: dict[str, Any], *, required: bool = False) -> dict[str, Any]:
    """A `parameters` entry for a query parameter."""
    return {"name": name, "in": "query", "required": required, "schema": schema}


def body(media_type: str, schema: dict[str, Any]) -> dict[str, Any]:
    """A required `requestBody` of one media type."""
    return {"required": True, "content": {media_type: {"schema": schema}}}


NUMBERS = compiled({"parameters": [
    ID,
    query("i32", {"type": "integer", "format": "int32"}),
    query("i64", {"type": "integer", "format": "int64"}),
    query("f32", {"type": "number", "format": "float"}),
]})


@pytest.mark.parametrize(("name", "value"), [
    ("i32", 2**31 - 1), ("i32", -(2**31)), ("i64", 2**63 - 1), ("i64", -(2**63)),
    ("f32", 3.0e38), ("f32", -3.0e38),
])
def test_validate_accepts_numbers_inside_their_format(name: str, value: int | float) -> None:
    """validate accepts the extreme values of the int32, int64 and float formats."""
    assert validate(NUMBERS, {"id": "a", name: value}).ok


@pytest.mark.parametrize(("name", "value"), [
    ("i32", 2**31), ("i32", -(2**31) - 1), ("i64", 2**63), ("i64", -(2**63) - 1),
    ("f32", 1.0e39), ("f32", -1.0e39),
])
def test_validate_refuses_numbers_outside_their_format(name: str, value: int | float) -> None:
    """validate refuses a number outside the range of its int32, int64 or float format."""
    result = validate(NUMBERS, {"id": "a", name: value})
    assert not result.ok
    assert [e.pointer for e in result.errors] == [f"#/{name}"]


def test_an_accepted_required_query_array_reaches_the_query() -> None:
    """A required query array that validate accepts appears in the query string."""
    function = compiled({"parameters": [
        ID, query("tags", {"type": "array", "items": {"type": "string"}}, required=True),
    ]})
    arguments = {"id": "a", "tags": []}
    if validate(function, arguments).ok:
        url = build_request(function, arguments).url
        assert "tags" in parse_qs(urlsplit(str(url)).query, keep_blank_values=True)


FORM = compiled({"parameters": [ID], "requestBody": body(
    "application/x-www-form-urlencoded",
    {"type": "object", "required": ["Tags", "Definition"], "properties": {
        "Tags": {"type": "array", "items": {"type": "string"}},
        "Definition": {"description": "any JSON value"},
    }},
)})


@pytest.mark.parametrize("form", [
    {"Tags": [], "Definition": "{}"},
    {"Tags": ["a"], "Definition": None},
])
def test_an_accepted_required_form_property_reaches_the_body(form: dict[str, Any]) -> None:
    """Every required property of a form body that validate accepts is in the encoded body."""
    arguments = {"id": "a", "body": form}
    if validate(FORM, arguments).ok:
        sent = parse_qs(build_request(FORM, arguments).content.decode(), keep_blank_values=True)
        assert {"Tags", "Definition"} <= set(sent)


@pytest.mark.parametrize(("schema", "strict", "value"), [
    ({"type": "object", "properties": {"name": {"type": "string"}}}, True, {"name": None}),
    ({"type": "object", "properties": {"name": {"type": "string"}}}, False, {}),
    ({"type": "array", "items": {"type": "string"}}, False, []),
    ({"type": "array", "items": {"type": "string"}}, False, [""]),
])
def test_an_accepted_path_value_builds(schema: dict[str, Any], strict: bool, value: Any) -> None:
    """A path value validate accepts never makes build_request fail."""
    parameter = {"name": "id", "in": "path", "required": True, "schema": schema}
    function = compiled({"parameters": [parameter]}, "chatgpt" if strict else "3.1", strict)
    if validate(function, {"id": value}).ok:
        try:
            build_request(function, {"id": value})
        except RequestBuildError as exc:
            raise AssertionError(f"validate accepted {value!r}; build_request: {exc}") from exc


def test_an_accepted_required_binary_body_is_not_empty() -> None:
    """A required binary body that validate accepts is sent with at least one byte."""
    function = compiled({"parameters": [ID], "requestBody": body(
        "application/octet-stream", {"type": "string", "format": "binary"})})
    arguments = {"id": "a", "body": ""}
    if validate(function, arguments).ok:
        assert build_request(function, arguments).content


def test_an_accepted_required_json_body_is_sent() -> None:
    """A required JSON body that validate accepts is sent, `null` as the JSON text null."""
    function = compiled({"parameters": [ID], "requestBody": body(
        "application/json", {"properties": {"value": {"type": "string"}}, "required": ["value"]})})
    arguments = {"id": "a", "body": None}
    if validate(function, arguments).ok:
        assert build_request(function, arguments).content == b"null"
