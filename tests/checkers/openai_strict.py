"""OpenAI strict mode (`strict: true`) subset checker, from provider-rules.md sections 2b and 2c.

Rules (each violation is reported as `"<pointer>: <what>"`):

- the root is `type: "object"`, never a union or a `$ref`;
- every object (a node whose `type` is or includes `"object"`) has `properties`,
  `additionalProperties: false` and `required` equal to all its property names;
- every schema node is typed: it has `type`, `anyOf`, `$ref`, `enum` or `const`
  (`{}`, `true` and description-only nodes are rejected by the API);
- every array has `items` (a schema object);
- `$ref` stands alone in its node and resolves inside the parameters schema;
- no keyword outside :data:`ALLOWED` (this covers `oneOf`, `allOf`, `not`, `if/then/else`,
  `dependent*`, `patternProperties`, `unevaluated*`, `propertyNames`, `contains`, `default`,
  `examples`, `uniqueItems`, `minProperties`, `maxProperties`, OpenAPI `nullable` / `example` /
  `discriminator`, `x-*`);
- `format` only from :data:`FORMATS`;
- limits (section 2c): at most 5000 properties in total; at most 10 levels of object nesting;
  at most 1000 enum values in total; an enum with more than 250 string values has at most
  15,000 characters of values; property names + definition names + enum values + const values
  at most 120,000 characters.

Nesting depth is counted as the number of object schemas (`type` includes `"object"`) on the
path from the root to a node, the root being level 1; arrays, `anyOf` branches and `$ref`s are
transparent. A `$ref` into `$defs` continues the path through the definition; a `$ref` back to a
definition already on the path ends it (OpenAI allows recursion, it adds no finite depth).
OpenAI documents "up to 10 levels of nesting" without saying how it counts; this reading is the
stricter one that still accepts the documented examples.
"""

from __future__ import annotations

from typing import Any

from ._schema import (
    JSON_TYPES,
    envelope_schema,
    iter_schemas,
    resolve_ref,
    subtree_totals,
    types_of,
)

__all__ = [
    "ALLOWED",
    "FORBIDDEN",
    "FORMATS",
    "MAX_DEPTH",
    "MAX_ENUM_VALUES",
    "MAX_PROPERTIES",
    "MAX_STRING_BUDGET",
    "check",
    "check_schema",
    "nesting_depth",
]

ALLOWED = frozenset(
    {
        "type", "properties", "required", "additionalProperties", "items", "anyOf",
        "$ref", "$defs", "definitions", "enum", "const", "description", "title",
        "format", "pattern", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
        "multipleOf", "minItems", "maxItems", "minLength", "maxLength",
    }
)  # fmt: skip
"""Keywords a strict schema may carry (OpenAI structured-outputs "supported schemas").

`minLength`/`maxLength` are allowed: OpenAI's page lists them as unsupported only for
fine-tuned models (provider-rules.md 2b, open question)."""

FORBIDDEN = frozenset(
    {
        "oneOf", "allOf", "not", "if", "then", "else", "dependentRequired", "dependentSchemas",
        "patternProperties", "unevaluatedProperties", "unevaluatedItems", "propertyNames",
        "contains", "minContains", "maxContains", "default", "examples", "uniqueItems",
        "minProperties", "maxProperties",
    }
)  # fmt: skip
"""Named by provider-rules.md 2b as rejected in strict mode (a subset of "not in ALLOWED")."""

FORMATS = frozenset(
    {"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"}
)

MAX_PROPERTIES = 5000
MAX_DEPTH = 10
MAX_ENUM_VALUES = 1000
MAX_LARGE_ENUM_CHARS = 15_000
LARGE_ENUM = 250
MAX_STRING_BUDGET = 120_000


def check(tool_or_function: Any) -> list[str]:
    """Violations of the strict subset by the parameters of a Function or tool envelope."""
    return check_schema(envelope_schema(tool_or_function))


