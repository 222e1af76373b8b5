"""Parsing a tool call and undoing strict-mode rewrites, guided by the original schema."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest

import httpllm
from httpllm.errors import InvalidArguments
from httpllm.execute import build_request, decode
from httpllm.execute.decode import alternatives, parse
from httpllm.loss import Loss
from httpllm.records import Function

from .records import body, function, param

C17_ARGUMENTS = (
    param("query", "city", {"type": "string"}, required=True),
    param("query", "units", {"type": "string", "enum": ["metric", "imperial"]}),
    param("query", "days", {"type": "integer"}),
)

C15_BODY = {
    "type": "object",
    "required": ["name", "labels"],
    "properties": {
        "name": {"type": "string"},
        "labels": {"type": "object", "additionalProperties": {"type": "string"}},
        "settings": {"type": "object", "additionalProperties": True},
    },
}


def test_strict_nulls_for_optional_arguments_are_omitted() -> None:
    """C17: in strict mode a null for an optional parameter means it was not given."""
    weather = function(*C17_ARGUMENTS, strict=True)
    text = '{"city": "Oslo", "units": null, "days": null}'
    assert decode(weather, text) == {"city": "Oslo"}


def test_strict_null_for_required_argument_is_kept() -> None:
    """A null for a required property is kept, so validation can report it."""
    weather = function(*C17_ARGUMENTS, strict=True)
    assert decode(weather, {"city": None, "units": "metric"}) == {"city": None, "units": "metric"}


def test_optional_and_nullable_null_is_omitted_in_strict_mode() -> None:
    """An optional property whose original schema accepts null is omitted too when null."""
    note = param("query", "note", {"anyOf": [{"type": "string"}, {"type": "null"}]})
    assert decode(function(note, strict=True), {"note": None}) == {}


def test_required_nullable_null_is_kept() -> None:
    """A required property whose original schema accepts null keeps its null."""
    note = param("query", "note", {"anyOf": [{"type": "string"}, {"type": "null"}]}, required=True)
    assert decode(function(note, strict=True), {"note": None}) == {"note": None}


def test_non_strict_functions_are_only_parsed() -> None:
    """Without strict mode nothing is rewritten: nulls, entries and strings stay as sent."""
    weather = function(*C17_ARGUMENTS)
    raw = {"city": "Oslo", "units": None}
    assert decode(weather, json.dumps(raw)) == raw


def test_nested_optional_nulls_in_the_body_are_omitted() -> None:
    """Optional nulls are dropped at every depth of the body, required ones kept."""
    schema = {
        "type": "object",
        "required": ["user"],
        "properties": {
            "user": {
                "type": "object",
                "required": ["id", "manager"],
                "properties": {
                    "id": {"type": "string"},
                    "nick": {"type": "string"},
                    "manager": {"anyOf": [{"type": "string"}, {"type": "null"}]},
                    "tags": {
                        "type": "array",
                        "items": {"type": "object", "properties": {"x": {"type": "integer"}}},
                    },
                },
            }
        },
    }
    fn = function(body(schema), strict=True)
    sent = {"body": {"user": {"id": "u", "nick": None, "manager": None, "tags": [{"x": None}]}}}
    assert decode(fn, sent) == {"body": {"user": {"id": "u", "manager": None, "tags": [{}]}}}


def test_typed_map_entries_become_a_map() -> None:
    """C15: an array of {key, value} entries where the schema has a typed map becomes that map."""
    fn = function(body(C15_BODY), strict=True)
    sent = {
        "body": {
            "name": "web",
            "labels": [{"key": "tier", "value": "front"}, {"key": "team", "value": "a"}],
            "settings": None,
        }
    }
    assert decode(fn, sent) == {"body": {"name": "web", "labels": {"tier": "front", "team": "a"}}}


def test_free_form_map_entries_carry_json_text_values() -> None:
    """C15: entries of a free-form map carry JSON text values, decoded back to JSON values."""
    fn = function(body(C15_BODY), strict=True)
    settings = [
        {"key": "replicas", "value": "3"},
        {"key": "env", "value": '{"A": "1"}'},
        {"key": "mode", "value": "fast"},
    ]
    sent = {"body": {"name": "web", "labels": [], "settings": settings}}
    assert decode(fn, sent)["body"] == {
        "name": "web",
        "labels": {},
        "settings": {"replicas": 3, "env": {"A": "1"}, "mode": "fast"},
    }


@pytest.mark.parametrize("provider", ["chatgpt", "claude", "mistral", "deepseek"])
def test_pattern_properties_map_entries_become_a_map(provider: str) -> None:
    """An object with `patternProperties` and no `properties` is a map that strict modes
    send as entries: they become the map again (they stayed a list, which validate refused:
    no valid call could be made)."""
    import httpllm

    schema = {"type": "object", "properties": {"headers": {
        "type": "object", "patternProperties": {"^x-": {"type": "string"}}}}}
    doc = {"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
           "servers": [{"url": "https://api.example.com"}],
           "paths": {"/h": {"post": {"operationId": "put", "requestBody": {
               "required": True, "content": {"application/json": {"schema": schema}}},
               "responses": {"200": {"description": "ok"}}}}}}
    app = httpllm.compile(doc, provider, strict=True)
    fn = app.function("put")
    assert fn.strict
    sent = {"body": {"headers": [{"key": "x-a", "value": '"1"'}]}}
    assert decode(fn, sent) == {"body": {"headers": {"x-a": "1"}}}
    assert app.validate("put", sent).ok


def test_later_entry_with_the_same_key_wins() -> None:
    """Duplicate entry keys resolve as duplicate JSON names do: the last one wins."""
    fn = function(body(C15_BODY), strict=True)
    labels = [{"key": "a", "value": "1"}, {"key": "a", "value": "2"}]
    assert decode(fn, {"body": {"name": "n", "labels": labels}})["body"]["labels"] == {"a": "2"}


def test_json_string_becomes_the_object_the_schema_wants() -> None:
    """A JSON-encoded string where the original schema wants an object is decoded."""
    schema = {"type": "object", "properties": {"meta": {"type": "object"}}}
    fn = function(body(schema), strict=True)
    sent = {"body": {"meta": '{"a": [1, null], "b": {"c": null}}'}}
    assert decode(fn, sent) == {"body": {"meta": {"a": [1, None], "b": {"c": None}}}}


def test_json_string_for_an_untyped_node_is_decoded() -> None:
    """An untyped (any) node travels as JSON text in strict mode and is decoded back."""
    fn = function(body({"type": "object", "properties": {"v": {}}}), strict=True)
    assert decode(fn, {"body": {"v": "[1, 2]"}}) == {"body": {"v": [1, 2]}}
    assert decode(fn, {"body": {"v": '"x"'}}) == {"body": {"v": "x"}}


def test_non_json_string_where_an_object_is_wanted_is_kept() -> None:
    """A string that is not JSON is kept as it is, for validation to report."""
    schema = {"type": "object", "properties": {"meta": {"type": "object"}}}
    fn = function(body(schema), strict=True)
    assert decode(fn, {"body": {"meta": "{not json"}}) == {"body": {"meta": "{not json"}}


def test_strings_the_schema_accepts_are_never_decoded() -> None:
    """A string where the original schema accepts a string stays a string, even if JSON."""
    schema = {"anyOf": [{"type": "string"}, {"type": "object"}]}
    fn = function(param("query", "q", schema), strict=True)
    assert decode(fn, {"q": '{"a": 1}'}) == {"q": '{"a": 1}'}


def test_recursive_refs_are_followed_through_defs() -> None:
    """Recursive schemas under $defs are walked: nested optional nulls are dropped."""
    schema = {
        "type": "object",
        "properties": {"body": {"$ref": "#/$defs/Node"}},
        "required": ["body"],
        "$defs": {
            "Node": {
                "type": "object",
                "required": ["name"],
                "properties": {
                    "name": {"type": "string"},
                    "child": {"$ref": "#/$defs/Node"},
                },
            }
        },
    }
    fn = function(body({"$ref": "#/$defs/Node"}), strict=True, schema=schema)
    sent = {"body": {"name": "a", "child": {"name": "b", "child": {"name": "c", "child": None}}}}
    assert decode(fn, sent) == {
        "body": {"name": "a", "child": {"name": "b", "child": {"name": "c"}}}
    }


def test_discriminator_tag_picks_the_variant() -> None:
    """With a union of tagged objects, the variant whose tag matches decides what is required."""
    cat = {
        "type": "object",
        "required": ["kind", "lives"],
        "properties": {"kind": {"enum": ["cat"]}, "lives": {"type": ["integer", "null"]}},
    }
    dog = {
        "type": "object",
        "required": ["kind"],
        "properties": {"kind": {"enum": ["dog"]}, "lives": {"type": "integer"}},
    }
    fn = function(body({"anyOf": [cat, dog]}), strict=True)
    assert decode(fn, {"body": {"kind": "dog", "lives": None}}) == {"body": {"kind": "dog"}}
    assert decode(fn, {"body": {"kind": "cat", "lives": None}}) == {
        "body": {"kind": "cat", "lives": None}
    }


CONSTANTS = [5, -1.5, 1e300, True, False, None, {"a": [1, None]}, [1, "x"]]


def _as_texts(fn: Function) -> Function:
    """``fn`` as Gemini renders it: its enums sent as strings, which its loss says."""
    loss = Loss(pointer="#", keyword="enum", action="rewritten", value=None,
                dialect="gemini", note="sent as strings; execute.decode restores them",
                undo="enum-as-text")
    return replace(fn, losses=(loss,), dialect="gemini")


@pytest.mark.parametrize("value", CONSTANTS, ids=json.dumps)
@pytest.mark.parametrize("keyword", ["const", "enum"])
def test_a_non_string_constant_sent_as_its_json_text_is_restored(keyword: str,
                                                                  value: Any) -> None:
    """Gemini sends a non-string const or enum value as its JSON text: decode restores the
    value, for an argument and at depth (array items, object properties), const as enum."""
    node = {"const": value} if keyword == "const" else {"enum": ["s", value]}
    deep = {"type": "array", "items": {"type": "object", "properties": {"v": node}}}
    fn = _as_texts(function(param("query", "c", node), body({"type": "object",
                                                             "properties": {"deep": deep}}),
                            extra={"decode": True}))
    text = json.dumps(value)
    assert decode(fn, {"c": text, "body": {"deep": [{"v": text}]}}) == {
        "c": value, "body": {"deep": [{"v": value}]}}


def test_a_tag_sent_as_json_text_picks_its_variant() -> None:
    """A union told apart by a non-string const tag: the tag's JSON text picks the variant
    (not the one that leaves the tag untyped), and is restored."""
    one = {"type": "object", "required": ["kind", "a"],
           "properties": {"kind": {"const": 1}, "a": {"type": "integer"}}}
    other = {"type": "object", "required": ["b"],
             "properties": {"kind": {"type": "string"}, "b": {"const": True}}}
    fn = _as_texts(function(body({"anyOf": [one, other]}), extra={"decode": True}))
    assert decode(fn, {"body": {"kind": "1", "a": 3}}) == {"body": {"kind": 1, "a": 3}}
    assert decode(fn, {"body": {"kind": "x", "b": "true"}}) == {"body": {"kind": "x",
                                                                         "b": True}}


def _compiled(schema: dict[str, Any], provider: str, strict: bool = False) -> Function:
    doc = {"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
           "paths": {"/x": {"post": {"operationId": "op", "requestBody": {
               "required": True, "content": {"application/json": {"schema": {
                   "type": "object", "required": ["v"], "properties": {"v": schema}}}}},
               "responses": {"204": {"description": "ok"}}}}}}
    return httpllm.compile(doc, provider, strict=strict).functions[0]


@pytest.mark.parametrize(("enum", "sent", "meant"), [
    ([1, "1"], "1", 1), (["1", 1], "1", "1"), ([True, "true"], "true", True),
    (["true", True], "true", "true"), ([None, "x", "null"], "null", "null")])
def test_a_string_enum_reads_as_the_value_offered(enum: list[Any], sent: str,
                                                  meant: Any) -> None:
    """Gemini offers each text once, for the enum's first value with it: the model's text
    decodes to that value (`"1"` was always read as `1`, so of `enum: ["1", 1]` the
    string could not be sent), and validate accepts it."""
    fn = _compiled({"enum": enum}, "gemini")
    assert fn.parameters["properties"]["body"]["properties"]["v"]["enum"].count(sent) == 1
    decoded = decode(fn, {"body": {"v": sent}})["body"]["v"]
    assert decoded == meant and type(decoded) is type(meant)
    assert httpllm.execute.validate(fn, {"body": {"v": sent}}).ok


def test_enums_as_text_are_read_from_the_loss_record_not_its_wording() -> None:
    """decode knows Gemini sent enums as strings from the loss's `undo`: rewording every
    loss's note changes nothing, and a note in the same words without it restores nothing."""
    fn = _compiled({"enum": [1, 2]}, "gemini")
    call = {"body": {"v": "2"}}
    reworded = replace(fn, losses=tuple(replace(x, note="reworded") for x in fn.losses))
    assert decode(reworded, call) == decode(fn, call) == {"body": {"v": 2}}
    unmarked = replace(fn, losses=tuple(replace(x, undo="") for x in fn.losses))
    assert decode(unmarked, call) == call


