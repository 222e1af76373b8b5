"""Pass nullable: every way of saying "or null" -> one `{"type": "null"}` union member."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from httpllm.errors import LimitExceeded
from httpllm.normalize import PASSES, emend
from httpllm.normalize.nullable import NULL, allows_null, nullable, with_null
from httpllm.normalize.unions import EXCLUSIVE

from ._support import (
    SETTINGS,
    Sampled,
    check_contract,
    check_pass_contract,
    check_pure,
    context,
    deep,
    run,
    scalar_schemas,
    valid,
)

S = {"type": "string"}


@pytest.mark.parametrize(
    ("schema", "out"),
    [
        pytest.param({"type": "string", "nullable": True}, {"anyOf": [S, NULL]}, id="3.0"),
        pytest.param({"type": "string", "nullable": False}, S, id="3.0-false"),
        pytest.param({"type": ["string", "null"]}, {"anyOf": [S, NULL]}, id="3.1"),
        pytest.param({"type": ["null"]}, NULL, id="3.1-only-null"),
        pytest.param({"type": ["string", "null"], "enum": ["a", None], "description": "d"},
                     {"description": "d", "anyOf": [{"type": "string", "enum": ["a"]}, NULL]},
                     id="enum-with-null"),
        pytest.param({"enum": ["a", None]}, {"anyOf": [{"enum": ["a"]}, NULL]}, id="untyped-enum"),
        pytest.param({"const": None, "title": "t"}, {"title": "t", "type": "null"}, id="const"),
        pytest.param({"type": ["string", "null"], "const": None}, NULL, id="const-typed"),
        pytest.param({"type": ["string", "null"], "enum": ["a", "b"]},
                     {"type": "string", "enum": ["a", "b"]}, id="enum-without-null"),
        pytest.param({"type": "string", "nullable": True, "enum": ["a"]},
                     {"anyOf": [{"type": "string", "enum": ["a"]}, NULL]}, id="3.0-lenient"),
        pytest.param({"nullable": True}, {}, id="3.0-untyped"),
        pytest.param({"type": "object", "nullable": True, "properties": {"a": S}, "x-y": 1},
                     {"x-y": 1, "anyOf": [{"type": "object", "properties": {"a": S}}, NULL]},
                     id="extension-outside"),
        pytest.param({"anyOf": [S, {"type": "integer"}], "nullable": True},
                     {"anyOf": [S, {"type": "integer"}, NULL]}, id="union-spliced"),
        pytest.param({"$ref": "#/$defs/Pet", "nullable": True, "description": "d"},
                     {"description": "d", "anyOf": [{"$ref": "#/$defs/Pet"}, NULL]},
                     id="ref-sibling"),
    ],
)
def test_examples(schema: dict[str, Any], out: dict[str, Any]) -> None:
    """3.0 `nullable`, 3.1 type lists, null in `enum` and `const: null` all become one
    `{"type": "null"}` member; annotations stay outside the union."""
    assert run(nullable, schema) == (out, [])


def test_null_the_type_excludes_is_dropped_and_reported() -> None:
    """`type: string` with `enum: [a, null]` never accepted null: the null goes, reported."""
    out, reports = run(nullable, {"type": "string", "enum": ["a", None]})
    assert out == {"type": "string", "enum": ["a"]}
    assert reports == [("#", "null is listed, but the type does not allow null; dropped")]


def test_only_null_that_the_type_excludes_is_kept_and_reported() -> None:
    """`type: string, const: null` accepts nothing: kept as written, reported."""
    schema = {"type": "string", "const": None}
    out, reports = run(nullable, schema)
    assert out is schema
    assert reports == [("#", "only null is listed, and the type does not allow null")]


def test_ref_sibling_through_every_pass() -> None:
    """A 3.0 `$ref` with `nullable: true` (as named.py keeps it) ends as `anyOf [ref, null]`."""
    out = emend({"$ref": "#/$defs/Pet", "nullable": True}, context(), pointer="#",
                rewrite_ref=lambda n, at: n, passes=PASSES)
    assert out == {"anyOf": [{"$ref": "#/$defs/Pet"}, NULL]}


def test_wrapped_part_goes_through_the_later_passes() -> None:
    """The part wrapped in the union is emended too: `items` added, readOnly dropped."""
    schema = {"type": "array", "nullable": True}
    assert emend(schema, context(), pointer="#", rewrite_ref=lambda n, at: n,
                 passes=PASSES) == {"anyOf": [{"type": "array", "items": {}}, NULL]}
    schema = {"type": "object", "nullable": True, "example": {"id": "1"},
              "properties": {"id": {"type": "string", "readOnly": True}}}
    assert emend(schema, context(), pointer="#", rewrite_ref=lambda n, at: n,
                 passes=PASSES) == {"anyOf": [{"type": "object", "properties": {}}, NULL]}


def test_with_null_keeps_an_exclusive_union_exact() -> None:
    """An exclusive union takes null as one more member when every member refuses null;
    otherwise (a `$ref`, an untyped member) it becomes the member of a plain union with
    null, its mark kept with its `anyOf`."""
    typed = {"anyOf": [S, {"type": "object"}], EXCLUSIVE: True, "title": "t"}
    assert with_null(typed) == {"title": "t", "anyOf": [S, {"type": "object"}, NULL],
                                EXCLUSIVE: True}
    loose = {"anyOf": [{"$ref": "#/$defs/A"}, {"required": ["a"]}], EXCLUSIVE: True}
    assert with_null(loose) == {"anyOf": [loose, NULL]}


def test_allows_null_and_with_null() -> None:
    """`allows_null` sees null members and open schemas; `with_null` adds null once."""
    assert allows_null({}) and allows_null(True) and allows_null(NULL)
    assert allows_null({"anyOf": [S, NULL]}) and allows_null({"const": None})
    assert not allows_null(S) and not allows_null(False)
    assert with_null({"anyOf": [S, NULL]}) == {"anyOf": [S, NULL]}
    assert with_null({"type": "string", "title": "t"}) == {"title": "t", "anyOf": [S, NULL]}


def test_depth_10000_is_limit_exceeded() -> None:
    """A schema 10,000 levels deep raises LimitExceeded, not RecursionError."""
    with pytest.raises(LimitExceeded):
        run(nullable, deep(10_000))


def json_nullable_schemas() -> st.SearchStrategy[dict[str, Any]]:
    """3.1 spellings of null: type lists, null in enum, const null (plain JSON Schema)."""
    typed = st.fixed_dictionaries(
        {"type": st.lists(st.sampled_from(["string", "integer", "null", "boolean"]),
                          min_size=1, max_size=3, unique=True)},
        optional={"enum": st.lists(st.sampled_from(["a", 1, None, True]), min_size=1,
                                   max_size=3, unique=True),
                  "minimum": st.integers(0, 3), "description": st.just("d")})
    consts = st.fixed_dictionaries({"const": st.sampled_from([None, "a"])},
                                   optional={"type": st.sampled_from(["string", "null"])})
    enums = st.fixed_dictionaries({"enum": st.lists(st.sampled_from(["a", 2, None]),
                                                    min_size=1, max_size=3, unique=True)})
    return st.one_of(typed, consts, enums)


def openapi30_schemas() -> st.SearchStrategy[dict[str, Any]]:
    return st.builds(lambda s, flag: {**s, "nullable": flag}, scalar_schemas(), st.booleans())


@given(st.one_of(json_nullable_schemas(), openapi30_schemas()))
@SETTINGS
def test_pure_fixpoint(schema: dict[str, Any]) -> None:
    """The pass is a fixpoint, deterministic, pure, and identity when nothing changes; no
    `nullable` or null enum value is left (but in the reported `const: null` conflict)."""
    out = check_pure(nullable, schema)
    if run(nullable, schema)[1] and out is schema:
        return
    assert "nullable" not in repr(out)
    for node in [out, *out.get("anyOf", [])]:
        assert None not in node.get("enum", [])


def test_equivalent_for_json_schema_spellings() -> None:
    """Type lists, null in enum and `const: null` keep exactly the same instances."""
    check_pass_contract(nullable, json_nullable_schemas(), "equivalent")


@pytest.mark.slow
def test_openapi30_nullable_adds_exactly_null() -> None:
    """`nullable: true` accepts null besides what the schema accepts, nothing else."""
    sampled = Sampled()

    @given(openapi30_schemas(), st.data())
    @SETTINGS
    def widens_by_null(schema: dict[str, Any], data: st.DataObject) -> None:
        out, _ = run(nullable, schema)
        plain = {k: v for k, v in schema.items() if k != "nullable"}

        def oracle(x: Any) -> bool:
            return valid(plain, x) or (x is None and schema["nullable"])

        sampled.add(check_contract(schema, out, data, "equivalent", oracle=oracle))
        assert valid(out, None) == (schema["nullable"] or valid(plain, None))

    widens_by_null()
    sampled.check()
