"""Reading compiled parameters the way the bug-case oracles talk about them.

The oracles speak of "the property", "nullable", "mentions in the description" and
"validates against B"; these helpers give those words one meaning for every dialect:
`$ref`s are followed inside the parameters schema, nullability is any of `type: [T, "null"]`,
`anyOf [..., {type: null}]` or Gemini's `nullable: true`, and instance validation uses
`jsonschema` (2020-12) with refs resolved against the whole parameters schema.
"""

from __future__ import annotations

from typing import Any

from ._schema import deref, iter_schemas, types_of

__all__ = [
    "accepts",
    "is_null_schema",
    "keywords",
    "nullable_parts",
    "pointer_of",
    "pointers_with",
    "texts",
    "type_name",
    "validator_at",
]

URI = "urn:httpllm:parameters"


def is_null_schema(node: Any) -> bool:
    """`{type: null}` (or `["null"]`, `enum: [null]`, `const: null`)."""
    if not isinstance(node, dict):
        return False
    return types_of(node) == ["null"] or node.get("enum") == [None] or node.get("const", 0) is None


def nullable_parts(root: Any, node: Any) -> tuple[bool, Any]:
    """`(accepts null, the non-null core schema)` of a property schema.

    Forms: `type: [T, "null"]` (core: the node with `type: T` and `null` out of `enum`);
    `anyOf` with a null member (core: the only other member, dereferenced, or an `anyOf` of the
    others); Gemini `nullable: true` (core: the node). Anything else: `(False, node)`.
    """
    node = deref(root, node)
    if not isinstance(node, dict):
        return False, node
    raw = node.get("type")
    if isinstance(raw, list) and "null" in raw:
        rest = [t for t in raw if t != "null"]
        core = {**node, "type": rest[0] if len(rest) == 1 else rest}
        if isinstance(node.get("enum"), list):
            core["enum"] = [v for v in node["enum"] if v is not None]
        return True, core
    branches = node.get("anyOf") or node.get("oneOf")
    if isinstance(branches, list):
        members = [deref(root, b) for b in branches]
        others = [m for m in members if not is_null_schema(m)]
        if len(others) < len(members):
            return True, others[0] if len(others) == 1 else {"anyOf": others}
    if node.get("nullable") is True:
        return True, node
    return False, node


def type_name(node: Any) -> Any:
    """The lower-cased single `type` (Gemini's `STRING` == `string`), or the raw value."""
    if isinstance(node, dict) and isinstance(node.get("type"), str):
        return node["type"].lower()
    return node.get("type") if isinstance(node, dict) else None


def texts(root: Any, node: Any) -> str:
    """Every description (and title) on `node`, its `$ref` target and its union/allOf members."""
    out = []
    pending = [node, deref(root, node)]
    for item in list(pending):
        if isinstance(item, dict):
            for key in ("anyOf", "oneOf", "allOf"):
                if isinstance(item.get(key), list):
                    pending.extend(deref(root, b) for b in item[key])
    for item in pending:
        if isinstance(item, dict):
            out.extend(str(item[k]) for k in ("description", "title") if k in item)
    return "\n".join(out)


def keywords(root: Any) -> set[str]:
    """Every keyword used by any schema node of `root` (property names are not keywords)."""
    return {
        key for _, node in iter_schemas(root, unique=True) if isinstance(node, dict) for key in node
    }


def pointers_with(root: Any, keyword: str) -> list[str]:
    """Pointers of the schema nodes that carry `keyword`."""
    return [
        p
        for p, node in iter_schemas(root, unique=True)
        if isinstance(node, dict) and keyword in node
    ]


def pointer_of(root: Any, node: Any) -> str:
    """The pointer of `node` (by identity) inside `root`; `KeyError` when absent."""
    for pointer, item in iter_schemas(root, unique=True):
        if item is node:
            return pointer
    raise KeyError("node is not part of the schema")


def validator_at(root: Any, pointer: str) -> Any:
    """A 2020-12 validator for the subschema at `pointer`, `$ref`s resolving against `root`."""
    from jsonschema import Draft202012Validator
    from referencing import Registry
    from referencing.jsonschema import DRAFT202012

    registry = Registry().with_resource(URI, DRAFT202012.create_resource(root))
    return Draft202012Validator({"$ref": URI + pointer}, registry=registry)


def accepts(root: Any, node_or_pointer: Any, instance: Any) -> bool:
    """Whether `instance` is valid against a node of `root` (given by pointer or identity)."""
    pointer = (
        node_or_pointer if isinstance(node_or_pointer, str) else pointer_of(root, node_or_pointer)
    )
    return validator_at(root, pointer).is_valid(instance)
