"""pydantic-ai: an application's functions as a ``FunctionToolset``.

Needs ``pip install "httpllm[pydantic-ai]"``. Invalid arguments raise ``ModelRetry`` with
the validator's feedback (pydantic-ai asks the model to correct the call, within the
tool's retry budget); a non-2xx answer, a request that cannot be built or sent raise
``ToolFailed`` (the model sees the failure and adapts, no retry budget spent).

>>> agent = Agent(model, toolsets=[toolset(app, auth={"apiKey": KEY})])  # doctest: +SKIP
"""

from __future__ import annotations

from typing import Any

from httpllm._api import Application
from httpllm.adapters._caller import Caller
from httpllm.errors import requires_extra

with requires_extra("pydantic-ai", "the pydantic-ai adapter", {"pydantic_ai"}):
    from pydantic_ai import FunctionToolset, ModelRetry, Tool
    from pydantic_ai.exceptions import ToolFailed

__all__ = ["toolset"]


def toolset(app: Application, *, max_retries: int | None = None,
            **options: Any) -> FunctionToolset[Any]:
    """A toolset with one tool per function of ``app`` (compile with the provider of the
    model, or ``"3.1"`` and let pydantic-ai's profile adapt the schemas).

    Args:
        app: the compiled application.
        max_retries: the tools' retry budget for invalid calls (``None``: the agent's).
        **options: the host's options, kept from the model: ``auth``, ``base_url``,
            ``async_client``, ``host_arguments``, ``server_variables``,
            ``max_answer_chars``.
    """
    caller = Caller(app, **options)
    tools = [
        Tool.from_schema(_invoker(caller, function.name), name=function.name,
                         description=function.description or None,
                         json_schema=function.parameters)
        for function in app.functions
    ]
    return FunctionToolset(tools, max_retries=max_retries)


def _invoker(caller: Caller, name: str) -> Any:
    async def invoke(**arguments: Any) -> str:
        outcome = await caller.acall(name, arguments)
        if outcome.kind == "invalid":
            raise ModelRetry(outcome.text)
        if not outcome.ok:
            raise ToolFailed(outcome.text)
        return outcome.text

    return invoke
