"""`bound`: a schema within a byte limit, repeats shared once, deep levels cut to stubs
that accept at least what the schema accepted (issues 26 and 28)."""

from __future__ import annotations

import json
from typing import Any

import jsonschema_rs
import pytest

from httpllm.compose.inline import measure
from httpllm.compose.prune import bound, byte_size, weigh
from httpllm.walk import FoldMemo


def _bytes(schema: Any) -> int:
    return len(json.dumps(schema, ensure_ascii=False, separators=(",", ":")).encode())


ADDRESS = {"type": "object", "description": "A postal address. Used for billing.",
           "properties": {"line": {"type": "string", "description": "x" * 300},
                          "city": {"type": "string"}, "zip": {"type": "string",
                                                              "pattern": "^[0-9]{5}$"}}}
NODE = {"type": "object", "description": "A tree node.",
        "properties": {"name": {"type": "string", "description": "y" * 200},
                       "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}}}


def _order() -> dict[str, Any]:
    return {"type": "object", "required": ["billing"],
            "properties": {"billing": ADDRESS, "shipping": ADDRESS,
                           "tree": {"$ref": "#/$defs/Node"}, "count": {"type": "integer"}},
            "$defs": {"Node": NODE}}


def test_byte_size_is_the_compact_json_size() -> None:
    """`byte_size` counts the bytes of compact UTF-8 JSON, shared subtrees at each place."""
    schema = _order()
    assert byte_size(schema) == _bytes(schema)
    assert byte_size({"description": "é€"}) == _bytes({"description": "é€"})


VALUES = {"type": ["string", "null"], "enum": ["a", "é", None, 3, -2.5, 1e-07, True, False],
          "default": {"k": [1, {"x": "y"}]}, "maximum": 10**20, "minimum": 0.1,
          "examples": [[], {}, ""], "required": [], "description": "tab\there \"quoted\""}


def test_byte_size_counts_values_as_the_encoder_writes_them() -> None:
    """Strings with escapes, lists, whole and fractional numbers, booleans, null and
    objects: each counted as `json.dumps` spells it, in place or under a subschema."""
    assert byte_size(VALUES) == _bytes(VALUES)
    held = {"type": "object", "properties": {"v": VALUES}, "items": VALUES,
            "anyOf": [VALUES, True, {"not": False}]}
    assert byte_size(held) == _bytes(held)


@pytest.mark.parametrize("schema", [_order(), VALUES, {"anyOf": [True, {"items": False}]},
                                    {"type": "string"}, True])
def test_weigh_is_measure_and_byte_size_in_one_walk(schema: Any) -> None:
    """`weigh` gives `inline.measure`'s depth and nodes and `byte_size`'s bytes, also with
    a memo shared by schemas holding the same nodes."""
    memo = FoldMemo()
    assert weigh(schema, memo) == (*measure(schema, FoldMemo()), byte_size(schema))
    holder = {"type": "object", "properties": {"a": schema, "b": schema}}
    assert weigh(holder, memo) == (*measure(holder, FoldMemo()), byte_size(holder))


def test_a_schema_that_fits_is_left_alone() -> None:
    """Within the limit there is nothing to do."""
    assert bound(_order(), 10_000) is None


def test_repeats_are_shared_and_levels_cut_within_the_limit() -> None:
    """A named schema met twice is written once under `$defs` (`<name>_<digest>`); levels
    past what fits become stubs (type and first sentence); the result fits."""
    names = {id(ADDRESS): "Address"}
    bounded = bound(_order(), 1_000, names=lambda node: names.get(id(node)))
    assert bounded is not None
    assert bounded.after <= 1_000 and bounded.after == _bytes(bounded.schema)
    assert bounded.before == _bytes(_order())
    assert bounded.cut and bounded.levels == 1
    schema = bounded.schema
    (address,) = [k for k in schema["$defs"] if k.startswith("Address_")]
    assert schema["properties"]["billing"] == {"$ref": f"#/$defs/{address}"}
    assert schema["properties"]["shipping"] == {"$ref": f"#/$defs/{address}"}
    assert schema["$defs"][address]["properties"]["zip"] == {"type": "string"}
    assert schema["properties"]["tree"]["properties"]["children"] == {"type": "array", "items": {}}


def test_the_tightest_limit_keeps_the_root_then_a_stub() -> None:
    """Past every level the root's properties are stubs without descriptions; past that,
    the root alone as a stub."""
    tight = bound(_order(), 170)
    assert tight is not None and tight.levels == 0
    assert tight.schema["properties"]["billing"] == {"type": "object"}
    root = bound(_order(), 20)
    assert root is not None and root.levels == -1
    assert root.schema == {"type": "object"}


INSTANCES = [
    {"billing": {"line": "a", "city": "b", "zip": "12345"}, "count": 2},
    {"billing": {"zip": "nope"}, "tree": {"name": "r", "children": [{"children": [{}]}]}},
    {"billing": 3},
    {"shipping": {}},
    {"tree": {"children": "x"}},
]


@pytest.mark.parametrize("limit", [20, 160, 400, 1_000, 1_400])
def test_a_bound_only_widens(limit: int) -> None:
    """Every instance the schema accepts, the bounded schema accepts too."""
    schema = _order()
    bounded = bound(schema, limit)
    assert bounded is not None
    whole = jsonschema_rs.Draft202012Validator(schema)
    cut = jsonschema_rs.Draft202012Validator(bounded.schema)
    for instance in INSTANCES:
        if whole.is_valid(instance):
            assert cut.is_valid(instance), (limit, instance)


def test_recursion_through_unions_only_terminates() -> None:
    """A `$ref` cycle that never goes a level deeper (`anyOf` of itself) ends in a stub."""
    loop = {"$defs": {"A": {"anyOf": [{"$ref": "#/$defs/A"}, {"type": "string"}],
                            "description": "z" * 500}},
            "type": "object", "properties": {"a": {"$ref": "#/$defs/A"}}}
    bounded = bound(loop, 300)
    assert bounded is not None and bounded.after <= 300


def test_deep_input_is_no_recursion_error() -> None:
    """10,000 nested levels are cut iteratively."""
    deep: dict[str, Any] = {"type": "string"}
    for _ in range(10_000):
        deep = {"type": "object", "properties": {"x": deep}}
    bounded = bound(deep, 500)
    assert bounded is not None and bounded.after <= 500
