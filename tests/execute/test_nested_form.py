"""Kind 9 of issue 18: what OpenAPI leaves undefined in `deepObject` values and form bodies
(arrays, arrays of objects) is sent with indexed brackets, as Stripe, Rails, PHP and Express
read it; OpenAPI's defined rules stay as they are; `repeat` is the override."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import unquote

import httpx
import pytest

from httpllm import compile
from httpllm.execute import build_request, execute, validate

from .records import body, function, param

FORM = "application/x-www-form-urlencoded"
CUSTOMER: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "expand": {"type": "array", "items": {"type": "string"}},
        "tags": {"type": "array", "items": {"type": "string"}},
        "tax_id_data": {"type": "array", "items": {
            "type": "object", "properties": {"type": {"type": "string"},
                                             "value": {"type": "string"}}}},
        "invoice_settings": {"type": "object", "properties": {"custom_fields": {
            "type": "array", "items": {"type": "object", "properties": {
                "name": {"type": "string"}, "value": {"type": "string"}}}}}},
        "metadata": {"type": "object", "additionalProperties": {"type": "string"}},
    },
}
DEEP = {"explode": True, "style": "deepObject"}
STRIPE_LIKE = body(CUSTOMER, FORM, encoding={
    "expand": DEEP, "tax_id_data": DEEP, "invoice_settings": DEEP, "metadata": DEEP})
VALUE = {
    "name": "A B",
    "expand": ["a", "b"],
    "tags": ["x", "y"],
    "tax_id_data": [{"type": "eu_vat", "value": "DE1"}],
    "invoice_settings": {"custom_fields": [{"name": "n", "value": "v"}]},
    "metadata": {"k": "v"},
}


def sent(request: httpx.Request) -> str:
    """The form body with brackets shown as brackets."""
    return unquote(request.content.decode("ascii"))


def test_deep_object_arrays_get_indexed_brackets(live_server: str) -> None:
    """The echo server receives `expand[0]=a`, `tax_id_data[0][type]=...` and nested arrays
    in objects by index, while an undeclared array keeps form's repeated key."""
    fn = function(STRIPE_LIKE, method="post")
    with httpx.Client() as client:
        result = execute(fn, {"body": VALUE}, client=client, base_url=live_server)
    assert unquote(result.body["body"]) == (
        "name=A B&expand[0]=a&expand[1]=b&tags=x&tags=y"
        "&tax_id_data[0][type]=eu_vat&tax_id_data[0][value]=DE1"
        "&invoice_settings[custom_fields][0][name]=n&invoice_settings[custom_fields][0][value]=v"
        "&metadata[k]=v"
    )


def test_an_array_of_objects_without_encoding_gets_brackets() -> None:
    """Without an Encoding Object an array of objects is bracketed, not JSON text."""
    fn = function(body(CUSTOMER, FORM), method="post")
    request = build_request(fn, {"body": {"tax_id_data": [{"type": "t", "value": "v"}],
                                          "metadata": {"k": "v"}}})
    # An object stays JSON text: OpenAPI 3.1.1 defaults its contentType to application/json.
    assert sent(request) == 'tax_id_data[0][type]=t&tax_id_data[0][value]=v&metadata={"k":"v"}'


def test_defined_rules_are_unchanged() -> None:
    """deepObject objects, form arrays of primitives and an object's JSON text are as OpenAPI
    says, whatever the form style."""
    for style in ("brackets", "repeat"):
        fn = function(
            param("query", "filter", {"type": "object"}, style="deepObject", explode=True),
            param("query", "ids", {"type": "array", "items": {"type": "integer"}}),
            extra={"form_style": style},
        )
        request = build_request(fn, {"filter": {"a": "1", "b": "2"}, "ids": [1, 2]})
        assert unquote(request.url.query.decode()) == "filter[a]=1&filter[b]=2&ids=1&ids=2"


def test_a_deep_object_query_array_gets_indexed_brackets() -> None:
    """A deepObject query array (Stripe's `expand`) is `expand[0]=...`."""
    fn = function(param("query", "expand", {"type": "array", "items": {"type": "string"}},
                        style="deepObject", explode=True))
    request = build_request(fn, {"expand": ["data.x", "y"]})
    assert unquote(request.url.query.decode()) == "expand[0]=data.x&expand[1]=y"