def check_schema(schema: Any) -> list[str]:
    """Violations of the strict subset by one parameters schema (`[]` when it conforms)."""
    if not isinstance(schema, dict):
        return [f"#: parameters must be a schema object, got {schema!r}"]
    out = _root_problems(schema)
    for pointer, node in iter_schemas(schema, unique=True):
        out.extend(_node_problems(schema, pointer, node))
    out.extend(_limit_problems(schema))
    return out


def _root_problems(schema: dict[str, Any]) -> list[str]:
    out = []
    if schema.get("type") != "object":
        out.append(f"#: root must be type 'object', got type {schema.get('type')!r}")
    for key in ("anyOf", "oneOf", "allOf", "$ref", "not"):
        if key in schema:
            out.append(f"#: root must not carry {key}")
    return out


def _node_problems(root: dict[str, Any], pointer: str, node: Any) -> list[str]:
    if isinstance(node, bool):
        if node is False and pointer.endswith("/additionalProperties"):
            return []
        return [f"{pointer}: boolean schema {node!r} is not allowed (untyped)"]
    if not isinstance(node, dict):
        return [f"{pointer}: schema must be an object, got {type(node).__name__}"]
    out = [
        f"{pointer}: keyword {key!r} is not allowed in strict mode"
        for key in node
        if key not in ALLOWED and not (pointer == "#" and key == "$schema")
    ]
    if "$ref" in node:
        return out + _ref_node_problems(root, pointer, node)
    return out + _typed_node_problems(pointer, node)


def _ref_node_problems(root: dict[str, Any], pointer: str, node: dict[str, Any]) -> list[str]:
    out = []
    others = sorted(k for k in node if k != "$ref")
    if others:
        out.append(f"{pointer}: $ref cannot have sibling keywords {others}")
    found, _ = resolve_ref(root, node["$ref"])
    if not found:
        out.append(f"{pointer}: $ref {node['$ref']!r} does not resolve inside parameters")
    return out


def _typed_node_problems(pointer: str, node: dict[str, Any]) -> list[str]:
    out = []
    if not any(k in node for k in ("type", "anyOf", "enum", "const")):
        out.append(f"{pointer}: schema has no type (needs type, anyOf, $ref, enum or const)")
    types = types_of(node)
    bad = [t for t in types if t not in JSON_TYPES]
    if bad:
        out.append(f"{pointer}: unknown type {bad}")
    if "object" in types:
        out.extend(_object_problems(pointer, node))
    if "array" in types and not isinstance(node.get("items"), dict):
        out.append(f"{pointer}: array schema missing items")
    fmt = node.get("format")
    if fmt is not None and fmt not in FORMATS:
        out.append(f"{pointer}: format {fmt!r} is not supported (allowed: {sorted(FORMATS)})")
    if "anyOf" in node and not (isinstance(node["anyOf"], list) and node["anyOf"]):
        out.append(f"{pointer}: anyOf must be a non-empty list")
    return out


def _object_problems(pointer: str, node: dict[str, Any]) -> list[str]:
    out = []
    props = node.get("properties")
    if not isinstance(props, dict):
        out.append(f"{pointer}: object schema missing properties")
        props = {}
    if node.get("additionalProperties") is not False:
        out.append(
            f"{pointer}: additionalProperties must be false, got "
            f"{node.get('additionalProperties', '<absent>')!r}"
        )
    required = node.get("required", [])
    if not isinstance(required, list):
        return [*out, f"{pointer}: required must be a list"]
    if len(set(required)) != len(required):
        out.append(f"{pointer}: required has duplicates")
    missing = sorted(set(props) - set(required))
    extra = sorted(set(required) - set(props))
    if missing:
        out.append(f"{pointer}: required must list every property; missing {missing}")
    if extra:
        out.append(f"{pointer}: required names unknown properties {extra}")
    return out


