"""MCP `tools/list` tool checker (provider-rules.md sections 1, 2a, 5).

- the schema-exact `Tool` models of every protocol revision the installed `mcp-types` package
  has among :data:`REVISIONS` (2025-11-25 and 2026-07-28 in mcp-types 2.3.0): `inputSchema.type`
  must be `"object"`; 2025-11-25 also wants an object `outputSchema`; the models ignore unknown
  keys, so keys outside the revision's fields are diffed and reported too;
- tool name per SEP-986 through the SDK's `validate_tool_name(name).is_valid`
  (1-128 of `[A-Za-z0-9._-]`);
- `inputSchema` is a valid, self-contained JSON Schema 2020-12 document (the default dialect).
"""

from __future__ import annotations

import importlib
from typing import Any

from . import jsonschema_check

__all__ = ["REVISIONS", "check", "envelope", "tool_models"]

REVISIONS = ("2025_11_25", "2026_07_28")


def tool_models() -> dict[str, Any]:
    """`{revision: Tool model}` for the revisions the installed `mcp-types` provides."""
    out = {}
    for rev in REVISIONS:
        try:
            module = importlib.import_module(f"mcp_types._v{rev}")
        except ImportError:
            continue
        out[rev.replace("_", "-")] = module.Tool
    return out


def envelope(x: Any) -> Any:
    """The tool dict for a Function (`name`, `description`, `inputSchema`), else `x`."""
    if isinstance(x, dict) or not hasattr(x, "parameters"):
        return x
    tool = {"name": x.name, "inputSchema": x.parameters}
    if x.description:
        tool["description"] = x.description
    return tool


def check(tool_or_function: Any) -> list[str]:
    """Violations of the MCP tool rules by one tool (or a Function rendered as one)."""
    from mcp.shared.tool_name_validation import validate_tool_name
    from pydantic import ValidationError

    tool = envelope(tool_or_function)
    if not isinstance(tool, dict):
        return [f"#: a tool must be an object, got {type(tool).__name__}"]
    models = tool_models()
    out = [] if models else ["mcp-types provides none of the protocol revisions " + str(REVISIONS)]
    for rev, model in models.items():
        try:
            model.model_validate(tool)
        except ValidationError as exc:
            out.extend(
                f"tool/{'/'.join(map(str, e['loc']))}: MCP {rev}: {e['msg']}" for e in exc.errors()
            )
        fields = {f.alias or name for name, f in model.model_fields.items()}
        unknown = sorted(set(tool) - fields)
        if unknown:
            out.append(f"tool: keys not in the MCP {rev} Tool {unknown}")
    name = tool.get("name")
    if not isinstance(name, str) or not validate_tool_name(name).is_valid:
        out.append(f"tool/name: {name!r} is not a valid MCP tool name (SEP-986)")
    schema = tool.get("inputSchema")
    if isinstance(schema, dict):
        out.extend(jsonschema_check.check(schema))
    return out
