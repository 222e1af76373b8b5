"""Checking tool calls against the original schema, and the feedback a model reads."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from httpllm._limits import DEFAULT_LIMITS
from httpllm.errors import SchemaError
from httpllm.execute import ArgumentError, validate
from httpllm.execute.validate import _closing, _compiled

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


OPEN_MAP = {
    "type": "object",
    "properties": {"name": {"type": "string"}},
    "additionalProperties": {"type": "integer"},
}


@pytest.mark.parametrize(("dialect", "refused"), [
    ("llama", False), ("qwen", False),  # xgrammar keeps additionalProperties as written
    ("chatgpt", True), ("deepseek", True), ("claude", True), ("mistral", True),
])
def test_strict_validation_closes_objects_as_the_tool_does(dialect: str, refused: bool) -> None:
    """A strict function refuses a property its object's additionalProperties allows only
    where the dialect's tool closed that object (vLLM's grammar keeps it open)."""
    fn = replace(function(body(OPEN_MAP), strict=True), dialect=dialect)
    result = validate(fn, {"body": {"name": "a", "count": 3}})
    assert ("#/body/count" in errors_of(result)) is refused
    unsaid = {"type": "object", "properties": {"name": {"type": "string"}}}
    closed = validate(replace(function(body(unsaid), strict=True), dialect=dialect),
                      {"body": {"name": "a", "count": 3}})
    assert errors_of(closed)["#/body/count"].keyword == "additionalProperties"


def test_unknown_argument_is_an_error() -> None:
    """A top-level argument outside the parameter map is reported with the known names."""
    error = errors_of(validate(function(*WEATHER), {"city": "x", "town": "y"}))["#/town"]
    assert error.expected == 'no argument "town" (known: city, units, days)'


def test_the_feedback_is_bounded_whatever_the_model_sent() -> None:
    """The feedback lists the first 20 errors and counts the rest, and a name the model
    wrote is echoed cut: 200,000 unknown arguments (2.7 MB) came back as 13 MB of
    feedback, and a 300,000-character name twice whole."""
    arguments: dict[str, Any] = {"city": "x", "z" * 300_000: 1,
                                 **{f"a{i}": i for i in range(30)}}
    checked = validate(function(*WEATHER), arguments)
    assert len(checked.errors) == 31
    lines = checked.feedback().splitlines()
    assert len(lines) == 22 and lines[-1] == "- and 11 more errors not listed here"
    assert lines[1] == f"- {'z' * 159}…: expected no argument \"{'z' * 78}… (known: city, " \
        "units, days); received 1"
    assert len(checked.feedback()) < 2_000


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
    """Arguments nested deeper than `Limits.value_depth` give one error instead of
    crashing the validator."""
    value: list[Any] = []
    deep = value
    for _ in range(DEFAULT_LIMITS.value_depth + 5):
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


# --- numeric format ranges --------------------------------------------------------------------

NUMBERS = (
    param("query", "i32", {"type": "integer", "format": "int32"}),
    param("query", "i64", {"type": "integer", "format": "int64"}),
    param("query", "f32", {"type": "number", "format": "float"}),
    param("query", "f64", {"type": "number", "format": "double"}),
    param("query", "u8", {"type": "integer", "format": "uint8"}),
    param("query", "small", {"type": "integer", "format": "int32", "maximum": 10}),
    param("query", "loose", {"type": "integer", "format": "int32", "maximum": 2**40}),
)


@pytest.mark.parametrize(("name", "value", "fmt"), [
    ("i32", 2**31, "int32"), ("i32", -(2**31) - 1, "int32"),
    ("i64", 2**63, "int64"), ("i64", -(2**63) - 1, "int64"),
    ("f32", 1e39, "float"), ("f32", -1e39, "float"),
    ("f64", 10**400, "double"), ("u8", -1, "uint8"), ("u8", 256, "uint8"),
    ("loose", 2**31, "int32"),
])
def test_a_number_outside_its_format_names_the_format(name: str, value: Any, fmt: str) -> None:
    """A number outside the range of its numeric format is one `format` error naming it."""
    result = validate(function(*NUMBERS), {name: value})
    assert [(e.pointer, e.keyword) for e in result.errors] == [(f"#/{name}", "format")]
    error = result.errors[0]
    assert f"in the {fmt} range" in error.expected
    assert error.schema_pointer == f"#/properties/{name}/format"


@pytest.mark.parametrize(("name", "value"), [
    ("i32", 2**31 - 1), ("i32", -(2**31)), ("i64", 2**63 - 1), ("i64", -(2**63)),
    ("f32", 3.4028234663852886e38), ("f64", 1.7976931348623157e308), ("u8", 255),
])
def test_numbers_at_the_ends_of_their_format_are_accepted(name: str, value: Any) -> None:
    """The extreme values of each numeric format are valid."""
    assert validate(function(*NUMBERS), {name: value}).ok


def test_a_tighter_own_bound_is_reported_as_itself() -> None:
    """A schema bound tighter than the format's range is reported as that bound."""
    error = errors_of(validate(function(*NUMBERS), {"small": 2**31}))["#/small"]
    assert (error.keyword, error.expected) == ("maximum", "a number <= 10")