@pytest.mark.parametrize("provider", ["chatgpt", "claude", "deepseek"])
def test_a_strict_enum_of_json_texts_does_not_make_strings_values_elsewhere(
        provider: str) -> None:
    """A strict mode sends an untyped enum of an object as JSON text, dropping a string
    with the same text with a loss whose note began as Gemini's ("sent as strings"):
    decode read that note as "every enum is sent as strings" and turned the string `"5"`
    beside `const: 5` in another property into the number 5."""
    doc = {"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
           "paths": {"/x": {"post": {"operationId": "op", "requestBody": {
               "required": True, "content": {"application/json": {"schema": {
                   "type": "object", "required": ["v", "w"], "properties": {
                       "v": {"enum": [{"a": 1}, '{"a": 1}']},
                       "w": {"anyOf": [{"type": "string"}, {"const": 5}]}}}}}},
               "responses": {"204": {"description": "ok"}}}}}}
    fn = httpllm.compile(doc, provider, strict=True).functions[0]
    assert fn.strict and any(x.keyword == "enum" and x.action == "dropped" for x in fn.losses)
    decoded = decode(fn, {"body": {"v": '{"a": 1}', "w": "5"}})
    assert decoded == {"body": {"v": {"a": 1}, "w": "5"}}


@pytest.mark.parametrize("provider", ["chatgpt", "claude", "deepseek"])
@pytest.mark.parametrize(("schema", "sent"), [
    ({"anyOf": [{"type": "string"}, {"const": 5}]}, "5"),
    ({"enum": [1, "1"]}, "1"),
    ({"anyOf": [{"type": "string"}, {"type": "object", "const": {"a": 1}}]}, '{"a": 1}')])
