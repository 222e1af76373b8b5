"""`oneOf` exclusivity (issue 18): a body matching several alternatives of a document `oneOf`
is refused by `validate`, naming them, in every dialect; the schema the model sees says
`oneOf` where the dialect spells it, else `anyOf` with a loss; no tool carries the mark."""

from __future__ import annotations

import json
from typing import Any

import pytest

import httpllm
from httpllm.dialects import get_dialect, providers
from httpllm.execute import build_request
from httpllm.execute.decode import resolve

PHONE = {"title": "Phone", "type": "object", "required": ["number"],
         "properties": {"number": {"type": "string"}, "type": {"type": "string"}}}
SIP = {"title": "Sip", "type": "object", "required": ["type"],
       "properties": {"type": {"type": "string"}, "uri": {"type": "string"}}}
BOTH = {"type": "sip", "number": "123"}
AT = "#/paths/~1calls/post/requestBody/content/application~1json/schema/oneOf"


def document(body: Any) -> dict[str, Any]:
    """One operation, `POST /calls`, with ``body`` as its JSON request body schema."""
    return {"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
            "servers": [{"url": "https://api.example.com"}],
            "paths": {"/calls": {"post": {
                "operationId": "createCall",
                "requestBody": {"required": True,
                                "content": {"application/json": {"schema": body}}},
                "responses": {"200": {"description": "ok"}}}}}}


DOCUMENT = document({"oneOf": [PHONE, SIP]})
DIALECTS = [("3.1", False), ("chatgpt", False), ("chatgpt", True), ("gemini", False)]


@pytest.mark.parametrize(("provider", "strict"), DIALECTS)
def test_a_body_matching_both_alternatives_is_refused(provider: str, strict: bool) -> None:
    """`{"type": "sip", "number": "123"}` is a Phone and a Sip: one `oneOf` error at the
    body, naming both, with a pointer into `Function.schema`, where the union is `anyOf`.
    A strict tool closes each alternative (`additionalProperties: false`), and so does
    `validate` (one contract): there the value is a Phone only, and a Sip with Phone's
    `number` is refused as the tool says."""
    app = httpllm.compile(DOCUMENT, provider, strict=strict)
    result = app.validate("createCall", {"body": BOTH})
    if strict:
        assert result.ok, result.feedback()
        closed = app.validate("createCall", {"body": {**BOTH, "uri": "sip:a@b"}})
        assert not closed.ok and closed.errors[0].pointer.startswith("#/body")
        return
    assert [(e.pointer, e.keyword) for e in result.errors] == [("#/body", "oneOf")]
    error = result.errors[0]
    assert '(it matches "Phone", "Sip")' in error.expected
    assert error.schema_pointer == "#/properties/body/anyOf"
    assert "body: expected a value matching exactly one of the alternatives" in (
        result.feedback())


@pytest.mark.parametrize(("provider", "strict"), DIALECTS)
def test_a_body_matching_one_alternative_is_accepted(provider: str, strict: bool) -> None:
    """A Phone alone or a Sip alone is valid and builds."""
    app = httpllm.compile(DOCUMENT, provider, strict=strict)
    fn = app.function("createCall")
    for body in ({"number": "123"}, {"type": "sip", "uri": "sip:a@b"}):
        assert app.validate("createCall", {"body": body}).ok, body
        assert json.loads(build_request(fn, {"body": body}).content) == body


def test_alternatives_without_titles_are_named_by_position_and_description() -> None:
    """Untitled alternatives are named `alternative N`, with their description's first line."""
    phone = {k: v for k, v in PHONE.items() if k != "title"} | {"description": "A phone\nmore"}
    sip = {k: v for k, v in SIP.items() if k != "title"}
    app = httpllm.compile(document({"oneOf": [phone, sip]}), "3.1")
    error = app.validate("createCall", {"body": BOTH}).errors[0]
    assert '(it matches alternative 1 ("A phone"), alternative 2)' in error.expected


def test_an_error_inside_an_alternative_points_into_function_schema() -> None:
    """An error below an exclusive union names `anyOf` in its schema pointer; a property
    called `oneOf` keeps its name."""
    named = {"type": "object", "required": ["oneOf"], "properties": {"oneOf": {"type": "integer"}}}
    app = httpllm.compile(document({"oneOf": [named, {"type": "object", "required": ["b"]}]}),
                          "3.1")
    fn = app.function("createCall")
    error = app.validate(fn.name, {"body": {"oneOf": "x"}}).errors[0]
    assert error.schema_pointer == "#/properties/body/anyOf/0/properties/oneOf/type"
    assert resolve(error.schema_pointer.removesuffix("/type"), fn.schema) == {"type": "integer"}


def test_the_json_schema_dialects_spell_one_of() -> None:
    """`3.1` and `mcp` show `oneOf` (what validate enforces), with no loss; the others show
    `anyOf`, with a `rewritten` loss at the document's `oneOf`."""
    for name in providers():
        app = httpllm.compile(DOCUMENT, name)
        fn = app.function("createCall")
        body = fn.parameters["properties"]["body"]
        lost = [(x.pointer, x.action) for x in fn.losses if x.keyword == "oneOf"]
        if get_dialect(name).one_of:
            assert "oneOf" in body and lost == [], name
        else:
            assert "oneOf" not in body and lost == [(AT, "rewritten")], name


@pytest.mark.parametrize("strict", [False, True])
def test_no_tool_carries_the_mark(strict: bool) -> None:
    """No dialect's tools (nor rendered parameters) carry `x-httpllm-oneOf`."""
    for name in providers():
        if strict and not get_dialect(name).has_strict:
            continue
        app = httpllm.compile(DOCUMENT, name, strict=strict)
        assert "x-httpllm" not in json.dumps(app.tools()), name
        assert "x-httpllm" not in json.dumps([f.parameters for f in app.functions]), name


def test_disjoint_alternatives_are_a_plain_any_of() -> None:
    """Alternatives of distinct types, or with distinct required tags, are exclusive
    anyway: `anyOf`, no loss, in every dialect."""
    tagged = [{"type": "object", "required": ["kind"], "properties": {"kind": {"const": k}}}
              for k in ("a", "b")]
    for body in ({"oneOf": [{"type": "string"}, {"type": "integer"}]}, {"oneOf": tagged}):
        for name in ("3.1", "chatgpt"):
            fn = httpllm.compile(document(body), name).function("createCall")
            assert "anyOf" in fn.parameters["properties"]["body"], (name, body)
            assert not [x for x in fn.losses if x.keyword == "oneOf"]


def test_split_variants_still_refuse_a_body_matching_both() -> None:
    """With `split_unions`, each variant function checks its variant and the union: a body
    matching both variants is refused by either function."""
    app = httpllm.compile(DOCUMENT, "gemini", split_unions=True)
    assert [f.name for f in app.functions] == ["createCall__Phone", "createCall__Sip"]
    for fn in app.functions:
        assert not app.validate(fn.name, {"body": BOTH}).ok
    assert app.validate("createCall__Phone", {"body": {"number": "1"}}).ok
    assert not app.validate("createCall__Phone", {"body": {"type": "sip"}}).ok
