"""Unit tests for render/unroll.py: refs expanded, recursion unrolled k levels and cut."""

from __future__ import annotations

import json
from typing import Any

import pytest

from httpllm._limits import DEFAULT_LIMITS
from httpllm.errors import Unrepresentable
from httpllm.render.unroll import unroll

FOLDER = {
    "type": "object",
    "required": ["name"],
    "properties": {
        "name": {"type": "string"},
        "children": {"type": "array", "items": {"$ref": "#/$defs/Folder"}},
    },
}


def params(body: Any, **defs: Any) -> dict[str, Any]:
    return {"type": "object", "properties": {"body": body}, "required": ["body"], "$defs": defs}


def keys(value: Any) -> set[str]:
    found: set[str] = set()
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            found.update(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return found


def levels(node: dict[str, Any]) -> int:
    count = 0
    while node is not None:
        count += 1
        kids = node["properties"].get("children")
        node = kids["items"] if kids else None
    return count


def test_schema_without_defs_is_returned_as_is() -> None:
    """A schema without $defs comes back as the same object with no losses."""
    schema = {"type": "object", "properties": {"a": {"type": "string"}}}
    out, losses = unroll(schema, None, "gemini", pointer="#/paths/~1x/post")
    assert out is schema and losses == []


def test_recursion_without_depth_names_the_cycle() -> None:
    """depth=None with a recursive schema raises Unrepresentable naming Folder -> Folder."""
    with pytest.raises(Unrepresentable, match="Folder -> Folder") as info:
        unroll(params({"$ref": "#/$defs/Folder"}, Folder=FOLDER), None, "gemini",
               pointer="#/paths/~1folders/post")
    assert info.value.pointer == "#/paths/~1folders/post"
    assert "unroll" in info.value.message


def test_mutual_recursion_names_the_whole_cycle() -> None:
    """A -> B -> A is named as such."""
    a = {"type": "object", "properties": {"b": {"$ref": "#/$defs/B"}}}
    b = {"type": "object", "properties": {"a": {"$ref": "#/$defs/A"}, "x": {"type": "string"}}}
    with pytest.raises(Unrepresentable, match="A -> B -> A"):
        unroll(params({"$ref": "#/$defs/A"}, A=a, B=b), None, "gemini", pointer="#")


@pytest.mark.parametrize("k", [1, 2, 3, 5])
def test_recursion_expands_exactly_k_levels(k: int) -> None:
    """unroll=k gives k nested Folders; the deepest has no children; no ref or defs left."""
    out, losses = unroll(params({"$ref": "#/$defs/Folder"}, Folder=FOLDER), k, "gemini",
                         pointer="#")
    assert not {"$ref", "$defs"} & keys(out)
    assert levels(out["properties"]["body"]) == k
    assert [x.action for x in losses].count("unrolled") == 1
    cuts = [x for x in losses if x.action == "cut"]
    assert len(cuts) == 1 and cuts[0].value == "children"
    assert cuts[0].pointer.endswith("/properties/children")
    assert {x.dialect for x in losses} == {"gemini"}


def test_cut_required_property_leaves_required() -> None:
    """A cut property that was required is removed from required too, and the loss says so."""
    node = {"type": "object", "required": ["next", "v"],
            "properties": {"v": {"type": "integer"}, "next": {"$ref": "#/$defs/Node"}}}
    out, losses = unroll(params({"$ref": "#/$defs/Node"}, Node=node), 1, "ollama", pointer="#")
    body = out["properties"]["body"]
    assert body["required"] == ["v"] and set(body["properties"]) == {"v"}
    assert any("required" in x.note for x in losses if x.action == "cut")


def test_union_member_is_dropped_not_the_property() -> None:
    """In a union, the member that still needs a ref is dropped, with a `cut` loss naming
    it; the property stays."""
    expr = {"type": "object", "properties": {"arg": {"anyOf": [
        {"type": "integer"}, {"$ref": "#/$defs/Expr"}]}}}
    out, losses = unroll(params({"$ref": "#/$defs/Expr"}, Expr=expr), 1, "gemini", pointer="#")
    assert out["properties"]["body"]["properties"]["arg"] == {"anyOf": [{"type": "integer"}]}
    cut = [(x.pointer, x.keyword) for x in losses if x.action == "cut"]
    assert cut == [("parameters#/$defs/Expr/properties/arg/anyOf/1", "anyOf")]


def test_union_left_with_null_only_is_cut() -> None:
    """A union whose only remaining member is null is cut as a whole."""
    node = {"type": "object", "properties": {"next": {"anyOf": [
        {"$ref": "#/$defs/Node"}, {"type": "null"}]}, "v": {"type": "string"}}}
    out, _ = unroll(params({"$ref": "#/$defs/Node"}, Node=node), 1, "gemini", pointer="#")
    assert set(out["properties"]["body"]["properties"]) == {"v"}


@pytest.mark.parametrize("k", [1, 2])
def test_recursive_map_keeps_k_levels_and_closes_the_last(k: int) -> None:
    """A map whose values are the map (a nested dictionary) is expanded `k` levels; the
    map that would open level k + 1 takes no entries (`additionalProperties: false`, a
    `cut` loss). The cut went up through every level and removed the required body."""
    tree = {"type": "object", "additionalProperties": {"$ref": "#/$defs/Tree"}}
    out, losses = unroll(params({"$ref": "#/$defs/Tree"}, Tree=tree), k, "gemini", pointer="#")
    assert out["required"] == ["body"]
    node, depth = out["properties"]["body"], 0
    while isinstance(node.get("additionalProperties"), dict):
        node, depth = node["additionalProperties"], depth + 1
    assert (depth, node) == (k - 1, {"type": "object", "additionalProperties": False})
    cut = [(x.pointer, x.keyword) for x in losses if x.action == "cut"]
    assert cut == [("parameters#/$defs/Tree/additionalProperties", "additionalProperties")]


def test_non_recursive_defs_are_inlined_without_depth() -> None:
    """With reference=True every named schema is under $defs: those are inlined, no error."""
    pet = {"type": "object", "properties": {"owner": {"$ref": "#/$defs/Owner"}}}
    owner = {"type": "object", "properties": {"id": {"type": "string"}}}
    out, losses = unroll(params({"$ref": "#/$defs/Pet"}, Pet=pet, Owner=owner), None, "gemini",
                         pointer="#")
    assert out["properties"]["body"]["properties"]["owner"] == owner
    assert losses == []


def test_ref_siblings_survive_inlining() -> None:
    """A description beside a $ref stays on the inlined node."""
    out, _ = unroll(params({"$ref": "#/$defs/Folder", "description": "Root"}, Folder=FOLDER),
                    1, "gemini", pointer="#")
    assert out["properties"]["body"]["description"] == "Root"


def test_expansions_are_shared() -> None:
    """The same (schema, state) expansion is one object wherever it is used."""
    tree = {"type": "object", "properties": {
        "left": {"$ref": "#/$defs/Tree"}, "right": {"$ref": "#/$defs/Tree"}}}
    out, _ = unroll(params({"$ref": "#/$defs/Tree"}, Tree=tree), 3, "gemini", pointer="#")
    body = out["properties"]["body"]["properties"]
    assert body["left"] is body["right"]


def test_output_past_the_node_limit_is_refused() -> None:
    """A wide recursive schema unrolled deep is refused, not built."""
    wide = {"type": "object", "properties": {
        f"p{i}": {"$ref": "#/$defs/Wide"} for i in range(10)}}
    with pytest.raises(Unrepresentable, match=str(DEFAULT_LIMITS.unroll_nodes)):
        unroll(params({"$ref": "#/$defs/Wide"}, Wide=wide), 8, "gemini", pointer="#")


def test_a_huge_unroll_is_refused_before_its_states_are_queued() -> None:
    """``--unroll 99999999`` on one recursive schema queued one state per level before the
    first expansion counted (gigabytes, then killed); it is refused at unroll_states."""
    import tracemalloc

    tracemalloc.start()
    try:
        with pytest.raises(Unrepresentable,
                           match=f"more than {DEFAULT_LIMITS.unroll_states} expansions"):
            unroll(params({"$ref": "#/$defs/Folder"}, Folder=FOLDER), 10**6, "gemini",
                   pointer="#")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 32 * 2**20  # a bound on the queue, not a timing (10**6 states: ~200 MB)


@pytest.mark.slow
def test_a_part_past_the_limits_stops_the_unrolling() -> None:
    """`limits` is run on each part as it is made; the first problem stops the unrolling
    with it, long before the whole (here 3 x 10 mutually recursive schemas) is built."""
    defs = {f"N{i}": {"type": "object", "properties": {
        f"p{j}": {"$ref": f"#/$defs/N{(i + j) % 10}"} for j in range(3)}} for i in range(10)}
    checked: list[Any] = []

    def limits(schema: Any) -> list[str]:
        checked.append(schema)
        return ["30 optional properties"] if len(json.dumps(schema)) > 3000 else []

    with pytest.raises(Unrepresentable, match="unrolling 2 levels gives at least 30 optional"):
        unroll(params({"$ref": "#/$defs/N0"}, **defs), 2, "claude", pointer="#", limits=limits)
    assert 0 < len(checked) < 1_000
    with pytest.raises(Unrepresentable, match="expansions"):  # the whole: > 10,000 parts
        unroll(params({"$ref": "#/$defs/N0"}, **defs), 2, "claude", pointer="#")


@pytest.mark.slow
def test_long_chains_do_not_recurse() -> None:
    """2,000 chained named schemas unroll without RecursionError."""
    defs: dict[str, Any] = {"L2000": {"type": "string"}}
    for i in range(1999, -1, -1):
        defs[f"L{i}"] = {"type": "object", "properties": {"c": {"$ref": f"#/$defs/L{i + 1}"}}}
    out, _ = unroll(params({"$ref": "#/$defs/L0"}, **defs), None, "gemini", pointer="#")
    node, depth = out["properties"]["body"], 0
    while node.get("type") == "object":
        node, depth = node["properties"]["c"], depth + 1
    assert depth == 2000


def test_dangling_ref_is_unrepresentable() -> None:
    """A ref to a missing def is an error, not a KeyError."""
    with pytest.raises(Unrepresentable, match="Missing"):
        unroll(params({"$ref": "#/$defs/Missing"}, Other={}), 1, "gemini", pointer="#")


def test_input_is_not_mutated() -> None:
    """unroll copies on write."""
    schema = params({"$ref": "#/$defs/Folder"}, Folder=FOLDER)
    before = repr(schema)
    unroll(schema, 2, "gemini", pointer="#")
    assert repr(schema) == before

