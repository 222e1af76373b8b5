"""Direction decided on the resolved schema (issue 18, kind 1): a property whose `readOnly`
(`writeOnly`) comes through a `$ref`, an `allOf` member or every variant of a union is kept
out of requests (responses), removed from `required`, and recorded as a loss."""

from __future__ import annotations

from typing import Any

import pytest

import httpllm
from httpllm.load import Loader
from httpllm.normalize import emend
from httpllm.normalize.direction import direction, flagged
from httpllm.normalize.named import NamedSchemas
from httpllm.refs import ROOT, Resolver

from ._support import context

STAMP = {"type": "string", "format": "date-time", "readOnly": True}
SECRET = {"type": "string", "writeOnly": True}

# Each way a property can reach a flag, as the document writes it (3.1).
REACHED = {
    "ref": {"$ref": "#/components/schemas/Stamp"},
    "ref_with_description": {"$ref": "#/components/schemas/Stamp", "description": "When."},
    "all_of": {"allOf": [{"$ref": "#/components/schemas/Stamp"}], "description": "When."},
    "nullable_union": {"anyOf": [{"$ref": "#/components/schemas/Stamp"}, {"type": "null"}]},
    "one_of_flagged": {"oneOf": [{"$ref": "#/components/schemas/Stamp"},
                                 {"$ref": "#/components/schemas/Alias"}]},
    "alias_chain": {"$ref": "#/components/schemas/Alias"},
    "all_of_member_flag": {"allOf": [{"type": "string"}, {"readOnly": True}]},
}
KEPT = {
    "plain": {"type": "string"},
    "override": {"$ref": "#/components/schemas/Stamp", "readOnly": False},
    "union_half": {"anyOf": [{"$ref": "#/components/schemas/Stamp"}, {"type": "integer"}]},
}


def _document(props: dict[str, Any], version: str = "3.1.0") -> dict[str, Any]:
    thing = {"type": "object", "properties": {**props, "name": {"type": "string"}},
             "required": [*props, "name"]}
    body = {"required": True, "content": {"application/json": {
        "schema": {"$ref": "#/components/schemas/Thing"}}}}
    return {
        "openapi": version, "info": {"title": "t", "version": "1"},
        "paths": {"/things": {"post": {"operationId": "add", "requestBody": body,
                                       "responses": {"200": {"description": "ok", "content": {
                                           "application/json": {"schema": {
                                               "$ref": "#/components/schemas/Thing"}}}}}}}},
        "components": {"schemas": {
            "Thing": thing, "Stamp": STAMP, "Secret": SECRET,
            "Alias": {"allOf": [{"$ref": "#/components/schemas/Stamp"}]},
        }},
    }


def test_request_drops_every_way_readonly_is_reached() -> None:
    """Every property whose readOnly is reached through $ref, allOf or all union variants
    leaves the request body and its `required`; the others stay."""
    app = httpllm.compile(_document({**REACHED, **KEPT}), "3.1")
    body = app.function("add").parameters["properties"]["body"]
    assert set(body["properties"]) == {*KEPT, "name"}
    assert set(body["required"]) == {*KEPT, "name"}


def test_each_dropped_property_is_a_loss() -> None:
    """The function's losses name each dropped property at its document pointer."""
    app = httpllm.compile(_document(REACHED), "chatgpt")
    losses = [x for x in app.function("add").losses if x.keyword == "readOnly"]
    assert {x.pointer for x in losses} == {
        f"#/components/schemas/Thing/properties/{name}" for name in REACHED}
    assert {x.action for x in losses} == {"dropped"}


def test_response_drops_write_only_through_ref() -> None:
    """A writeOnly property reached through a $ref leaves the response schema; the
    readOnly one stays there."""
    app = httpllm.compile(_document({"secret": {"$ref": "#/components/schemas/Secret"},
                                     "stamp": {"$ref": "#/components/schemas/Stamp"}}), "3.1")
    function = app.function("add")
    assert set(function.output["properties"]) == {"stamp", "name"}
    assert set(function.parameters["properties"]["body"]["properties"]) == {"secret", "name"}


def test_openapi_30_allof_nullable_ref() -> None:
    """OpenAPI 3.0's `allOf: [$ref]` with `nullable: true` (the usual nullable $ref) is
    resolved too."""
    doc = _document({"stamp": {"allOf": [{"$ref": "#/components/schemas/Stamp"}],
                               "nullable": True}}, "3.0.3")
    body = httpllm.compile(doc, "chatgpt").function("add").parameters["properties"]["body"]
    assert set(body["properties"]) == {"name"}


def test_ref_cycle_terminates() -> None:
    """Named schemas that refer to each other through allOf are decided without looping
    (a cycle counts as not flagged)."""
    doc = _document({"loop": {"$ref": "#/components/schemas/A"}})
    doc["components"]["schemas"] |= {"A": {"allOf": [{"$ref": "#/components/schemas/B"}]},
                                     "B": {"allOf": [{"$ref": "#/components/schemas/A"}]}}
    body = httpllm.compile(doc, "3.1").function("add").parameters["properties"]["body"]
    assert "loop" in body["properties"]


def test_long_ref_chain_needs_no_recursion() -> None:
    """`Flags.flagged` decides a 5,000-schema allOf chain ending in a readOnly schema
    iteratively (no RecursionError), and the schema at the far end alone."""
    schemas: dict[str, Any] = {f"L{i}": {"allOf": [{"$ref": f"#/components/schemas/L{i + 1}"}]}
                               for i in range(5000)}
    schemas["L5000"] = STAMP
    doc = {"openapi": "3.1.0", "components": {"schemas": schemas}}
    store = NamedSchemas(Resolver(doc, ROOT, Loader(None)), "3.1", lambda at, message: None)
    assert store.flags.flagged("L0", "readOnly") is True
    assert store.flags.flagged("L0", "writeOnly") is False


@pytest.mark.parametrize(("node", "expected"), [
    ({"$ref": "T"}, True),
    ({"$ref": "T", "readOnly": False}, False),
    ({"anyOf": [{"$ref": "T"}, {"type": "null"}]}, True),
    ({"anyOf": [{"$ref": "T"}, {"type": "string"}]}, False),
    ({"allOf": [{"type": "string"}, {"$ref": "T"}]}, True),
    ({"type": "null"}, False),
])
def test_flagged(node: dict[str, Any], expected: bool) -> None:
    """`flagged` follows refs, allOf members and every non-null union member."""
    assert flagged(node, "readOnly", lambda ref: ref == "T") is expected


def test_pass_asks_the_context_for_named_schemas() -> None:
    """The pass drops a `$ref` property when the context says its target is flagged, and
    records one loss for it."""
    ctx = context()
    lost: list[Any] = []
    ctx.flagged = lambda name, flag: name == "Stamp" and flag == "readOnly"
    ctx.lose = lost.append
    schema = {"type": "object", "required": ["at", "n"],
              "properties": {"at": {"$ref": "#/$defs/Stamp"}, "n": {"type": "integer"}}}
    out = emend(schema, ctx, pointer="#/components/schemas/T", rewrite_ref=lambda n, at: n,
                passes=(direction,))
    assert out == {"type": "object", "required": ["n"], "properties": {"n": {"type": "integer"}}}
    assert [(x.pointer, x.keyword, x.action) for x in lost] == [
        ("#/components/schemas/T/properties/at", "readOnly", "dropped")]
