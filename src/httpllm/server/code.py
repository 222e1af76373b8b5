"""``--mode code``: two tools instead of one per operation — ``search_docs`` and
``execute`` of :mod:`httpllm.codemode`, served over MCP.

``search_docs`` answers the typed declarations as text. ``execute`` runs the program in the
sandbox; each of its binding calls is sent by the server's executor (:attr:`Call.send`), so
it is validated, credentialed (per MCP call: ``--auth-header``, the auth hook), forwarded
and redacted exactly as a listed tool's call would be. What the program printed is the
answer's text, cut to the server's answer budget; a program that did not finish is an
``isError`` answer whose text says why (compiler errors, the uncaught error and its line,
a limit).
"""

from __future__ import annotations

from typing import Any

from httpllm.server.tools import Answer, Call, Handler, ServedTool

__all__ = ["code_tools"]


def _text(text: str, *, error: bool) -> Answer:
    answer: Answer = {"content": [{"type": "text", "text": text}]}
    if error:
        answer["isError"] = True
    return answer


def _search(mode: Any) -> Handler:
    async def handler(arguments: dict[str, Any], call: Call) -> Answer:
        result = await mode.ahandle("search_docs", arguments)
        return _text(str(result.get("docs", result.get("error", ""))), error="error" in result)

    return handler


def _execute(mode: Any) -> Handler:
    async def handler(arguments: dict[str, Any], call: Call) -> Answer:
        from httpllm.codemode import Sent
        from httpllm.execute import validate

        checked = validate(mode.functions[1], arguments)
        if not checked.ok or checked.arguments is None:
            return _text(checked.feedback(), error=True)
        server_send = call.send
        if server_send is None:  # a server always sets it; a hand-made Call may not
            return _text("this server cannot run operations", error=True)

        async def send(function: Any, args: Any) -> Any:
            result, secrets = await server_send(function, args)
            return Sent(result=result, secrets=secrets)

        answer = mode.answer(await mode.execute(str(checked.arguments["code"]), send=send))
        text = answer["output"]
        if "error" in answer:
            text = (text + "\n\n" if text else "") + answer["error"]
        return _text(text or "(the program printed nothing)", error="error" in answer)

    return handler


def code_tools(app: Any, *, api: str = "the API", read_only: bool = False,
               max_answer_chars: int | None = None, **options: Any) -> list[ServedTool]:
    """Code mode as the server's tool set: pass it as ``mcp_server(app, tools=...)``.

    Args:
        app: the compiled application (``provider="mcp"``; ``reference=True`` keeps every
            named schema one named type).
        api: how the tools name the API.
        read_only: refuse every operation but ``GET`` and ``HEAD``.
        max_answer_chars: most characters of a program's output the model reads
            (default: the server's answer budget).
        **options: as :func:`httpllm.codemode.code_mode` (``limits``, ``confirm``, ``k``).

    Raises:
        MissingExtra: Deno is not installed (``pip install 'httpllm[code]'``).
    """
    from httpllm.codemode import code_mode
    from httpllm.cut import DEFAULT_BUDGET

    mode = code_mode(app, api=api, read_only=read_only, max_answer_chars=(
        DEFAULT_BUDGET if max_answer_chars is None else max_answer_chars), **options)
    handlers = {"search_docs": _search(mode), "execute": _execute(mode)}
    return [ServedTool(tool=tool, handler=handlers[function.name])
            for function, (tool, _) in zip(mode.functions, mode.pairs(), strict=True)]
