"""The upgrade's tree rewriter: copy on write, iterative, data left alone."""

from __future__ import annotations

from typing import Any

import httpllm
from httpllm.upgrade._record import rewrite


def upper_type(node: dict[str, Any], pointer: str) -> dict[str, Any]:
    return {**node, "type": node["type"].upper()} if isinstance(node.get("type"), str) else node


def test_unchanged_tree_is_returned_itself() -> None:
    """Nothing to rewrite gives back the very same object."""
    tree = {"a": [{"b": 1}], "c": {"d": "e"}}
    assert rewrite(tree, lambda node, at: node) is tree


def test_changed_nodes_are_copies_and_the_rest_is_shared() -> None:
    """A rewritten node and its ancestors are new; siblings are shared; the input is kept."""
    same = {"x": 1}
    tree = {"p": {"type": "a"}, "q": same}
    out = rewrite(tree, upper_type)
    assert out == {"p": {"type": "A"}, "q": {"x": 1}} and out["q"] is same
    assert tree["p"] == {"type": "a"}


def test_data_values_are_not_rewritten_but_names_are() -> None:
    """`example`, `default`, `enum` values stay; a property called `default` is a schema."""
    tree = {"example": {"type": "a"}, "properties": {"default": {"type": "b"}}}
    assert rewrite(tree, upper_type) == {"example": {"type": "a"},
                                         "properties": {"default": {"type": "B"}}}


def test_shared_node_rewritten_once_and_deep_trees_do_not_recurse() -> None:
    """A node met twice (a YAML alias) gives one copy; 10,000 levels need no recursion."""
    shared = {"type": "s"}
    out = rewrite({"a": shared, "b": shared}, upper_type)
    assert out["a"] is out["b"]
    deep: dict[str, Any] = {"type": "x"}
    for _ in range(10_000):
        deep = {"type": "x", "items": deep}
    assert rewrite(deep, upper_type)["type"] == "X"


def test_deep_swagger2_document_is_a_limit_not_a_recursion_error() -> None:
    """A 2.0 schema 10,000 levels deep compiles to an operation error, never RecursionError."""
    deep: dict[str, Any] = {"type": "string"}
    for _ in range(10_000):
        deep = {"type": "array", "items": deep, "x-nullable": True}
    doc = {"swagger": "2.0", "info": {"title": "t", "version": "1"}, "definitions": {"D": deep},
           "paths": {"/a": {"post": {"parameters": [
               {"name": "b", "in": "body", "schema": {"$ref": "#/definitions/D"}}],
               "responses": {"200": {"description": "ok"}}}}}}
    app = httpllm.compile(doc, "3.1")
    assert [e.kind for e in app.errors] == ["LimitExceeded"]
    assert app.errors[0].pointer.startswith("#/definitions/D/items")
