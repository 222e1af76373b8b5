"""OpenAPI 3.0 Schema Object checker for the `"3.0"` dialect's parameters.

The OpenAPI 3.0.3 Schema Object is a JSON Schema Draft Wright-00 subset with its own fields
(https://spec.openapis.org/oas/v3.0.3#schema-object). Checked here:

- `type` is one string from :data:`TYPES` (no lists, no `"null"`: nullability is `nullable`);
- only the 3.0 Schema Object fields (:data:`FIELDS`) or `x-*` extensions;
- `nullable`, `readOnly`, `writeOnly`, `deprecated`, `uniqueItems` are booleans; so are
  `exclusiveMinimum` / `exclusiveMaximum` (3.0 semantics);
- `type: array` has `items`; `items` is one schema (no tuple form);
- `$ref` stands alone (3.0 ignores siblings) and resolves inside the parameters schema;
- `required` is a non-empty list of strings when present (3.0 says minItems 1) naming
  properties that exist.
"""

from __future__ import annotations

from typing import Any

from ._schema import envelope_schema, iter_schemas, ref_problems

__all__ = ["FIELDS", "TYPES", "check"]

TYPES = frozenset({"string", "number", "integer", "boolean", "array", "object"})
FIELDS = frozenset(
    {
        "title", "multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum",
        "maxLength", "minLength", "pattern", "maxItems", "minItems", "uniqueItems",
        "maxProperties", "minProperties", "required", "enum", "type", "allOf", "oneOf",
        "anyOf", "not", "items", "properties", "additionalProperties", "description",
        "format", "default", "nullable", "discriminator", "readOnly", "writeOnly", "xml",
        "externalDocs", "example", "deprecated", "$ref",
    }
)  # fmt: skip
BOOLEANS = (
    "nullable", "readOnly", "writeOnly", "deprecated", "uniqueItems",
    "exclusiveMinimum", "exclusiveMaximum",
)  # fmt: skip


def check(tool_or_function: Any) -> list[str]:
    """Violations of the OpenAPI 3.0 Schema Object rules by the parameters schema."""
    schema = envelope_schema(tool_or_function)
    if schema is None:
        return []
    if not isinstance(schema, dict):
        return [f"#: parameters must be a Schema Object, got {schema!r}"]
    out = ref_problems(schema)
    for pointer, node in iter_schemas(schema, unique=True):
        out.extend(_node_problems(pointer, node))
    return out


def _node_problems(pointer: str, node: Any) -> list[str]:
    if isinstance(node, bool):
        if pointer.endswith("/additionalProperties"):
            return []
        return [f"{pointer}: boolean schemas are not OpenAPI 3.0 Schema Objects"]
    if not isinstance(node, dict):
        return [f"{pointer}: schema must be an object"]
    if "$ref" in node:
        others = sorted(k for k in node if k != "$ref")
        return [f"{pointer}: $ref siblings are ignored in 3.0: {others}"] if others else []
    out = [
        f"{pointer}: {key!r} is not an OpenAPI 3.0 Schema Object field"
        for key in node
        if key not in FIELDS and not key.startswith("x-")
    ]
    typ = node.get("type")
    if typ is not None and (not isinstance(typ, str) or typ not in TYPES):
        out.append(f"{pointer}: type must be one of {sorted(TYPES)}, got {typ!r}")
    out.extend(
        f"{pointer}/{key}: must be a boolean"
        for key in BOOLEANS
        if key in node and not isinstance(node[key], bool)
    )
    if typ == "array" and "items" not in node:
        out.append(f"{pointer}: type array requires items")
    if "items" in node and not isinstance(node["items"], dict):
        out.append(f"{pointer}/items: must be one Schema Object")
    required = node.get("required")
    if required is not None:
        props = node.get("properties") or {}
        if not isinstance(required, list) or not required:
            out.append(f"{pointer}/required: must be a non-empty list")
        else:
            unknown = [r for r in required if r not in props]
            if unknown:
                out.append(f"{pointer}/required: names undefined properties {unknown}")
    return out
