"""Ollama tool checker (provider-rules.md sections 2b and 4.1-4.3, bug-case invariant 7).

- invariant 7: every `type` anywhere in `parameters` is a single string (a list is a 400:
  "cannot unmarshal array into Go struct field ... of type string", ollama/ollama#5990);
- no boolean subschemas (400 "cannot unmarshal bool into Go struct field");
- root `type` is the string `"object"` and root `properties` is present;
- no `$ref` directly on a property: the server drops it and the property becomes untyped;
- `ollama._types.Tool.model_validate` accepts the tool, and the client's round trip
  (`model_dump(exclude_none=True, by_alias=True)`) keeps the name, the description, the root
  `type`, the property names, `required` and each top-level property's `type`.

What the server drops silently is not a violation here (the compiler reports it as losses);
:func:`server_dropped` lists it for whoever wants to compare.
"""

from __future__ import annotations

from typing import Any

from ._schema import envelope_schema, iter_schemas, join

__all__ = ["ROOT_FIELDS", "PROPERTY_FIELDS", "check", "envelope", "server_dropped"]

ROOT_FIELDS = frozenset({"type", "$defs", "items", "required", "properties"})
PROPERTY_FIELDS = frozenset(
    {"anyOf", "type", "items", "description", "enum", "properties", "required"}
)


def envelope(x: Any) -> Any:
    """The OpenAI-shaped tool dict for a Function, else `x`."""
    if isinstance(x, dict) or not hasattr(x, "parameters"):
        return x
    return {
        "type": "function",
        "function": {"name": x.name, "description": x.description, "parameters": x.parameters},
    }


def check(tool_or_function: Any) -> list[str]:
    """Violations of the Ollama rules by one tool (or a Function rendered as one)."""
    tool = envelope(tool_or_function)
    schema = envelope_schema(tool)
    out = []
    if not isinstance(schema, dict):
        return [f"#: parameters must be an object, got {schema!r}"]
    if schema.get("type") != "object":
        out.append(f"#: root type must be the string 'object', got {schema.get('type')!r}")
    if not isinstance(schema.get("properties"), dict):
        out.append("#: root properties must be present")
    for pointer, node in iter_schemas(schema, unique=True):
        if isinstance(node, bool):
            out.append(f"{pointer}: boolean subschema {node!r} is rejected by the server")
            continue
        if isinstance(node, dict) and "type" in node and not isinstance(node["type"], str):
            out.append(f"{pointer}: type must be a single string, got {node['type']!r}")
        for name, prop in _properties(node):
            if isinstance(prop, dict) and "$ref" in prop:
                out.append(
                    f"{join(pointer, 'properties', name)}: $ref on a property is dropped by the "
                    "server (the property becomes untyped)"
                )
    out.extend(_round_trip_problems(tool))
    return out


def _properties(node: Any) -> list[tuple[str, Any]]:
    props = node.get("properties") if isinstance(node, dict) else None
    return list(props.items()) if isinstance(props, dict) else []


def _round_trip_problems(tool: Any) -> list[str]:
    from ollama._types import Tool
    from pydantic import ValidationError

    try:
        dumped = Tool.model_validate(tool).model_dump(exclude_none=True, by_alias=True)
    except ValidationError as exc:
        return [
            f"tool/{'/'.join(map(str, e['loc']))}: ollama client: {e['msg']}" for e in exc.errors()
        ]
    before = tool.get("function", {}) if isinstance(tool, dict) else {}
    after = dumped.get("function", {})
    out = [
        f"tool/function/{key}: lost in the client round trip"
        for key in ("name", "description")
        if before.get(key) and before.get(key) != after.get(key)
    ]
    params, kept = before.get("parameters") or {}, after.get("parameters") or {}
    if params.get("type") != kept.get("type"):
        out.append("#/type: changed by the client round trip")
    if set(params.get("properties") or {}) != set(kept.get("properties") or {}):
        out.append("#/properties: property names changed by the client round trip")
    if list(params.get("required") or []) != list(kept.get("required") or []):
        out.append("#/required: changed by the client round trip")
    for name, prop in (params.get("properties") or {}).items():
        now = (kept.get("properties") or {}).get(name) or {}
        if isinstance(prop, dict) and prop.get("type") != now.get("type"):
            out.append(f"{join('#/properties', name)}/type: changed by the client round trip")
    return out


def server_dropped(schema: Any) -> list[str]:
    """Pointers of keywords the Ollama server drops when it unmarshals `parameters`."""
    out = []
    if isinstance(schema, dict):
        out.extend(join("#", k) for k in schema if k not in ROOT_FIELDS)
    for pointer, node in iter_schemas(schema, unique=True):
        for name, prop in _properties(node):
            if isinstance(prop, dict):
                base = join(pointer, "properties", name)
                out.extend(join(base, k) for k in prop if k not in PROPERTY_FIELDS)
    return out