def test_a_string_where_values_travel_as_themselves_stays_a_string(
        provider: str, schema: dict[str, Any], sent: str) -> None:
    """A strict mode offers a const or enum value as itself: a string the model sends is
    that string, though it is the JSON text of another value there (`"5"` beside
    `const: 5` was sent as the number 5)."""
    fn = _compiled(schema, provider, strict=True)
    assert fn.strict
    assert decode(fn, {"body": {"v": sent}}) == {"body": {"v": sent}}


def test_decode_never_mutates_its_input() -> None:
    """The arguments given are left untouched; a new structure is returned."""
    fn = function(body(C15_BODY), strict=True)
    sent: dict[str, Any] = {
        "body": {"name": "n", "labels": [{"key": "a", "value": "1"}], "settings": None}
    }
    before = json.dumps(sent)
    decode(fn, sent)
    assert json.dumps(sent) == before


def test_deep_instance_is_walked_without_recursion() -> None:
    """A deeply nested value decodes without RecursionError (explicit stack)."""
    schema = {"type": "object", "properties": {"body": {"$ref": "#/$defs/L"}}}
    schema["$defs"] = {"L": {"type": "array", "items": {"$ref": "#/$defs/L"}}}
    value: list[Any] = []
    deep = value
    for _ in range(5000):
        deep.append([])
        deep = deep[0]
    fn = function(body({"$ref": "#/$defs/L"}), strict=True, schema=schema)
    out = decode(fn, {"body": value})["body"]
    depth = 0
    while out:
        out, depth = out[0], depth + 1
    assert depth == 5000


