"""What the toolsets read of a compiled application (``httpllm.Application`` has it)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from httpllm.dialects import Dialect, Options
from httpllm.records import Function, OperationError

__all__ = ["Compiled"]


class Compiled(Protocol):
    """The attributes of ``httpllm.Application`` the toolsets use (the toolsets sit below
    ``_api`` and never import it)."""

    @property
    def provider(self) -> str: ...

    @property
    def dialect(self) -> Dialect: ...

    @property
    def options(self) -> Options: ...

    @property
    def functions(self) -> Sequence[Function]: ...

    @property
    def errors(self) -> Sequence[OperationError]: ...

    def tools(self) -> list[Any]: ...
