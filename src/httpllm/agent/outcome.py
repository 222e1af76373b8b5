"""What became of one tool call, as the text a model reads.

An :class:`Outcome` is made for every call, whatever happened: the API's answer (a non-2xx
one is an error outcome), arguments that failed validation (the validator's feedback), a
request that could not be built or sent, a function that does not exist (with the closest
names). No exception reaches the agent loop for any of these. Every text has the host's
credentials replaced by ``[redacted]``, even where the API echoed them back.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

import httpx

from httpllm.agent.calls import ToolCall
from httpllm.cut import cut_json, cut_text, narrowing, note
from httpllm.errors import HttpllmError, InvalidArguments, TransportError
from httpllm.execute.body import is_json
from httpllm.execute.security import REDACTED, redact
from httpllm.execute.send import Result
from httpllm.records import Function

__all__ = ["REDACTED", "Outcome", "answered", "failed", "invalid", "unknown"]

"""What stands for a credential in a text the model reads."""

_TEXT_TYPES = ("text/", "application/xml", "application/x-www-form-urlencoded")
_CLOSE_MATCHES = 5


@dataclass(frozen=True, slots=True, kw_only=True)
class Outcome:
    """One call's outcome.

    Attributes:
        call: the call as the model made it.
        ok: whether the API answered 2xx (``False`` for every error outcome).
        text: what the model reads: the response body (JSON as compact text), or what
            went wrong and what to do, followed by the repairs made, if any.
        result: the HTTP result when the request was sent, else ``None``.
        repairs: the repairs made to the arguments (``"removed a trailing comma"``).
        kind: ``"answered"`` (the API answered, 2xx or not), ``"invalid"`` (the arguments
            failed validation: the model should correct them), ``"failed"`` (the request
            could not be built or sent) or ``"unknown"`` (no such function).
    """

    call: ToolCall
    ok: bool
    text: str
    result: Result | None = None
    repairs: tuple[str, ...] = ()
    kind: Literal["answered", "invalid", "failed", "unknown"] = "answered"


def _with_repairs(text: str, repairs: tuple[str, ...]) -> str:
    if not repairs:
        return text
    return f"{text}\n(httpllm repaired the arguments before sending: {'; '.join(repairs)}.)"


def body_text(result: Result) -> str:
    """The body as a model reads it: JSON as compact text, text as is, binary as a note.

    >>> body_text(Result(status=200, headers=httpx.Headers(), body={"id": 1}))
    '{"id":1}'
    """
    if not isinstance(result.body, str):
        return json.dumps(result.body, ensure_ascii=False, separators=(",", ":"))
    kind = result.headers.get("content-type", "")
    if result.content and kind and not (is_json(kind) or kind.startswith(_TEXT_TYPES)):
        return f"({len(result.content)} bytes of {kind.split(';')[0]}, not shown)"
    return result.body or "(empty body)"


def answered(call: ToolCall, result: Result, repairs: tuple[str, ...],
             secrets: Iterable[str], *, function: Function | None = None,
             budget: int | None = None) -> Outcome:
    """The API's answer; a non-2xx one says the status and that the call failed.

    An answer longer than ``budget`` characters is cut as the MCP server cuts it
    (:mod:`httpllm.cut`: JSON stays JSON, long lists keep their first items) and
    followed by a note saying how much was left out and which of ``function``'s arguments
    ask for less; ``None`` never cuts.
    """
    text = body_text(result)
    cut_note = ""
    if budget is not None and len(text) > budget:
        cut = (cut_json(result.body, budget) if not isinstance(result.body, str)
               else cut_text(text, budget))
        text = cut.text
        cut_note = "\n" + note(cut, budget, call.name,
                               narrowing(function) if function is not None else [])
    if not result.ok:
        reason = httpx.codes.get_reason_phrase(result.status)
        text = f"{call.name} failed: the API answered HTTP {result.status} {reason}: {text}"
    return Outcome(call=call, ok=result.ok, result=result, repairs=repairs,
                   text=redact(_with_repairs(text + cut_note, repairs), secrets))


def invalid(call: ToolCall, exc: InvalidArguments, repairs: tuple[str, ...],
            secrets: Iterable[str]) -> Outcome:
    """Arguments that failed validation: the validator's feedback (nothing was sent)."""
    text = exc.message
    if not text.startswith("Invalid arguments"):  # the text was not a JSON object
        text = (f"Invalid arguments for {call.name}; nothing was sent. Send a JSON object "
                f"of arguments and call {call.name} again:\n- {text}")
    return Outcome(call=call, ok=False, repairs=repairs, kind="invalid",
                   text=redact(_with_repairs(text, repairs), secrets))


def failed(call: ToolCall, exc: HttpllmError, repairs: tuple[str, ...],
           secrets: Iterable[str]) -> Outcome:
    """A request that could not be built (``RequestBuildError``, a schema the validator
    cannot compile) or sent (``TransportError``)."""
    if isinstance(exc, TransportError):
        cause = exc.__cause__
        why = f"{type(cause).__name__}: {cause}" if cause is not None else exc.message
        text = f"{call.name} failed: the request could not be sent ({why}); nothing was answered."
    else:
        text = f"{call.name} failed: the call cannot be made into a request: {exc.message}"
    return Outcome(call=call, ok=False, repairs=repairs, kind="failed",
                   text=redact(_with_repairs(text, repairs), secrets))


def unknown(call: ToolCall, names: Iterable[str]) -> Outcome:
    """A call to a function that does not exist, naming the closest ones (difflib)."""
    known = list(names)
    close = difflib.get_close_matches(call.name, known, n=_CLOSE_MATCHES, cutoff=0.6)
    hint = f" Did you mean {', '.join(close)}?" if close else ""
    text = (f"There is no function named {call.name!r}; nothing was sent.{hint} "
            f"Call one of the {len(known)} functions you were given.")
    return Outcome(call=call, ok=False, text=text, kind="unknown")
