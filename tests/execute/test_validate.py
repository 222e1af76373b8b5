"""Checking tool calls against the original schema, and the feedback a model reads."""

from __future__ import annotations

from typing import Any

import pytest

from httpllm.errors import SchemaError
from httpllm.execute import ArgumentError, validate
from httpllm.execute.validate import MAX_DEPTH

from .records import body, function, param

WEATHER = (
    param("query", "city", {"type": "string"}, required=True),
    param("query", "units", {"type": "string", "enum": ["metric", "imperial"]}),
    param("query", "days", {"type": "integer", "minimum": 1, "maximum": 16}),
)


def errors_of(result: Any) -> dict[str, ArgumentError]:
    """The errors of a result by pointer."""
    return {e.pointer: e for e in result.errors}


def test_a_valid_call_is_ok_with_no_feedback() -> None:
    """A call matching the schema is ok, keeps its arguments and has empty feedback."""
    result = validate(function(*WEATHER, name="getWeather"), '{"city": "Oslo", "days": 3}')
    assert result.ok
    assert result.arguments == {"city": "Oslo", "days": 3}
    assert result.errors == ()
    assert result.feedback() == ""


def test_enum_error_says_expected_and_received() -> None:
    """A value outside an enum is reported with the allowed values and the value received."""
    result = validate(function(*WEATHER), {"city": "Oslo", "units": "kelvin"})
    error = errors_of(result)["#/units"]
    assert error.keyword == "enum"
    assert error.expected == 'one of "metric", "imperial"'
    assert error.received == '"kelvin"'
    assert error.message == 'units: expected one of "metric", "imperial"; received "kelvin"'


def test_type_error_names_the_received_type() -> None:
    """A wrong type names the expected type and the type of what was received."""
    result = validate(function(*WEATHER), {"city": "Oslo", "days": "three"})
    error = errors_of(result)["#/days"]
    assert (error.keyword, error.expected, error.received) == (
        "type",
        "an integer",
        '"three" (a string)',
    )


def test_missing_required_argument_points_at_it() -> None:
    """A missing required property is reported at its own pointer, received nothing."""
    error = errors_of(validate(function(*WEATHER), {}))["#/city"]
    assert (error.keyword, error.received) == ("required", "nothing")
    assert "required" in error.expected


def test_bounds_are_enforced() -> None:
    """Numeric bounds the dialect may have stripped are still enforced."""
    error = errors_of(validate(function(*WEATHER), {"city": "x", "days": 40}))["#/days"]
    assert (error.keyword, error.expected, error.received) == ("maximum", "a number <= 16", "40")


def test_formats_are_asserted() -> None:
    """format date-time, email and byte are checked, with a hint for dates."""
    fn = function(
        param("query", "since", {"type": "string", "format": "date-time"}),
        param("query", "mail", {"type": "string", "format": "email"}),
        param("query", "blob", {"type": "string", "format": "byte"}),
    )
    result = validate(fn, {"since": "yesterday", "mail": "nope", "blob": "***"})
    found = errors_of(result)
    assert found["#/since"].expected.startswith("a valid date-time string (RFC 3339")
    assert found["#/mail"].keyword == "format"
    assert found["#/blob"].keyword == "format"
    assert validate(fn, {"since": "2024-01-31T09:30:00Z", "mail": "a@b.co", "blob": "AAE="}).ok


def test_ecma_patterns_with_named_groups_are_enforced() -> None:
    """ECMA-262 patterns that Python's re rejects, like named groups (?<y>...), work."""
    fn = function(param("query", "year", {"type": "string", "pattern": r"^(?<y>\d{4})$"}))
    assert validate(fn, {"year": "2024"}).ok
    error = errors_of(validate(fn, {"year": "24"}))["#/year"]
    assert error.expected == r"a string matching the pattern ^(?<y>\d{4})$"


def test_unexpected_property_lists_allowed_names() -> None:
    """A property outside a closed object is reported at its pointer with the allowed names."""
    schema = {
        "type": "object",
        "properties": {"name": {"type": "string"}},
        "additionalProperties": False,
    }
    result = validate(function(body(schema)), {"body": {"name": "a", "nmae": "b"}})
    error = errors_of(result)["#/body/nmae"]
    assert error.expected == 'no property "nmae" (allowed: name)'
    assert error.received == '"b"'


def test_unknown_argument_is_an_error() -> None:
    """A top-level argument outside the parameter map is reported with the known names."""
    error = errors_of(validate(function(*WEATHER), {"city": "x", "town": "y"}))["#/town"]
    assert error.expected == 'no argument "town" (known: city, units, days)'


def test_nullable_union_reports_the_branch_that_fits() -> None:
    """For anyOf [enum string, null], a wrong string is reported against the string branch."""
    units = {"anyOf": [{"type": "string", "enum": ["metric", "imperial"]}, {"type": "null"}]}
    error = errors_of(validate(function(param("query", "units", units)), {"units": "k"}))["#/units"]
    assert error.keyword == "enum"


def test_union_with_no_fitting_branch_lists_each_type() -> None:
    """When no alternative fits the value's type, the error lists every alternative's type."""
    either = {"anyOf": [{"type": "integer"}, {"type": "null"}]}
    error = errors_of(validate(function(param("query", "n", either)), {"n": "x"}))["#/n"]
    assert (error.keyword, error.expected) == ("anyOf", "an integer or null")


