"""Validators for compiled tools, one module per provider; each has `check(x) -> list[str]`.

`x` is an httpllm `Function` or one tool in the provider's envelope; the result lists the
violations, each `"<JSON pointer>: <what is wrong>"`, empty when the tool is accepted.
:data:`BY_DIALECT` says which checkers judge the tools of each httpllm dialect.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from . import (
    anthropic,
    bedrock,
    gemini,
    jsonschema_check,
    mcp,
    mistral,
    oas30,
    ollama,
    openai_envelope,
    openai_strict,
)

__all__ = [
    "BY_DIALECT",
    "anthropic",
    "bedrock",
    "gemini",
    "jsonschema_check",
    "mcp",
    "mistral",
    "oas30",
    "ollama",
    "openai_envelope",
    "openai_strict",
]

Checker = Callable[[Any], list[str]]

_compatible = functools.partial(openai_envelope.check, description_max=None)

BY_DIALECT: dict[str, tuple[Checker, ...]] = {
    "3.1": (jsonschema_check.check,),
    "3.0": (oas30.check,),
    "chatgpt": (openai_envelope.check,),
    "chatgpt-strict": (openai_envelope.check, openai_strict.check),
    "claude": (anthropic.check,),
    "gemini": (gemini.check,),
    "llama": (_compatible,),
    "deepseek": (_compatible,),
    "qwen": (_compatible,),
    "ollama": (ollama.check, jsonschema_check.check),
    "mistral": (mistral.check,),
    "bedrock": (bedrock.check,),
    "mcp": (mcp.check,),
}
"""Checkers per dialect key (`"chatgpt-strict"` = `compile(..., "chatgpt", strict=True)`)."""
