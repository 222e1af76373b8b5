"""Pass all_of: `allOf` members merged into one schema; contradictions reported."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import shared
from hypothesis import given
from hypothesis import strategies as st

import httpllm
from httpllm.errors import LimitExceeded
from httpllm.normalize.all_of import Conflict, all_of, merge
from httpllm.normalize.unions import EXCLUSIVE, as_one_of

from ._support import (
    KEYS,
    SETTINGS,
    check_pass_contract,
    check_pure,
    context,
    deep,
    object_schemas,
    run,
    scalar_schemas,
    valid,
)

S, INT = {"type": "string"}, {"type": "integer"}
CONTRADICTION = "allOf members contradict each other: "


@pytest.mark.parametrize(
    ("schema", "out"),
    [
        pytest.param({"allOf": [{"type": "object", "properties": {"a": S}}, {"required": ["a"]}]},
                     {"type": "object", "properties": {"a": S}, "required": ["a"]}, id="doc"),
        pytest.param({"type": "object", "required": ["b"],
                      "allOf": [{"properties": {"a": S}, "required": ["a"]}]},
                     {"type": "object", "required": ["b", "a"], "properties": {"a": S}},
                     id="own-keywords"),
        pytest.param({"allOf": [{"type": "integer", "minimum": 1, "maximum": 9},
                                {"minimum": 3, "maximum": 12, "exclusiveMaximum": 8}]},
                     {"type": "integer", "minimum": 3, "maximum": 9, "exclusiveMaximum": 8},
                     id="bounds-intersect"),
        pytest.param({"allOf": [{"type": "integer"}, {"type": "number", "minimum": 0}]},
                     {"type": "integer", "minimum": 0}, id="integer-is-a-number"),
        pytest.param({"allOf": [{"type": ["string", "null"]}, {"type": ["integer", "null"]}]},
                     {"type": "null"}, id="type-lists"),
        pytest.param({"allOf": [{"enum": [1, 2, 3]}, {"enum": [3.0, 2, 4]}]}, {"enum": [2, 3]},
                     id="enum-intersect"),
        pytest.param({"allOf": [{"enum": ["a", 1, True]}, {"type": "integer"}]},
                     {"type": "integer", "enum": [1]}, id="enum-by-type"),
        pytest.param({"allOf": [{"enum": ["a", "b"]}, {"const": "b"}]}, {"const": "b"},
                     id="enum-and-const"),
        pytest.param({"allOf": [{"properties": {"a": {"type": "string", "maxLength": 5}}},
                                {"properties": {"a": {"minLength": 2, "description": "x"}}}]},
                     {"properties": {"a": {"type": "string", "maxLength": 5, "minLength": 2,
                                           "description": "x"}}}, id="properties-merge"),
        pytest.param({"allOf": [{"pattern": "^a"}, {"pattern": "b$"}]},
                     {"pattern": "^a", "allOf": [{"pattern": "b$"}]}, id="unmergeable-stays"),
        pytest.param({"description": "mine", "allOf": [{"description": "theirs", **S}]},
                     {"description": "mine", "type": "string"}, id="own-annotations-win"),
        pytest.param({"type": "object", "allOf": [True, {}]}, {"type": "object"}, id="trivial"),
        pytest.param({"allOf": [{"type": "array", "items": {"type": "integer", "minimum": 0}},
                                {"items": {"maximum": 3}}]},
                     {"type": "array", "items": {"type": "integer", "minimum": 0, "maximum": 3}},
                     id="items-merge"),
    ],
)
def test_examples(schema: dict[str, Any], out: dict[str, Any]) -> None:
    """Members and the node's own keywords merge into one schema: properties and required
    united, bounds, enums and types intersected."""
    assert run(all_of, schema) == (out, [])


@pytest.mark.parametrize(
    ("members", "why"),
    [
        ([S, INT], "type ['string'] and type ['integer'] have no value in common"),
        ([{"type": ["integer", "number"]}, S], "have no value in common"),
        ([{"enum": [1, 2]}, {"enum": [3]}], "no value of the enum/const is allowed"),
        ([{"const": "a"}, {"const": "b"}], "no value of the enum/const is allowed"),
        ([{"type": "string"}, {"enum": [1, 2]}], "no value of the enum/const is allowed"),
        ([{"type": "integer", "minimum": 5}, {"maximum": 3}], "minimum 5 is above maximum 3"),
        ([{"type": "string", "minLength": 4}, {"maxLength": 2}], "minLength 4 is above"),
        ([{"anyOf": [S, INT]}, {"anyOf": [{"type": "boolean"}, {"type": "null"}]}],
         "no member of one union is compatible"),
        ([{"properties": {"a": S}}, {"properties": {"a": INT}}], "have no value in common"),
    ],
)
def test_contradictions_are_reported_never_emptied(members: list[Any], why: str) -> None:
    """An impossible `allOf` is reported and kept as written, never replaced by `{}`."""
    schema = {"allOf": members}
    out, reports = run(all_of, schema)
    assert out is schema
    assert len(reports) == 1 and reports[0][0] == "#"
    assert reports[0][1].startswith(CONTRADICTION) and why in reports[0][1]


def test_unions_distribute() -> None:
    """Two unions merge member by member; contradicting pairs drop out."""
    schema = {"allOf": [{"anyOf": [S, INT]},
                        {"anyOf": [{"type": "integer", "minimum": 1}, {"minLength": 2}]}]}
    assert run(all_of, schema)[0] == {"anyOf": [
        {"type": "string", "minLength": 2},
        {"type": "integer", "minimum": 1},
        {"type": "integer", "minLength": 2},
    ]}


def test_exclusive_unions_distribute_only_with_each_other() -> None:
    """Two exclusive unions (`x-httpllm-oneOf`) distribute into an exclusive one; one
    beside a plain union stays a union of its own (with its mark) in `allOf`; one beside
    an object takes its keywords, still marked."""
    ex = {"anyOf": [{"required": ["a"]}, {"required": ["b"]}], EXCLUSIVE: True}
    plain = {"anyOf": [{"minProperties": 1}, {"maxProperties": 3}]}
    both, _ = run(all_of, {"allOf": [ex, {**ex, "anyOf": [{"required": ["c"]}, S]}]})
    assert both[EXCLUSIVE] is True and len(both["anyOf"]) == 4
    assert run(all_of, {"allOf": [plain, ex]})[0] == {**plain, "allOf": [ex]}
    assert run(all_of, {"allOf": [ex, plain]})[0] == {**ex, "allOf": [plain]}
    assert run(all_of, {"allOf": [{"type": "object"}, ex]})[0] == {"type": "object", **ex}


def test_exclusive_unions_merge_exactly() -> None:
    """Read as `oneOf`, the merge of exclusive and plain unions accepts what the `allOf`
    of them accepts."""
    ex = {"anyOf": [{"required": ["a"]}, {"required": ["b"]}], EXCLUSIVE: True}
    plain = {"anyOf": [{"required": ["b"]}, {"required": ["c"]}]}
    for members in ([ex, plain], [plain, ex], [ex, {**ex, "anyOf": plain["anyOf"]}]):
        before, after = {"allOf": members}, run(all_of, {"allOf": members})[0]
        for keys in ("", "a", "b", "c", "ab", "ac", "bc", "abc"):
            instance = dict.fromkeys(keys, 1)
            assert valid(as_one_of(before), instance) == valid(as_one_of(after), instance)


def test_one_surviving_union_member_is_merged_in() -> None:
    """When one pair of union members survives, the union is that member, merged in."""
    schema = {"allOf": [{"anyOf": [S, INT]},
                        {"anyOf": [{"type": "integer", "minimum": 1}, {"type": "boolean"}]}]}
    assert run(all_of, schema)[0] == {"type": "integer", "minimum": 1}


def test_big_union_products_stay_unmerged() -> None:
    """A cross product over 16 members is not distributed: the second union stays."""
    left = {"anyOf": [{"const": i} for i in range(5)]}
    right = {"anyOf": [{"const": i} for i in range(4)]}
    assert run(all_of, {"allOf": [left, right]})[0] == {"anyOf": left["anyOf"],
                                                        "allOf": [right]}


CLOSED = {"type": "object", "properties": {"a": S, "b": S}, "additionalProperties": False}


def test_closed_member_that_covers_every_property_stays_closed() -> None:
    """`additionalProperties: false` stays when the closed member declares every property."""
    out, _ = run(all_of, {"allOf": [CLOSED, {"properties": {"a": {"maxLength": 2}},
                                             "required": ["a"]}]})
    assert out == {"type": "object", "properties": {"a": {"type": "string", "maxLength": 2},
                                                    "b": S},
                   "required": ["a"], "additionalProperties": False}


def test_closed_member_is_opened_by_another_members_properties() -> None:
    """`additionalProperties: false` is dropped when another member adds properties (the
    documented widening: the usual intent of such documents)."""
    out, _ = run(all_of, {"allOf": [CLOSED, {"properties": {"c": INT}}]})
    assert out == {"type": "object", "properties": {"a": S, "b": S, "c": INT}}
    assert valid(out, {"a": "x", "c": 1}) and valid(out, {"d": 1})


def test_additional_properties_schema_constrains_the_other_members_properties() -> None:
    """A property only one member declares must also match the other member's
    `additionalProperties` schema."""
    out, _ = run(all_of, {"allOf": [
        {"properties": {"a": S}, "additionalProperties": {"type": "string", "maxLength": 3}},
        {"properties": {"b": {"minLength": 1}}}]})
    assert out == {"properties": {"a": S,
                                  "b": {"minLength": 1, "type": "string", "maxLength": 3}},
                   "additionalProperties": {"type": "string", "maxLength": 3}}


def test_additional_properties_schema_of_a_member_without_properties() -> None:
    """Found by `test_equivalent`: a member with only `additionalProperties` still
    constrains the properties the other member declares, on either side."""
    for members in ([{"type": "object", "additionalProperties": {"type": "string"}},
                     {"type": "object", "properties": {"b": {"maxLength": 3}}}],
                    [{"type": "object", "properties": {"b": {"maxLength": 3}}},
                     {"type": "object", "additionalProperties": {"type": "string"}}]):
        out, _ = run(all_of, {"allOf": members})
        assert out["properties"] == {"b": {"maxLength": 3, "type": "string"}}
        assert out["additionalProperties"] == {"type": "string"}
    # An integer `b` against string-only extra properties: `b` can never be sent, but the
    # object can; the merge keeps `b` exact (unmerged) instead of failing as a whole.
    node = {"allOf": [{"type": "object", "additionalProperties": {"type": "string"}},
                      {"type": "object", "required": ["a"],
                       "properties": {"a": {"type": "string"}, "b": {"type": "integer"}}}]}
    out, reports = run(all_of, node)
    assert reports == []
    assert out["type"] == "object" and out["required"] == ["a"]
    assert out["properties"]["a"] == {"type": "string"}
    assert out["properties"]["b"] == {"allOf": [{"type": "integer"}, {"type": "string"}]}


def test_an_impossible_property_keeps_the_body_an_object_in_strict_mode() -> None:
    """Found by a new-user test: the merge used to fail as a whole, and strict OpenAI,
    which has no allOf, typed the whole body as a string the API then refused."""
    import httpllm

    body = {"allOf": [{"type": "object", "additionalProperties": {"type": "string"}},
                      {"type": "object", "required": ["b"],
                       "properties": {"b": {"type": "string"}, "c": {"type": "integer"}}}]}
    doc = {"openapi": "3.0.3", "info": {"title": "t", "version": "1"},
           "paths": {"/x": {"post": {"operationId": "x1",
                                     "responses": {"200": {"description": "ok"}},
                                     "requestBody": {"content": {"application/json": {
                                         "schema": body}}}}}}}
    app = httpllm.compile(doc, "chatgpt", strict=True)
    body_schema = app.functions[0].parameters["properties"]["body"]
    kinds = [m.get("type") for m in body_schema.get("anyOf", [body_schema])]
    assert "object" in kinds and "string" not in kinds  # optional: object or null
    assert app.validate("x1", {"body": {"b": "hello"}}).ok


def test_ref_members_merge_their_emended_target() -> None:
    """A `$ref` member merges the target's emended form; its siblings win over it."""
    pet = {"type": "object", "properties": {"name": S}, "required": ["name"]}
    schema = {"allOf": [{"$ref": "#/$defs/Pet", "description": "a pet"},
                        {"properties": {"age": INT}}]}
    assert run(all_of, schema, defs={"Pet": pet})[0] == {
        "type": "object", "properties": {"name": S, "age": INT}, "required": ["name"],
        "description": "a pet"}