@pytest.mark.parametrize(
    ("text", "received"),
    [
        ("{not json", "text that is not JSON"),
        ('{"a": NaN}', "text that is not JSON"),
        ('{"a": 1e400}', "text that is not JSON (1e400 is too large a number"),
        (b"\xff\xfe", "bytes that are not UTF-8"),
        ("[" * 100_000 + "]" * 100_000, "text that is not JSON"),
    ],
)
def test_text_that_is_not_json_is_invalid_arguments(text: str | bytes, received: str) -> None:
    """Text that is not JSON raises InvalidArguments with one error at the root."""
    with pytest.raises(InvalidArguments) as caught:
        parse(function(), text)
    (error,) = caught.value.errors
    assert (error.pointer, error.keyword) == ("#", "json")
    assert error.received.startswith(received)


@pytest.mark.parametrize("arguments", ['{"a": [1, "ok \\ud800"]}', {"a": [1, "ok \ud800"]}])
def test_a_lone_surrogate_is_invalid_arguments(arguments: Any) -> None:
    """A string no UTF-8 request can carry (JSON's lone "\\ud800" escape) is an invalid
    argument at its pointer, not an encoding error when the request is built."""
    with pytest.raises(InvalidArguments) as caught:
        parse(function(), arguments)
    (error,) = caught.value.errors
    assert (error.pointer, error.keyword) == ("#/a/1", "json")
    assert "lone surrogate" in error.received
    assert parse(function(), '{"a": "\\ud83d\\ude00"}') == {"a": "\U0001f600"}


