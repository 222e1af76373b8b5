"""The one schema walker: iterative, post-order, by keyword table, identity when unchanged."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from httpllm.errors import LimitExceeded
from httpllm.walk import (
    IN_ARRAY,
    IN_MAPPING,
    IN_VALUE,
    FoldMemo,
    Placed,
    children,
    fold,
    is_leaf,
    nodes,
    refs_in,
    subschemas,
    transform,
)


def nested(depth: int, keyword: str = "items") -> dict[str, Any]:
    """A schema ``depth`` levels deep through ``keyword``, built without recursion."""
    root: dict[str, Any] = {"type": "array"}
    node = root
    for _ in range(depth):
        child: dict[str, Any] = {"type": "array"}
        node[keyword] = child
        node = child
    return root


def record(seen: list[tuple[str, Any]]) -> Any:
    def visit(node: dict[str, Any], at: str) -> Any:
        seen.append((at, node.get("title")))
        return node

    return visit


def test_children_by_keyword_table() -> None:
    """Children are found by keyword: one value, a list, a mapping; other keys are data."""
    node = {
        "type": ["object", "null"],
        "properties": {"a": {"title": "a"}, "b": True},
        "items": {"title": "i"},
        "allOf": [{"title": "x"}, 3],
        "enum": [{"title": "not a schema"}],
        "default": {"properties": {}},
    }
    assert list(children(node)) == [
        ("properties", "a", {"title": "a"}),
        ("properties", "b", True),
        ("items", None, {"title": "i"}),
        ("allOf", 0, {"title": "x"}),
    ]


def test_children_of_properties_without_type() -> None:
    """`properties` is walked when `type` is absent or a list (pydantic-ai's walker is not)."""
    assert [k for _, k, _ in children({"properties": {"a": {}}})] == ["a"]
    assert [k for _, k, _ in children({"type": ["object"], "properties": {"b": {}}})] == ["b"]


def test_ref_is_a_leaf() -> None:
    """A bare `$ref` has no children; a `$ref` with schema siblings has theirs."""
    assert list(children({"$ref": "#/$defs/A"})) == []
    assert list(children({"$ref": "#/$defs/A", "items": {}})) == [("items", None, {})]


def test_draft4_items_list() -> None:
    """The tuple form of `items` yields each member with its index."""
    assert list(children({"items": [{"type": "string"}, {"type": "integer"}]})) == [
        ("items", 0, {"type": "string"}),
        ("items", 1, {"type": "integer"}),
    ]


def test_keyword_tables_are_disjoint() -> None:
    """A keyword is in at most one table."""
    assert not (IN_VALUE & IN_ARRAY or IN_VALUE & IN_MAPPING or IN_ARRAY & IN_MAPPING)


def test_post_order_with_pointers() -> None:
    """Children are visited before their parent, each with its escaped pointer."""
    schema = {
        "title": "root",
        "properties": {"a/b": {"title": "ab", "items": {"title": "it"}}},
        "anyOf": [{"title": "u0"}],
    }
    seen: list[tuple[str, Any]] = []
    transform(schema, record(seen), pointer="#/components/schemas/S")
    assert seen[-1] == ("#/components/schemas/S", "root")
    order = [title for _, title in seen]
    assert order.index("it") < order.index("ab") < order.index("root")
    assert dict((t, p) for p, t in seen) == {
        "root": "#/components/schemas/S",
        "ab": "#/components/schemas/S/properties/a~1b",
        "it": "#/components/schemas/S/properties/a~1b/items",
        "u0": "#/components/schemas/S/anyOf/0",
    }


def test_is_leaf_means_no_subschema_keyword() -> None:
    """`is_leaf` is true exactly for nodes without a subschema keyword (then `children` is
    empty); a keyword whose value holds no schema still makes the node no leaf."""
    assert is_leaf({"type": "string", "enum": ["a"]}) and children({"type": "string"}) == []
    assert is_leaf({"$ref": "#/$defs/A"})
    assert not is_leaf({"items": {"type": "string"}})
    assert not is_leaf({"properties": {}}) and children({"properties": {}}) == []


def test_a_lone_node_is_visited_once_at_its_pointer() -> None:
    """A node without subschemas (a `$ref`, a leaf) is visited once, at its own pointer or
    at its origin's, and its replacement returned; a depth limit of 0 still refuses it."""
    seen: list[tuple[str, Any]] = []
    leaf = {"title": "leaf"}
    assert transform(leaf, record(seen), pointer="#/p") is leaf
    assert transform({"$ref": "#/x", "title": "r"}, record(seen), pointer="#/q") == {
        "$ref": "#/x", "title": "r"}
    transform(leaf, record(seen), pointer="#/p", origins={id(leaf): "#/components/schemas/L"})
    assert seen == [("#/p", "leaf"), ("#/q", "r"), ("#/components/schemas/L", "leaf")]
    assert transform(leaf, lambda node, at: True) is True
    with pytest.raises(LimitExceeded):
        transform(leaf, record(seen), max_depth=0)


def test_unchanged_is_identity() -> None:
    """When no visit changes anything, the very same object comes back."""
    schema = {"properties": {"a": {"type": "string"}}, "items": [{"type": "integer"}]}
    assert transform(schema, lambda node, at: node) is schema


def test_copy_on_write_shares_untouched_subtrees() -> None:
    """A change rebuilds only the path to it; siblings are shared, the input is intact."""
    untouched = {"type": "integer"}
    schema = {"properties": {"a": {"type": "string"}, "b": untouched}}
    before = copy.deepcopy(schema)

    def upper(node: dict[str, Any], at: str) -> dict[str, Any]:
        return {**node, "type": "STRING"} if node.get("type") == "string" else node

    out = transform(schema, upper)
    assert out == {"properties": {"a": {"type": "STRING"}, "b": {"type": "integer"}}}
    assert out["properties"]["b"] is untouched
    assert schema == before


def test_parent_sees_transformed_children() -> None:
    """`visit` gets the node with its children already replaced."""

    def visit(node: dict[str, Any], at: str) -> dict[str, Any]:
        if node.get("type") == "string":
            return {"const": "s"}
        if "items" in node:
            assert node["items"] == {"const": "s"}
        return node

    assert transform({"items": {"type": "string"}}, visit) == {"items": {"const": "s"}}


def test_boolean_schemas_pass_through() -> None:
    """`true`/`false` subschemas are kept and never handed to `visit`."""
    seen: list[tuple[str, Any]] = []
    schema = {"additionalProperties": False, "items": True}
    assert transform(schema, record(seen)) is schema
    assert seen == [("#", None)]
    assert transform(True, record(seen)) is True


def test_visit_may_replace_by_a_boolean() -> None:
    """A visit may return a non-dict schema; the parent holds it."""
    out = transform({"not": {"title": "x"}}, lambda n, at: False if "title" in n else n)
    assert out == {"not": False}


@pytest.mark.parametrize("keyword", ["items", "not", "additionalProperties"])
def test_depth_10000_is_limit_exceeded_not_recursion(keyword: str) -> None:
    """A schema 10,000 levels deep raises LimitExceeded, never RecursionError."""
    with pytest.raises(LimitExceeded, match="deeper than 512"):
        transform(nested(10_000, keyword), lambda n, at: n)


def test_depth_through_properties() -> None:
    """Depth through `properties` counts too, and the limit is a parameter."""
    root: dict[str, Any] = {}
    node = root
    for _ in range(10_000):
        node["properties"] = {"p": {}}
        node = node["properties"]["p"]
    with pytest.raises(LimitExceeded):
        transform(root, lambda n, at: n)
    assert transform(nested(20), lambda n, at: n, max_depth=21) is not None
    with pytest.raises(LimitExceeded):
        transform(nested(20), lambda n, at: n, max_depth=20)


def test_memo_reuses_shared_subtrees_and_their_records() -> None:
    """A subtree listed in `origins` is walked once; later meetings reuse its result and
    re-emit its records at its own pointer."""
    shared = {"title": "shared", "type": "string"}
    schema = {"properties": {"a": shared, "b": shared}}
    calls: list[str] = []
    sink: list[Any] = []

    def visit(node: dict[str, Any], at: str) -> dict[str, Any]:
        calls.append(at)
        if node.get("type") == "string":
            sink.append(("lost", at))
            return {**node, "type": "text"}
        return node

    memo: dict[int, tuple[Any, tuple[Any, ...]]] = {}
    out = transform(schema, visit, memo=memo, origins={id(shared): "#/$defs/Shared"}, sink=sink)
    assert calls == ["#/$defs/Shared", "#"]
    assert out["properties"]["a"] is out["properties"]["b"]
    assert out["properties"]["a"] == {"title": "shared", "type": "text"}
    assert sink == [("lost", "#/$defs/Shared"), ("lost", "#/$defs/Shared")]


def json_schemas() -> st.SearchStrategy[Any]:
    leaves = st.fixed_dictionaries(
        {}, optional={"type": st.sampled_from(["string", "integer"]), "title": st.text(max_size=3)}
    )
    return st.recursive(
        leaves,
        lambda inner: st.one_of(
            st.fixed_dictionaries(
                {"properties": st.dictionaries(st.text(max_size=3), inner, max_size=3)}
            ),
            st.fixed_dictionaries({"anyOf": st.lists(inner, min_size=1, max_size=3)}),
            st.fixed_dictionaries({"items": inner}),
            st.fixed_dictionaries({"not": inner, "title": st.just("n")}),
        ),
        max_leaves=12,
    )


@settings(max_examples=60, deadline=None)
@given(json_schemas())
def test_identity_walk_is_identity_and_visits_every_node(schema: Any) -> None:
    """An identity visit returns the input itself and visits every object node once."""
    before = json.dumps(schema)
    seen: list[tuple[str, Any]] = []
    assert transform(schema, record(seen)) is schema
    stack, count = [schema], 0
    while stack:
        node = stack.pop()
        count += 1
        stack.extend(sub for _, _, sub in children(node) if isinstance(sub, dict))
    assert len(seen) == count
    assert len({p for p, _ in seen}) == count
    assert json.dumps(schema) == before


@settings(max_examples=60, deadline=None)
@given(json_schemas())
def test_rewrite_is_deterministic_and_pure(schema: Any) -> None:
    """The same input gives the same bytes, and the input is never mutated."""
    before = json.dumps(schema)

    def tag(node: dict[str, Any], at: str) -> dict[str, Any]:
        return {**node, "title": at}

    first = transform(schema, tag)
    second = transform(json.loads(before), tag)
    assert json.dumps(first) == json.dumps(second)
    assert json.dumps(schema) == before


@settings(max_examples=60, deadline=None)
@given(json_schemas())
def test_the_plain_loop_agrees_with_the_recording_one(schema: Any) -> None:
    """Without a memo or a sink, transform takes its lean loop: the same visits (order
    and pointers) and the same result as with an empty memo and a sink, which take the
    loop that keeps records."""
    plain: list[tuple[str, Any]] = []
    recording: list[tuple[str, Any]] = []

    def tag(seen: list[tuple[str, Any]]) -> Any:
        def visit(node: dict[str, Any], at: str) -> Any:
            seen.append((at, node.get("title")))
            return {**node, "title": at} if "properties" in node else node

        return visit

    first = transform(schema, tag(plain), pointer="#/s")
    second = transform(schema, tag(recording), pointer="#/s", memo={}, sink=[])
    assert plain == recording
    assert json.dumps(first) == json.dumps(second)


def _count(node: dict[str, Any], kids: list[int]) -> int:
    return 1 + sum(kids)


def test_fold_counts_shared_subtrees_per_place_but_combines_them_once() -> None:
    """`fold` gives the value of the tree as serialized (a shared subtree counts at each
    place) while combining each distinct node once per memo."""
    calls: list[Any] = []

    def count(node: dict[str, Any], kids: list[int]) -> int:
        calls.append(node)
        return 1 + sum(kids)

    leaf = {"type": "string"}
    shared = {"properties": {"a": leaf, "b": leaf}}
    root = {"allOf": [shared, shared, True]}
    memo = FoldMemo()
    assert fold(root, count, 1, memo) == 1 + 3 + 3 + 1
    assert sum(node is leaf for node in calls) == 1
    assert fold({"items": shared}, count, 1, memo) == 4
    assert sum(node is shared for node in calls) == 1
    assert fold(True, count, 7) == 7


def test_fold_is_iterative() -> None:
    """`fold` of a schema nested far deeper than the recursion limit raises nothing."""
    assert fold(nested(20_000), _count, 1) == 20_001


def test_refs_in_lists_each_ref_once_in_walk_order_without_following() -> None:
    """`refs_in` lists the `$ref` strings of a node and its subschemas, first occurrence
    kept, including a `$ref` with siblings and the refs below it."""
    b = {"$ref": "#/$defs/B"}
    schema = {"properties": {"x": {"$ref": "#/$defs/A", "items": b}, "y": b,
                             "z": {"enum": [{"$ref": "not a subschema"}]}}}
    assert refs_in(schema) == ["#/$defs/B", "#/$defs/A"]  # a stack: last property first
    assert refs_in(True) == []


def _refs_by_children(schema: Any) -> list[str]:
    """`refs_in` as :func:`children` spells it: each distinct node once, a stack."""
    found: dict[str, None] = {}
    seen: set[int] = set()
    stack = [schema]
    while stack:
        node = stack.pop()
        if not isinstance(node, dict) or id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node.get("$ref"), str):
            found[node["$ref"]] = None
        stack.extend(sub for _, _, sub in children(node))
    return list(found)