def test_ref_member_being_emended_uses_the_base_form() -> None:
    """A target that is being emended (a cycle) merges its base form; with none, the
    `$ref` stays in a smaller `allOf`."""
    schema = {"allOf": [{"$ref": "#/$defs/Pet"}, {"properties": {"age": INT}}]}
    out, _ = run(all_of, schema, base={"Pet": {"properties": {"name": S}}})
    assert out == {"properties": {"name": S, "age": INT}}
    out, _ = run(all_of, schema)
    assert out == {"properties": {"age": INT}, "allOf": [{"$ref": "#/$defs/Pet"}]}


def test_keywords_that_belong_together_are_not_torn_apart() -> None:
    """`minContains` stays with its `contains`, `items` with its `prefixItems`, and
    `patternProperties` never meets another member's `additionalProperties` in one schema."""
    counts = {"allOf": [{"contains": S, "minContains": 2}, {"contains": INT, "minContains": 1}]}
    assert run(all_of, counts)[0] == {"contains": S, "minContains": 2,
                                      "allOf": [{"contains": INT, "minContains": 1}]}
    same = {"allOf": [{"contains": S, "minContains": 2}, {"contains": S, "minContains": 3}]}
    assert run(all_of, same)[0] == {"contains": S, "minContains": 3}
    tuples = {"allOf": [{"prefixItems": [S], "items": INT}, {"items": S}]}
    assert run(all_of, tuples)[0] == {"prefixItems": [S], "items": INT, "allOf": [{"items": S}]}
    patterns = {"allOf": [{"properties": {"a": S}, "additionalProperties": S},
                          {"patternProperties": {"^b": INT}}]}
    assert run(all_of, patterns)[0] is patterns
    for x in ({"b1": 1}, {"b1": "x"}, {"a": "x"}):
        for schema in (counts, tuples, patterns):
            assert valid(run(all_of, schema)[0], x) == valid(schema, x)


