"""Provider SDKs imported on first use, not when pytest collects the tests.

The SDKs (anthropic, openai, google-genai, mistralai, ollama, botocore, openai-agents,
pydantic-ai, langchain-core, mcp) take up to seconds each to import, and most of a test
module does not need them; ``anthropic_types = lazy("anthropic.types")`` at the top of a
module names the module at once and imports it when a test first reads one of its
attributes. A module that is not installed raises its ImportError there, in the test.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any


class Lazy:
    """A module, imported on its first attribute read."""

    def __init__(self, name: str) -> None:
        self._name = name
        self._module: ModuleType | None = None

    def __getattr__(self, attribute: str) -> Any:
        if attribute.startswith("_"):
            # what pytest and copy probe for on every module global (`__wrapped__`,
            # `_pytestfixturefunction`...) must not import the SDK; its public names do
            raise AttributeError(attribute)
        if self._module is None:
            self._module = importlib.import_module(self._name)
        return getattr(self._module, attribute)

    def __repr__(self) -> str:
        return f"<lazy module {self._name!r}>"


def lazy(name: str) -> Any:
    """The module `name`, imported when first used (typed Any, as the module would be)."""
    return Lazy(name)
