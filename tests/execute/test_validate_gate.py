"""Kind 8 of issue 18 (the validate side): `validate` is the single gate, at least as strict as
the original document's own validator (openapi-core) on formats and required values."""

from __future__ import annotations

from typing import Any

import pytest

from httpllm.execute import build_request, validate

from .records import body, function, param

REFUSED: dict[str, list[Any]] = {
    "uri": ["not a uri", "http://x y", "/relative", "a b:c"],
    "email": ["nope", "@example.com", "a@", "a b@example.com"],
    "date-time": ["2024-01-01", "2024-01-01T00:00:00", "2024-13-01T00:00:00Z", "yesterday"],
    "date": ["20240101", "2024-1-1", "2024-02-30", "01/02/2024"],
    "uuid": ["123", "8c7b2f2e1a4f4e0b9c6a3b2f1a4f4e0", "zzzzzzzz-zzzz-zzzz-zzzz-zzzzzzzzzzzz"],
    "ipv4": ["1.2.3", "256.1.1.1"],
    "byte": ["not base64!", "abc"],
}


@pytest.mark.parametrize("fmt", sorted(REFUSED))
def test_validate_refuses_every_value_invalid_for_its_format(fmt: str) -> None:
    """Each value invalid for its format (so also each one openapi-core's 3.0 and 3.1 format
    checkers refuse) is refused in a body property and in a query parameter."""
    schema = {"type": "string", "format": fmt}
    fn = function(param("query", "q", schema),
                  body({"type": "object", "properties": {"v": schema}}, required=False),
                  method="post")
    for value in REFUSED[fmt]:
        refused = {e.pointer for e in validate(fn, {"q": value, "body": {"v": value}}).errors}
        assert refused == {"#/q", "#/body/v"}, (fmt, value)


def test_openapi_core_refuses_no_value_validate_accepts() -> None:
    """Valid values of each format pass validate; openapi-core's checkers accept them too."""
    from openapi_schema_validator import oas30_format_checker, oas31_format_checker
    valid = {"uri": "https://example.com/a?b=c", "email": "a@example.com",
             "date-time": "2024-01-31T09:30:00Z", "date": "2024-01-31",
             "uuid": "8c7b2f2e-1a4f-4e0b-9c6a-3b2f1a4f4e0b", "ipv4": "10.0.0.1",
             "byte": "aGVsbG8="}
    for fmt, value in valid.items():
        fn = function(param("query", "q", {"type": "string", "format": fmt}))
        assert validate(fn, {"q": value}).ok, fmt
        assert oas30_format_checker.conforms(value, fmt), fmt
        assert oas31_format_checker.conforms(value, fmt) or fmt == "byte", fmt


@pytest.mark.parametrize("explode", [True, False])
@pytest.mark.parametrize("value", [[], [None]])
def test_an_empty_array_for_a_required_query_parameter_is_refused(
    explode: bool, value: list[Any]
) -> None:
    """`[]` (and all-null members) would send no `tags` at all: an error, not a request."""
    fn = function(param("query", "tags", {"type": "array", "items": {"type": ["string",
                                                                            "null"]}},
                        required=True, explode=explode))
    errors = validate(fn, {"tags": value}).errors
    assert [(e.pointer, e.keyword) for e in errors] == [("#/tags", "required")]


def test_a_form_exploded_object_is_sent_as_openapi_defines() -> None:
    """`filter={"q": "x", "n": 2}` with form/explode is `q=x&n=2` (OpenAPI 3.1.0 4.8.12.5),
    the request openapi-core misreads (see fidelity.EXCLUSIONS)."""
    fn = function(param("query", "filter", {"type": "object"}, required=True))
    assert validate(fn, {"filter": {"q": "x", "n": 2}}).ok
    assert build_request(fn, {"filter": {"q": "x", "n": 2}}).url.query == b"q=x&n=2"


def test_a_value_matching_several_one_of_alternatives_is_reported() -> None:
    """Where the schema keeps an original `oneOf`, a body matching two alternatives is an
    error naming both and saying how to tell them apart."""
    mute = {"title": "Mute", "type": "object", "properties": {"action": {"enum": ["mute"]}}}
    hangup = {"title": "Hangup", "type": "object", "properties": {"action": {"enum": ["hangup"]}}}
    schema = {"type": "object", "properties": {"body": {"oneOf": [mute, hangup]}},
              "required": ["body"]}
    fn = function(body({"oneOf": [mute, hangup]}), method="put", schema=schema)
    result = validate(fn, {"body": {}})
    assert [(e.pointer, e.keyword) for e in result.errors] == [("#/body", "oneOf")]
    assert '(it matches "Mute", "Hangup")' in result.errors[0].expected
    assert validate(fn, {"body": {"action": "mute"}}).ok