_REF_SCHEMAS = st.recursive(
    st.fixed_dictionaries({}, optional={"$ref": st.sampled_from(["#/$defs/A", "#/$defs/B"]),
                                        "type": st.just("string")}) | st.booleans(),
    lambda inner: st.one_of(
        st.fixed_dictionaries({"properties": st.dictionaries(st.text(max_size=2), inner,
                                                             max_size=3)},
                              optional={"$ref": st.just("#/$defs/C")}),
        st.fixed_dictionaries({"anyOf": st.lists(inner, max_size=3)}),
        st.fixed_dictionaries({"items": inner | st.lists(inner, max_size=2),
                               "not": inner}),
        st.builds(lambda shared: {"allOf": [shared, {"items": shared}], "$ref": "#/$defs/D"},
                  inner),
    ),
    max_leaves=12,
)


@settings(max_examples=100, deadline=None)
@given(_REF_SCHEMAS)
def test_refs_in_agrees_with_a_walk_by_children(schema: Any) -> None:
    """`refs_in`'s own loop (leaves read where they are met) lists the refs a walk by
    `children` lists, in the same order."""
    assert refs_in(schema) == _refs_by_children(schema)


@settings(max_examples=100, deadline=None)
@given(_REF_SCHEMAS)
def test_subschemas_are_the_children_without_their_keywords(schema: Any) -> None:
    """`subschemas` lists what `children` lists, in order, at every node."""
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            kids = [sub for _, _, sub in children(node)]
            assert subschemas(node) == kids and all(
                a is b for a, b in zip(subschemas(node), kids, strict=True))
            stack.extend(kids)
    odd = {"items": [{"type": "string"}, 3], "anyOf": "x", "properties": {"a": 1, "b": True},
           "not": 5, "allOf": {"type": "string"}}
    assert subschemas(odd) == [sub for _, _, sub in children(odd)]