def test_merge_raises_conflict() -> None:
    """`merge` itself raises Conflict; the pass turns it into a report."""
    with pytest.raises(Conflict):
        merge({"const": 1}, {"const": 2})


def test_c22_allof_ref_merge() -> None:
    """C22: two levels of `allOf` with `$ref` merge into one object; `top` keeps both bounds;
    `required` names only declared properties."""
    app = httpllm.compile(shared.case("C22"), "3.1")
    body = app.function("searchCode").parameters["properties"]["body"]
    assert "allOf" not in repr(body)
    assert set(body["properties"]) == {"searchText", "top", "skip", "includeSnippet"}
    assert body["properties"]["top"] == {"type": "integer", "minimum": 1, "maximum": 1000}
    assert set(body["required"]) == {"includeSnippet", "searchText"}


def test_depth_10000_is_limit_exceeded() -> None:
    """A schema 10,000 levels deep raises LimitExceeded, not RecursionError."""
    with pytest.raises(LimitExceeded):
        run(all_of, deep(10_000))


def deep_all_of(depth: int) -> dict[str, Any]:
    root: dict[str, Any] = {}
    node = root
    for _ in range(depth):
        child: dict[str, Any] = {"type": "object"}
        node["allOf"] = [child]
        node = child
    return root


def test_depth_10000_through_allof_lists() -> None:
    """Nesting through `allOf` lists raises LimitExceeded too."""
    with pytest.raises(LimitExceeded):
        run(all_of, deep_all_of(10_000))


