"""Pass direction: readOnly out of requests, writeOnly out of responses, OpenAPI-only out."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from httpllm._types import Direction
from httpllm.errors import LimitExceeded
from httpllm.normalize import emend
from httpllm.normalize.direction import direction
from httpllm.normalize.unions import EXCLUSIVE

from ._support import HEAVY, Sampled, check_contract, check_pure, context, deep, run, valid

USER = {
    "type": "object",
    "required": ["id", "name", "password"],
    "properties": {
        "id": {"type": "string", "readOnly": True},
        "name": {"type": "string"},
        "password": {"type": "string", "writeOnly": True},
    },
}


def test_request_drops_read_only() -> None:
    """In a request, readOnly properties leave `properties` and `required`."""
    assert run(direction, USER, "request")[0] == {
        "type": "object",
        "required": ["name", "password"],
        "properties": {"name": {"type": "string"},
                       "password": {"type": "string", "writeOnly": True}},
    }


def test_response_drops_write_only() -> None:
    """In a response, writeOnly properties leave `properties` and `required`."""
    assert run(direction, USER, "response")[0] == {
        "type": "object",
        "required": ["id", "name"],
        "properties": {"id": {"type": "string", "readOnly": True}, "name": {"type": "string"}},
    }


def test_empty_required_is_removed() -> None:
    """When every required property was dropped, `required` goes."""
    schema = {"properties": {"id": {"readOnly": True}}, "required": ["id"]}
    assert run(direction, schema)[0] == {"properties": {}}


def test_openapi_only_keywords_go_and_examples_are_kept_aside() -> None:
    """`example`, `xml`, `externalDocs`, `x-*` and `$id` are removed; examples are kept by
    pointer; a property *named* `example` is data and stays."""
    schema = {
        "type": "object", "example": {"example": 1}, "examples": [{"example": 2}],
        "xml": {"name": "x"}, "externalDocs": {"url": "u"}, "x-internal": True, "$id": "i",
        "properties": {"example": {"type": "integer", "x-order": 1}},
    }
    ctx = context()
    out = emend(schema, ctx, pointer="#/components/schemas/T", rewrite_ref=lambda n, at: n,
                passes=(direction,))
    assert out == {"type": "object", "properties": {"example": {"type": "integer"}}}
    assert ctx.examples == {"#/components/schemas/T": [{"example": 1}, {"example": 2}]}


def test_the_exclusive_mark_stays_beside_its_union_only() -> None:
    """`x-httpllm-oneOf` is normalize's own mark: kept beside an `anyOf`, dropped alone."""
    marked = {"anyOf": [{"required": ["a"]}, {"required": ["b"]}], EXCLUSIVE: True}
    assert run(direction, marked)[0] is marked
    assert run(direction, {"type": "string", EXCLUSIVE: True})[0] == {"type": "string"}


def test_nested_objects() -> None:
    """Every object on the way is filtered, children first."""
    schema = {"properties": {"owner": USER}}
    out, _ = run(direction, schema, "response")
    assert set(out["properties"]["owner"]["properties"]) == {"id", "name"}


def test_unchanged_is_identity() -> None:
    """A schema with nothing to drop comes back as the same object."""
    schema = {"type": "object", "properties": {"a": {"type": "string", "writeOnly": True}}}
    assert run(direction, schema, "request")[0] is schema


def test_depth_10000_is_limit_exceeded() -> None:
    """A schema 10,000 levels deep raises LimitExceeded, not RecursionError."""
    with pytest.raises(LimitExceeded):
        run(direction, deep(10_000, "properties"))


FLAGS = st.sampled_from([{}, {"readOnly": True}, {"writeOnly": True}, {"readOnly": False}])
PROPERTY = st.builds(lambda base, flag: {**base, **flag},
                     st.sampled_from([{"type": "string"}, {"type": "integer"}, {}]), FLAGS)
OBJECTS = st.fixed_dictionaries(
    {"type": st.just("object"),
     "properties": st.dictionaries(st.sampled_from(["a", "b", "c"]), PROPERTY, min_size=1)},
    optional={"required": st.lists(st.sampled_from(["a", "b", "c"]), min_size=1, unique=True),
              "additionalProperties": st.just(False),
              "example": st.just({"a": "x"}), "x-tag": st.just(1), "xml": st.just({})},
)


def hidden(schema: dict[str, Any], way: Direction) -> set[str]:
    flag = "readOnly" if way == "request" else "writeOnly"
    return {n for n, s in schema["properties"].items() if s.get(flag) is True}


@pytest.mark.slow
def test_contract() -> None:
    """Instances without the hidden properties: the result accepts exactly what the input
    accepts once the hidden names are no longer required; with `additionalProperties:
    false` a hidden property is refused (narrows to what the client may send)."""
    sampled = Sampled()

    @given(OBJECTS, st.sampled_from(["request", "response"]), st.data())
    @HEAVY
    def contract(schema: dict[str, Any], way: Direction, data: st.DataObject) -> None:
        out = check_pure(direction, schema, direction=way)
        gone = hidden(schema, way)
        assert not gone & set(out["properties"]) and not gone & set(out.get("required", []))
        oracle_schema = {k: v for k, v in schema.items()
                         if k not in ("example", "x-tag", "xml")}
        oracle_schema["required"] = [r for r in schema.get("required", []) if r not in gone]
        shown = {k: v for k, v in oracle_schema.items() if k != "required" or v}
        # Compare on instances without the hidden properties only.
        guard = {"not": {"anyOf": [{"required": [h]} for h in sorted(gone)]}} if gone else {}
        sampled.add(check_contract({"allOf": [shown, guard]}, {"allOf": [out, guard]}, data,
                                   "equivalent"))
        if schema.get("additionalProperties") is False and gone:
            assert not valid(out, {next(iter(gone)): "x"})

    contract()
    sampled.check()


_ANY_KEYS = st.dictionaries(
    st.sampled_from(["type", "description", "readOnly", "writeOnly", "$ref", "allOf",
                     "anyOf", "oneOf", "not", "items", "properties", "nullable", "x-flag"]),
    st.one_of(st.booleans(), st.just("#/$defs/T"),
              st.just([{"readOnly": True}, {"writeOnly": True}]),
              st.just({"readOnly": True, "writeOnly": True})),
    max_size=4,
)


@given(node=_ANY_KEYS)
def test_only_the_keywords_flagged_reads_can_flag_a_property(node: dict[str, Any]) -> None:
    """`_hidden` skips `flagged` for a property holding none of `_SOURCES`: such a node
    carries no flag, whatever its other keywords hold."""
    from httpllm.normalize.direction import _SOURCES, flagged

    for flag in ("readOnly", "writeOnly"):
        if _SOURCES.isdisjoint(node):
            assert not flagged(node, flag, lambda ref: True)
