"""The OpenAI Agents SDK: an application's functions as ``FunctionTool`` objects.

Needs ``pip install "httpllm[openai-agents]"``. Each tool's ``on_invoke_tool`` receives
the model's JSON text and answers with :class:`~httpllm.agent.Outcome` text; invalid
arguments, non-2xx answers and transport errors come back as that text, which the SDK
sends to the model ("return a string error message", ``FunctionTool.on_invoke_tool``).

>>> tools = function_tools(app, auth={"apiKey": KEY})  # doctest: +SKIP
>>> agent = Agent(name="pets", tools=tools)  # doctest: +SKIP
"""

from __future__ import annotations

import copy
from typing import Any

from httpllm._api import Application
from httpllm.adapters._caller import Caller
from httpllm.errors import requires_extra

with requires_extra("openai-agents", "the OpenAI Agents SDK adapter", {"agents"}):
    from agents import FunctionTool
    from agents.tool_context import ToolContext

__all__ = ["function_tools"]


def function_tools(app: Application, **options: Any) -> list[FunctionTool]:
    """One ``FunctionTool`` per function of ``app`` (compile with ``provider="chatgpt"``;
    ``strict=True`` makes the tools strict).

    Args:
        app: the compiled application.
        **options: the host's options, kept from the model: ``auth``, ``base_url``,
            ``async_client`` (an ``httpx.AsyncClient``), ``host_arguments``,
            ``server_variables``, ``max_answer_chars`` (see
            :class:`~httpllm.adapters._caller.Caller`).
    """
    caller = Caller(app, **options)
    return [
        FunctionTool(
            name=function.name,
            description=function.description,
            # The SDK may rewrite a strict schema in place; compiled schemas share subtrees.
            params_json_schema=copy.deepcopy(function.parameters),
            on_invoke_tool=_invoker(caller, function.name),
            strict_json_schema=function.strict,
        )
        for function in app.functions
    ]


def _invoker(caller: Caller, name: str) -> Any:
    async def invoke(context: ToolContext[Any], arguments: str) -> str:
        outcome = await caller.acall(name, arguments, context.tool_call_id)
        return outcome.text

    return invoke