def unions_of_scalars() -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries({"anyOf": st.lists(scalar_schemas(), min_size=1, max_size=3)})


def members(closed: bool) -> st.SearchStrategy[Any]:
    extra = {"additionalProperties": st.sampled_from([{"type": "string"}, {"minimum": 0}])}
    if closed:
        extra["additionalProperties"] = st.sampled_from([False, {"type": "string"}])
    nested = object_schemas(st.one_of(scalar_schemas(), object_schemas()))
    objects = st.builds(lambda o, more: {**o, **more}, nested,
                        st.fixed_dictionaries({}, optional=extra))
    arrays = st.fixed_dictionaries({"type": st.just("array")},
                                   optional={"items": scalar_schemas(),
                                             "minItems": st.integers(0, 2),
                                             "maxItems": st.integers(1, 3)})
    patterns = st.fixed_dictionaries({"pattern": st.sampled_from(["^a", "b", "1$"])})
    return st.one_of(scalar_schemas(), objects, arrays, unions_of_scalars(), patterns,
                     st.fixed_dictionaries({"required": st.lists(st.sampled_from(KEYS),
                                                                 min_size=1, unique=True)}))


def all_ofs(closed: bool = False) -> st.SearchStrategy[dict[str, Any]]:
    return st.builds(lambda own, items: {**own, "allOf": items},
                     st.sampled_from([{}, {"type": "object"}, {"description": "d"},
                                      {"properties": {"a": {"type": "string"}}}]),
                     st.lists(members(closed), min_size=1, max_size=3))


