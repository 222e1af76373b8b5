"""Schema plumbing shared by the checkers: an iterative walker, `$ref` lookup, tool unwrapping.

Independent of httpllm on purpose: the checkers judge the compiler's output, so they must not
reuse its code. Pointers are spelled like a `$ref` (`"#/properties/body/items"`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import unquote

__all__ = [
    "IN_ARRAY",
    "IN_MAPPING",
    "IN_VALUE",
    "JSON_TYPES",
    "child",
    "deref",
    "envelope_schema",
    "dedupe",
    "iter_refs",
    "iter_schemas",
    "join",
    "ref_problems",
    "resolve_ref",
    "subschemas",
    "subtree_totals",
    "types_of",
]

# Keywords whose value is one subschema, a list of subschemas, or a name -> subschema mapping.
# The walker descends by this table, never by `type` (a node without `type` still has children).
IN_VALUE = (
    "items",
    "additionalProperties",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
    "unevaluatedItems",
    "unevaluatedProperties",
    "additionalItems",
    "contentSchema",
)
IN_ARRAY = ("allOf", "anyOf", "oneOf", "prefixItems", "items")
IN_MAPPING = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "defs")

JSON_TYPES = frozenset({"string", "number", "integer", "boolean", "object", "array", "null"})


_SUBSCHEMA_KEYS = frozenset({*IN_VALUE, *IN_ARRAY, *IN_MAPPING})


def escape(token: str | int) -> str:
    """RFC 6901 escaping of one reference token."""
    text = str(token)
    if "~" not in text and "/" not in text:
        return text
    return text.replace("~", "~0").replace("/", "~1")


def join(pointer: str, *tokens: str | int) -> str:
    """`join("#/properties", "a/b")` -> `"#/properties/a~1b"`."""
    return pointer + "".join("/" + escape(t) for t in tokens)


def iter_schemas(root: Any, base: str = "#", unique: bool = False) -> Iterator[tuple[str, Any]]:
    """Every subschema of `root` (itself included) with its pointer, pre-order, iteratively.

    Values of `enum`, `const`, `default`, `examples` are data, not schemas, and are not entered.
    Boolean subschemas are yielded too. Depth is unbounded: an explicit stack, no recursion.
    `unique=True` yields each dict object once (at its first pointer): compiled schemas share
    subtrees, and their expanded form can be orders of magnitude larger than the objects.
    """
    seen: set[int] = set()
    stack: list[tuple[str, Any]] = [(base, root)]
    while stack:
        pointer, node = stack.pop()
        if not isinstance(node, dict):
            yield pointer, node
            continue
        if unique:
            if id(node) in seen:
                continue
            seen.add(id(node))
        yield pointer, node
        if _SUBSCHEMA_KEYS.isdisjoint(node):  # a leaf: most nodes
            continue
        stack.extend(reversed(_children(pointer, node)))


_RANK = {
    **{(k, "value"): i for i, k in enumerate(IN_VALUE)},
    **{(k, "array"): len(IN_VALUE) + i for i, k in enumerate(IN_ARRAY)},
    **{(k, "mapping"): len(IN_VALUE) + len(IN_ARRAY) + i for i, k in enumerate(IN_MAPPING)},
}
"""The keyword table's order: a key's place depends on its value (`items` holds one
subschema or a list of them)."""


def _kind(key: str, value: Any) -> str | None:
    """How `value` holds subschemas under `key` by the keyword table, or None."""
    if isinstance(value, list):
        return "array" if key in IN_ARRAY else None
    if isinstance(value, bool):
        return "value" if key in IN_VALUE else None
    if isinstance(value, dict):
        return "value" if key in IN_VALUE else "mapping" if key in IN_MAPPING else None
    return None


def _slots(node: dict[str, Any]) -> list[tuple[str, str]]:
    """`(keyword, kind)` of the node's keywords that hold subschemas, in table order."""
    slots = []
    for key in _SUBSCHEMA_KEYS.intersection(node):
        kind = _kind(key, node[key])
        if kind is not None:
            slots.append((key, kind))
    if len(slots) > 1:
        slots.sort(key=_RANK.__getitem__)
    return slots


def _children(pointer: str, node: dict[str, Any]) -> list[tuple[str, Any]]:
    """`(pointer, subschema)` of the node's children, in keyword-table order."""
    kids: list[tuple[str, Any]] = []
    for key, kind in _slots(node):
        value = node[key]
        if kind == "value":
            kids.append((f"{pointer}/{key}", value))
        elif kind == "array":
            kids.extend((f"{pointer}/{key}/{i}", v) for i, v in enumerate(value))
        else:
            at = f"{pointer}/{escape(key)}/"
            kids.extend((at + escape(name), v) for name, v in value.items())
    return kids


def child(node: Any, *path: str | int) -> Any:
    """`child(P, "properties", "body")` or `None` when any step is missing."""
    for step in path:
        if isinstance(node, dict) and isinstance(step, str):
            node = node.get(step)
        elif isinstance(node, list) and isinstance(step, int) and -len(node) <= step < len(node):
            node = node[step]
        else:
            return None
    return node


def resolve_ref(root: Any, ref: str) -> tuple[bool, Any]:
    """Resolve a local `$ref` (`#`, `#/json/pointer`, `#anchor`) inside `root`.

    Returns `(found, target)`. Anything that is not a fragment of `root` is not found.
    """
    if not isinstance(ref, str) or not ref.startswith("#"):
        return False, None
    fragment = unquote(ref[1:])
    if fragment == "":
        return True, root
    if not fragment.startswith("/"):
        for _, node in iter_schemas(root, unique=True):
            if isinstance(node, dict) and node.get("$anchor") == fragment:
                return True, node
        return False, None
    node = root
    for raw in fragment[1:].split("/"):
        token = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            return False, None
    return True, node


