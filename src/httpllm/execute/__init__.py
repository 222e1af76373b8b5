"""The way back: a model's tool call -> checked arguments -> HTTP request -> result.

``validate`` checks a call against the function's original schema and answers with errors a
model can act on; ``decode`` undoes strict-mode rewrites; ``build_request`` serializes the
arguments by OpenAPI's rules into an ``httpx.Request``; ``execute``/``aexecute`` do all three
and send it.
"""

from __future__ import annotations

from httpllm.execute.decode import decode
from httpllm.execute.feedback import ArgumentError, ArgumentNote, ValidationResult
from httpllm.execute.request import build_request
from httpllm.execute.send import AsyncExecuteOptions, ExecuteOptions, Result, aexecute, execute
from httpllm.execute.validate import validate

__all__ = [
    "ArgumentError",
    "ArgumentNote",
    "AsyncExecuteOptions",
    "ExecuteOptions",
    "Result",
    "ValidationResult",
    "aexecute",
    "build_request",
    "decode",
    "execute",
    "validate",
]