def test_format_ranges_apply_through_refs_and_leave_the_schema_alone() -> None:
    """A numeric format under `$defs` is bounded too; the function's schema is not changed."""
    schema = {
        "type": "object",
        "properties": {"n": {"$ref": "#/$defs/Count"}},
        "$defs": {"Count": {"type": "integer", "format": "int32"}},
    }
    fn = function(param("query", "n", {"$ref": "#/$defs/Count"}), schema=schema)
    error = validate(fn, {"n": 2**31}).errors[0]
    assert (error.pointer, error.keyword) == ("#/n", "format")
    assert error.schema_pointer == "#/$defs/Count/format"
    assert schema["$defs"] == {"Count": {"type": "integer", "format": "int32"}}


def test_the_validator_is_compiled_once_per_function() -> None:
    """A second call reuses the validator compiled from the function's bounded schema."""
    fn = function(*NUMBERS)
    validate(fn, {"i32": 1})
    first = _compiled.get(fn.schema, _closing(fn))
    validate(fn, {"i32": 2**31})
    assert first is not None and _compiled.get(fn.schema, _closing(fn)) is first


# --- values the request would not carry ---------------------------------------------------------


@pytest.mark.parametrize(("value", "wanted"), [
    ([], "at least one item"), ([None], "at least one item that is not null"),
    ({}, "at least one property"),
    ({"a": None}, "at least one property whose value is sent (null, [], {} and arrays of nulls "
                  "send nothing)"),
    (None, "a value other than null"),
])
def test_a_required_query_value_that_sends_nothing_is_refused(value: Any, wanted: str) -> None:
    """null, [] and {} (or only null members) for a required query parameter are refused."""
    fn = function(param("query", "q", {}, required=True))
    error = errors_of(validate(fn, {"q": value}))["#/q"]
    assert error.keyword == "required"
    assert error.expected.startswith(f"{wanted} (required query parameter;")
    assert "would send nothing" in error.message


def test_optional_parameters_may_send_nothing() -> None:
    """[] or null for an optional parameter means "not given" and is fine."""
    fn = function(param("query", "q", {}), param("header", "X-H", {}), param("cookie", "c", {}))
    assert validate(fn, {"q": [], "X-H": None, "c": {}}).ok


def test_required_headers_and_cookies_that_send_nothing_are_refused() -> None:
    """A required header or cookie whose value expands to nothing is refused; an ignored
    header (Accept) is not, it is never sent."""
    fn = function(
        param("header", "X-Ids", {}, required=True),
        param("cookie", "session", {}, required=True),
        param("header", "Accept", {}, required=True),
    )
    result = validate(fn, {"X-Ids": [], "session": None, "Accept": None})
    assert [(e.pointer, e.keyword) for e in result.errors] == [
        ("#/X-Ids", "required"), ("#/session", "required"),
    ]


def test_a_value_the_schema_refuses_is_reported_once() -> None:
    """When the schema already refuses the value (minItems), no second error is added."""
    fn = function(param("query", "q", {"type": "array", "minItems": 1}, required=True))
    assert [e.keyword for e in validate(fn, {"q": []}).errors] == ["minItems"]


FORM_SCHEMA = {
    "type": "object",
    "required": ["Tags", "Note"],
    "properties": {"Tags": {"type": "array"}, "Note": {}, "Extra": {"type": "array"}},
}


@pytest.mark.parametrize("media_type", ["application/x-www-form-urlencoded",
                                        "multipart/form-data"])
def test_required_form_properties_that_send_nothing_are_refused(media_type: str) -> None:
    """[] or null for a required form property is refused; for an optional one it is fine."""
    fn = function(body(FORM_SCHEMA, media_type), method="post")
    result = validate(fn, {"body": {"Tags": [], "Note": None, "Extra": []}})
    assert [(e.pointer, e.keyword) for e in result.errors] == [
        ("#/body/Tags", "required"), ("#/body/Note", "required"),
    ]
    assert "form property" in result.errors[0].expected or "multipart part" in (
        result.errors[0].expected
    )
    assert validate(fn, {"body": {"Tags": ["a"], "Note": "n", "Extra": []}}).ok


