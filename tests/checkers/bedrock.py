"""AWS Bedrock Converse `toolConfig.tools[]` checker (provider-rules.md sections 1, 2a, 5).

- botocore's `ParamValidator` on the `Converse` input shape of the bundled `bedrock-runtime`
  service model, with the tool placed in a minimal request (min lengths, required members,
  types: an empty `description` is rejected here);
- what `ParamValidator` does not check: `ToolName` pattern and max length, read from the
  service model's own shape metadata (`[a-zA-Z0-9_-]+`, 1-64);
- `inputSchema.json` has `type: "object"` at the top and is a valid, self-contained JSON
  Schema 2020-12 document;
- its top-level property keys match Claude's `^[a-zA-Z0-9_.-]{1,64}$` (Converse refuses
  others, aws-solutions-library-samples/accelerated-intelligent-document-processing-on-aws#709).
"""

from __future__ import annotations

import functools
import re
from typing import Any

from . import jsonschema_check
from .anthropic import key_problems

__all__ = ["check", "envelope", "tool_specs"]


@functools.lru_cache(maxsize=1)
def _service() -> Any:
    import botocore.session

    return botocore.session.get_session().get_service_model("bedrock-runtime")


def envelope(x: Any) -> Any:
    """The `{"toolSpec": ...}` dict for a Function, else `x`."""
    if isinstance(x, dict) or not hasattr(x, "parameters"):
        return x
    spec: dict[str, Any] = {"name": x.name, "inputSchema": {"json": x.parameters}}
    if x.description is not None:
        spec["description"] = x.description
    return {"toolSpec": spec}


def tool_specs(x: Any) -> list[Any]:
    """The `Tool` entries in a Function, a `toolConfig`, a `Tool` or a bare `toolSpec`."""
    x = envelope(x)
    if isinstance(x, dict) and isinstance(x.get("tools"), list):
        return list(x["tools"])
    if isinstance(x, dict) and "toolSpec" not in x and "inputSchema" in x:
        return [{"toolSpec": x}]
    return [x]


def check(tool_or_function: Any) -> list[str]:
    """Violations of the Converse tool rules by one tool (or a Function rendered as one)."""
    from botocore.validate import ParamValidator

    tools = tool_specs(tool_or_function)
    params = {
        "modelId": "model",
        "messages": [{"role": "user", "content": [{"text": "hi"}]}],
        "toolConfig": {"tools": tools},
    }
    service = _service()
    report = ParamValidator().validate(params, service.operation_model("Converse").input_shape)
    out = [f"botocore: {line}" for line in report.generate_report().splitlines() if line.strip()]
    meta = service.shape_for("ToolName").metadata
    pattern = re.compile(meta.get("pattern", ".*"))
    for i, tool in enumerate(tools):
        spec = tool.get("toolSpec") if isinstance(tool, dict) else None
        if not isinstance(spec, dict):
            continue
        name = spec.get("name")
        if not isinstance(name, str) or not pattern.fullmatch(name):
            out.append(f"tools/{i}/toolSpec/name: {name!r} does not match {pattern.pattern}")
        elif not meta.get("min", 1) <= len(name) <= meta.get("max", 64):
            out.append(f"tools/{i}/toolSpec/name: length {len(name)} outside 1..{meta.get('max')}")
        schema = (
            spec.get("inputSchema", {}).get("json")
            if isinstance(spec.get("inputSchema"), dict)
            else None
        )
        if not isinstance(schema, dict) or schema.get("type") != "object":
            out.append(f"tools/{i}/toolSpec/inputSchema/json: top-level type must be 'object'")
        if isinstance(schema, dict):
            out.extend(f"tools/{i} {p}" for p in jsonschema_check.check(schema))
            out.extend(f"tools/{i} {p}" for p in key_problems(schema))
    return out
