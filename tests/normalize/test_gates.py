"""The passes' gates (``normalize._context.acts_on``): the walker does not call a pass on a
node holding none of the keywords it declares, so the pass must return such a node as it is
and say nothing; and a plan's steps are the passes whose gate a node meets, in order."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from httpllm._types import Direction
from httpllm.normalize import _KEY_SETS, PASSES, Pass, _Plan
from httpllm.normalize._context import GATES, KEEPS, TYPE_GATES, TYPE_NAMES, opens

from ._support import SETTINGS, Reports, context

_KEYWORDS = sorted({"type", "description", "title", "default", "enum", "const", "nullable",
                    "format", "pattern", "uniqueItems", "readOnly", "writeOnly", "minimum",
                    "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
                    "maxLength", "items", "properties", "required", "allOf", "anyOf", "oneOf",
                    "discriminator", "example", "examples", "x-extra", "xml", "$ref"}
                   | set().union(*GATES.values()))
_VALUES = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 3), st.floats(allow_nan=False),
    st.sampled_from(["string", "array", "object", "null", "strnig", "#/$defs/A", "10"]),
    st.lists(st.sampled_from(["string", "integer", "null", 5]), max_size=3),
    st.just({"type": "string"}), st.just([{"type": "string"}, {"type": "null"}]),
    st.just([None, "a"]), st.just(["string", "integer"]),
    st.just({"propertyName": "kind"}), st.just({"a": {"type": "string", "readOnly": True}}),
)
_NODES = st.dictionaries(st.sampled_from(_KEYWORDS), _VALUES, max_size=6)
_GATED = [step for step in PASSES if step in GATES]
_TYPED = [step for step in PASSES if step in TYPE_GATES]
_KEEPING = [step for step in PASSES if step in KEEPS]


def _kind(node: dict[str, Any]) -> str | None:
    kind = node.get("type")
    return kind if isinstance(kind, str) else None


def test_every_pass_declares_a_gate() -> None:
    assert [step.__name__ for step in PASSES if step not in GATES] == ["direction"]
    assert [step.__name__ for step in _KEEPING] == ["direction"]
    assert {step.__name__ for step in _TYPED} == {"kinds", "mixed_types", "nullable",
                                                  "array_items"}


def _untouched(step: Pass, node: dict[str, Any], direction: Direction = "request") -> bool:
    """Whether ``step`` gives ``node`` back as it is, in ``direction``, reporting, losing
    and moving out nothing."""
    reports = Reports()
    ctx = context(direction, reports=reports)
    lost: list[Any] = []
    ctx.lose = lost.append
    return step(node, ctx) is node and reports == [] and lost == [] and not ctx.examples


@pytest.mark.parametrize("step", _GATED, ids=lambda step: step.__name__)
@SETTINGS
@given(node=_NODES)
def test_a_pass_returns_a_node_outside_its_gate_as_it_is(step: Pass,
                                                          node: dict[str, Any]) -> None:
    outside = {k: v for k, v in node.items() if k not in GATES[step]}
    assert _untouched(step, outside)


@pytest.mark.parametrize("step", _TYPED, ids=lambda step: step.__name__)
@SETTINGS
@given(node=_NODES, kind=st.sampled_from(sorted(TYPE_NAMES)))
def test_a_pass_returns_a_node_whose_one_type_is_outside_its_gate_as_it_is(
        step: Pass, node: dict[str, Any], kind: str) -> None:
    """A ``type`` naming one type its :data:`TYPE_GATES` entry leaves out counts as no
    ``type``: a node holding no other keyword of the gate is returned as it is."""
    if kind in TYPE_GATES[step]:
        return
    outside = {**{k: v for k, v in node.items() if k not in GATES[step]}, "type": kind}
    assert not opens(step, outside, kind)
    assert _untouched(step, outside)


@pytest.mark.parametrize("step", _KEEPING, ids=lambda step: step.__name__)
@pytest.mark.parametrize("direction", ["request", "response"])
@SETTINGS
@given(node=_NODES)
def test_a_pass_returns_a_node_of_the_keywords_it_keeps_as_it_is(
        step: Pass, direction: Direction, node: dict[str, Any]) -> None:
    kept = {k: v for k, v in node.items() if k in KEEPS[step]}
    assert not opens(step, kept, _kind(kept))
    assert _untouched(step, kept, direction)


_INF = float("inf")
_ACTED_ON = [
    {"enum": [None, "a"]}, {"const": None}, {"nullable": True}, {"type": ["string", "null"]},
    {"type": ["string", "integer"]}, {"type": "array"}, {"type": "strnig"}, {"format": 5},
    {"pattern": 5}, {"uniqueItems": "yes"}, {"readOnly": "yes"}, {"writeOnly": 1},
    {"nullable": "true"}, {"maxLength": "10"}, {"maxItems": -1}, {"minLength": 1.5},
    {"maximum": _INF}, {"minimum": "abc"}, {"multipleOf": 0}, {"default": _INF},
    {"example": _INF}, {"const": _INF}, {"enum": [_INF, 1]}, {"examples": [_INF, 1]},
    {"minimum": 0, "exclusiveMinimum": True}, {"exclusiveMaximum": False},
    {"oneOf": [{"type": "string"}]}, {"anyOf": [{"type": "string"}]},
    {"allOf": [{"type": "string"}]}, {"discriminator": {"propertyName": "kind"}},
]
"""Nodes some pass changes or reports on, each through one keyword."""


@pytest.mark.parametrize("step", _GATED, ids=lambda step: step.__name__)
@pytest.mark.parametrize("node", _ACTED_ON, ids=repr)
def test_a_node_a_pass_acts_on_meets_its_gate(step: Pass, node: dict[str, Any]) -> None:
    if not _untouched(step, node):
        assert opens(step, node, _kind(node))
    for kind in sorted(TYPE_NAMES):  # with a type, or another
        typed = {**node, "type": kind}
        if not _untouched(step, typed):
            assert opens(step, typed, kind)


@SETTINGS
@given(node=_NODES)
def test_a_plan_lists_the_passes_a_node_meets_the_gate_of(node: dict[str, Any]) -> None:
    plan = _Plan(PASSES)
    expected = [step for step in PASSES if opens(step, node, _kind(node))]
    assert [step for _, step in plan.steps(node)] == expected
    assert [step for _, step in plan.steps(dict(node))] == expected  # remembered: the same
    assert all(plan.passes[i] is step for i, step in plan.steps(node))


def test_a_plan_remembers_a_bounded_number_of_key_lists() -> None:
    plan = _Plan(PASSES)
    for i in range(_KEY_SETS + 10):
        plan.steps({f"x-{i}": 1, "type": "string"})
        plan.steps({f"x-{i}": 1, "type": ["string"]})
    assert len(plan._by_type) == _KEY_SETS
    assert len(plan._by_keys) == _KEY_SETS
    assert [step for _, step in plan.steps({"x-new": 1, "type": "array"})] == [
        step for step in PASSES if step in KEEPS or TYPE_GATES.get(step) == {"array"}]
    assert [step for _, step in plan.steps({"x-new": 1, "type": ["array"]})] == [
        step for step in PASSES if step in KEEPS or "type" in GATES[step]]


def test_the_plan_after_a_pass_holds_the_passes_after_it() -> None:
    plan = _Plan(PASSES)
    for i in range(len(PASSES)):
        assert plan.after(i).passes == PASSES[i + 1 :]
        assert plan.after(i) is plan.after(i)
