"""Mistral (La Plateforme, and vLLM in mistral tokenizer mode) tool checker.

mistral-common is the reference (provider-rules.md 2a, 5): its `Tool` model parses the envelope,
and its `MistralRequestValidator._validate_function` demands a valid JSON Schema Draft 7
`parameters` and a name matching `^[a-zA-Z0-9_-]{1,64}$`. That private method runs the
pure-Python Draft 7 meta-schema check, which takes minutes over the corpus, so the same two
checks are made here with jsonschema-rs's Draft 7 meta-schema and the same regex;
tests/checkers/test_checkers.py shows the verdicts agree with `_validate_function`.
"""

from __future__ import annotations

import re
from typing import Any

from . import jsonschema_check

__all__ = ["NAME", "check", "envelope"]

NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")  # mistral_common/protocol/instruct/validator.py


def envelope(x: Any) -> Any:
    """The OpenAI-shaped tool dict for a Function, else `x`."""
    if isinstance(x, dict) or not hasattr(x, "parameters"):
        return x
    function = {"name": x.name, "description": x.description, "parameters": x.parameters}
    return {"type": "function", "function": function}


def check(tool_or_function: Any) -> list[str]:
    """Violations of mistral-common's tool validation by one tool (or a Function)."""
    from mistral_common.protocol.instruct.tool_calls import Tool
    from pydantic import ValidationError

    tool = envelope(tool_or_function)
    try:
        parsed = Tool.model_validate(tool)
    except ValidationError as exc:
        return [
            f"tool/{'/'.join(map(str, e['loc']))}: mistral-common: {e['msg']}" for e in exc.errors()
        ]
    out = jsonschema_check.meta_problems(parsed.function.parameters, jsonschema_check.DRAFT_7)
    if not NAME.match(parsed.function.name):
        out.append(f"tool/function/name: {parsed.function.name!r} does not match {NAME.pattern}")
    return out
