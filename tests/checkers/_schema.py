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
    "iter_refs",
    "iter_schemas",
    "join",
    "ref_problems",
    "resolve_ref",
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


def escape(token: str | int) -> str:
    """RFC 6901 escaping of one reference token."""
    return str(token).replace("~", "~0").replace("/", "~1")


def join(pointer: str, *tokens: str | int) -> str:
    """`join("#/properties", "a/b")` -> `"#/properties/a~1b"`."""
    return pointer + "".join("/" + escape(t) for t in tokens)


def iter_schemas(root: Any, base: str = "#") -> Iterator[tuple[str, Any]]:
    """Every subschema of `root` (itself included) with its pointer, pre-order, iteratively.

    Values of `enum`, `const`, `default`, `examples` are data, not schemas, and are not entered.
    Boolean subschemas are yielded too. Depth is unbounded: an explicit stack, no recursion.
    """
    stack: list[tuple[str, Any]] = [(base, root)]
    while stack:
        pointer, node = stack.pop()
        yield pointer, node
        if not isinstance(node, dict):
            continue
        kids: list[tuple[str, Any]] = []
        for key in IN_VALUE:
            value = node.get(key)
            if isinstance(value, (dict, bool)) and key in node:
                kids.append((join(pointer, key), value))
        for key in IN_ARRAY:
            value = node.get(key)
            if isinstance(value, list):
                kids.extend((join(pointer, key, i), v) for i, v in enumerate(value))
        for key in IN_MAPPING:
            value = node.get(key)
            if isinstance(value, dict):
                kids.extend((join(pointer, key, name), v) for name, v in value.items())
        stack.extend(reversed(kids))


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
        for _, node in iter_schemas(root):
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
    """`(pointer, ref)` for every `$ref` keyword in a schema position of `root`."""
    for pointer, node in iter_schemas(root):
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