def deref(root: Any, node: Any, limit: int = 64) -> Any:
    """Follow `$ref` chains from `node` inside `root` (at most `limit` hops); `None` if dangling."""
    for _ in range(limit):
        if not (isinstance(node, dict) and "$ref" in node):
            return node
        found, node = resolve_ref(root, node["$ref"])
        if not found:
            return None
    return node


def iter_refs(root: Any) -> Iterator[tuple[str, str]]:
    """`(pointer, ref)` for every `$ref` in a schema position of `root` (shared nodes once)."""
    for pointer, node in iter_schemas(root, unique=True):
        if isinstance(node, dict) and "$ref" in node:
            yield pointer, node["$ref"]


def ref_problems(root: Any) -> list[str]:
    """Violations: a `$ref` that does not resolve inside `root`, or still points at components."""
    out = []
    for pointer, ref in iter_refs(root):
        if not isinstance(ref, str):
            out.append(f"{pointer}: $ref is not a string ({ref!r})")
            continue
        if "#/components/" in ref:
            out.append(f"{pointer}: $ref {ref!r} still points into the OpenAPI document")
        found, _ = resolve_ref(root, ref)
        if not found:
            out.append(f"{pointer}: $ref {ref!r} does not resolve inside the schema")
    return out


def subschemas(node: dict[str, Any]) -> list[Any]:
    """The direct subschemas of a schema node (by the keyword table)."""
    out: list[Any] = []
    for key, kind in _slots(node):
        value = node[key]
        if kind == "value":
            out.append(value)
        else:
            out.extend(value if kind == "array" else value.values())
    return out


def subtree_totals(root: Any, own: Any) -> tuple[int, ...]:
    """Sum of `own(node)` over every node of the expanded tree under `root`, memoized per object.

    `own(dict) -> tuple[int, ...]`; children are the `subschemas` (so `$defs` count, `$ref`s
    are not followed). Iterative post-order.
    """
    memo: dict[int, tuple[int, ...]] = {}
    stack: list[tuple[Any, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        if not isinstance(node, dict) or id(node) in memo:
            continue
        kids = [k for k in subschemas(node) if isinstance(k, dict)]
        if not done:
            stack.append((node, True))
            stack.extend((k, False) for k in kids if id(k) not in memo)
            continue
        total = list(own(node))
        for kid in kids:
            below = memo.get(id(kid))
            if below:
                total = [a + b for a, b in zip(total, below, strict=True)]
        memo[id(node)] = tuple(total)
    return memo.get(id(root), ())


def dedupe(root: Any) -> Any:
    """A copy of `root` where each dict object appears once; later occurrences become `{}`.

    Lets a whole-document validator (the meta-schema check) see every distinct node once
    instead of the expanded tree. Iterative.
    """
    if not isinstance(root, (dict, list)):
        return root
    seen: set[int] = {id(root)}
    top: Any = {} if isinstance(root, dict) else []
    stack: list[tuple[Any, Any]] = [(root, top)]
    while stack:
        src, dst = stack.pop()
        for key, value in src.items() if isinstance(src, dict) else enumerate(src):
            new: Any = value
            if isinstance(value, dict):
                new = {}
                if id(value) not in seen:
                    seen.add(id(value))
                    if _flat(value):  # nothing below to dedupe: the node itself will do
                        new = value
                    else:
                        stack.append((value, new))
            elif isinstance(value, list):
                new = []
                stack.append((value, new))
            if isinstance(dst, dict):
                dst[key] = new
            else:
                dst.append(new)
    return top


def _flat(node: dict[str, Any]) -> bool:
    """No dict below `node` (its values are scalars or lists of scalars)."""
    for value in node.values():
        if isinstance(value, dict):
            return False
        if isinstance(value, list) and any(isinstance(v, (dict, list)) for v in value):
            return False
    return True


def types_of(node: Any) -> list[str]:
    """The node's `type` as a list of lower-case names (`[]` when absent)."""
    if not isinstance(node, dict) or "type" not in node:
        return []
    value = node["type"]
    values = value if isinstance(value, list) else [value]
    return [v.lower() if isinstance(v, str) else v for v in values]


def _is_function(x: Any) -> bool:
    return not isinstance(x, dict) and hasattr(x, "parameters") and hasattr(x, "name")


def envelope_schema(x: Any) -> Any:
    """The parameters schema carried by a Function or by any provider's tool envelope.

    Function -> `.parameters`; OpenAI Chat `function.parameters`; OpenAI Responses / Gemini
    declaration `parameters`; Anthropic `input_schema`; MCP `inputSchema`; Bedrock
    `toolSpec.inputSchema.json`; otherwise `x` is taken to be the schema itself.
    """
    if _is_function(x):
        return x.parameters
    if not isinstance(x, dict):
        return x
    if isinstance(x.get("function"), dict):
        return x["function"].get("parameters")
    if "input_schema" in x:
        return x["input_schema"]
    if "inputSchema" in x:
        return x["inputSchema"]
    if isinstance(x.get("toolSpec"), dict):
        return child(x, "toolSpec", "inputSchema", "json")
    if "name" in x and "parameters" in x:
        return x["parameters"]
    return x
