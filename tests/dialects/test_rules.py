"""Rules shared by dialects (dialects/_rules.py)."""

from __future__ import annotations

from typing import Any

from httpllm.dialects._rules import recursive_defs


def _ref(name: str) -> dict[str, Any]:
    return {"$ref": f"#/$defs/{name}"}


def test_recursive_defs_finds_every_schema_on_a_cycle() -> None:
    """Every def on a reference cycle is recursive, also when its cycle runs through a
    def found recursive before it (A -> B -> A with C -> B -> C: all three)."""
    root = {"$defs": {"A": {"properties": {"b": _ref("B")}},
                      "B": {"properties": {"a": _ref("A"), "c": _ref("C")}},
                      "C": {"properties": {"b": _ref("B")}},
                      "D": {"properties": {"a": _ref("A")}}}}
    assert recursive_defs(root) == ["A", "B", "C"]


def test_recursive_defs_with_a_self_reference() -> None:
    """A def that refers to itself is recursive, and so is one on a longer cycle through it."""
    root = {"$defs": {"A": {"properties": {"a": _ref("A"), "b": _ref("B")}},
                      "B": {"items": _ref("A")}}}
    assert recursive_defs(root) == ["A", "B"]