@pytest.mark.parametrize(
    "schema",
    [
        pytest.param({"allOf": [{"pattern": "^a"}, {"pattern": "b"}]}, id="leftover-allOf"),
        pytest.param({"allOf": [{"type": ["integer", "number"]}, S]}, id="integer-number-string"),
        pytest.param({"allOf": [{"enum": [1]}, {"enum": [1.0]}]}, id="one-is-one-point-oh"),
    ],
)
def test_found_by_the_properties(schema: dict[str, Any]) -> None:
    """Inputs the properties below once failed on stay pinned."""
    check_pure(all_of, schema)
    out, _ = run(all_of, schema)
    for x in (1, 1.0, 2.5, "ab", "b", None):
        assert valid(out, x) == valid(schema, x)


@given(all_ofs(closed=True))
@SETTINGS
def test_pure_fixpoint(schema: dict[str, Any]) -> None:
    """The pass is a fixpoint, deterministic, pure, and identity when nothing changes."""
    check_pure(all_of, schema)


@pytest.mark.slow
def test_equivalent() -> None:
    """Without `additionalProperties: false`, the merge accepts exactly what the `allOf`
    accepted."""
    check_pass_contract(all_of, all_ofs(), "equivalent")


@pytest.mark.slow
def test_closed_members_only_widen() -> None:
    """With `additionalProperties: false` members, whatever the `allOf` accepted is still
    accepted (the documented widening, never a narrowing)."""
    check_pass_contract(all_of, all_ofs(closed=True), "widens")


def test_a_described_ref_keeps_the_ref() -> None:
    """OpenAPI 3.0's `{description, allOf: [{$ref}]}` keeps the `$ref` with its annotations:
    merging it would copy the target into every node that describes a reference."""
    target = {"type": "object", "properties": {"a": S}}
    node = {"description": "the pet", "externalDocs": {"url": "u"}, "x-state": "beta",
            "allOf": [{"$ref": "#/$defs/Pet"}]}
    ctx = context(defs={"Pet": target})
    assert all_of(node, ctx) == {"$ref": "#/$defs/Pet", "description": "the pet",
                                 "externalDocs": {"url": "u"}, "x-state": "beta"}


def test_a_constrained_or_root_ref_is_still_merged() -> None:
    """A sibling that constrains (`required`), or the root of a named schema (where
    `allOf: [Parent]` may be inheritance), merges as before."""
    target = {"type": "object", "properties": {"a": S}}
    node = {"required": ["a"], "allOf": [{"$ref": "#/$defs/Pet"}]}
    assert all_of(node, context(defs={"Pet": target}))["required"] == ["a"]
    ctx = context(defs={"Pet": target})
    ctx.root = ctx.pointer = "#/components/schemas/Cat"
    merged = all_of({"description": "a cat", "allOf": [{"$ref": "#/$defs/Pet"}]}, ctx)
    assert merged == {"description": "a cat", **target}


def test_described_refs_keep_elastic_small(specs_dir: Path) -> None:
    """Elastic describes every reference so; kept as refs, `search` is about 0.3 MB of
    parameters instead of 18 MB (measured)."""
    import json

    path = specs_dir / "real/elastic/elasticsearch-serverless-openapi.json"
    app = httpllm.compile(path, "chatgpt", include=["search"])
    (function,) = app.functions
    assert len(json.dumps(function.parameters)) < 1_000_000
