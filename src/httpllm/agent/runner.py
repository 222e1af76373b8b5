"""The agent loop's step: a provider's tool calls in, the messages to append out.

:func:`handle` reads every call of a response (:mod:`.calls`), repairs the arguments'
unambiguous slips (:mod:`.repair`), sends each through the one way back
(:func:`httpllm.execute.execute`, which validates and undoes strict-mode and dialect
rewrites) and writes the outcomes in the provider's format (:mod:`.messages`).
:func:`ahandle` does the same with :func:`httpllm.execute.aexecute`, running the calls
concurrently. Only programming errors raise: an unknown format, or something that is not
a tool call; every other failure is an error result the model can act on.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator, Mapping
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from typing import Any, TypedDict

import anyio
import httpx

from httpllm.agent.calls import ToolCall, read_calls
from httpllm.agent.messages import MESSAGES
from httpllm.agent.outcome import Outcome, answered, failed, invalid, unknown
from httpllm.agent.repair import repair_text, repair_values
from httpllm.cut import DEFAULT_BUDGET
from httpllm.dialects import TOOL_CALL_FORMATS, Dialect, Options, ToolCallFormat
from httpllm.errors import HttpllmError, InvalidArguments, UnknownDialect
from httpllm.execute import Result, aexecute, execute
from httpllm.execute.security import secrets_of
from httpllm.execute.send import MAX_ANSWER_BYTES
from httpllm.records import Function

__all__ = [
    "DEFAULT_LIMIT",
    "AsyncHandleOptions",
    "HandleOptions",
    "ahandle",
    "arun_call",
    "format_of",
    "handle",
    "run_call",
    "secrets_of",
]

DEFAULT_LIMIT = 8
"""Most calls :func:`ahandle` sends at once."""

MAX_REPAIR_ROUNDS = 3
"""Most times one call is validated again after a repair (a JSON string inside a JSON
string needs two)."""

Send = Callable[[Function, Any], Result]
ASend = Callable[[Function, Any], Awaitable[Result]]



class HandleOptions(TypedDict, total=False):
    """The keyword options of :func:`handle` but ``format``, as ``Application.handle``
    takes them (``**options: Unpack[HandleOptions]``); each means what :func:`handle`
    says."""

    client: httpx.Client | None
    auth: Any
    base_url: str | None
    host_arguments: Mapping[str, Any] | None
    server_variables: Mapping[str, str] | None
    max_answer_chars: int | None
    max_answer_bytes: int | None


class AsyncHandleOptions(TypedDict, total=False):
    """The keyword options of :func:`ahandle` but ``format`` (``client`` an
    ``httpx.AsyncClient``; ``limit``: most calls at once)."""

    client: httpx.AsyncClient | None
    auth: Any
    base_url: str | None
    host_arguments: Mapping[str, Any] | None
    server_variables: Mapping[str, str] | None
    max_answer_chars: int | None
    max_answer_bytes: int | None
    limit: int

def format_of(dialect: Dialect, options: Options) -> ToolCallFormat:
    """The tool-call format of an application compiled for ``dialect`` with ``options``:
    ``options.envelope`` where it names a format (OpenAI's ``"responses"``), else the
    dialect's own field :attr:`~httpllm.dialects.Dialect.tool_calls`.

    Raises:
        UnknownDialect: the dialect has no tool-call format (``"3.1"``, ``"3.0"``, or a
            registered dialect without ``tool_calls``): pass ``format=``.
    """
    if options.envelope in TOOL_CALL_FORMATS:
        return options.envelope
    if dialect.tool_calls is not None:
        return dialect.tool_calls
    raise UnknownDialect(f"provider {dialect.name!r} has no tool-call format (its Dialect's "
                         f"tool_calls is unset); pass format= one of "
                         f"{', '.join(TOOL_CALL_FORMATS)}")


@dataclass(slots=True)
class _Attempt:
    """One call on its way through repair and validation."""

    call: ToolCall
    function: Function
    arguments: Any
    repairs: tuple[str, ...]
    secrets: tuple[str, ...]
    rounds: int = 0

    def retry(self, exc: InvalidArguments) -> Outcome | None:
        """``None`` when a repair makes the arguments worth sending again, else the
        invalid outcome."""
        fixed = None
        if isinstance(self.arguments, Mapping) and self.rounds < MAX_REPAIR_ROUNDS:
            fixed = repair_values(self.function, self.arguments, exc.errors)
        if fixed is None:
            return invalid(self.call, exc, self.repairs, self.secrets)
        self.rounds += 1
        self.arguments, self.repairs = fixed.arguments, self.repairs + fixed.notes
        return None


def _begin(call: ToolCall, functions: Mapping[str, Function],
           secrets: tuple[str, ...]) -> _Attempt | Outcome:
    function = functions.get(call.name)
    if function is None:
        return unknown(call, functions)
    repaired = repair_text(call.arguments)
    return _Attempt(call, function, repaired.arguments, repaired.notes, secrets)


def run_call(call: ToolCall, functions: Mapping[str, Function], send: Send,
             secrets: tuple[str, ...] = (), *,
             budget: int | None = DEFAULT_BUDGET) -> Outcome:
    """One call through repair, ``send`` (``execute`` with the host's options) and back
    to an :class:`~httpllm.agent.outcome.Outcome`; raises no ``HttpllmError`` (one
    function whose request cannot be built never sinks the other calls). An answer
    longer than ``budget`` characters is cut, with a note (``None``: never cut)."""
    attempt = _begin(call, functions, secrets)
    while isinstance(attempt, _Attempt):
        try:
            result = send(attempt.function, attempt.arguments)
        except InvalidArguments as exc:
            attempt = attempt.retry(exc) or attempt
            continue
        except HttpllmError as exc:  # a request that cannot be built or sent
            return failed(call, exc, attempt.repairs, secrets)
        return answered(call, result, attempt.repairs, secrets,
                        function=attempt.function, budget=budget)
    return attempt


async def arun_call(call: ToolCall, functions: Mapping[str, Function], send: ASend,
                    secrets: tuple[str, ...] = (), *,
             budget: int | None = DEFAULT_BUDGET) -> Outcome:
    """:func:`run_call` with an async ``send`` (``aexecute``)."""
    attempt = _begin(call, functions, secrets)
    while isinstance(attempt, _Attempt):
        try:
            result = await send(attempt.function, attempt.arguments)
        except InvalidArguments as exc:
            attempt = attempt.retry(exc) or attempt
            continue
        except HttpllmError as exc:  # a request that cannot be built or sent
            return failed(call, exc, attempt.repairs, secrets)
        return answered(call, result, attempt.repairs, secrets,
                        function=attempt.function, budget=budget)
    return attempt


def _options(function: Function, host_arguments: Mapping[str, Any] | None,
             options: dict[str, Any]) -> dict[str, Any]:
    """``execute``'s keywords for ``function``: the host arguments it takes."""
    if not host_arguments:
        return options
    names = {argument.name for argument in function.arguments}
    mine = {k: v for k, v in host_arguments.items() if k in names}
    return {**options, "host_arguments": mine} if mine else options


@contextmanager
def _sync_client(client: httpx.Client | None) -> Iterator[httpx.Client]:
    if client is not None:
        yield client
        return
    with httpx.Client() as own:
        yield own


@asynccontextmanager
async def _async_client(client: httpx.AsyncClient | None) -> Any:
    if client is not None:
        yield client
        return
    async with httpx.AsyncClient() as own:
        yield own


def handle(
    functions: Mapping[str, Function],
    response: Any,
    *,
    format: str,
    client: httpx.Client | None = None,
    auth: Any = None,
    base_url: str | None = None,
    host_arguments: Mapping[str, Any] | None = None,
    server_variables: Mapping[str, str] | None = None,
    max_answer_chars: int | None = DEFAULT_BUDGET,
    max_answer_bytes: int | None = MAX_ANSWER_BYTES,
) -> list[dict[str, Any]]:
    """Run every tool call in ``response``, one after the other, and return the messages
    to append to the conversation, in the provider's format (see :mod:`.messages`).

    Args:
        functions: the application's functions by name.
        response: the provider's response, message or list of calls (SDK objects or
            plain dicts; see :func:`~httpllm.agent.calls.read_calls`).
        format: the wire format (``"chat"``, ``"responses"``, ``"anthropic"`` ...).
        client: the ``httpx.Client`` to send with; one (closed afterwards) when ``None``.
        auth: credentials by security scheme name, or an ``httpx.Auth``.
        base_url: replaces the document's server URL.
        host_arguments: values of ``separate=`` arguments; each function gets those it has.
        server_variables: values for the server URL's variables.
        max_answer_chars: most characters of one answer the model reads (about 10k
            tokens by default); every credential is masked first, then a longer answer
            is cut, the answer kept JSON and the note saying how much was left out and
            which arguments ask for less kept apart (a part of its own, see
            :mod:`.messages`). ``None``: never cut.
        max_answer_bytes: most bytes of an answer read (10 MiB by default; the rest is
            never read and the note says so); ``None``: read it all.

    Raises:
        UnknownDialect: no such format.
        CallError: ``response`` is not this format's response or calls.
    """
    calls = read_calls(response, format)
    write = MESSAGES[format]
    if not calls:
        return write([])
    secrets = secrets_of(auth, client.headers if client is not None else None)
    options: dict[str, Any] = {"auth": auth, "base_url": base_url,
                               "server_variables": server_variables,
                               "max_bytes": max_answer_bytes}
    with _sync_client(client) as sender:
        def send(function: Function, arguments: Any) -> Result:
            return execute(function, arguments, client=sender,
                           **_options(function, host_arguments, options))

        outcomes = [run_call(call, functions, send, secrets, budget=max_answer_chars)
                    for call in calls]
    return write(outcomes)


async def ahandle(
    functions: Mapping[str, Function],
    response: Any,
    *,
    format: str,
    client: httpx.AsyncClient | None = None,
    auth: Any = None,
    base_url: str | None = None,
    host_arguments: Mapping[str, Any] | None = None,
    server_variables: Mapping[str, str] | None = None,
    max_answer_chars: int | None = DEFAULT_BUDGET,
    max_answer_bytes: int | None = MAX_ANSWER_BYTES,
    limit: int = DEFAULT_LIMIT,
) -> list[dict[str, Any]]:
    """:func:`handle` on an ``httpx.AsyncClient``, at most ``limit`` calls at once; the
    messages keep the calls' order.

    Raises:
        UnknownDialect: as :func:`handle`.
        CallError: as :func:`handle`.
    """
    calls = read_calls(response, format)
    write = MESSAGES[format]
    if not calls:
        return write([])
    secrets = secrets_of(auth, client.headers if client is not None else None)
    options: dict[str, Any] = {"auth": auth, "base_url": base_url,
                               "server_variables": server_variables,
                               "max_bytes": max_answer_bytes}
    outcomes: list[Outcome | None] = [None] * len(calls)
    limiter = anyio.CapacityLimiter(max(1, limit))
    async with _async_client(client) as sender:
        async def send(function: Function, arguments: Any) -> Result:
            return await aexecute(function, arguments, client=sender,
                                  **_options(function, host_arguments, options))

        async def one(index: int, call: ToolCall) -> None:
            async with limiter:
                outcomes[index] = await arun_call(call, functions, send, secrets,
                                                  budget=max_answer_chars)

        async with anyio.create_task_group() as group:
            for index, call in enumerate(calls):
                group.start_soon(one, index, call)
    return write([o for o in outcomes if o is not None])
