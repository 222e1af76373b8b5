"""Only unambiguous slips are repaired; everything else is left for validation to report."""

from __future__ import annotations

import time

import pytest

import httpllm
from httpllm.agent.repair import Repaired, repair_text, repair_values
from httpllm.execute import validate

from .conftest import compiled


@pytest.mark.parametrize(("text", "value", "notes"), [
    ('{"a": 1}', {"a": 1}, ()),
    ('{"a": [1, 2,],}', {"a": [1, 2]}, ("removed a trailing comma",)),
    ('{"a": "x,}"}', {"a": "x,}"}, ()),
    ('```json\n{"a": 1}\n```', {"a": 1}, ("removed a Markdown code fence",)),
    ('```\n{"a": [1,]}\n```\n', {"a": [1]},
     ("removed a Markdown code fence", "removed a trailing comma")),
    ('"{\\"a\\": 1}"', {"a": 1}, ("decoded the arguments object sent as a JSON string",)),
    ("", {}, ()),
])
def test_unambiguous_slips_are_repaired(text: str, value: object, notes: tuple[str, ...]) -> None:
    """A fence, trailing commas and a double-encoded object are repaired and named."""
    assert repair_text(text) == Repaired(value, notes)


@pytest.mark.parametrize("text", [
    '{"a": 1, "b": {"c": 2',      # truncated: json-repair completes it silently
    '{"a": 1 "b": 2}',            # missing comma
    '{"a": 1,, "b": 2}',          # json-repair reads {"a": "1,"}
    "{'a': 'don't'}",             # json-repair reads {"a": "don't'"}
    'Sure! {"a": 1} hope this helps',
    '{"a": NaN}',
    '{"a": "x",\n// note\n}',
    '[1, 2]',
])
def test_ambiguous_text_is_left_alone(text: str) -> None:
    """Text with more than one reading is passed on unchanged, so validation rejects it."""
    assert repair_text(text) == Repaired(text)


@pytest.mark.parametrize(("text", "value"), [
    ('  ```json \r\n{"a": "```"}\r\n  ```  \n', {"a": "```"}),
    ('```\n{"a": 1}```', {"a": 1}),
    ('```\n{"a": 1}\r```', {"a": 1}),
    ('```\n{"a":\n1}\n\n```', {"a": 1}),
])
def test_a_fence_is_read_by_its_lines(text: str, value: object) -> None:
    """A fence: ```` ```lang ```` and blanks on its first line, its content up to the blanks
    and line break before the closing ```` ``` ````, blanks around the whole."""
    assert repair_text(text) == Repaired(value, ("removed a Markdown code fence",))


@pytest.mark.parametrize("text", ["```json x\n{}\n```", "``````", "```{}```",
                                  "```\n{}\n``` x", "```\n" + " " * 200_000 + "x"])
def test_what_is_no_fence_is_left_alone(text: str) -> None:
    """Text that is not one whole fence is left as it is, in time linear in its length: a
    fence left open before 200,000 blanks took the expression read before 25 s."""
    began = time.process_time()
    assert repair_text(text) == Repaired(text)
    assert time.process_time() - began < 2.0


def test_absent_arguments_are_none() -> None:
    """A call without an arguments field (Gemini omits empty args) has no arguments."""
    assert repair_text(None) == Repaired({})


def test_mappings_pass_through() -> None:
    """An already parsed arguments object is not touched."""
    arguments = {"a": "1,"}
    assert repair_text(arguments).arguments is arguments


def test_stringified_object_where_the_schema_wants_one() -> None:
    """A JSON string where the schema types an object or array is decoded, once per place."""
    function = compiled("chatgpt").function("createPet")
    arguments = {"body": {"name": "Rex", "tags": '["a", "b"]', "owner": '{"id": 3}'}}
    checked = validate(function, arguments)
    fixed = repair_values(function, arguments, checked.errors)
    assert fixed is not None
    assert fixed.arguments == {"body": {"name": "Rex", "tags": ["a", "b"], "owner": {"id": 3}}}
    assert sorted(fixed.notes) == ["decoded body/owner from JSON text",
                                   "decoded body/tags from JSON text"]
    assert arguments["body"]["tags"] == '["a", "b"]'  # the input is not mutated


def test_a_property_named_with_a_percent_is_repaired_too() -> None:
    """The place of a JSON string under a key holding `%` (`a%20b`) is read as that key:
    it was percent-decoded to `a b`, no value was found there and the call failed instead
    (found by a fresh tester)."""
    owner = {"type": "object", "properties": {"id": {"type": "integer"}}}
    doc = {"openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "paths": {"/x": {
        "post": {"operationId": "x", "requestBody": {"content": {"application/json": {
            "schema": {"type": "object", "properties": {"a%20b": owner, "a b": owner}}}}},
            "responses": {"200": {"description": "ok"}}}}}}
    function = httpllm.compile(doc, "chatgpt").function("x")
    arguments = {"body": {"a%20b": '{"id": 3}', "a b": {"id": 4}}}
    fixed = repair_values(function, arguments, validate(function, arguments).errors)
    assert fixed is not None
    assert fixed.arguments == {"body": {"a%20b": {"id": 3}, "a b": {"id": 4}}}


@pytest.mark.parametrize("arguments", [
    {"body": {"name": "Rex", "tags": "a, b"}},         # not JSON
    {"body": {"name": "Rex", "tags": '{"a": 1}'}},     # JSON of the wrong type
    {"body": {"name": 5}},                             # not a string at all
])
def test_other_type_errors_are_not_repaired(arguments: dict[str, object]) -> None:
    """A type error whose string is not JSON of the wanted type is left for feedback."""
    function = compiled("chatgpt").function("createPet")
    checked = validate(function, arguments)
    assert checked.errors and repair_values(function, arguments, checked.errors) is None
