"""Pass unions: `oneOf`/`anyOf` -> one flat, de-duplicated `anyOf`."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from httpllm.errors import LimitExceeded
from httpllm.normalize.unions import unions

from ._support import SETTINGS, Sampled, check_contract, check_pure, deep, run, scalar_schemas

S, INT, N = {"type": "string"}, {"type": "integer"}, {"type": "null"}


@pytest.mark.parametrize(
    ("schema", "out"),
    [
        ({"oneOf": [S, INT]}, {"anyOf": [S, INT]}),
        ({"oneOf": [S, {"anyOf": [S, N]}]}, {"anyOf": [S, N]}),
        ({"anyOf": [N, S, INT]}, {"anyOf": [S, INT, N]}),
        ({"anyOf": [{"anyOf": [{"anyOf": [INT, S]}], "title": "t"}]}, {"anyOf": [INT, S]}),
        ({"oneOf": [S, {**S}], "description": "d"}, {"type": "string", "description": "d"}),
        ({"oneOf": [{"type": "string", "description": "inner"}], "description": "outer"},
         {"type": "string", "description": "outer"}),
        ({"oneOf": [S], "maxLength": 3}, {"maxLength": 3, "allOf": [S]}),
        ({"oneOf": [S, True]}, {"anyOf": [S, True]}),
        ({"oneOf": [S, INT], "anyOf": [INT, N]},
         {"allOf": [{"anyOf": [S, INT]}], "anyOf": [INT, N]}),
    ],
)
def test_examples(schema: dict[str, Any], out: dict[str, Any]) -> None:
    """One flat `anyOf`: nested bare unions spliced, duplicates once, null last, one member
    unwrapped; `oneOf` beside `anyOf` becomes an `allOf` member."""
    assert run(unions, schema) == (out, [])


def test_a_discriminated_union_of_one_stays_a_union() -> None:
    """With a `discriminator` the one variant stays in `anyOf`, for its tag to be required."""
    schema = {"oneOf": [{"$ref": "#/$defs/Cat"}], "discriminator": {"propertyName": "kind"}}
    assert run(unions, schema)[0] == {"discriminator": {"propertyName": "kind"},
                                       "anyOf": [{"$ref": "#/$defs/Cat"}]}


def test_empty_union_is_reported() -> None:
    """`oneOf: []` is invalid: reported, and the union removed."""
    out, reports = run(unions, {"oneOf": [], "type": "string"})
    assert out == {"type": "string"}
    assert reports == [("#", "a union needs a non-empty list of schemas")]


def test_no_union_is_identity() -> None:
    """A schema without unions comes back as the same object."""
    schema = {"type": "object", "properties": {"a": {"type": "string"}}}
    assert run(unions, schema)[0] is schema


def test_depth_10000_is_limit_exceeded() -> None:
    """A schema 10,000 levels deep raises LimitExceeded, not RecursionError."""
    with pytest.raises(LimitExceeded):
        run(unions, deep(10_000, "not"))


def union_of(members: st.SearchStrategy[Any], size: int) -> st.SearchStrategy[dict[str, Any]]:
    return st.builds(lambda keyword, items: {keyword: items}, st.sampled_from(["oneOf", "anyOf"]),
                     st.lists(members, min_size=1, max_size=size))


def union_schemas() -> st.SearchStrategy[dict[str, Any]]:
    member = st.recursive(scalar_schemas(), lambda inner: union_of(inner, 3), max_leaves=5)
    return union_of(member, 4)


@given(union_schemas())
@SETTINGS
def test_pure_fixpoint(schema: dict[str, Any]) -> None:
    """The pass is a fixpoint, deterministic, pure, and identity when nothing changes; the
    result has no `oneOf` and no bare union inside a union."""
    out = check_pure(unions, schema)
    text = repr(out)
    assert "oneOf" not in text
    for member in out.get("anyOf", []):
        assert not (isinstance(member, dict) and set(member) == {"anyOf"})


def test_widens_only_where_one_of_overlaps() -> None:
    """Instances of the input stay valid; with `anyOf` input, or `oneOf` members of
    different types, the result is equivalent."""
    sampled = Sampled()

    @given(union_schemas(), st.data())
    @SETTINGS
    def widens(schema: dict[str, Any], data: st.DataObject) -> None:
        out, _ = run(unions, schema)
        contract = "equivalent" if "oneOf" not in repr(schema) else "widens"
        sampled.add(check_contract(schema, out, data, contract))

    widens()
    sampled.check()


@given(st.lists(st.sampled_from(["string", "integer", "boolean", "null", "array"]),
                min_size=1, max_size=4, unique=True), st.data())
@SETTINGS
def test_disjoint_one_of_is_equivalent(kinds: list[str], data: st.DataObject) -> None:
    """`oneOf` over distinct types is an `anyOf`: exactly the same instances."""
    schema = {"oneOf": [{"type": k} for k in kinds]}
    out, _ = run(unions, schema)
    assert check_contract(schema, out, data, "equivalent") > 0