def test_nodes_lists_each_node_once_in_pre_order_at_its_first_pointer() -> None:
    """`nodes` gives every distinct object node once, parents before children and
    subschemas in keyword order, at the pointer where it first occurs (keys escaped)."""
    leaf = {"type": "string"}
    schema = {"properties": {"a/b": leaf, "c": {"items": leaf, "not": True}}}
    assert [(at, node is leaf) for node, at in nodes(schema, "p#")] == [
        ("p#", False), ("p#/properties/a~1b", True), ("p#/properties/c", False)]


def test_nodes_is_iterative() -> None:
    """`nodes` of a schema nested far deeper than the recursion limit raises nothing."""
    assert sum(1 for _ in nodes(nested(20_000))) == 20_001


def test_leaves_with_a_known_result_are_neither_visited_nor_listed() -> None:
    """A leaf below the root whose result `leaf` gives is not visited; the other nodes are,
    in the same order and at the same pointers, and the result is the same."""
    schema = {"title": "r", "properties": {"a": {"title": "a", "type": "string"},
                                           "b": {"title": "b"},
                                           "c": {"title": "c", "items": {"title": "i"}}}}

    def tag(seen: list[tuple[str, Any]]) -> Any:
        def visit(node: dict[str, Any], at: str) -> Any:
            seen.append((at, node.get("title")))
            return {**node, "title": at} if "type" in node else node

        return visit

    every: list[tuple[str, Any]] = []
    some: list[tuple[str, Any]] = []
    first = transform(schema, tag(every))
    second = transform(schema, tag(some), leaf=lambda node: None if "type" in node else node)
    assert some == [(at, title) for at, title in every if title not in ("b", "i")]
    assert first == second
    assert transform({"title": "b"}, tag(some), leaf=lambda node: node) == {"title": "b"}
    assert some[-1] == ("#", "b")  # the root is always visited


