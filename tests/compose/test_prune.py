"""`bound`: a schema within a byte limit, repeats shared once, deep levels cut to stubs
that accept at least what the schema accepted (issues 26 and 28)."""

from __future__ import annotations

import json
import random
from typing import Any

import jsonschema_rs
import pytest

from httpllm.compose.inline import measure
from httpllm.compose.prune import LEVELS_MAX, Sizes, bound, byte_size, weigh
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


ODD = {"type": "object", "items": [{"type": "string"}, True, {"items": {"minimum": 1}}],
       "anyOf": {"not": "a schema"}, "properties": ["p", {"type": "string"}],
       "patternProperties": {"^x": True, "^y": False, "^z": {"const": "é\u2028\\\""}},
       "allOf": [{"x-k": [1, {"y": None}]}, False, {"additionalProperties": VALUES}],
       "not": True, "then": {"$ref": "#/$defs/T"}, "$defs": {"T": {"type": "null"}}}
"""Subschema keywords whose values are not subschemas (a list under ``properties``, an
object under ``anyOf``), the draft-4 list form of ``items``, booleans in each place."""


@pytest.mark.parametrize("schema", [_order(), VALUES, ODD, {"properties": {}},
                                    {"anyOf": [ODD, {"items": ODD}], "properties": {"o": ODD}}])
def test_subtree_bytes_of_a_sizes_are_byte_size(schema: Any) -> None:
    """`Sizes` counts a subtree's bytes as `byte_size` does, each node's own bytes counted
    as its subschemas are listed, whatever a subschema keyword holds."""
    assert Sizes().trees.size(schema) == byte_size(schema)
    assert Sizes().trees.size(VALUES) == _bytes(VALUES)
LONE = {"type": "object", "description": "x\ud800y", "properties": {
    "a\udc00": {"type": "string", "enum": ["\udfff", "é"], "default": "\ud83d"}}}
"""Lone surrogates (a document's ``\\ud800`` escape without its pair) in a value, a
property name, an enum and a default."""


def test_byte_size_counts_a_lone_surrogate_as_its_escape() -> None:
    """A lone surrogate, which UTF-8 cannot hold, is counted as the six-byte escape an
    ASCII JSON encoder writes (the rest as UTF-8): no UnicodeEncodeError, in place or
    under a subschema, measured by `byte_size`, `weigh` and a `Sizes`."""
    escaped = len(json.dumps(LONE, ensure_ascii=False, separators=(",", ":")).encode(
        "utf-8", "backslashreplace"))
    assert byte_size({"description": "\ud800"}) == len('{"description":"\\ud800"}')
    assert byte_size(LONE) == escaped
    assert weigh(LONE, FoldMemo())[2] == escaped
    assert Sizes().trees.size(LONE) == escaped
    assert byte_size(LONE["properties"]["a\udc00"]["enum"]) == len('["\\udfff","é"]'.encode())


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


THING = {"type": "object", "description": "A thing. More.",
         "properties": {"x": {"type": "string", "description": "x" * 200},
                        "y": {"type": "integer"}}}


def _things() -> dict[str, Any]:
    """THING twice at the first level, twice at the second."""
    return {"type": "object", "properties": {
        "a": THING, "b": THING,
        "c": {"type": "object", "properties": {"d": THING, "e": THING}}}}


def _thing_names(node: Any) -> str | None:
    return "Thing" if node is THING else None


def test_a_shared_schema_with_a_lone_surrogate_is_bounded() -> None:
    """A named schema whose strings hold lone surrogates, shared under `$defs` by a bound
    that cuts: its digest and every byte count are made (its escape counted), no
    UnicodeEncodeError."""
    address = {**ADDRESS, "description": "A postal \ud800 address.", "properties": {
        **ADDRESS["properties"], "zip\udc00": {"type": "string"}}}
    order = {**_order(), "properties": {**_order()["properties"], "billing": address,
                                         "shipping": address}}
    bounded = bound(order, 1_000, names=lambda node: "Address" if node is address else None)
    assert bounded is not None and bounded.cut
    assert bounded.after <= 1_000 and bounded.after == byte_size(bounded.schema)
    assert any(k.startswith("Address_") for k in bounded.schema["$defs"])


def test_a_subtree_shared_at_several_depths_is_one_def_per_depth() -> None:
    """A node repeated at two depths keeps different levels below each: one `$defs` entry
    per depth, each place referring to the one of its depth; the result is its bytes."""
    bounded = bound(_things(), 900, names=_thing_names)
    assert bounded is not None and bounded.levels == 2
    assert bounded.shared == ("Thing", "Thing_2")
    schema = bounded.schema
    top, deep = schema["properties"]["a"]["$ref"], schema["properties"]["c"]["properties"]["d"]
    assert schema["properties"]["b"] == {"$ref": top}
    assert schema["properties"]["c"]["properties"]["e"] == deep
    assert deep["$ref"] != top
    assert bounded.after == _bytes(schema) <= 900


