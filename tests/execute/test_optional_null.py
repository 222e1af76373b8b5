"""Kind 3 of issue 18: `null` for an optional value that does not allow `null` is left out,
with a note, by `validate`, `build_request`, `execute` and `httpllm call` alike."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from httpllm import compile
from httpllm.cli import main
from httpllm.execute import build_request, execute, validate

from .records import body, function, param

ADDRESS = {"type": "object", "properties": {"city": {"type": "string"}, "zip": {"type": "string"}},
           "required": ["city"]}
USER = {
    "type": "object",
    "required": ["name"],
    "properties": {
        "name": {"type": "string"},
        "nickname": {"type": "string"},
        "note": {"anyOf": [{"type": "string"}, {"type": "null"}]},
        "address": {"$ref": "#/$defs/Address"},
        "tags": {"type": "array", "items": {"type": "string"}},
    },
}
SCHEMA = {
    "type": "object",
    "properties": {"limit": {"type": "integer"}, "body": USER},
    "required": ["body"],
    "$defs": {"Address": ADDRESS},
}
FN = function(param("query", "limit", {"type": "integer"}), body(USER), method="post",
              schema=SCHEMA)


def test_null_for_an_optional_argument_is_left_out_with_a_note() -> None:
    """A null query argument and a null optional body property are left out and noted."""
    result = validate(FN, {"limit": None, "body": {"name": "a", "nickname": None}})
    assert result.ok
    assert result.arguments == {"body": {"name": "a"}}
    assert [n.pointer for n in result.notes] == ["#/limit", "#/body/nickname"]
    assert "left out" in result.notes[0].message


def test_null_for_an_optional_property_named_with_a_percent_is_left_out() -> None:
    """A null under a key holding `%` (`discount%`, `a%20b`) is left out as any other: its
    place was percent-decoded (`a b`), found nothing and the call was refused."""
    user = {"type": "object", "properties": {"a%20b": {"type": "string"},
                                             "100%": {"type": "integer"}}}
    fn = function(body(user), method="post", schema={
        "type": "object", "properties": {"body": user}, "required": ["body"]})
    result = validate(fn, {"body": {"a%20b": None, "100%": None}})
    assert result.ok and result.arguments == {"body": {}}
    assert [n.pointer for n in result.notes] == ["#/body/a%20b", "#/body/100%"]


def test_null_below_a_ref_follows_the_referenced_schema() -> None:
    """An optional property of a `$ref`'d object is left out; a required one stays an error."""
    optional = validate(FN, {"body": {"name": "a", "address": {"city": "x", "zip": None}}})
    assert optional.ok and optional.arguments == {"body": {"name": "a", "address": {"city": "x"}}}
    required = validate(FN, {"body": {"name": "a", "address": {"city": None}}})
    assert not required.ok
    assert [e.pointer for e in required.errors] == ["#/body/address/city"]


def test_a_null_the_schema_allows_is_kept() -> None:
    """A nullable property keeps its null, and no note is made."""
    result = validate(FN, {"body": {"name": "a", "note": None}})
    assert result.ok and result.arguments == {"body": {"name": "a", "note": None}}
    assert result.notes == ()


def test_a_null_for_a_required_value_is_still_an_error() -> None:
    """`null` for the required `name` is reported, not left out."""
    result = validate(FN, {"body": {"name": None}})
    assert [e.pointer for e in result.errors] == ["#/body/name"]


def test_a_null_array_item_is_not_left_out() -> None:
    """An array member cannot be left out: a null item stays an error."""
    result = validate(FN, {"body": {"name": "a", "tags": ["x", None]}})
    assert [e.pointer for e in result.errors] == ["#/body/tags/1"]


def test_the_input_is_not_changed() -> None:
    """Leaving a null out copies the containers on the way."""
    args: dict[str, Any] = {"body": {"name": "a", "address": {"city": "x", "zip": None}}}
    validate(FN, args)
    assert args["body"]["address"] == {"city": "x", "zip": None}


def test_build_request_leaves_out_the_same_nulls() -> None:
    """`build_request` alone sends what `validate` accepted: no null property on the wire."""
    request = build_request(FN, {"limit": None, "body": {"name": "a", "nickname": None,
                                                         "note": None}})
    assert str(request.url) == "https://api.example.com/things"
    assert json.loads(request.content) == {"name": "a", "note": None}


def test_execute_sends_the_call_without_the_null(live_server: str) -> None:
    """`execute` accepts the call and the echo server receives the body without the null."""
    with httpx.Client() as client:
        result = execute(FN, {"body": {"name": "a", "nickname": None}}, client=client,
                         base_url=live_server)
    assert result.ok and json.loads(result.body["body"]) == {"name": "a"}


DOCUMENT = {
    "openapi": "3.0.3",
    "info": {"title": "nulls", "version": "1"},
    "servers": [{"url": "https://api.example.com"}],
    "paths": {"/users": {"post": {
        "operationId": "addUser",
        "parameters": [{"name": "dry", "in": "query", "schema": {"type": "boolean"}}],
        "requestBody": {"required": True, "content": {"application/json": {"schema": {
            "type": "object", "required": ["name"],
            "properties": {"name": {"type": "string"}, "nickname": {"type": "string"}},
        }}}},
        "responses": {"200": {"description": "ok"}},
    }}},
}


@pytest.mark.parametrize("provider", ["3.1", "chatgpt"])
def test_compiled_functions_follow_the_rule(provider: str) -> None:
    """On a compiled document the null rule holds in the non-strict dialects."""
    fn = compile(DOCUMENT, provider).function("addUser")
    args = {"dry": None, "body": {"name": "a", "nickname": None}}
    result = validate(fn, args)
    assert result.ok and result.arguments == {"body": {"name": "a"}}
    assert json.loads(build_request(fn, args).content) == {"name": "a"}


def test_httpllm_call_prints_the_request_without_the_null(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`httpllm call` accepts the call, notes each null on stderr and prints the body
    without it."""
    spec = tmp_path / "nulls.json"
    spec.write_text(json.dumps(DOCUMENT))
    args = json.dumps({"dry": None, "body": {"name": "a", "nickname": None}})
    status = main(["call", str(spec), "addUser", "--args", args])
    out, err = capsys.readouterr()
    assert status == 0
    assert err.splitlines() == [
        "httpllm: note: dry: null for an optional value that does not allow null; left out "
        "(sent as if not given)",
        "httpllm: note: body/nickname: null for an optional value that does not allow null; "
        "left out (sent as if not given)",
    ]
    assert out.splitlines()[0] == "POST https://api.example.com/users"
    assert out.rstrip().splitlines()[-1] == '{"name":"a"}'
