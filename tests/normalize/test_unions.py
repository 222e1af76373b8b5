"""Pass unions: `oneOf`/`anyOf` -> one flat, de-duplicated `anyOf`."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from httpllm.errors import LimitExceeded
from httpllm.normalize.unions import EXCLUSIVE, as_one_of, disjoint, unions
from httpllm.walk import children

from ._support import (
    SETTINGS,
    Sampled,
    check_contract,
    check_pure,
    deep,
    run,
    scalar_schemas,
    valid,
)

S, INT, N = {"type": "string"}, {"type": "integer"}, {"type": "null"}
X = EXCLUSIVE


@pytest.mark.parametrize(
    ("schema", "out"),
    [
        ({"oneOf": [S, INT]}, {"anyOf": [S, INT]}),
        ({"anyOf": [S, {"anyOf": [S, N]}]}, {"anyOf": [S, N]}),
        # A string matches both alternatives: only null is valid. Exclusive, not spliced.
        ({"oneOf": [S, {"anyOf": [S, N]}]}, {"anyOf": [S, {"anyOf": [S, N]}], X: True}),
        ({"anyOf": [N, S, INT]}, {"anyOf": [S, INT, N]}),
        ({"anyOf": [{"anyOf": [{"anyOf": [INT, S]}], "title": "t"}]}, {"anyOf": [INT, S]}),
        ({"anyOf": [S, {**S}], "description": "d"}, {"type": "string", "description": "d"}),
        # No value matches exactly one of two equal alternatives: kept as written.
        ({"oneOf": [S, {**S}], "description": "d"}, {"description": "d", "anyOf": [S, S],
                                                      X: True}),
        ({"oneOf": [{"type": "string", "description": "inner"}], "description": "outer"},
         {"type": "string", "description": "outer"}),
        ({"oneOf": [S], "maxLength": 3}, {"maxLength": 3, "allOf": [S]}),
        ({"oneOf": [S, True]}, {"anyOf": [S, True], X: True}),
        ({"oneOf": [{"required": ["a"]}, N]}, {"anyOf": [{"required": ["a"]}, N], X: True}),
        ({"oneOf": [{"enum": ["a", 1]}, {"const": True}]}, {"anyOf": [{"enum": ["a", 1]},
                                                                   {"const": True}]}),
        ({"oneOf": [S, INT], "anyOf": [INT, N]},
         {"allOf": [{"anyOf": [S, INT]}], "anyOf": [INT, N]}),
    ],
)
def test_examples(schema: dict[str, Any], out: dict[str, Any]) -> None:
    """One flat `anyOf`: nested bare unions spliced, duplicates once, null last, one member
    unwrapped; `oneOf` beside `anyOf` becomes an `allOf` member."""
    assert run(unions, schema) == (out, [])


def test_overlapping_one_of_is_marked_exclusive() -> None:
    """Two object alternatives one value can match both of: `anyOf` marked exclusive (the
    members kept as written), and `as_one_of` spells it `oneOf` again."""
    a = {"type": "object", "properties": {"a": S}}
    b = {"type": "object", "properties": {"b": S}, "required": ["b"]}
    out, _ = run(unions, {"oneOf": [a, b], "description": "d"})
    assert out == {"description": "d", "anyOf": [a, b], X: True}
    assert as_one_of(out) == {"description": "d", "oneOf": [a, b]}


def test_response_one_of_is_not_marked() -> None:
    """Response schemas are not checked by validate: their `oneOf` is a plain `anyOf`."""
    a, b = {"required": ["a"]}, {"required": ["b"]}
    assert run(unions, {"oneOf": [a, b]}, direction="response")[0] == {"anyOf": [a, b]}


def test_one_of_beside_any_of_keeps_its_mark_in_all_of() -> None:
    """`oneOf` and `anyOf` on one node: the `oneOf` goes into `allOf`, still exclusive."""
    a, b = {"required": ["a"]}, {"required": ["b"]}
    out, _ = run(unions, {"oneOf": [a, b], "anyOf": [S, N]})
    assert out == {"allOf": [{"anyOf": [a, b], X: True}], "anyOf": [S, N]}


@pytest.mark.parametrize(
    ("members", "apart"),
    [
        ([S, INT, N], True),
        ([INT, {"type": "number"}], False),
        ([{"const": 1}, {"enum": [1.0, 2]}], False),
        ([{"const": 1}, {"const": True}], True),
        ([{"enum": ["a"]}, INT], True),
        ([{"enum": ["a"]}, S], False),
        ([{"type": "object", "properties": {"k": {"const": "a"}}, "required": ["k"]},
          {"type": "object", "properties": {"k": {"enum": ["b"]}}, "required": ["k"]}], True),
        ([{"properties": {"k": {"const": "a"}}, "required": ["k"]},
          {"properties": {"k": {"enum": ["b"]}}, "required": ["k"]}], False),
        ([{"type": "object", "properties": {"k": {"const": "a"}}, "required": ["k"]},
          {"type": "object", "properties": {"k": {"enum": ["b"]}}}], False),
        ([{"$ref": "#/$defs/A"}, {"$ref": "#/$defs/B"}], True),
        ([{"$ref": "#/$defs/A"}, {"$ref": "#/$defs/C"}], False),
    ],
)
def test_disjoint(members: list[Any], apart: bool) -> None:
    """Alternatives are disjoint by type (integer inside number), listed values (`1` is
    `1.0`, not `true`), or a tag both require with distinct values where one is an object
    (untyped, a string satisfies both); `$ref`s are read through the resolver."""
    defs = {"A": S, "B": INT, "C": {}}
    assert disjoint(members, defs.get) is apart


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
@pytest.mark.slow
def test_pure_fixpoint(schema: dict[str, Any]) -> None:
    """The pass is a fixpoint, deterministic, pure, and identity when nothing changes; the
    result has no `oneOf` and no bare union inside a union, but as an alternative of an
    exclusive one."""
    out = check_pure(unions, schema)
    stack = [out]
    while stack:
        node = stack.pop()
        assert "oneOf" not in node
        if node.get(X) is not True:
            for member in node.get("anyOf", []):
                assert not (isinstance(member, dict) and set(member) == {"anyOf"})
        stack.extend(sub for _, _, sub in children(node) if isinstance(sub, dict))


@pytest.mark.slow
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


@pytest.mark.parametrize("schema", [
    {"oneOf": [S, {"oneOf": [S]}, {"anyOf": [{"enum": [2]}]}]},
])
def test_found_by_the_properties(schema: dict[str, Any]) -> None:
    """Pinned: alternatives that become equal once emended are kept, and stay exclusive."""
    out, _ = run(unions, schema)
    for instance in ("", 2, None):
        assert valid(schema, instance) == valid(as_one_of(out), instance)


@pytest.mark.slow
def test_equivalent_with_the_mark_read_as_one_of() -> None:
    """Read with its marks as `oneOf` (`as_one_of`, what validate checks), the result
    accepts exactly the input's instances."""
    sampled = Sampled()

    @given(union_schemas(), st.data())
    @SETTINGS
    def equivalent(schema: dict[str, Any], data: st.DataObject) -> None:
        out = as_one_of(run(unions, schema)[0])
        sampled.add(check_contract(schema, out, data, "equivalent"))

    equivalent()
    sampled.check()


@given(st.lists(st.sampled_from(["string", "integer", "boolean", "null", "array"]),
                min_size=1, max_size=4, unique=True), st.data())
@SETTINGS
@pytest.mark.slow
def test_disjoint_one_of_is_equivalent(kinds: list[str], data: st.DataObject) -> None:
    """`oneOf` over distinct types is an `anyOf`: exactly the same instances."""
    schema = {"oneOf": [{"type": k} for k in kinds]}
    out, _ = run(unions, schema)
    assert check_contract(schema, out, data, "equivalent") > 0
