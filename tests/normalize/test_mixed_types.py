"""Pass mixed_types: `type: [string, integer, ...]` -> a union of single-typed schemas."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from httpllm.errors import LimitExceeded
from httpllm.normalize import PASSES, emend
from httpllm.normalize.mixed_types import matches, mixed_types

from ._support import SETTINGS, check_pass_contract, check_pure, context, deep, run


@pytest.mark.parametrize(
    ("schema", "out"),
    [
        ({"type": ["string", "integer"], "maxLength": 3, "minimum": 2, "description": "d"},
         {"description": "d", "anyOf": [{"type": "string", "maxLength": 3},
                                        {"type": "integer", "minimum": 2}]}),
        ({"type": ["string", "integer", "null"], "enum": ["a", 1, None, True]},
         {"anyOf": [{"type": "string", "enum": ["a"]}, {"type": "integer", "enum": [1]},
                    {"type": "null"}]}),
        ({"type": ["number", "integer"], "enum": [1.5, 2]},
         {"anyOf": [{"type": "number", "enum": [1.5, 2]}, {"type": "integer", "enum": [2]}]}),
        ({"type": ["string", "boolean"], "const": True},
         {"anyOf": [{"type": "boolean", "const": True}]}),
        ({"type": ["string", "object"], "not": {"const": "x"}, "required": ["a"]},
         {"anyOf": [{"type": "string", "not": {"const": "x"}},
                    {"type": "object", "not": {"const": "x"}, "required": ["a"]}]}),
        ({"type": ["string", "integer"], "nullable": True, "x-kind": 1, "example": "a"},
         {"nullable": True, "x-kind": 1, "example": "a",
          "anyOf": [{"type": "string"}, {"type": "integer"}]}),
    ],
)
def test_examples(schema: dict[str, Any], out: dict[str, Any]) -> None:
    """Each member keeps the keywords of its type and the shared ones; annotations and
    OpenAPI-only keywords stay on the union; enum/const values go to the member of their
    type."""
    assert run(mixed_types, schema) == (out, [])


def test_null_member_only_when_the_enum_allows_it() -> None:
    """`null` in the type list makes a `{"type": "null"}` member only if enum/const allow it."""
    out, _ = run(mixed_types, {"type": ["string", "integer", "null"], "enum": ["a", 1]})
    assert out == {"anyOf": [{"type": "string", "enum": ["a"]}, {"type": "integer", "enum": [1]}]}


def test_single_type_and_type_with_null_are_left_alone() -> None:
    """One type, or one type and null, is the nullable pass's business."""
    for schema in ({"type": "string"}, {"type": ["string", "null"]}, {"type": ["integer"]}):
        assert run(mixed_types, schema)[0] is schema


def test_no_type_admits_the_values() -> None:
    """When no listed type admits the enum, the schema is kept and the problem reported."""
    schema = {"type": ["string", "boolean"], "enum": [1, 2]}
    out, reports = run(mixed_types, schema)
    assert out is schema
    assert reports == [("#", "no type in the type list admits the enum/const values")]


def test_members_go_through_the_later_passes() -> None:
    """With every pass, the split members are emended too: `items` added, readOnly
    properties dropped, OpenAPI-only keywords gone."""
    schema = {"type": ["array", "object"], "nullable": True, "x-a": 1,
              "properties": {"id": {"type": "string", "readOnly": True}}, "required": ["id"]}
    out = emend(schema, context("request"), pointer="#", rewrite_ref=lambda n, at: n,
                passes=PASSES)
    assert out == {"anyOf": [{"type": "array", "items": {}}, {"type": "object", "properties": {}},
                             {"type": "null"}]}


def test_matches() -> None:
    """JSON types of values: `1.0` is an integer, `true` is not a number."""
    assert matches(1.0, "integer") and matches(1, "number") and not matches(True, "integer")
    assert matches(None, "null") and matches([], "array") and not matches("1", "number")


def test_depth_10000_is_limit_exceeded() -> None:
    """A schema 10,000 levels deep raises LimitExceeded, not RecursionError."""
    with pytest.raises(LimitExceeded):
        run(mixed_types, deep(10_000))


KINDS = ["string", "integer", "number", "boolean", "null", "array", "object"]


def mixed_schemas() -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {"type": st.lists(st.sampled_from(KINDS), min_size=2, max_size=4, unique=True)},
        optional={
            "minLength": st.integers(0, 2),
            "maximum": st.integers(0, 5),
            "minItems": st.integers(0, 2),
            "required": st.just(["a"]),
            "enum": st.lists(st.sampled_from(["a", "", 0, 3, 2.5, True, None, [], {}]),
                             min_size=1, max_size=4, unique_by=repr),
            "description": st.just("d"),
        },
    )


@given(mixed_schemas())
@SETTINGS
def test_pure_fixpoint(schema: dict[str, Any]) -> None:
    """The pass is a fixpoint, deterministic, pure, and identity when nothing changes; no
    member lists two non-null types."""
    out = check_pure(mixed_types, schema)
    for member in out.get("anyOf", []):
        assert isinstance(member["type"], str)


@pytest.mark.slow
def test_equivalent() -> None:
    """The union accepts exactly what the type list accepted."""
    check_pass_contract(mixed_types, mixed_schemas(), "equivalent")
