"""LangChain: an application's functions as ``StructuredTool`` objects.

Needs ``pip install "httpllm[langchain]"``. Every error outcome (invalid arguments with
the validator's feedback, a non-2xx answer, a request that cannot be built or sent)
raises ``ToolException``, which the tools handle (``handle_tool_error=True``): the model
gets a ``ToolMessage`` with the text and ``status="error"``.

>>> tools = langchain.tools(app, auth={"apiKey": KEY})  # doctest: +SKIP
>>> model = chat_model.bind_tools(tools)  # doctest: +SKIP
"""

from __future__ import annotations

from typing import Any

from httpllm._api import Application
from httpllm.adapters._caller import Caller
from httpllm.agent import Outcome
from httpllm.errors import requires_extra

with requires_extra("langchain", "the LangChain adapter", {"langchain_core"}):
    from langchain_core.tools import StructuredTool, ToolException

__all__ = ["tools"]


def tools(app: Application, **options: Any) -> list[StructuredTool]:
    """One ``StructuredTool`` per function of ``app``, with a sync and an async body.

    Args:
        app: the compiled application.
        **options: the host's options, kept from the model: ``auth``, ``base_url``,
            ``client``, ``async_client``, ``host_arguments``, ``server_variables``,
            ``max_answer_chars``.
    """
    caller = Caller(app, **options)
    return [
        StructuredTool(
            name=function.name,
            description=function.description or function.name,
            args_schema=function.parameters,
            func=_sync(caller, function.name),
            coroutine=_async(caller, function.name),
            handle_tool_error=True,
        )
        for function in app.functions
    ]


def _text(outcome: Outcome) -> str:
    if not outcome.ok:
        raise ToolException(outcome.text)
    return outcome.text


def _sync(caller: Caller, name: str) -> Any:
    def invoke(**arguments: Any) -> str:
        return _text(caller.call(name, arguments))

    return invoke


def _async(caller: Caller, name: str) -> Any:
    async def invoke(**arguments: Any) -> str:
        return _text(await caller.acall(name, arguments))

    return invoke
