"""``--mode discover``: three tools instead of one per operation — the portable
search -> describe -> invoke trio of :mod:`httpllm.toolsets.discover`, served over MCP.

``search_operations`` and ``describe_operations`` are answered by the trio itself (JSON
text). ``invoke_operation`` checks its own arguments, then runs the named operation through
the server's executor (:attr:`Call.run`), so a call made through the trio is validated,
credentialed, forwarded and cut to the answer budget exactly as a listed tool's would be.
"""

from __future__ import annotations

import contextlib
import json
import threading
from typing import Any

from httpllm.errors import HttpllmError
from httpllm.records import Function
from httpllm.server.tools import Answer, Call, Handler, ServedTool

__all__ = ["discover_tools"]


def _text(result: Any, *, error: bool) -> Answer:
    answer: Answer = {"content": [{"type": "text",
                                   "text": json.dumps(result, ensure_ascii=False)}]}
    if error:
        answer["isError"] = True
    return answer


def _answered(discovery: Any, name: str) -> Handler:
    """A handler answering ``name`` (search or describe) with the trio's own JSON."""
    async def handler(arguments: dict[str, Any], call: Call) -> Answer:
        result = discovery.handle(name, arguments)
        return _text(result, error=isinstance(result, dict) and "error" in result)

    return handler


def _invoked(function: Function) -> Handler:
    """The ``invoke_operation`` handler: its own arguments checked, then the operation run
    by the server. The operation's ``structuredContent`` is dropped: the trio lists no
    output schema, and a client checks structured content against the listed one."""
    async def handler(arguments: dict[str, Any], call: Call) -> Answer:
        from httpllm.execute import validate

        checked = validate(function, arguments)
        if not checked.ok or checked.arguments is None:
            return _text({"error": checked.feedback()}, error=True)
        if call.run is None:  # a server always sets it; a hand-made Call may not
            return _text({"error": "this server cannot run operations"}, error=True)
        args = checked.arguments
        answer = await call.run(str(args["name"]), args.get("arguments", {}))
        return {k: v for k, v in answer.items() if k != "structuredContent"}

    return handler


def _build_index(app: Any) -> None:
    """Build ``app``'s search index; a failure (a missing extra) is left to the first
    search, which raises it again where the client sees it."""
    with contextlib.suppress(HttpllmError):
        app.search("list", 1)


def discover_tools(app: Any, *, k: int = 10, api: str = "the API") -> list[ServedTool]:
    """The trio as the server's tool set: pass it as ``mcp_server(app, tools=...)``.

    Args:
        app: the compiled application (``provider="mcp"``).
        k: how many operations a search returns.
        api: how the tools name the API.

    The search index is built once for the server's life, starting here, in a thread.

    Raises:
        MissingExtra: the ``search`` extra is not installed.
    """
    from httpllm.toolsets.discover import INVOKE, discover

    discovery = discover(app, k=k, api=api)
    # The index (and, with an embedder, every operation's vector: read from the user's
    # cache, else computed and stored there) is built once, from the start, beside the
    # server: a client's first search waits for it rather than starting it, and the
    # server answers `initialize` meanwhile (embedding a large API cold takes seconds).
    threading.Thread(target=_build_index, args=(app,), name="httpllm-search-index",
                     daemon=True).start()
    served = []
    for function, (tool, _) in zip(discovery.functions, discovery.pairs(), strict=True):
        handler = _invoked(function) if function.name == INVOKE else _answered(
            discovery, function.name)
        served.append(ServedTool(tool=tool, handler=handler))
    return served