def test_keep_root_properties_leaves_them_in_place() -> None:
    """With `keep_root_properties` a root property's own schema is never a `$ref`."""
    bounded = bound(_things(), 900, names=_thing_names, keep_root_properties=True)
    assert bounded is not None
    properties = bounded.schema["properties"]
    assert "$ref" not in properties["a"] and "$ref" not in properties["b"]
    assert properties["a"]["description"] == "A thing. More."
    assert bounded.after == _bytes(bounded.schema) <= 900


def test_a_cycle_met_on_its_own_path_is_a_stub() -> None:
    """`A = anyOf[A, string]` never goes a level deeper: where `A` meets itself it is a
    stub (its first sentence), and the rest of the level is kept."""
    loop = {"$defs": {"A": {"anyOf": [{"$ref": "#/$defs/A"}, {"type": "string"}],
                            "description": "Loops. On itself."}},
            "type": "object", "properties": {"a": {"$ref": "#/$defs/A"},
                                             "b": {"type": "integer"}}}
    bounded = bound(loop, 150)
    assert bounded is not None and bounded.levels == LEVELS_MAX  # only the loop cut
    assert "$defs" not in bounded.schema
    assert bounded.schema["properties"]["a"] == {
        "anyOf": [{"description": "Loops."}, {"type": "string"}],
        "description": "Loops. On itself."}
    assert bounded.after == _bytes(bounded.schema)


def test_a_root_ref_cut_to_a_stub() -> None:
    """A root that is a `$ref` into its own `$defs`: its target expanded (the `$defs`
    dropped); too large for even the first level, the root itself is a stub."""
    schema = {"$ref": "#/$defs/R", "$defs": {"R": {
        "type": "object", "description": "Root. " + "r" * 400,
        "properties": {"p": {"type": "string", "description": "p" * 400}}}}}
    kept = bound(schema, 600)
    assert kept is not None and kept.levels == 0
    assert kept.schema == {**schema["$defs"]["R"], "properties": {"p": {"type": "string"}}}
    assert kept.after == _bytes(kept.schema)
    root = bound(schema, 60)
    assert root is not None and root.levels == -1
    assert root.schema == {}  # the stub of the root as given: a $ref has no type


def test_roots_sharing_nodes_bound_alike_with_one_sizes() -> None:
    """The outputs of one compile share their nodes and one `Sizes`: each is bounded as
    it would be alone (a node made for one, with a `$ref` below it, is not another's)."""
    sizes = Sizes()
    first = _things()
    second = {"type": "object", "properties": {"only": first["properties"]["c"], "t": THING}}
    for schema, limit in [(first, 900), (second, 400), (first, 700), (second, 300)]:
        alone = bound(schema, limit, names=_thing_names)
        shared = bound(schema, limit, names=_thing_names, sizes=sizes)
        assert alone is not None and shared is not None
        assert json.dumps(shared.schema) == json.dumps(alone.schema)
        assert (shared.levels, shared.shared, shared.after) == (
            alone.levels, alone.shared, alone.after)


def _random_schema(rng: random.Random, pool: list[Any], depth: int) -> Any:
    """A schema reusing nodes of ``pool`` (shared subtrees), ``$ref``\\ s into ``$defs``
    D0..D3 (cycles), arrays, unions and objects."""
    draw = rng.random()
    if depth <= 0 or draw < 0.25:
        if pool and rng.random() < 0.5:
            return rng.choice(pool)
        return {"type": rng.choice(["string", "integer", ["string", "null"]]),
                "description": "d. " * rng.randint(0, 30)}
    if draw < 0.35:
        return {"$ref": f"#/$defs/D{rng.randint(0, 3)}"}
    if draw < 0.5:
        return {"type": "array", "items": _random_schema(rng, pool, depth - 1),
                "description": "An array. x"}
    if draw < 0.6:
        return {"anyOf": [_random_schema(rng, pool, depth - 1),
                          _random_schema(rng, pool, depth), True]}
    node = {"type": "object", "description": "Obj. " * rng.randint(0, 10), "properties": {
        f"p{i}": _random_schema(rng, pool, depth - 1) for i in range(rng.randint(1, 4))}}
    if rng.random() < 0.3:
        node["additionalProperties"] = _random_schema(rng, pool, depth - 1)
    pool.append(node)
    return node


