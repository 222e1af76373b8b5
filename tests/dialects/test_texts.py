"""dialects._texts: a union's string member that takes a text another member sends for
a non-string value is a loss, in every dialect that sends values as text."""

from __future__ import annotations

from typing import Any

import pytest

import httpllm
from httpllm.execute import decode


def _document(schema: Any) -> dict[str, Any]:
    operation = {"operationId": "op", "requestBody": {"required": True, "content": {
        "application/json": {"schema": {"type": "object", "properties": {"v": schema},
                                        "required": ["v"]}}}},
                 "responses": {"200": {"description": "ok"}}}
    return {"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
            "paths": {"/x": {"post": operation}}}


def _union_losses(function: Any) -> list[Any]:
    return [x for x in function.losses if x.keyword == "anyOf" and x.action == "dropped"]


OBJECT = {"a": 1}


@pytest.mark.parametrize("dialect", ["openai", "anthropic", "mistral", "deepseek"])
def test_strict_json_text_of_a_constant_beside_a_string_is_a_loss(dialect: str) -> None:
    """In strict mode an object constant is sent as its JSON text: beside a string member
    that text is reported lost (named), and decode reads it as the object."""
    app = httpllm.compile(_document({"anyOf": [{"type": "string"}, {"const": OBJECT}]}),
                          dialect, strict=True)
    function = app.functions[0]
    assert function.strict
    assert [x.value for x in _union_losses(function)] == [['{"a": 1}']]
    assert decode(function, {"body": {"v": '{"a": 1}'}}) == {"body": {"v": OBJECT}}
    assert decode(function, {"body": {"v": "text"}}) == {"body": {"v": "text"}}


@pytest.mark.parametrize("dialect", ["openai", "anthropic", "mistral", "deepseek"])
def test_strict_any_value_beside_a_string_is_a_loss(dialect: str) -> None:
    """Any value (sent as JSON text in strict mode) beside a string member: decode keeps
    the string, and the loss says the other values cannot be sent."""
    app = httpllm.compile(_document({"anyOf": [{"type": "string"}, {}]}), dialect,
                          strict=True)
    function = app.functions[0]
    (loss,) = _union_losses(function)
    assert "JSON text" in loss.note and loss.value is None
    assert decode(function, {"body": {"v": "true"}}) == {"body": {"v": "true"}}


@pytest.mark.parametrize("dialect", ["openai", "anthropic", "gemini-json", "mcp"])
def test_values_sent_as_themselves_are_no_loss(dialect: str) -> None:
    """Where a const travels as itself (``5`` as ``5``), a string beside it is no loss."""
    app = httpllm.compile(_document({"anyOf": [{"type": "string"}, {"const": 5}]}), dialect)
    assert _union_losses(app.functions[0]) == []


def test_a_catastrophic_pattern_of_the_document_is_not_run_by_python() -> None:
    """A string member's ``pattern`` is the document's: ``^(1+)+x$`` against the text of a
    30-digit number backtracks for minutes in Python's ``re``; the check is
    jsonschema-rs's (linear or bounded), so the compile ends, and the text, which the
    pattern refuses, is no loss."""
    import httpllm

    number = int("1" * 30)
    schema = {"anyOf": [{"type": "string", "pattern": "^(1+)+x$"}, {"const": number}]}
    document = {"openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "paths": {"/a": {
        "post": {"operationId": "op", "requestBody": {"content": {"application/json": {
            "schema": {"type": "object", "properties": {"v": schema}}}}},
            "responses": {"200": {"description": "ok"}}}}}}
    [function] = httpllm.compile(document, "gemini").functions
    assert not [loss for loss in function.losses if loss.keyword == "anyOf"
                and loss.action == "dropped"]