def test_a_leaf_replaced_without_a_visit_reaches_its_parent() -> None:
    """A leaf `leaf` replaces is put in its parent (a map, a list, a one-schema keyword),
    whose visit sees it; parents that change nothing else are copied, the rest shared."""
    shared = {"title": "s", "properties": {"k": {"title": "k"}}}
    schema = {"properties": {"a": {"title": "x"}, "b": {"title": "y"}, "s": shared},
              "anyOf": [{"title": "y"}, {"title": "x"}],
              "items": {"items": {"title": "x"}}}

    def rename(node: dict[str, Any]) -> Any:
        return {"title": "z"} if node.get("title") == "x" else node

    seen: list[Any] = []

    def visit(node: dict[str, Any], at: str) -> Any:
        seen.append(node)
        return node

    out = transform(schema, visit, leaf=rename)
    assert out == {"properties": {"a": {"title": "z"}, "b": {"title": "y"}, "s": shared},
                   "anyOf": [{"title": "y"}, {"title": "z"}],
                   "items": {"items": {"title": "z"}}}
    assert out["properties"]["s"] is shared and out["properties"]["b"] is schema[
        "properties"]["b"]
    assert schema["properties"]["a"] == {"title": "x"}  # the input is not mutated
    assert {"items": {"title": "z"}} in seen and out in seen
    assert all(node.get("title") not in ("x", "y", "k") for node in seen)
    assert transform({"title": "x"}, visit, leaf=rename) == {"title": "x"}  # not the root


