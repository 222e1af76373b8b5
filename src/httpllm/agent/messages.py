"""Write outcomes as the messages a provider expects next in the conversation.

One writer per wire format, in a table; each returns the list of messages to append (an
empty list when there were no calls). The messages are plain JSON, in the provider's own
request shape:

| format | messages |
| --- | --- |
| ``chat`` | one ``{"role": "tool", "tool_call_id", "content"}`` per call |
| ``responses`` | one ``{"type": "function_call_output", "call_id", "output"}`` per call |
| ``anthropic`` | one ``user`` message of ``tool_result`` blocks (``is_error`` on failures) |
| ``gemini`` | one ``user`` content of ``functionResponse`` parts (``id`` when the call had
  one; ``response`` ``{"output": ...}`` or ``{"error": ...}``) |
| ``bedrock`` | one ``user`` message of ``toolResult`` blocks (``status: "error"`` on failures) |
| ``ollama`` | one ``{"role": "tool", "content", "tool_name"}`` per call |
| ``mistral`` | one ``{"role": "tool", "content", "name", "tool_call_id"?}`` per call |
| ``mcp`` | one ``CallToolResult`` ``{"content": [text], "isError"}`` per call |

An outcome's note (what a cut left out, the repairs made) is kept apart from the answer, so
a JSON answer stays JSON: a second text part (``chat``, ``responses``, ``anthropic``,
``bedrock``, ``mistral``, ``mcp``), a ``note`` key beside ``output`` (``gemini``); Ollama's
tool message is one string, so there the note follows the answer on a line of its own.

Source: the same provider pages as :mod:`httpllm.agent.calls`; Gemini ``FunctionResponse``
("use 'output' ... and 'error' key to specify error details").
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from httpllm.agent.outcome import Outcome

__all__ = ["MESSAGES", "Writer"]

Message = dict[str, Any]
Writer = Callable[[Sequence[Outcome]], list[Message]]


def _parts(o: Outcome, kind: str = "text") -> str | list[dict[str, str]]:
    """The outcome's text alone, or its text and note as two text parts."""
    if not o.note:
        return o.text
    return [{"type": kind, "text": o.text}, {"type": kind, "text": o.note}]


def _joined(o: Outcome) -> str:
    return f"{o.text}\n{o.note}" if o.note else o.text


def _chat(outcomes: Sequence[Outcome]) -> list[Message]:
    return [{"role": "tool", "tool_call_id": o.call.id, "content": _parts(o)}
            for o in outcomes]


def _responses(outcomes: Sequence[Outcome]) -> list[Message]:
    return [{"type": "function_call_output", "call_id": o.call.id,
             "output": _parts(o, "input_text")} for o in outcomes]


def _anthropic(outcomes: Sequence[Outcome]) -> list[Message]:
    blocks = [{"type": "tool_result", "tool_use_id": o.call.id, "content": _parts(o),
               **({} if o.ok else {"is_error": True})} for o in outcomes]
    return [{"role": "user", "content": blocks}] if blocks else []


def _gemini(outcomes: Sequence[Outcome]) -> list[Message]:
    parts = [{"functionResponse": {**({"id": o.call.id} if o.call.id else {}),
                                   "name": o.call.name,
                                   "response": {"output" if o.ok else "error": o.text,
                                                **({"note": o.note} if o.note else {})}}}
             for o in outcomes]
    return [{"role": "user", "parts": parts}] if parts else []


def _bedrock(outcomes: Sequence[Outcome]) -> list[Message]:
    blocks = [{"toolResult": {"toolUseId": o.call.id,
                              "content": [{"text": t} for t in (o.text, *filter(None, [o.note]))],
                              **({} if o.ok else {"status": "error"})}} for o in outcomes]
    return [{"role": "user", "content": blocks}] if blocks else []


def _ollama(outcomes: Sequence[Outcome]) -> list[Message]:
    return [{"role": "tool", "content": _joined(o), "tool_name": o.call.name}
            for o in outcomes]


def _mistral(outcomes: Sequence[Outcome]) -> list[Message]:
    return [{"role": "tool", "content": _parts(o), "name": o.call.name,
             **({"tool_call_id": o.call.id} if o.call.id else {})} for o in outcomes]


def _mcp(outcomes: Sequence[Outcome]) -> list[Message]:
    return [{"content": [{"type": "text", "text": t} for t in (o.text, *filter(None, [o.note]))],
             "isError": not o.ok} for o in outcomes]


MESSAGES: dict[str, Writer] = {
    "chat": _chat,
    "responses": _responses,
    "anthropic": _anthropic,
    "gemini": _gemini,
    "bedrock": _bedrock,
    "ollama": _ollama,
    "mistral": _mistral,
    "mcp": _mcp,
}
"""The writer of each wire format, by format name (the keys of ``calls.SHAPES``)."""
