"""The agent loop: a provider's tool calls in, the messages to append to the conversation out.

``handle``/``ahandle`` take a response as the provider's SDK returned it (or its list of
calls, or their plain-dict forms), run every call through :mod:`httpllm.execute` and
answer in that provider's own message format; failures are results the model reads, not
exceptions. Modules: :mod:`.calls` (reading calls, one shape per format), :mod:`.repair`
(unambiguous argument repairs), :mod:`.outcome` (what became of a call, as text),
:mod:`.messages` (writing outcomes per format), :mod:`.runner` (the loop's step).
"""

from __future__ import annotations

from httpllm.agent.calls import SHAPES, ToolCall, read_calls
from httpllm.agent.messages import MESSAGES
from httpllm.agent.outcome import Outcome
from httpllm.agent.repair import Repaired, repair_text, repair_values
from httpllm.agent.runner import (
    DEFAULT_LIMIT,
    AsyncHandleOptions,
    HandleOptions,
    ahandle,
    arun_call,
    format_of,
    handle,
    run_call,
    secrets_of,
)

__all__ = [
    "DEFAULT_LIMIT",
    "MESSAGES",
    "SHAPES",
    "AsyncHandleOptions",
    "HandleOptions",
    "Outcome",
    "Repaired",
    "ToolCall",
    "ahandle",
    "arun_call",
    "format_of",
    "handle",
    "read_calls",
    "repair_text",
    "repair_values",
    "run_call",
    "secrets_of",
]