def _limit_problems(schema: dict[str, Any]) -> list[str]:
    """Section 2c limits, counted on the expanded tree the provider receives.

    Compiled schemas share subtrees; totals are summed per distinct object and memoized, so a
    node reached along several paths counts once per path, as in the serialized JSON.
    """
    out = []
    for pointer, node in iter_schemas(schema, unique=True):
        if isinstance(node, dict) and isinstance(node.get("enum"), list):
            out.extend(_large_enum_problems(pointer, node["enum"]))
    n_props, n_enum, budget = subtree_totals(schema, _own_counts)
    if n_props > MAX_PROPERTIES:
        out.append(f"#: {n_props} properties in total, limit {MAX_PROPERTIES}")
    if n_enum > MAX_ENUM_VALUES:
        out.append(f"#: {n_enum} enum values in total, limit {MAX_ENUM_VALUES}")
    if budget > MAX_STRING_BUDGET:
        out.append(f"#: {budget} characters of names/enum/const, limit {MAX_STRING_BUDGET}")
    depth, where = nesting_depth(schema)
    if depth > MAX_DEPTH:
        out.append(f"{where}: object nesting depth {depth} exceeds {MAX_DEPTH}")
    return out


def _own_counts(node: dict[str, Any]) -> tuple[int, int, int]:
    """(properties, enum values, budget characters) of one node, children excluded."""
    props = node.get("properties")
    n_props = len(props) if isinstance(props, dict) else 0
    budget = sum(len(name) for key in ("properties", "$defs", "definitions")
                 if isinstance(node.get(key), dict) for name in node[key])  # fmt: skip
    enum = node.get("enum")
    n_enum = len(enum) if isinstance(enum, list) else 0
    budget += sum(len(str(v)) for v in enum) if isinstance(enum, list) else 0
    budget += len(str(node["const"])) if "const" in node else 0
    return n_props, n_enum, budget


def _large_enum_problems(pointer: str, enum: list[Any]) -> list[str]:
    strings = [v for v in enum if isinstance(v, str)]
    if len(strings) > LARGE_ENUM and sum(map(len, strings)) > MAX_LARGE_ENUM_CHARS:
        return [f"{pointer}: enum of {len(strings)} strings exceeds {MAX_LARGE_ENUM_CHARS} chars"]
    return []


def nesting_depth(schema: Any) -> tuple[int, str]:
    """Deepest object nesting level (see the module docstring) and where it starts.

    Memoized per distinct object: depth(node) = 1 if it is an object, plus the deepest of its
    subschemas; a `$ref` stands for its target; `$defs` are reached only through `$ref`s; a
    node whose depth is being computed counts 0 when met again (recursion). Iterative.
    """
    memo: dict[int, int] = {}
    state: dict[int, int] = {}  # 1 = in progress
    stack: list[tuple[Any, bool]] = [(schema, False)]
    while stack:
        node, done = stack.pop()
        if not isinstance(node, dict) or id(node) in memo:
            continue
        kids = _depth_children(schema, node)
        if not done:
            if state.get(id(node)) == 1:
                continue
            state[id(node)] = 1
            stack.append((node, True))
            stack.extend((k, False) for k in kids if id(k) not in memo and id(k) not in state)
            continue
        own = 1 if "object" in types_of(node) else 0
        memo[id(node)] = own + max((memo.get(id(k), 0) for k in kids), default=0)
        state.pop(id(node), None)
    return memo.get(id(schema), 0), "#"


def _depth_children(root: Any, node: dict[str, Any]) -> list[Any]:
    if isinstance(node.get("$ref"), str):
        found, target = resolve_ref(root, node["$ref"])
        return [target] if found and isinstance(target, dict) else []
    out = [node[k] for k in ("items", "additionalProperties") if isinstance(node.get(k), dict)]
    for key in ("anyOf", "oneOf", "allOf", "prefixItems"):
        if isinstance(node.get(key), list):
            out.extend(v for v in node[key] if isinstance(v, dict))
    if isinstance(node.get("properties"), dict):
        out.extend(v for v in node["properties"].values() if isinstance(v, dict))
    return out
