"""OpenAI Chat Completions and Responses function-tool envelope checker.

Sources: provider-rules.md sections 1, 2a, 5.

Also used for the OpenAI-compatible servers (vLLM, llama.cpp, DeepSeek, Qwen).

- Chat: `TypeAdapter(ChatCompletionFunctionToolParam)` plus a diff of the keys of the tool and
  of its `function` against the TypedDicts (unknown keys are silently stripped by pydantic);
- Responses: the same function rendered flat and checked with `TypeAdapter(FunctionToolParam)`
  (which requires the `parameters` and `strict` keys) and the same key diff;
- name `^[a-zA-Z0-9_-]{1,64}$` (not enforced by the SDK; the API's error message);
- `parameters`, when present, is `type: "object"` and a valid self-contained 2020-12 schema;
- `description` at most `description_max` characters (1024 for OpenAI, `string_above_max_length`
  in langchain-ai/open_deep_research#80; `None` for servers without that limit).
"""

from __future__ import annotations

import functools
import re
from typing import Any

from . import jsonschema_check

__all__ = ["DESCRIPTION_MAX", "NAME", "chat_tool", "check", "responses_tool"]

NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
DESCRIPTION_MAX = 1024


def chat_tool(x: Any) -> Any:
    """The Chat Completions tool dict for a Function or a Responses tool, else `x`."""
    if not isinstance(x, dict) and hasattr(x, "parameters"):
        function = {"name": x.name, "description": x.description, "parameters": x.parameters}
        if getattr(x, "strict", False):
            function["strict"] = True
        return {"type": "function", "function": function}
    if isinstance(x, dict) and "function" not in x and "name" in x:
        keys = ("name", "description", "parameters", "strict")
        return {"type": "function", "function": {k: x[k] for k in keys if k in x}}
    return x


def responses_tool(chat: dict[str, Any]) -> dict[str, Any]:
    """The Responses API form of a Chat tool: flat, with `parameters` and `strict` keys."""
    function = chat.get("function") or {}
    tool = {"type": "function", "name": function.get("name")}
    if "description" in function:
        tool["description"] = function["description"]
    tool["parameters"] = function.get("parameters")
    tool["strict"] = function.get("strict", False)
    return tool


def check(tool_or_function: Any, description_max: int | None = DESCRIPTION_MAX) -> list[str]:
    """Violations of the OpenAI function-tool rules by one tool (or a Function)."""
    from openai.types.chat import ChatCompletionFunctionToolParam
    from openai.types.responses import FunctionToolParam
    from openai.types.shared_params import FunctionDefinition

    tool = chat_tool(tool_or_function)
    if not isinstance(tool, dict):
        return [f"tool: must be an object, got {type(tool).__name__}"]
    out = _typed_dict_problems(ChatCompletionFunctionToolParam, tool, "chat tool")
    function = tool.get("function")
    if not isinstance(function, dict):
        return out
    out.extend(
        _typed_dict_problems(FunctionDefinition, function, "chat tool/function", validate=False)
    )
    out.extend(_typed_dict_problems(FunctionToolParam, responses_tool(tool), "responses tool"))
    name = function.get("name")
    if not isinstance(name, str) or not NAME.match(name):
        out.append(f"tool/function/name: {name!r} does not match {NAME.pattern}")
    description = function.get("description")
    if description_max is not None and len(str(description or "")) > description_max:
        out.append(f"tool/function/description: {len(str(description))} > {description_max} chars")
    params = function.get("parameters")
    if params is not None:
        if not isinstance(params, dict) or params.get("type") != "object":
            out.append("#: parameters must be a JSON Schema of 'type: \"object\"'")
        out.extend(jsonschema_check.check(params))
    return out


@functools.cache
def _adapter(cls: Any) -> Any:
    from pydantic import TypeAdapter

    return TypeAdapter(cls)


def _typed_dict_problems(
    cls: Any, value: dict[str, Any], what: str, validate: bool = True
) -> list[str]:
    from pydantic import ValidationError

    out = []
    if validate:
        try:
            _adapter(cls).validate_python(value)
        except ValidationError as exc:
            out.extend(
                f"{what}/{'/'.join(map(str, e['loc']))}: SDK: {e['msg']}" for e in exc.errors()
            )
    unknown = sorted(set(value) - set(cls.__annotations__))
    if unknown:
        out.append(f"{what}: keys unknown to the SDK type {unknown}")
    return out