def test_repeat_restores_repeated_keys_and_json_text() -> None:
    """`form_style="repeat"` sends deepObject arrays as repeated keys and objects in arrays
    as JSON text."""
    fn = function(STRIPE_LIKE, method="post", extra={"form_style": "repeat"})
    request = build_request(fn, {"body": {"expand": ["a", "b"],
                                          "tax_id_data": [{"type": "t"}]}})
    assert sent(request) == 'expand=a&expand=b&tax_id_data={"type":"t"}'
    plain = function(body(CUSTOMER, FORM), method="post", extra={"form_style": "repeat"})
    request = build_request(plain, {"body": {"tax_id_data": [{"type": "t"}]}})
    assert sent(request) == 'tax_id_data={"type":"t"}'


def test_a_required_empty_array_is_still_refused() -> None:
    """Brackets send nothing for `[]`, so a required deepObject array stays an error."""
    fn = function(param("query", "expand", {"type": "array"}, style="deepObject",
                        explode=True, required=True))
    assert [e.pointer for e in validate(fn, {"expand": []}).errors] == ["#/expand"]


DOCUMENT: dict[str, Any] = {
    "openapi": "3.1.0",
    "info": {"title": "forms", "version": "1"},
    "servers": [{"url": "https://api.example.com"}],
    "paths": {"/a": {"post": {
        "operationId": "postA",
        "requestBody": {"content": {FORM: {"schema": CUSTOMER, "encoding": {"expand": DEEP}}}},
        "responses": {"200": {"description": "ok"}},
    }}, "/b": {"post": {
        "operationId": "postB",
        "x-httpllm-form-style": "brackets",
        "requestBody": {"content": {FORM: {"schema": CUSTOMER, "encoding": {"expand": DEEP}}}},
        "responses": {"200": {"description": "ok"}},
    }}},
}


@pytest.mark.parametrize(
    ("options", "root", "a", "b"),
    [
        ({}, None, "expand[0]=x", "expand[0]=x"),
        ({"form_style": "repeat"}, None, "expand=x", "expand[0]=x"),
        ({}, "repeat", "expand=x", "expand[0]=x"),
    ],
)
def test_the_choice_is_per_document_and_per_operation(
    options: dict[str, Any], root: str | None, a: str, b: str
) -> None:
    """compile(form_style=) and the document's extension set it; an operation's own
    `x-httpllm-form-style` wins."""
    doc = {**DOCUMENT, **({"x-httpllm-form-style": root} if root else {})}
    app = compile(doc, "3.1", **options)
    for name, expected in (("postA", a), ("postB", b)):
        request = build_request(app.function(name), {"body": {"expand": ["x"]}})
        assert sent(request) == expected


def test_an_unknown_choice_is_an_operation_error() -> None:
    """An unknown `x-httpllm-form-style` fails that operation alone, naming the values."""
    doc: dict[str, Any] = {**DOCUMENT, "paths": {**DOCUMENT["paths"]}}
    doc["paths"]["/a"] = {"post": {**DOCUMENT["paths"]["/a"]["post"],
                                   "x-httpllm-form-style": "php"}}
    app = compile(doc, "3.1")
    assert [f.name for f in app.functions] == ["postB"]
    assert "brackets, repeat" in app.errors[0].message


def test_stripe_operations_read_as_stripe_expects(specs_dir: Path) -> None:
    """Stripe's own POST /v1/customers and GET /v1/customers serialize `expand`,
    `tax_id_data` and `created` the way Stripe reads them."""
    app = compile(specs_dir / "real" / "stripe" / "spec3.yaml", "3.1",
                  include=["POST /v1/customers", "GET /v1/customers"])
    post, get = app.function("PostCustomers"), app.function("GetCustomers")
    args = {"body": {"expand": ["a"], "tax_id_data": [{"type": "eu_vat", "value": "DE1"}],
                     "invoice_settings": {"custom_fields": [{"name": "n", "value": "v"}]}}}
    assert validate(post, args).ok
    request = build_request(post, args, auth={"bearerAuth": "sk_test"})
    assert sent(request) == (
        "expand[0]=a&tax_id_data[0][type]=eu_vat&tax_id_data[0][value]=DE1"
        "&invoice_settings[custom_fields][0][name]=n&invoice_settings[custom_fields][0][value]=v"
    )
    request = build_request(get, {"expand": ["data.x"], "created": {"gt": 5}},
                            auth={"bearerAuth": "sk_test"})
    assert unquote(request.url.query.decode()) == "created[gt]=5&expand[0]=data.x"
