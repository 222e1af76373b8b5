"""Pass union_properties: each object member of an object's anyOf declares its properties."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import strategies as st

import httpllm
from httpllm.errors import LimitExceeded
from httpllm.normalize.union_properties import union_properties

from ._support import check_pass_contract, deep, run, scalar_schemas

A = {"type": "string"}
DONE = {"properties": {"status": {"enum": ["done"]}}}
INTEGER = {"type": "integer"}


@pytest.mark.parametrize(
    ("schema", "out"),
    [
        ({"type": "object", "properties": {"name": A, "status": A}, "anyOf": [DONE, {}]},
         {"type": "object", "properties": {"name": A, "status": A},
          "anyOf": [{"properties": {"status": {"enum": ["done"]}, "name": A}}, {}]}),
        ({"properties": {"name": A}, "anyOf": [
            {"type": "object", "properties": {"x": A}, "additionalProperties": INTEGER},
            {"properties": {"y": A}, "patternProperties": {"^n": A},
             "additionalProperties": INTEGER}]},
         {"properties": {"name": A}, "anyOf": [
             {"type": "object", "properties": {"x": A, "name": INTEGER},
              "additionalProperties": INTEGER},
             {"properties": {"y": A, "name": A}, "patternProperties": {"^n": A},
              "additionalProperties": INTEGER}]}),
    ],
)
def test_examples(schema: dict[str, Any], out: dict[str, Any]) -> None:
    """A member declares the parent's properties with the schema their value already had
    to match there: the parent's, or the member's additionalProperties where it applied."""
    assert run(union_properties, schema) == (out, [])


@pytest.mark.parametrize("schema", [
    {"properties": {"name": A}, "anyOf": [{"properties": {"name": A}}, {"required": ["name"]}]},
    {"properties": {"name": A}, "anyOf": [{**DONE, "additionalProperties": False}]},
    {"properties": {"name": A}, "anyOf": [{**DONE, "unevaluatedProperties": False}, {}]},
    {"properties": {"name": A}, "anyOf": [{"$ref": "#/$defs/Done"}, {"type": "string"}]},
    {"properties": {"name": A}, "anyOf": [{**DONE, "type": "string"}]},
    {"anyOf": [DONE, {"properties": {"x": A}}]},
])
def test_left_alone(schema: dict[str, Any]) -> None:
    """Members declaring every name, presence tests, members the document closed (by
    additionalProperties or unevaluatedProperties), $ref
    members, members of another type and unions without a parent object come back as the
    same object."""
    assert run(union_properties, schema)[0] is schema


def test_depth_10000_is_limit_exceeded() -> None:
    """A schema 10,000 levels deep raises LimitExceeded, not RecursionError."""
    with pytest.raises(LimitExceeded):
        run(union_properties, deep(10_000))


@pytest.mark.parametrize(("provider", "options"), [
    ("chatgpt", {"strict": True}), ("deepseek", {"strict": True}), ("claude", {"strict": True}),
    ("bedrock", {"strict": True}), ("mistral", {"strict": True}), ("llama", {"strict": True}),
    ("chatgpt", {}), ("gemini", {}),
])
def test_strict_tools_take_the_parents_properties_beside_a_narrowing_member(
        provider: str, options: Any) -> None:
    """GitHub's checks/update: members narrow status beside the object's other properties.
    Each strict mode closed the members to status alone, and validate refused every real
    call (name: "no property name, allowed: status")."""
    body = {"type": "object", "properties": {"name": A, "status": A},
            "anyOf": [{**DONE, "required": ["status"], "additionalProperties": True},
                      {"properties": {"status": {"enum": ["queued"]}}}]}
    source = {"openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "paths": {"/x": {
        "post": {"operationId": "op", "responses": {"200": {"description": "ok"}},
                 "requestBody": {"required": True,
                                 "content": {"application/json": {"schema": body}}}}}}}
    app = httpllm.compile(source, provider, **options)
    assert app.validate("op", {"body": {"name": "x", "status": "queued"}}).ok
    assert app.validate("op", {"body": {"name": "x", "status": "done"}}).ok
    assert not app.validate("op", {"body": {"name": "x", "status": "other"}}).ok


def test_unevaluated_member_still_refuses_the_parents_names() -> None:
    """A member with unevaluatedProperties: false refuses the parent's other names; declared
    there, they were evaluated and every such call was valid."""
    body = {"type": "object", "properties": {"a": A, "b": A}, "anyOf": [
        {"properties": {"a": {"const": k}}, "unevaluatedProperties": False} for k in "xy"]}
    source = {"openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "paths": {"/x": {
        "post": {"operationId": "op", "responses": {"200": {"description": "ok"}},
                 "requestBody": {"required": True,
                                 "content": {"application/json": {"schema": body}}}}}}}
    app = httpllm.compile(source, "mcp")
    assert app.validate("op", {"body": {"a": "x"}}).ok
    assert not app.validate("op", {"body": {"a": "x", "b": "y"}}).ok


def test_wide_union_of_a_wide_object_is_left_as_written_and_reported() -> None:
    """200 properties of 11 nodes copied into 100 members made a 185 kB body a 17 MB
    tool (cut to JSON text for every provider, its validator seconds to build): past
    MAX_COPIED nodes the union is left as written, and said."""
    sub = {"type": "object", "properties": {f"q{i}": A for i in range(10)}}
    schema = {"type": "object", "properties": {f"p{i}": sub for i in range(200)},
              "anyOf": [{"properties": {f"p{j}": {"type": "object"}}} for j in range(100)]}
    out, reports = run(union_properties, schema)
    assert out is schema
    assert len(reports) == 1 and "over 4,096 schema nodes" in reports[0][1]
    small = {**schema, "anyOf": schema["anyOf"][:2]}
    assert run(union_properties, {**small, "properties": {"p0": sub, "p1": sub}})[1] == []


def objects() -> st.SearchStrategy[dict[str, Any]]:
    names = st.sampled_from(["a", "b", "x1"])
    member = st.fixed_dictionaries(
        {"properties": st.dictionaries(names, scalar_schemas(), min_size=1, max_size=2)},
        optional={"additionalProperties": st.booleans() | scalar_schemas(),
                  "unevaluatedProperties": st.booleans(),
                  "patternProperties": st.just({"^x": {"type": "string"}}),
                  "required": st.lists(names, max_size=2, unique=True)})
    return st.fixed_dictionaries(
        {"type": st.just("object"),
         "properties": st.dictionaries(names, scalar_schemas(), min_size=1, max_size=2),
         "anyOf": st.lists(member | scalar_schemas(), min_size=1, max_size=3)},
        optional={"additionalProperties": st.booleans() | scalar_schemas()},
    )


@pytest.mark.slow
def test_equivalent_pure_fixpoint() -> None:
    """The result accepts exactly the same instances; the pass is a fixpoint, deterministic,
    pure, and identity when nothing changes."""
    check_pass_contract(union_properties, objects(), "equivalent", pure=True)
