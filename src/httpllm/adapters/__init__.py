"""Adapters: an application's functions as the tools of an agent framework.

Each module is a thin layer over :mod:`httpllm.agent` (the same repair, validation and
sending as ``Application.handle``), imported only when used, each needing its extra:

- :mod:`httpllm.adapters.openai_agents` (``httpllm[openai-agents]``): ``function_tools``,
  a list of the OpenAI Agents SDK's ``FunctionTool``;
- :mod:`httpllm.adapters.pydantic_ai` (``httpllm[pydantic-ai]``): ``toolset``, a
  pydantic-ai ``FunctionToolset``;
- :mod:`httpllm.adapters.langchain` (``httpllm[langchain]``): ``tools``, a list of
  LangChain ``StructuredTool``.

Credentials (``auth=``) and host arguments stay in the tools' closures: the model sees
only each function's parameters.
"""

from __future__ import annotations

import importlib
from typing import Any

_SUBMODULES = ("langchain", "openai_agents", "pydantic_ai")

__all__ = ["langchain", "openai_agents", "pydantic_ai"]


def __getattr__(name: str) -> Any:
    """An adapter module, imported on first use (each needs its extra) (PEP 562)."""
    if name in _SUBMODULES:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