@pytest.mark.parametrize("seed", range(96, 112))
def test_random_roots_sharing_nodes_bound_alike_with_one_sizes(seed: int) -> None:
    """Roots sharing nodes (some with `$defs`), bounded in turn with one `Sizes`, give
    what each gives alone; each result is its bytes and within its limit."""
    rng = random.Random(seed)
    pool: list[Any] = []
    roots = []
    for _ in range(4):
        root = _random_schema(rng, pool, 5)
        if isinstance(root, dict) and rng.random() < 0.4:
            root = {**root, "$defs": {f"D{i}": _random_schema(rng, pool, 3) for i in range(4)}}
        roots.append(root)
    names = {id(node): f"N{i % 5}" for i, node in enumerate(pool)}

    def named(node: Any) -> str | None:  # one function: Sizes shares what it built
        return names.get(id(node))

    sizes = Sizes()
    for root in roots:
        if not isinstance(root, dict):
            continue
        for limit in (40, 200, 800, 3000):
            for keep in (False, True):
                alone = bound(root, limit, names=named,
                              keep_root_properties=keep)
                together = bound(root, limit, names=named,
                                 keep_root_properties=keep, sizes=sizes)
                if alone is None or together is None:
                    assert alone is together is None
                    continue
                assert json.dumps(together.schema) == json.dumps(alone.schema)
                assert (together.levels, together.after) == (alone.levels, alone.after)
                assert alone.after == _bytes(alone.schema)
                assert alone.after <= limit or alone.levels == -1


SUB = {"type": "object", "description": "A part. Of a whole.",
       "properties": {"n": {"type": "string", "description": "n" * 120}}}
WHOLE = {"type": "object", "description": "A whole.",
         "properties": {"p": SUB, "q": SUB, "r": {"type": "array", "items": SUB}}}


def _wholes() -> dict[str, Any]:
    """WHOLE three times (SUB three times inside each): `$ref`s inside a shared `$defs`
    entry, and a named schema shared at several depths."""
    return {"type": "object", "properties": {
        "a": WHOLE, "b": WHOLE, "c": {"type": "array", "items": WHOLE}, "s": SUB}}


def _whole_names(node: Any) -> str | None:
    return {id(WHOLE): "Whole", id(SUB): "Sub~/x"}.get(id(node))


def _level_limits(schema: Any, names: Any) -> list[int]:
    """Limits around each change of the levels kept (on a 7-byte grid): the first limit
    of a new count of levels, and one byte below it."""
    limits = []
    for limit in range(20, _bytes(schema), 7):
        bounded = bound(schema, limit, names=names)
        if bounded is not None and (not limits or bounded.levels != limits[-1][1]):
            limits.append((limit, bounded.levels))
    return sorted({n for limit, _ in limits for n in (limit - 1, limit)})


def test_the_bytes_after_are_the_results_at_each_level() -> None:
    """`Bounded.after` (summed, not measured on the result) is the result's bytes at every
    level, `$ref`s inside shared `$defs` entries and a name with characters a `$defs` key
    cannot have included; each result fits (or is the root's stub)."""
    schema = _wholes()
    seen = set()
    for limit in _level_limits(schema, _whole_names):
        bounded = bound(schema, limit, names=_whole_names)
        assert bounded is not None
        assert bounded.after == _bytes(bounded.schema)
        assert bounded.after <= limit or bounded.levels == -1
        seen.add((bool(bounded.shared), bounded.levels))
    assert (True, 1) in seen and (False, 0) in seen and (False, -1) in seen
    assert any("$ref" in json.dumps(entry) for entry in
               bound(schema, 1_400, names=_whole_names).schema.get("$defs", {}).values())


def test_a_root_measured_first_shares_its_nodes_bytes_with_the_next_bound() -> None:
    """One `Sizes`: a root that fits (measured only) and a root past the limit holding the
    same subtrees, bounded at each level, give what each gives alone."""
    sizes = Sizes()
    assert bound(SUB, 10_000, names=_whole_names, sizes=sizes) is None
    assert bound(WHOLE, 10_000, names=_whole_names, sizes=sizes) is None
    schema = _wholes()
    for limit in _level_limits(schema, _whole_names):
        alone = bound(schema, limit, names=_whole_names)
        shared = bound(schema, limit, names=_whole_names, sizes=sizes)
        assert alone is not None and shared is not None
        assert json.dumps(shared.schema) == json.dumps(alone.schema)
        assert (shared.levels, shared.shared, shared.before, shared.after) == (
            alone.levels, alone.shared, alone.before, alone.after)


def test_a_recursive_root_bounds_alike_at_each_level_with_one_sizes() -> None:
    """A `$defs` cycle (a tree of nodes) and a root without `$defs` holding the same
    nodes, with one `Sizes`: alike to alone at each level, each result its bytes."""
    tree = {"type": "object", "properties": {"root": {"$ref": "#/$defs/Node"},
                                             "part": SUB},
            "$defs": {"Node": {"type": "object", "description": "A node. " + "t" * 80,
                               "properties": {"kids": {"type": "array",
                                                       "items": {"$ref": "#/$defs/Node"}},
                                              "part": SUB}}}}
    sizes = Sizes()
    for schema in (tree, _wholes(), tree):
        for limit in _level_limits(schema, _whole_names):
            alone = bound(schema, limit, names=_whole_names)
            shared = bound(schema, limit, names=_whole_names, sizes=sizes)
            assert alone is not None and shared is not None
            assert json.dumps(shared.schema) == json.dumps(alone.schema)
            assert (shared.levels, shared.after) == (alone.levels, alone.after)
            assert alone.after == _bytes(alone.schema)