def test_discriminated_union_reports_errors_of_the_tagged_variant() -> None:
    """With tagged variants, errors come from the variant whose tag matches the value."""
    cat = {
        "type": "object",
        "required": ["kind", "lives"],
        "properties": {"kind": {"enum": ["cat"]}, "lives": {"type": "integer"}},
    }
    dog = {
        "type": "object",
        "required": ["kind", "bark"],
        "properties": {"kind": {"enum": ["dog"]}, "bark": {"type": "string"}},
    }
    fn = function(body({"anyOf": [cat, dog]}))
    result = validate(fn, {"body": {"kind": "dog", "bark": 3}})
    assert list(errors_of(result)) == ["#/body/bark"]


def test_feedback_names_the_function_and_each_wrong_argument() -> None:
    """The feedback is one text naming the function, each path, expected and received."""
    result = validate(function(*WEATHER, name="getWeather"), {"units": "kelvin", "days": 0})
    assert result.feedback() == "\n".join(
        [
            "Invalid arguments for getWeather; nothing was sent. Fix these and call getWeather"
            " again:",
            '- city: expected a value (required property "city"); received nothing',
            '- units: expected one of "metric", "imperial"; received "kelvin"',
            "- days: expected a number >= 1; received 0",
        ]
    )


def test_text_that_is_not_json_gives_feedback_not_a_crash() -> None:
    """Arguments that are not JSON give a failed result with feedback and no arguments."""
    result = validate(function(*WEATHER, name="getWeather"), '{"city": "Oslo",')
    assert not result.ok
    assert result.arguments is None
    assert result.errors[0].keyword == "json"
    assert "(the arguments object): expected a JSON object of arguments" in result.feedback()


def test_value_that_is_not_an_object_gives_feedback() -> None:
    """A JSON array instead of an object is a failed result naming what was received."""
    result = validate(function(*WEATHER), "[1]")
    assert result.errors[0].message == (
        "(the arguments object): expected a JSON object of arguments; received [1]"
    )


def test_strict_call_is_decoded_before_validation() -> None:
    """C17: a strict call with nulls for optional arguments validates after decoding."""
    result = validate(function(*WEATHER, strict=True), '{"city":"Oslo","units":null,"days":null}')
    assert result.ok
    assert result.arguments == {"city": "Oslo"}


def test_empty_query_value_without_allow_empty_value_is_an_error() -> None:
    """An empty string for a query parameter is an error unless it allows empty values."""
    strict_q = param("query", "q")
    lax_q = param("query", "r", allow_empty_value=True)
    result = validate(function(strict_q, lax_q), {"q": "", "r": ""})
    assert list(errors_of(result)) == ["#/q"]
    assert errors_of(result)["#/q"].message == (
        'q: expected a non-empty value, or leave the argument out; received ""'
    )


@pytest.mark.parametrize("value", ["", ".", ".."])
def test_path_value_that_would_empty_or_climb_the_path_is_an_error(value: str) -> None:
    """A path parameter of "", "." or ".." is refused before anything is built."""
    fn = function(param("path", "id"), path="/users/{id}")
    assert errors_of(validate(fn, {"id": value}))["#/id"].keyword == "path"


def test_host_arguments_are_merged_and_win() -> None:
    """Host arguments fill and override the model's before validation."""
    result = validate(function(*WEATHER), {"city": 3}, host_arguments={"city": "Oslo"})
    assert result.ok
    assert result.arguments == {"city": "Oslo"}


def test_errors_at_file_pointers_are_not_reported() -> None:
    """A required binary property that a file fills is not reported as missing."""
    schema = {
        "type": "object",
        "required": ["file", "title"],
        "properties": {"file": {"type": "string", "format": "binary"}, "title": {"type": "string"}},
    }
    fn = function(body(schema, "multipart/form-data"))
    result = validate(fn, {"body": {}}, files={"#/body/file": b"x"})
    assert list(errors_of(result)) == ["#/body/title"]


def test_too_deep_arguments_are_refused_before_the_validator() -> None:
    """Arguments nested deeper than MAX_DEPTH give one error instead of crashing the validator."""
    value: list[Any] = []
    deep = value
    for _ in range(MAX_DEPTH + 5):
        deep.append([])
        deep = deep[0]
    result = validate(function(body({"type": "array"})), {"body": value})
    assert [e.keyword for e in result.errors] == ["depth"]
    assert result.arguments is None


def test_non_json_host_value_is_reported() -> None:
    """A host argument that is not a JSON value is reported, not raised."""
    result = validate(function(*WEATHER), {"city": "x"}, host_arguments={"days": object()})
    assert result.errors[0].keyword == "json"


def test_invalid_function_schema_raises_schema_error() -> None:
    """A function whose schema is not valid JSON Schema raises SchemaError."""
    fn = function(schema={"type": "object", "properties": {"a": {"type": 12}}})
    with pytest.raises(SchemaError):
        validate(fn, {})


def test_error_records_serialize_to_json() -> None:
    """Each ArgumentError turns into a flat JSON object."""
    error = validate(function(*WEATHER), {"city": 1}).errors[0]
    assert error.to_json() == {
        "pointer": "#/city",
        "keyword": "type",
        "expected": "a string",
        "received": "1 (an integer)",
        "message": "city: expected a string; received 1 (an integer)",
    }
