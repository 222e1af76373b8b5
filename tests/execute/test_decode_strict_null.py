"""A real `null` in strict mode (issue 18, kind 4): for a property both optional and
nullable in the document (JSON Merge Patch's "delete this field"), strict mode offers the
marker `{"null": true}`; `decode` turns it back into `null`, while `null` alone still means
"not given". Round trip: compile strict -> the model's instance -> decode -> the intended
value."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest
from jsonschema import Draft202012Validator

import httpllm
from httpllm.dialects.openai import NULL_MARKER
from httpllm.execute import build_request, decode
from httpllm.execute.request import assemble

PATCH = {
    "type": "object",
    "required": ["name"],
    "properties": {
        "name": {"type": "string", "nullable": True},  # required and nullable
        "note": {"type": "string", "nullable": True},  # optional and nullable: marked
        "size": {"type": "integer", "nullable": True},  # optional and nullable: marked
        "title": {"type": "string"},  # optional, not nullable
        "owner": {"type": "object", "nullable": True,
                  "properties": {"null": {"type": "string"}}},  # the marker is ambiguous
    },
}


def _document() -> dict[str, Any]:
    body = {"content": {"application/merge-patch+json": {"schema": PATCH}}, "required": True}
    return {"openapi": "3.0.3", "info": {"title": "t", "version": "1"},
            "servers": [{"url": "https://api.example.com"}],
            "paths": {"/items/1": {"patch": {"operationId": "update", "requestBody": body,
                                             "responses": {"204": {"description": "ok"}}}}}}


@pytest.fixture(params=["chatgpt", "deepseek"])
def strict(request: pytest.FixtureRequest) -> httpllm.Application:
    return httpllm.compile(_document(), request.param, strict=True)


def test_marker_offered_for_optional_nullable_properties_only(
        strict: httpllm.Application) -> None:
    """Only the optional and nullable properties take the marker, with a loss entry naming
    them, and the tool stays strict."""
    function = strict.function("update")
    assert function.strict
    props = function.parameters["properties"]["body"]["properties"]
    assert {n for n, s in props.items() if NULL_MARKER in s.get("anyOf", ())} == {"note", "size"}
    notes = [x.note for x in function.losses if "sends a real null" in x.note]
    assert notes and "note" in notes[0] and "size" in notes[0]
    assert any("ambiguous" in x.note and "owner" in x.note for x in function.losses)


@pytest.mark.parametrize(("sent", "intended"), [
    ({"name": "a", "note": {"null": True}, "size": None, "title": None, "owner": None},
     {"name": "a", "note": None}),
    ({"name": None, "note": None, "size": {"null": True}, "title": "t", "owner": None},
     {"name": None, "size": None, "title": "t"}),
    ({"name": "a", "note": "x", "size": 3, "title": None, "owner": {"null": "y"}},
     {"name": "a", "note": "x", "size": 3, "owner": {"null": "y"}}),
], ids=["note-cleared", "size-cleared", "values"])
def test_round_trip(strict: httpllm.Application, sent: dict[str, Any],
                    intended: dict[str, Any]) -> None:
    """The model's instance is valid for the strict schema; decoding gives the intended
    body (a marked null is a real null, a plain null is omitted), which validate accepts
    and the request carries."""
    function = strict.function("update")
    call = {"body": sent}
    assert Draft202012Validator(function.parameters).is_valid(call)
    assert decode(function, json.dumps(call)) == {"body": intended}
    checked = strict.validate("update", call)
    assert checked.ok
    request = build_request(function, call)  # decodes the model's arguments itself
    assert json.loads(request.content) == intended
    sent_by_execute = assemble(function, checked.arguments)  # what execute sends
    assert json.loads(sent_by_execute.content) == intended


def test_other_strict_dialects_do_not_read_the_marker() -> None:
    """Without the marker in the tool (Claude's strict mode keeps optional properties
    optional), `{"null": true}` is a value like any other."""
    function = httpllm.compile(_document(), "claude", strict=True).function("update")
    call = {"body": {"name": "a", "owner": {"null": "x"}, "note": {"null": True}}}
    assert decode(function, call)["body"]["note"] == {"null": True}


@pytest.mark.parametrize("provider", ["claude", "bedrock", "mistral", "llama", "qwen"])
def test_strict_modes_that_keep_optional_properties_send_their_nulls(provider: str) -> None:
    """Claude's, Bedrock's, Mistral's and vLLM's strict modes keep optional properties
    optional, so the tool offers `note` as optional and nullable: the model's `null` is
    its value (JSON Merge Patch: delete the field) and reaches the request, as outside
    strict mode. It was dropped as if not given, so the field was never cleared."""
    app = httpllm.compile(_document(), provider, strict=True)
    function = app.function("update")
    assert function.strict
    assert "note" not in function.parameters["properties"]["body"].get("required", [])
    call = {"body": {"name": "a", "note": None}}
    assert decode(function, call) == call
    checked = app.validate("update", call)
    assert checked.ok
    assert json.loads(assemble(function, checked.arguments).content) == {
        "name": "a", "note": None}


def test_non_strict_is_untouched() -> None:
    """Non-strict chatgpt offers no marker: the document's null is sent as null."""
    function = httpllm.compile(_document(), "chatgpt").function("update")
    assert "null\": true" not in json.dumps(function.parameters)
    assert decode(function, {"body": {"name": "a", "note": None}}) == {
        "body": {"name": "a", "note": None}}


def test_the_marker_is_read_from_the_loss_record_not_its_wording(
        strict: httpllm.Application) -> None:
    """decode knows the marker is offered from the loss's `undo`, so rewording every
    loss's note changes nothing, and a note in the marker's words without it offers none."""
    function = strict.function("update")
    call = {"body": {"name": "a", "note": {"null": True}, "size": None, "title": None,
                     "owner": None}}
    reworded = replace(function, losses=tuple(replace(x, note="reworded")
                                              for x in function.losses))
    assert decode(reworded, call) == decode(function, call) == {"body": {"name": "a",
                                                                         "note": None}}
    unmarked = replace(function, losses=tuple(replace(x, undo="") for x in function.losses))
    assert decode(unmarked, call)["body"]["note"] == {"null": True}
