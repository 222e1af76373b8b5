"""pydantic-ai: an application's functions as a ``FunctionToolset``.

Needs ``pip install "httpllm[pydantic-ai]"``. Invalid arguments raise ``ModelRetry`` with
the validator's feedback (pydantic-ai asks the model to correct the call, within the
tool's retry budget); a non-2xx answer, a request that cannot be built or sent raise
``ToolFailed`` (the model sees the failure and adapts, no retry budget spent).

>>> agent = Agent(model, toolsets=[toolset(app, auth={"apiKey": KEY})])  # doctest: +SKIP

Code mode (:meth:`httpllm.Application.code_tools`) as a toolset of its two tools,
``search_docs`` and ``execute``: :func:`code_toolset`.

>>> code = app.code_tools(execute_options={"auth": {"apiKey": KEY}})    # doctest: +SKIP
>>> agent = Agent(model, toolsets=[code_toolset(code)])                 # doctest: +SKIP
"""

from __future__ import annotations

from typing import Any

from httpllm._api import Application
from httpllm.adapters._caller import Caller
from httpllm.codemode import CodeMode
from httpllm.errors import requires_extra

with requires_extra("pydantic-ai", "the pydantic-ai adapter", {"pydantic_ai"}):
    from pydantic_ai import FunctionToolset, ModelRetry, Tool
    from pydantic_ai.exceptions import ToolFailed

__all__ = ["code_toolset", "toolset"]


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


def code_toolset(code: CodeMode, *, max_retries: int | None = None) -> FunctionToolset[Any]:
    """Code mode's two tools as a toolset (compile with the provider of the model, or
    ``"3.1"``, then ``app.code_tools(...)`` with the host's options: credentials,
    ``read_only``, ``confirm``, limits).

    ``search_docs`` returns the declarations. ``execute`` returns what the program printed
    (cut to the code mode's ``max_answer_chars``); a program that did not finish (refused,
    not type-checked, an uncaught error, a limit) raises ``ToolFailed`` with what it
    printed and why, so the model rewrites it without spending the retry budget; arguments
    that do not match the tool's schema raise ``ModelRetry``.

    Args:
        code: the code mode (:func:`httpllm.codemode.code_mode`).
        max_retries: the tools' retry budget for invalid calls (``None``: the agent's).
    """
    tools = [
        Tool.from_schema(_code_invoker(code, function.name), name=function.name,
                         description=function.description or None,
                         json_schema=function.parameters)
        for function in code.functions
    ]
    return FunctionToolset(tools, max_retries=max_retries)


def _code_invoker(code: CodeMode, name: str) -> Any:
    async def invoke(**arguments: Any) -> str:
        answer = await code.ahandle(name, arguments)
        if "docs" in answer:
            return str(answer["docs"])
        if "output" not in answer:
            raise ModelRetry(str(answer.get("error", "")))
        output = str(answer["output"])
        if "error" in answer:
            raise ToolFailed((output + "\n\n" if output else "") + str(answer["error"]))
        return output or "(the program printed nothing)"

    return invoke
