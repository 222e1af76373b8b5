"""One function's calls for a framework: the host's options held apart from the model."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import httpx

from httpllm._api import Application
from httpllm.agent import Outcome, ToolCall, arun_call, run_call, secrets_of
from httpllm.cut import DEFAULT_BUDGET
from httpllm.execute import Result, aexecute, execute
from httpllm.execute.send import MAX_ANSWER_BYTES
from httpllm.records import Function

__all__ = ["Caller"]


class Caller:
    """Runs calls of ``app``'s functions with the host's options (credentials, base URL,
    clients, host arguments); what the model sends is only the arguments.

    Args:
        app: the compiled application.
        auth: credentials by security scheme name, or an ``httpx.Auth``.
        base_url: replaces the document's server URL.
        client: an ``httpx.Client`` for synchronous calls (one per call when ``None``).
        async_client: an ``httpx.AsyncClient`` for asynchronous calls (likewise).
        host_arguments: values of ``separate=`` arguments; each function gets its own.
        server_variables: values for the server URL's variables.
        max_answer_chars: most characters of one answer the model reads; a longer one is
            cut with a note (see :func:`httpllm.agent.handle`); ``None``: never cut.
        max_answer_bytes: most bytes of one answer read (see :func:`httpllm.agent.handle`).
    """

    def __init__(
        self,
        app: Application,
        *,
        auth: Any = None,
        base_url: str | None = None,
        client: httpx.Client | None = None,
        async_client: httpx.AsyncClient | None = None,
        host_arguments: Mapping[str, Any] | None = None,
        server_variables: Mapping[str, str] | None = None,
        max_answer_chars: int | None = DEFAULT_BUDGET,
        max_answer_bytes: int | None = MAX_ANSWER_BYTES,
    ) -> None:
        self.functions = {f.name: f for f in app.functions}
        self._client = client
        self._async_client = async_client
        self._host = dict(host_arguments or {})
        self._options: dict[str, Any] = {"auth": auth, "base_url": base_url,
                                         "server_variables": server_variables,
                                         "max_bytes": max_answer_bytes}
        self._secrets = secrets_of(auth, {**(async_client.headers if async_client else {}),
                                          **(client.headers if client else {})})
        self._budget = max_answer_chars

    def _keywords(self, function: Function) -> dict[str, Any]:
        names = {argument.name for argument in function.arguments}
        mine = {k: v for k, v in self._host.items() if k in names}
        return {**self._options, "host_arguments": mine or None}

    def _send(self, function: Function, arguments: Any) -> Result:
        return execute(function, arguments, client=self._client, **self._keywords(function))

    async def _asend(self, function: Function, arguments: Any) -> Result:
        return await aexecute(function, arguments, client=self._async_client,
                              **self._keywords(function))

    def call(self, name: str, arguments: Any, call_id: str | None = None) -> Outcome:
        """Run one call; every failure is an :class:`~httpllm.agent.Outcome`."""
        call = ToolCall(name=name, arguments=arguments, id=call_id)
        return run_call(call, self.functions, self._send, self._secrets, budget=self._budget)

    async def acall(self, name: str, arguments: Any, call_id: str | None = None) -> Outcome:
        """:meth:`call` on the async client."""
        call = ToolCall(name=name, arguments=arguments, id=call_id)
        return await arun_call(call, self.functions, self._asend, self._secrets,
                               budget=self._budget)