@pytest.mark.parametrize("value", ["[1, 2]", '"text"', "3", "null", [1, 2]])
def test_a_value_that_is_not_an_object_is_invalid_arguments(value: Any) -> None:
    """JSON that is not an object raises InvalidArguments naming what was received."""
    with pytest.raises(InvalidArguments) as caught:
        parse(function(), value)
    (error,) = caught.value.errors
    assert error.pointer == "#"
    assert error.expected == "a JSON object of arguments"


def test_blank_text_is_an_empty_arguments_object() -> None:
    """A blank argument text (sent by some providers for no arguments) reads as {}."""
    assert parse(function(), "  ") == {}
    assert parse(function(), b'{"a": 1}') == {"a": 1}


def test_alternatives_flatten_refs_and_unions() -> None:
    """A node's alternatives follow $ref and flatten anyOf/oneOf/allOf, without looping."""
    root = {"$defs": {"A": {"anyOf": [{"type": "string"}, {"$ref": "#/$defs/A"}]}}}
    assert alternatives({"$ref": "#/$defs/A"}, root) == [{"type": "string"}]
    assert alternatives(True, root) == [{}]
    assert alternatives({"$ref": "https://elsewhere/x.json"}, root) == [{}]


def test_json_text_past_max_depth_is_decoded_in_the_dialect_forms() -> None:
    """A part collapsed to JSON text past `max_depth` in strict mode is described in the
    strict forms (a map as key/value entries, the real-null marker); the text is decoded
    with them, so the request carries the map and the null (Claude's strict mode keeps
    optional properties optional: its null is sent as given)."""
    import httpllm
    from httpllm.execute import build_request

    body = {"type": "object", "properties": {"outer": {"type": "object", "properties": {
        "m": {"type": "object", "additionalProperties": {
            "type": "object", "properties": {"q": {"type": "string"}}}},
        "n": {"type": ["object", "null"], "properties": {"z": {"type": "integer"}}}}}}}
    doc = {"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
           "servers": [{"url": "https://api.example.com"}],
           "paths": {"/d": {"post": {"operationId": "deep", "requestBody": {
               "required": True, "content": {"application/json": {"schema": body}}},
               "responses": {"200": {"description": "ok"}}}}}}
    for provider in ("chatgpt", "claude"):
        app = httpllm.compile(doc, provider, strict=True, max_depth=1, collapse_deep=True)
        fn = app.function("deep")
        entries = '[{"key": "k", "value": {"q": "v"}}]'
        args = {"body": {"outer": {"m": entries, "n": None}}}
        if provider == "chatgpt":  # its strict mode offers the real-null marker
            args["body"]["outer"]["n"] = '{"null": true}'
        assert app.validate("deep", args).ok, provider
        sent = json.loads(build_request(fn, args).content)
        # chatgpt: the marker is a real null; claude: a null is the model's own value
        expected: dict[str, Any] = {"m": {"k": {"q": "v"}}, "n": None}
        assert sent == {"outer": expected}, provider


@pytest.mark.parametrize("arguments", ['{"n": 5.0, "body": {"k": [2.0, -0.0, 1e2, 0.5]}}',
                                       {"n": 5.0, "body": {"k": [2.0, -0.0, 1e2, 0.5]}}])
def test_integral_numbers_are_integers(arguments: Any) -> None:
    """A number with no fraction (`5.0`, `1e2`: JSON Schema's integer) is an int, whether the
    call is JSON text or a mapping: `?n=5.0` is no integer to a server (openapi-core:
    "Failed to cast value to integer type"), nor `2.0` to Go's or serde's JSON reader."""
    fn = function(param("query", "n", {"type": "integer"}),
                  body({"type": "object", "properties": {"k": {"type": "array"}}}))
    decoded = decode(fn, arguments)
    assert decoded == {"n": 5, "body": {"k": [2, 0, 100, 0.5]}}
    assert [type(v) for v in [decoded["n"], *decoded["body"]["k"]]] == [int, int, int, int, float]
    request = build_request(fn, arguments)
    assert str(request.url).endswith("?n=5")
    assert request.content == b'{"k":[2,0,100,0.5]}'


def test_integral_numbers_past_doubles_exact_integers_stay_floats() -> None:
    """Past 2**53 a double no longer holds every integer: such a number keeps its float."""
    assert decode(function(param("query", "n", {"type": "number"})), '{"n": 1e300}') == {
        "n": 1e300}
