"""Pass array_items: an array without `items` gets `items: {}`, said explicitly."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import strategies as st

from httpllm.errors import LimitExceeded
from httpllm.normalize.array_items import array_items

from ._support import check_pass_contract, deep, run, scalar_schemas


@pytest.mark.parametrize(
    ("schema", "out"),
    [
        ({"type": "array"}, {"type": "array", "items": {}}),
        ({"type": "array", "minItems": 1}, {"type": "array", "minItems": 1, "items": {}}),
        ({"properties": {"tags": {"type": "array"}}},
         {"properties": {"tags": {"type": "array", "items": {}}}}),
    ],
)
def test_examples(schema: dict[str, Any], out: dict[str, Any]) -> None:
    """`type: array` without `items` or `prefixItems` gets `items: {}` (any item)."""
    assert run(array_items, schema) == (out, [])


@pytest.mark.parametrize(
    "schema",
    [{"type": "array", "items": {"type": "string"}}, {"type": "array", "prefixItems": [{}]},
     {"type": "string"}, {"minItems": 2}, {"type": "array", "items": False}],
)
def test_left_alone(schema: dict[str, Any]) -> None:
    """Arrays with `items` or `prefixItems`, and non-arrays, come back as the same object."""
    assert run(array_items, schema)[0] is schema


def test_depth_10000_is_limit_exceeded() -> None:
    """A schema 10,000 levels deep raises LimitExceeded, not RecursionError."""
    with pytest.raises(LimitExceeded):
        run(array_items, deep(10_000))


def arrays() -> st.SearchStrategy[dict[str, Any]]:
    return st.recursive(
        st.fixed_dictionaries({"type": st.just("array")},
                              optional={"minItems": st.integers(0, 2),
                                        "maxItems": st.integers(2, 3)}) | scalar_schemas(),
        lambda inner: st.fixed_dictionaries({"type": st.just("array")},
                                            optional={"items": inner}),
        max_leaves=4,
    )


@pytest.mark.slow
def test_equivalent_pure_fixpoint() -> None:
    """The result accepts exactly the same instances; the pass is a fixpoint, deterministic,
    pure, and identity when nothing changes."""
    check_pass_contract(array_items, arrays(), "equivalent", pure=True)