def test_skipped_leaves_count_toward_the_limits(monkeypatch: pytest.MonkeyPatch) -> None:
    """A skipped leaf still counts as a node and as a level: the same schemas are refused."""
    import dataclasses

    import httpllm.walk as walk

    monkeypatch.setattr(walk, "DEFAULT_LIMITS",
                        dataclasses.replace(walk.DEFAULT_LIMITS, walk_nodes=3))
    wide = {"properties": {"a": {}, "b": {}, "c": {}}}
    for leaf in (None, lambda node: node):
        with pytest.raises(LimitExceeded, match="more than 3 nodes") as info:
            transform(wide, lambda n, at: n, leaf=leaf)
        assert info.value.pointer == "#/properties/a"
        with pytest.raises(LimitExceeded, match="deeper than 1 levels"):
            transform({"items": {}}, lambda n, at: n, max_depth=1, leaf=leaf)
    assert transform({"properties": {"a": {}, "b": {}}}, lambda n, at: n,
                     leaf=lambda node: node) is not None


def test_leaves_are_skipped_in_a_walk_with_memo_and_records() -> None:
    """With a memo and a sink, a leaf `leaf` settles is neither visited nor memoized
    nor recording; the other nodes record as before, a memoized shared subtree hands
    over its records again, and a root whose subschemas are all memoized or settled
    leaves is visited without a listing of its tree."""
    kept = {"type": "string"}
    shared = {"properties": {"k": kept, "r": {"title": "r"}}}
    origins = {id(shared): "#/shared"}

    def visit(node: dict[str, Any], at: str) -> Any:
        sink.append(at)
        return {**node, "seen": True} if "title" in node else node

    sink: list[Any] = []
    memo: dict[int, tuple[Any, tuple[Any, ...]]] = {}
    keep = lambda node: node if node.get("type") == "string" else None  # noqa: E731
    first = transform({"properties": {"a": kept, "s": shared}}, visit, memo=memo,
                      origins=origins, sink=sink, leaf=keep)
    assert first["properties"]["a"] is kept and first["properties"]["s"]["properties"][
        "k"] is kept
    assert first["properties"]["s"]["properties"]["r"] == {"title": "r", "seen": True}
    assert sink == ["#/shared/properties/r", "#/shared", "#"]
    assert set(memo) == {id(shared)}
    sink.clear()
    second = transform({"properties": {"b": kept, "s": shared}}, visit, memo=memo,
                       origins=origins, sink=sink, leaf=keep)
    assert second["properties"]["s"] is first["properties"]["s"]
    assert sink == ["#/shared/properties/r", "#/shared", "#"]  # re-emitted, then the root
    sink.clear()
    other = {"properties": {"b": {"title": "b"}, "s": shared}}
    third = transform(other, visit, memo=memo, origins=origins, sink=sink, leaf=keep)
    assert third["properties"]["b"] == {"title": "b", "seen": True}
    assert sink == ["#/properties/b", "#/shared/properties/r", "#/shared", "#"]