def test_form_properties_are_required_as_the_body_schema_says() -> None:
    """`required` under `$ref`/`allOf` counts; a property the body does not require does not."""
    schema = {
        "type": "object",
        "properties": {"body": {"allOf": [{"$ref": "#/$defs/Form"}]}},
        "required": ["body"],
        "$defs": {"Form": {"type": "object", "required": ["Tags"],
                           "properties": {"Tags": {"type": "array"}, "More": {}}}},
    }
    fn = function(body(schema["properties"]["body"], "application/x-www-form-urlencoded"),
                  schema=schema, method="post")
    result = validate(fn, {"body": {"Tags": [], "More": None}})
    assert [e.pointer for e in result.errors] == ["#/body/Tags"]


@pytest.mark.parametrize(("schema", "value"), [
    ({"type": "object", "properties": {"a": {"type": "string"}}}, {}),
    ({"type": "object", "properties": {"a": {}}}, {"a": None}),
    ({"type": "array", "items": {"type": "string"}}, []),
    ({"type": "array", "items": {"type": "string"}}, [""]),
    ({"type": ["string", "null"]}, None),
])
def test_a_path_value_that_expands_to_nothing_is_refused(schema: Any, value: Any) -> None:
    """A path value whose expansion is empty is a `path` error, before anything is built."""
    fn = function(param("path", "id", schema), path="/users/{id}")
    error = errors_of(validate(fn, {"id": value}))["#/id"]
    assert error.keyword == "path"
    assert error.expected.startswith("a value that fills the path segment")


def test_a_path_value_that_expands_to_a_dot_segment_is_refused() -> None:
    """label style "" expands to "." and an array [".."] to "..": both are refused."""
    label = function(param("path", "id", style="label"), path="/users/{id}")
    assert errors_of(validate(label, {"id": ""}))["#/id"].keyword == "path"
    listed = function(param("path", "id", {"type": "array"}), path="/users/{id}")
    error = errors_of(validate(listed, {"id": [".."]}))["#/id"]
    assert "path segment" in error.expected


@pytest.mark.parametrize("media_type", ["application/octet-stream", "text/plain",
                                        "application/x-www-form-urlencoded"])
def test_a_required_body_of_no_bytes_is_refused(media_type: str) -> None:
    """"" as a required binary or text body, or an empty form, encodes to 0 bytes: refused."""
    value: Any = {} if "form" in media_type else ""
    fn = function(body({}, media_type), method="post")
    error = errors_of(validate(fn, {"body": value}))["#/body"]
    assert error.keyword == "required"
    assert "0 bytes" in error.expected
    optional = function(body({}, media_type, required=False), method="post")
    assert validate(optional, {"body": value}).ok


def test_a_body_a_file_fills_is_not_checked_for_bytes() -> None:
    """A required binary body that a file fills is not reported as empty."""
    fn = function(body({"type": "string"}, "application/octet-stream"), method="post")
    assert validate(fn, {}, files={"#/body": b"x"}).ok


def test_a_required_body_that_is_null_is_refused() -> None:
    """null for a required body without an explicit null type would send no body: refused."""
    fn = function(body({"properties": {"a": {"type": "string"}}}), method="post")
    error = errors_of(validate(fn, {"body": None}))["#/body"]
    assert (error.keyword, error.received) == ("required", "null")
    form = function(body({"type": ["object", "null"]}, "application/x-www-form-urlencoded"))
    assert not validate(form, {"body": None}).ok


def test_a_required_json_body_that_allows_null_accepts_null() -> None:
    """A required JSON body whose schema explicitly allows null takes null."""
    fn = function(body({"anyOf": [{"type": "object"}, {"type": "null"}]}), method="post")
    assert validate(fn, {"body": None}).ok


@pytest.mark.parametrize("media_type", ["application/x-www-form-urlencoded",
                                        "multipart/form-data"])
def test_a_null_item_of_a_form_array_is_refused(media_type: str) -> None:
    """A form field or part has no null: a null item of an array property sent by its
    media type would be left out, the array sent one item short, so validate refuses it
    at the item's pointer (an array with an Encoding `style` follows RFC 6570, where null
    is undefined, and is not refused)."""
    schema = {"type": "object", "properties": {
        "tags": {"type": "array", "items": {"type": ["string", "null"]}},
        "ids": {"type": "array", "items": {"type": ["string", "null"]}}}}
    fn = function(body(schema, media_type, encoding={"ids": {"style": "form"}}))
    result = validate(fn, {"body": {"tags": ["a", None, "b"], "ids": ["x", None]}})
    assert [(e.pointer, e.keyword) for e in result.errors] == [("#/body/tags/1", "null")]
    assert result.errors[0].expected.startswith("an item other than null")
