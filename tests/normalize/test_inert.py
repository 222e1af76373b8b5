"""Inert leaves (``normalize.inert``): the emend walk does not visit a leaf it accepts, so
every pass must return such a leaf as it is and say nothing, in either direction; and a
walk that skips them gives what a walk that visits every node gives."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from httpllm._types import Direction
from httpllm.normalize import (
    _PLAN,
    INERT_KEYS,
    PASSES,
    PassContext,
    _apply,
    _inert_leaf,
    emend,
    inert,
    leaf_emend,
    nullable_leaf,
    quiet,
)

from ._support import SETTINGS, Reports, context

_VALUES = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 3), st.floats(allow_nan=False),
    st.sampled_from(["string", "number", "integer", "boolean", "object", "null", "array",
                     "strnig", "date-time", ""]),
    st.lists(st.sampled_from(["a", "b", "string", None, 5, 1.5, True]), max_size=3),
    st.just({"type": "string"}),
)
_LEAVES = st.dictionaries(st.sampled_from(sorted(INERT_KEYS | {"example", "examples",
                                                                "nullable", "readOnly",
                                                                "$ref"})),
                          _VALUES, max_size=4)


def _watched(direction: Direction, *, keep_examples: bool = True
             ) -> tuple[PassContext, Reports, list[Any]]:
    """A toy context in ``direction`` with its reports and losses kept to read
    (``keep_examples=False``: it keeps no examples, as the response direction's)."""
    reports = Reports()
    ctx = context(direction, reports=reports)
    if not keep_examples:
        ctx.examples = None
    lost: list[Any] = []
    ctx.lose = lost.append
    return ctx, reports, lost


def _quiet(node: dict[str, Any], direction: Direction) -> bool:
    """Whether every pass returned ``node`` itself, with nothing reported, lost or kept."""
    ctx, reports, lost = _watched(direction)
    return _apply(node, _PLAN, ctx) is node and not reports and not lost and not ctx.examples


@pytest.mark.parametrize("direction", ["request", "response"])
@SETTINGS
@given(node=_LEAVES)
def test_every_pass_returns_an_inert_leaf_as_it_is(direction: Direction,
                                                   node: dict[str, Any]) -> None:
    if inert(node):
        assert _quiet(node, direction)


_INERT = [
    {}, {"type": "string"}, {"type": "integer", "format": "int64"},
    {"type": "string", "enum": ["a", "b"], "description": "d", "title": "t"},
    {"type": "object", "deprecated": True}, {"type": "null"},
]
_NOT_INERT = [
    {"type": "array"}, {"type": ["string", "null"]}, {"type": "strnig"}, {"format": 5},
    {"enum": ["a", None]}, {"enum": [1]}, {"enum": "a"}, {"type": "string", "example": "x"},
    {"enum": []}, {"enum": ["a", "a"]},
    {"type": "string", "nullable": True}, {"$ref": "#/$defs/A"}, {"readOnly": True},
    {"type": "number", "description": None}, {"title": 5}, {"type": None},
]


@pytest.mark.parametrize("node", _INERT, ids=repr)
def test_these_leaves_are_inert(node: dict[str, Any]) -> None:
    assert inert(node)
    assert _quiet(node, "request") and _quiet(node, "response")


@pytest.mark.parametrize("node", _NOT_INERT, ids=repr)
def test_these_leaves_are_visited(node: dict[str, Any]) -> None:
    assert not inert(node)


_SCHEMAS = st.recursive(
    _LEAVES,
    lambda inner: st.one_of(
        st.fixed_dictionaries({"type": st.just("object"),
                               "properties": st.dictionaries(st.sampled_from("abc"), inner,
                                                             max_size=3)},
                              optional={"example": st.just({"a": 1})}),
        st.fixed_dictionaries({"type": st.just("array"), "items": inner}),
        st.fixed_dictionaries({"anyOf": st.lists(inner, min_size=1, max_size=3)}),
    ),
    max_leaves=10,
)


@pytest.mark.parametrize("direction", ["request", "response"])
@SETTINGS
@given(schema=_SCHEMAS)
def test_skipping_inert_leaves_changes_nothing(direction: Direction,
                                               schema: dict[str, Any]) -> None:
    """The emend of a schema with inert leaves skipped (``PASSES`` itself) equals, with the
    same reports, losses and examples, the emend that visits every node (an equal tuple)."""
    results = []
    for passes in (PASSES, tuple(list(PASSES))):
        ctx, reports, lost = _watched(direction)
        out = emend(schema, ctx, pointer="#/s", rewrite_ref=lambda node, at: node,
                    passes=passes)
        results.append((out, list(reports), lost, ctx.examples))
    assert results[0] == results[1]


def _emended_quietly(node: dict[str, Any], direction: Direction) -> Any:
    """What the passes make of ``node`` with no examples kept, or ``None`` if they reported,
    lost or kept anything."""
    ctx, reports, lost = _watched(direction, keep_examples=False)
    out = _apply(node, _PLAN, ctx)
    return None if reports or lost else out


@pytest.mark.parametrize("direction", ["request", "response"])
@SETTINGS
@given(node=_LEAVES)
def test_a_quiet_leaf_is_what_the_passes_make_of_it(direction: Direction,
                                                    node: dict[str, Any]) -> None:
    """With no examples kept, a leaf ``quiet`` takes is what every pass makes of it (an
    inert one itself), and the passes say nothing about it."""
    form = quiet(node)
    if form is not None:
        assert _emended_quietly(node, direction) == form
        assert (form is node) == inert(node)


_QUIET = [
    ({"type": "string", "example": "octocat"}, {"type": "string"}),
    ({"example": 1, "description": "d", "examples": [2, "x"], "format": "f"},
     {"description": "d", "format": "f"}),
    ({"type": "integer", "example": 10**400}, None),  # numbers reports it
    ({"type": "integer", "examples": [1.5, float("inf")]}, None),
    ({"type": "array", "example": []}, None), ({"type": "string", "nullable": True}, None),
    ({"$ref": "#/$defs/A", "example": 1}, None),
]


@pytest.mark.parametrize(("node", "form"), _QUIET, ids=repr)
def test_these_leaves_are_quiet_or_not(node: dict[str, Any], form: Any) -> None:
    assert quiet(node) == form
    if form is not None:
        assert _emended_quietly(node, "response") == form


@pytest.mark.parametrize("direction", ["request", "response"])
@SETTINGS
@given(schema=_SCHEMAS)
def test_quiet_leaves_change_nothing_without_examples(direction: Direction,
                                                      schema: dict[str, Any]) -> None:
    """With no examples kept, the emend that takes quiet leaves unvisited equals, with the
    same reports and losses, the emend that visits every node."""
    results = []
    for passes in (PASSES, tuple(list(PASSES))):
        ctx, reports, lost = _watched(direction, keep_examples=False)
        out = emend(schema, ctx, pointer="#/s", rewrite_ref=lambda node, at: node,
                    passes=passes)
        results.append((out, list(reports), lost))
    assert results[0] == results[1]


def _emended(node: dict[str, Any], direction: Direction, *, keep_examples: bool) -> Any:
    """What the passes make of ``node``, or ``None`` if they reported, lost or kept
    anything."""
    ctx, reports, lost = _watched(direction, keep_examples=keep_examples)
    out = _apply(node, _PLAN, ctx)
    return None if reports or lost or ctx.examples else out


_NULLABLE_LEAVES = st.dictionaries(
    st.sampled_from(sorted(INERT_KEYS | {"example", "examples", "readOnly"})), _VALUES,
    max_size=4).map(lambda node: {**node, "nullable": True})


@pytest.mark.parametrize("direction", ["request", "response"])
@pytest.mark.parametrize("keep_examples", [True, False])
@SETTINGS
@given(node=_NULLABLE_LEAVES | _LEAVES)
def test_a_leaf_emend_is_what_the_passes_make_of_the_leaf(
        direction: Direction, keep_examples: bool, node: dict[str, Any]) -> None:
    """A leaf ``leaf_emend`` takes (``nullable_leaf``'s among them) is what every pass makes
    of it, and the passes say nothing about it."""
    form = leaf_emend(keep_examples=keep_examples)(node)
    if form is not None:
        assert _emended(node, direction, keep_examples=keep_examples) == form


_NULLABLE = [
    ({"type": "string", "nullable": True},
     {"anyOf": [{"type": "string"}, {"type": "null"}]}, True),
    ({"description": "d", "type": "integer", "format": "int32", "nullable": True},
     {"description": "d", "anyOf": [{"type": "integer", "format": "int32"}, {"type": "null"}]},
     True),
    ({"type": "string", "enum": ["a"], "nullable": True, "title": "t", "example": "a"},
     {"title": "t", "anyOf": [{"type": "string", "enum": ["a"]}, {"type": "null"}]}, False),
    ({"type": "string", "nullable": True, "example": "a"}, None, True),  # example kept
    ({"type": "null", "nullable": True}, None, False),
    ({"nullable": True, "description": "d"}, None, False),  # no type
    ({"type": "array", "nullable": True}, None, False),  # array gets items
    ({"type": "string", "nullable": False}, None, False),
    ({"type": "string", "nullable": "true"}, None, False),  # kinds drops it, with a loss
    ({"type": "string", "nullable": True, "enum": ["a", None]}, None, False),
    ({"type": "integer", "nullable": True, "example": 10**400}, None, False),  # numbers
]


@pytest.mark.parametrize(("node", "form", "keep_examples"), _NULLABLE, ids=repr)
def test_these_nullable_leaves_are_emended_unvisited_or_not(
        node: dict[str, Any], form: Any, keep_examples: bool) -> None:
    rule = _inert_leaf if keep_examples else quiet
    assert nullable_leaf(node, rule) == form
    assert leaf_emend(keep_examples=keep_examples)(node) == form
    if form is not None:
        for direction in ("request", "response"):
            assert _emended(node, direction, keep_examples=keep_examples) == form


@pytest.mark.parametrize("direction", ["request", "response"])
@pytest.mark.parametrize("keep_examples", [True, False])
@SETTINGS
@given(schema=_SCHEMAS | _NULLABLE_LEAVES.map(lambda node: {"items": node, "type": "array"}))
def test_leaves_taken_unvisited_change_nothing(direction: Direction, keep_examples: bool,
                                               schema: dict[str, Any]) -> None:
    """The emend that takes ``leaf_emend``'s leaves unvisited equals, with the same
    reports, losses and examples, the emend that visits every node."""
    results = []
    for passes in (PASSES, tuple(list(PASSES))):
        ctx, reports, lost = _watched(direction, keep_examples=keep_examples)
        out = emend(schema, ctx, pointer="#/s", rewrite_ref=lambda node, at: node,
                    passes=passes)
        results.append((out, list(reports), lost, ctx.examples))
    assert results[0] == results[1]
