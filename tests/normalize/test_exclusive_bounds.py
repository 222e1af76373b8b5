"""Pass exclusive_bounds: OpenAPI 3.0 boolean exclusive bounds -> 2020-12 numeric ones."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from httpllm.errors import LimitExceeded
from httpllm.normalize.exclusive_bounds import exclusive_bounds

from ._support import SETTINGS, check_pure, deep, run, valid


@pytest.mark.parametrize(
    ("schema", "out"),
    [
        ({"type": "integer", "minimum": 0, "exclusiveMinimum": True},
         {"type": "integer", "exclusiveMinimum": 0}),
        ({"maximum": 9.5, "exclusiveMaximum": True}, {"exclusiveMaximum": 9.5}),
        ({"minimum": 1, "exclusiveMinimum": False}, {"minimum": 1}),
        ({"minimum": 1, "maximum": 2, "exclusiveMinimum": True, "exclusiveMaximum": False},
         {"maximum": 2, "exclusiveMinimum": 1}),
    ],
)
def test_examples(schema: dict[str, Any], out: dict[str, Any]) -> None:
    """`minimum` + `exclusiveMinimum: true` is `exclusiveMinimum: <minimum>`; `false` goes."""
    assert run(exclusive_bounds, schema) == (out, [])


def test_true_without_a_bound_is_reported() -> None:
    """`exclusiveMaximum: true` without `maximum` constrains nothing: dropped, reported."""
    out, reports = run(exclusive_bounds, {"type": "number", "exclusiveMaximum": True})
    assert out == {"type": "number"}
    assert reports == [("#", "exclusiveMaximum: true without a numeric maximum has no effect; "
                              "dropped")]


def test_numeric_form_is_left_alone() -> None:
    """2020-12 numeric bounds are already right: the very same schema comes back."""
    schema = {"type": "number", "exclusiveMinimum": 0, "properties": {"x": {"minimum": 1}}}
    assert run(exclusive_bounds, schema)[0] is schema


def test_nested() -> None:
    """Every subschema is rewritten, children and parent alike."""
    schema = {"items": {"minimum": 2, "exclusiveMinimum": True},
              "minimum": 0, "exclusiveMinimum": True}
    assert run(exclusive_bounds, schema)[0] == {"items": {"exclusiveMinimum": 2},
                                                 "exclusiveMinimum": 0}


def test_depth_10000_is_limit_exceeded() -> None:
    """A schema 10,000 levels deep raises LimitExceeded, not RecursionError."""
    with pytest.raises(LimitExceeded):
        run(exclusive_bounds, deep(10_000))


BOUNDS = st.fixed_dictionaries(
    {},
    optional={
        "minimum": st.integers(-5, 5),
        "maximum": st.integers(-5, 5),
        "exclusiveMinimum": st.booleans(),
        "exclusiveMaximum": st.booleans(),
        "type": st.sampled_from(["number", "integer"]),
    },
)


def openapi30_accepts(schema: dict[str, Any], x: Any) -> bool:
    """The OpenAPI 3.0 (draft 4) reading of minimum/maximum with boolean exclusive flags."""
    if not isinstance(x, (int, float)) or isinstance(x, bool):
        return "type" not in schema
    if schema.get("type") == "integer" and not float(x).is_integer():
        return False
    low, high = schema.get("minimum"), schema.get("maximum")
    if low is not None and (x <= low if schema.get("exclusiveMinimum") else x < low):
        return False
    return not (high is not None and (x >= high if schema.get("exclusiveMaximum") else x > high))


@SETTINGS
@given(BOUNDS, st.one_of(st.integers(-7, 7), st.floats(-7, 7), st.text(max_size=1)))
def test_equivalent_to_the_openapi30_reading(schema: dict[str, Any], x: Any) -> None:
    """The result accepts exactly what OpenAPI 3.0 reads the input to accept, and the pass
    is pure, deterministic and a fixpoint."""
    out = check_pure(exclusive_bounds, schema)
    assert not any(isinstance(v, bool) for v in out.values())
    assert valid(out, x) == openapi30_accepts(schema, x)
