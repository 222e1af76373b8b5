"""What the server lists and calls: one :class:`ServedTool` per tool (the MCP ``Tool`` as
JSON and the coroutine that answers its calls), and the :class:`Call` a handler receives.

A compiled function becomes the ``mcp`` dialect's ``Tool`` plus a ``title`` (the first
line of the description, which is the operation's ``summary`` when it has one) and the
method's hints, with ``destructiveHint`` for ``DELETE`` (MCP 2025-11-25 ``ToolAnnotations``;
RFC 9110 section 9.3.5). Nothing here imports the ``mcp`` SDK: the tool set is plain data,
so another tool set (a search -> describe -> invoke trio ...) plugs in through
``mcp_server(tools=...)`` without touching the SDK.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal, cast

from httpllm._json import utf8_size, valid_unicode
from httpllm._types import JSON
from httpllm.dialects import Options
from httpllm.dialects.mcp import MCP, hints, output_schema
from httpllm.records import Function

__all__ = ["OUTPUT_BUDGET", "Call", "Handler", "OutputSchemas", "ServedTool", "function_tool",
           "lists_output", "output_schemas_listed", "title_of"]

OutputSchemas = Literal["auto", "on", "off"]
"""Whether tools list their ``outputSchema``: ``"on"``, ``"off"``, or ``"auto"``: when
they all fit in :data:`OUTPUT_BUDGET`."""

OUTPUT_BUDGET = 256 * 1024
"""Most bytes of output schemas (compact JSON, all tools together) ``"auto"`` lists. The
official TypeScript SDK client compiles an Ajv validator for each when it lists: measured
on this project's 2-core machine at 0.1-0.3 MB of schema per second (GitHub's 6.8 MB took
24-70 s), so 256 KiB keeps ``listTools()`` within a few seconds (issue 28). GitHub's and
Stripe's descriptions are past it even with every schema bounded (``mcp`` dialect's
``OUTPUT_MAX``): they list none, and answer text only."""

_TITLE_MAX = 120
"""Longest first line used as a title, in characters."""

Answer = dict[str, Any]
"""A ``CallToolResult`` in its wire form: ``{"content": [...], "isError"?: bool,
"structuredContent"?: {...}}``."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Call:
    """One ``tools/call`` as a handler sees it.

    Attributes:
        tool: the tool name called.
        headers: the incoming HTTP request's headers, names in lower case (``{}`` on stdio).
        request: the transport's request object (a ``starlette.requests.Request`` on
            streamable HTTP), or ``None``.
        session_id: the MCP session id, when the transport has sessions.
        run: ``await call.run(function_name, arguments)`` executes one compiled function with
            the server's credentials, headers and answer budget (what a meta-tool such as
            ``invoke`` delegates to).
        send: ``await call.send(function, arguments) -> (Result, secrets)`` validates and
            sends one call with the server's credentials and headers and gives the HTTP
            result as data (what code mode's bindings use); raises ``CallError`` with the
            text the model reads.
    """

    tool: str
    headers: Mapping[str, str] = field(default_factory=dict)
    request: Any = None
    session_id: str | None = None
    run: Callable[[str, Any], Awaitable[Answer]] | None = field(default=None, repr=False)
    send: Callable[[Function, Any], Awaitable[tuple[Any, tuple[str, ...]]]] | None = field(
        default=None, repr=False)


Handler = Callable[[dict[str, Any], Call], Awaitable[Answer]]
"""``await handler(arguments, call) -> CallToolResult`` as a JSON object."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ServedTool:
    """A tool the server lists, and what answers its calls.

    Attributes:
        tool: the MCP ``Tool`` as JSON (``name``, ``inputSchema`` ...).
        handler: answers a call (see :data:`Handler`); ``None`` for a compiled function,
            which the server executes itself.
        function: the compiled function behind the tool, if any.
    """

    tool: Mapping[str, JSON]
    handler: Handler | None = None
    function: Function | None = None

    @property
    def name(self) -> str:
        """The tool's name."""
        return str(self.tool["name"])


def output_schemas_listed(functions: Iterable[Function],
                          mode: OutputSchemas | bool = "auto") -> tuple[bool, int]:
    """``(whether tools list their output schemas, their bytes together)`` for ``mode``
    (``True``/``False`` are ``"on"``/``"off"``).

    Raises:
        ValueError: an unknown mode.
    """
    if isinstance(mode, bool):
        mode = "on" if mode else "off"
    if mode not in ("auto", "on", "off"):
        raise ValueError(f"output_schemas is 'auto', 'on' or 'off', not {mode!r}")
    if mode == "off":
        return False, 0
    total = sum(utf8_size(json.dumps(output_schema(f.output)[0], ensure_ascii=False,
                                     separators=(",", ":")))
                for f in functions if f.output is not None)
    return mode == "on" or total <= OUTPUT_BUDGET, total


def title_of(description: str) -> str | None:
    """The description's first line when it is short (a ``summary`` comes first).

    >>> title_of("List pets\\n\\nPaged, newest first.")
    'List pets'
    """
    first = description.strip().split("\n", 1)[0].strip()
    return first if first and len(first) <= _TITLE_MAX else None


def lists_output(function: Function) -> bool:
    """Whether the function's tool lists an ``outputSchema``: it has one, and its success
    answer may be JSON or text. An answer that can only be binary (``image/png`` described
    as ``{type: string, format: binary}``) comes as an image, audio or resource block,
    which a listed schema would make a client refuse (it wants ``structuredContent``)."""
    if function.output is None:
        return False
    from httpllm._media import is_json
    from httpllm.execute.answer import TEXTUAL

    media = function.extra.get("accept")
    types = [str(m).lower() for m in media] if isinstance(media, (list, tuple)) else []
    return not types or any(is_json(m) or m.startswith(TEXTUAL) for m in types)


def function_tool(function: Function, options: Options | None = None, *,
                  output: bool = True) -> ServedTool:
    """The MCP ``Tool`` of a compiled function: the ``mcp`` envelope, a ``title`` and the
    annotations, ``destructiveHint`` added for ``DELETE``; ``output=False`` leaves the
    ``outputSchema`` out, as does a binary-only answer (:func:`lists_output`)."""
    tool = dict(cast(dict[str, Any], MCP.envelope(function, options or Options())))
    if not output or not lists_output(function):
        tool.pop("outputSchema", None)
    title = title_of(function.description)
    annotations: dict[str, Any] = {**hints(function.method)}
    if function.method == "delete":
        annotations["destructiveHint"] = True
    if title is not None:
        tool = {"name": tool.pop("name"), "title": title, **tool}
        annotations = {"title": title, **annotations}
    tool["annotations"] = annotations
    return ServedTool(tool=tool, function=function)


def in_valid_unicode(tool: ServedTool) -> ServedTool:
    """``tool`` as a strict UTF-8 serializer (the SDK's, pydantic's) can write it: a lone
    surrogate (a document's ``\\ud800`` escape without its pair), which would make the
    whole listing fail to serialize, replaced by U+FFFD, with a warning on the
    ``httpllm.server`` log naming where; the same tool when there is none."""
    fixed, where = valid_unicode(tool.tool)
    if not where:
        return tool
    logging.getLogger("httpllm.server").warning(
        "tool %s: %d string(s) held a lone surrogate (a \\ud800-\\udfff escape without its "
        "pair), replaced by U+FFFD: %s", fixed.get("name"), len(where),
        ", ".join(where[:5]) + (" ..." if len(where) > 5 else ""))
    return replace(tool, tool=fixed)
