"""OpenAPI examples as tool input examples: native field, description block, limits."""

from __future__ import annotations

import datetime
import json
from dataclasses import replace
from typing import Any

import pytest

import httpllm
from httpllm.dialects import Options, get_dialect
from httpllm.render.examples import HEADING, place_examples


def document(description: str = "Create a pet.", body_examples: Any = None) -> dict[str, Any]:
    """One operation: a query flag and a JSON body, each with examples."""
    examples = body_examples if body_examples is not None else {
        "small": {"value": {"name": "Rex"}},
        "full": {"value": {"name": "Tom", "age": 3}},
    }
    return {
        "openapi": "3.1.0",
        "info": {"title": "pets", "version": "1"},
        "paths": {"/pets": {"post": {
            "operationId": "createPet",
            "summary": description,
            "parameters": [{"name": "dryRun", "in": "query", "example": True,
                            "schema": {"type": "boolean"}}],
            "requestBody": {"required": True, "content": {"application/json": {
                "schema": {"type": "object", "required": ["name"],
                           "properties": {"name": {"type": "string"},
                                          "age": {"type": "integer"}}},
                "examples": examples}}},
            "responses": {"201": {"description": "created"}},
        }}},
    }


EXPECTED = [{"dryRun": True, "body": {"name": "Rex"}},
            {"dryRun": True, "body": {"name": "Tom", "age": 3}}]
LINES = ['{"dryRun":true,"body":{"name":"Rex"}}', '{"dryRun":true,"body":{"name":"Tom","age":3}}']


def only(app: Any) -> Any:
    (function,) = app.functions
    return function


def test_claude_gets_native_input_examples() -> None:
    """With the default `examples="native"`, Claude's tool carries `input_examples`."""
    app = httpllm.compile(document(), "claude")
    (tool,) = app.tools()
    assert tool["input_examples"] == EXPECTED
    assert tool["description"] == "Create a pet."
    assert only(app).losses == ()


def test_description_block_follows_the_ai_sdk_middleware() -> None:
    """`examples="description"` appends `Input Examples:` and one compact JSON per line."""
    app = httpllm.compile(document(), "claude", examples="description")
    (tool,) = app.tools()
    assert "input_examples" not in tool
    assert tool["description"] == "\n".join(["Create a pet.", "", HEADING, *LINES])


@pytest.mark.parametrize("provider", ["chatgpt", "llama", "mistral", "bedrock", "mcp"])
def test_providers_without_a_field_get_the_description(provider: str) -> None:
    """Dialects without a native field put the examples into the description."""
    function = only(httpllm.compile(document(), provider))
    assert function.description.endswith("\n".join([HEADING, *LINES]))
    assert "input_examples" not in function.extra


@pytest.mark.parametrize("provider", ["claude", "chatgpt"])
def test_off_leaves_the_function_alone(provider: str) -> None:
    """`examples="off"` neither sets the field nor touches the description."""
    function = only(httpllm.compile(document(), provider, examples="off"))
    assert function.description == "Create a pet."
    assert "input_examples" not in function.extra


def test_invalid_native_examples_are_dropped_with_a_loss() -> None:
    """An example the input schema rejects is left out of `input_examples`, reported."""
    bad = {"ok": {"value": {"name": "Rex"}}, "bad": {"value": {"age": "three"}}}
    app = httpllm.compile(document(body_examples=bad), "claude")
    (tool,) = app.tools()
    assert tool["input_examples"] == [{"dryRun": True, "body": {"name": "Rex"}}]
    (loss,) = only(app).losses
    assert (loss.keyword, loss.action) == ("examples", "dropped")
    assert loss.value == {"dryRun": True, "body": {"age": "three"}}
    assert "/body" in loss.note


def test_examples_never_push_out_the_operation_text() -> None:
    """Under chatgpt's 1,024 characters the examples are cut, last first, never the text."""
    text = "Create a pet. " + "x" * (1024 - 14 - len(HEADING) - len(LINES[0]) - 4)
    function = only(httpllm.compile(document(description=text), "chatgpt"))
    assert function.description == "\n".join([text, "", HEADING, LINES[0]])
    assert len(function.description) <= 1024
    (loss,) = function.losses
    assert (loss.keyword, loss.action, loss.value) == ("examples", "dropped", EXPECTED[1])


def test_a_full_description_keeps_no_examples() -> None:
    """A description already at the limit gets no heading; every example is reported."""
    text = "Word. " * 400
    function = only(httpllm.compile(document(description=text), "chatgpt"))
    assert HEADING not in function.description
    assert len(function.description) <= 1024
    actions = sorted((x.keyword, x.action) for x in function.losses)
    assert actions == [("description", "truncated"), ("examples", "dropped"),
                       ("examples", "dropped")]


def test_json_text_examples_are_decoded_for_non_string_arguments() -> None:
    """An example given as JSON text for an object argument is sent as the object."""
    text = {"t": {"value": '{"name": "Rex"}'}}
    app = httpllm.compile(document(body_examples=text), "claude")
    (tool,) = app.tools()
    assert tool["input_examples"] == [{"dryRun": True, "body": {"name": "Rex"}}]


def test_yaml_dates_become_text() -> None:
    """A YAML date in an example becomes its ISO text, so the tool stays JSON."""
    function = only(httpllm.compile(document(), "claude"))
    dated = replace(function, examples=({"body": {"name": datetime.date(2024, 1, 2)}},),
                    extra={})
    out = place_examples(dated, get_dialect("claude"), Options())
    assert out.extra["input_examples"] == [{"body": {"name": "2024-01-02"}}]
    json.dumps(out.extra)


def test_no_examples_no_change() -> None:
    """A function without examples is returned as it is (the same object)."""
    function = replace(only(httpllm.compile(document(), "chatgpt", examples="off")),
                       examples=())
    assert place_examples(function, get_dialect("chatgpt"), Options()) is function


def test_the_loss_of_an_invalid_example_names_its_first_wrong_value_in_its_order() -> None:
    """An example with several values that break one ``additionalProperties`` schema is
    reported at the first of them in the example's own order, the same from one run to
    the next (jsonschema visits them as a set, in the string hash seed's order)."""
    doc = document()
    body = doc["paths"]["/pets"]["post"]["requestBody"]["content"]["application/json"]
    body["schema"]["properties"]["tags"] = {"type": "object",
                                            "additionalProperties": {"type": "object"}}
    tags = {f"tag{n}": n for n in range(30, 0, -1)}  # each an integer, not an object
    body["examples"] = {"bad": {"value": {"name": "Rex", "tags": tags}}}
    (loss,) = only(httpllm.compile(doc, "claude")).losses
    assert loss.note.startswith("does not match the input schema at /body/tags/tag30:")
