"""Anthropic Messages `tools[]` checker (provider-rules.md sections 1, 2a, 2b, 5).

- `TypeAdapter(anthropic.types.ToolParam)` on the envelope, plus a diff of its keys against the
  TypedDict (TypedDicts silently accept unknown keys);
- `TypeAdapter(anthropic.types.tool_param.InputSchemaTyped)` on `input_schema`: root
  `type: "object"` (the looser `ToolParam` union also takes any dict);
- no `oneOf` / `anyOf` / `allOf` at the root of `input_schema` (400 "input_schema does not
  support oneOf, allOf, or anyOf at the top level", anthropics/claude-code#5973);
- name `^[a-zA-Z0-9_-]{1,128}$` (current define-tools page);
- the keys of `input_schema.properties` match `^[a-zA-Z0-9_.-]{1,64}$` (400 "Property keys
  should match pattern", anthropics/claude-code#79418; nested keys are reported unchecked);
- `input_schema` is a valid, self-contained JSON Schema 2020-12 document.
"""

from __future__ import annotations

import functools
import re
from typing import Any

from . import jsonschema_check

__all__ = ["KEY", "NAME", "check", "envelope", "key_problems"]

NAME = re.compile(r"^[a-zA-Z0-9_-]{1,128}$")
KEY = re.compile(r"^[a-zA-Z0-9_.-]{1,64}$")
ROOT_UNIONS = ("oneOf", "anyOf", "allOf")


def envelope(x: Any) -> Any:
    """The tool dict for a Function (`name`, `description`, `input_schema`), else `x`."""
    if isinstance(x, dict) or not hasattr(x, "parameters"):
        return x
    tool = {"name": x.name, "input_schema": x.parameters}
    if x.description:
        tool["description"] = x.description
    return tool


@functools.cache
def _adapters() -> tuple[Any, Any]:
    from anthropic.types import ToolParam
    from anthropic.types.tool_param import InputSchemaTyped
    from pydantic import TypeAdapter

    return TypeAdapter(ToolParam), TypeAdapter(InputSchemaTyped)


def check(tool_or_function: Any) -> list[str]:
    """Violations of the Anthropic tool rules by one tool (or a Function rendered as one)."""
    from anthropic.types import ToolParam
    from pydantic import ValidationError

    tool_adapter, schema_adapter = _adapters()

    tool = envelope(tool_or_function)
    if not isinstance(tool, dict):
        return [f"#: a tool must be an object, got {type(tool).__name__}"]
    out = []
    try:
        tool_adapter.validate_python(tool)
    except ValidationError as exc:
        out.extend(f"tool/{_loc(e['loc'])}: SDK: {e['msg']}" for e in exc.errors())
    unknown = sorted(set(tool) - set(ToolParam.__annotations__))
    if unknown:
        out.append(f"tool: keys not in the Anthropic tool shape {unknown}")
    name = tool.get("name")
    if not isinstance(name, str) or not NAME.match(name):
        out.append(f"tool/name: {name!r} does not match {NAME.pattern}")
    schema = tool.get("input_schema")
    try:
        schema_adapter.validate_python(schema)
    except ValidationError as exc:
        out.extend(f"#/{_loc(e['loc'])}: SDK: {e['msg']}" for e in exc.errors())
    if isinstance(schema, dict):
        if schema.get("type") != "object":
            out.append(f"#: input_schema type must be 'object', got {schema.get('type')!r}")
        out.extend(f"#: {k} at the top level is not supported" for k in ROOT_UNIONS if k in schema)
        out.extend(key_problems(schema))
        out.extend(jsonschema_check.check(schema))
    return out


def key_problems(schema: dict[str, Any]) -> list[str]:
    """Top-level property keys of a tool's schema outside :data:`KEY`."""
    props = schema.get("properties")
    return [f"#/properties: property key {k!r} does not match {KEY.pattern}"
            for k in (props if isinstance(props, dict) else ()) if not KEY.fullmatch(k)]


def _loc(loc: Any) -> str:
    return "/".join(str(p) for p in loc)