def test_a_subschema_of_a_root_met_again_at_its_pointer_is_not_walked_again() -> None:
    """With `placed`, each subschema of a root not in `origins` is kept with its pointer,
    result and records: another root holding the same object at the same pointer reuses
    them (no visit, records re-emitted in place; without a listing when every subschema
    is known), at another pointer it is walked again."""
    leaf = {"title": "p"}
    deep = {"items": {"title": "i"}}
    visited: list[str] = []

    def visit(node: dict[str, Any], at: str) -> Any:
        visited.append(at)
        sink.append(at)
        return {**node, "seen": True} if "title" in node else node

    sink: list[Any] = []
    memo: dict[int, tuple[Any, tuple[Any, ...]]] = {}
    placed = Placed()
    first = transform({"properties": {"a": leaf, "d": deep}}, visit, memo=memo, sink=sink,
                      placed=placed)
    assert visited == sink == ["#/properties/a", "#/properties/d/items", "#/properties/d",
                               "#"]
    assert set(placed) == {id(leaf), id(deep)} and not memo
    visited.clear()
    sink.clear()
    second = transform({"properties": {"a": leaf, "d": deep, "f": False}}, visit, memo=memo,
                       sink=sink, placed=placed)
    assert visited == ["#"]  # the root's subschemas all known: no listing
    assert sink == ["#/properties/a", "#/properties/d/items", "#/properties/d", "#"]
    assert second["properties"]["a"] is first["properties"]["a"]
    assert second["properties"]["d"] is first["properties"]["d"]
    visited.clear()
    sink.clear()
    third = transform({"properties": {"a": leaf, "n": {"title": "n"}, "b": leaf}}, visit,
                      memo=memo, sink=sink, placed=placed)
    assert visited == ["#/properties/n", "#/properties/b", "#"]  # `a` reused in the listing
    assert sink == ["#/properties/a", "#/properties/n", "#/properties/b", "#"]
    assert third["properties"]["a"] is first["properties"]["a"]
    assert third["properties"]["b"] == {"title": "p", "seen": True}
    assert placed[id(leaf)][0] == "#/properties/a"  # the first pointer kept
