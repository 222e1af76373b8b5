"""What became of one tool call, as the text a model reads.

An :class:`Outcome` is made for every call, whatever happened: the API's answer (a non-2xx
one is an error outcome), arguments that failed validation (the validator's feedback), a
request that could not be built or sent, a function that does not exist (with the closest
names). No exception reaches the agent loop for any of these. Every answer goes through
:func:`httpllm.execute.answer.fit`: the host's credentials masked in every encoding (even
where the API echoed them back), *then* cut; the note saying what was cut is kept apart
(:attr:`Outcome.note`), so a cut JSON answer is still JSON.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

import httpx

from httpllm.agent.calls import ToolCall
from httpllm.cut import narrowing
from httpllm.errors import HttpllmError, InvalidArguments, TransportError
from httpllm.execute.answer import fit, sent_text
from httpllm.execute.security import REDACTED, redact
from httpllm.execute.send import Result
from httpllm.records import Function

__all__ = ["REDACTED", "Outcome", "answered", "failed", "invalid", "unknown"]

_CLOSE_MATCHES = 5
_NAME_MAX = 80
"""Longest echo of a function name no tool has (the model wrote it: a 1 MB name came back
whole)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Outcome:
    """One call's outcome.

    Attributes:
        call: the call as the model made it.
        ok: whether the API answered 2xx (``False`` for every error outcome).
        text: what the model reads: the response body (JSON as compact text, still JSON
            when cut), or what went wrong and what to do, followed by the repairs made, if
            any (a successful answer's repairs go to ``note``, so its text stays JSON).
        result: the HTTP result when the request was sent, else ``None``.
        repairs: the repairs made to the arguments (``"removed a trailing comma"``).
        kind: ``"answered"`` (the API answered, 2xx or not), ``"invalid"`` (the arguments
            failed validation: the model should correct them), ``"failed"`` (the request
            could not be built or sent) or ``"unknown"`` (no such function).
        note: what the model reads beside ``text``: what a cut left out and how to ask
            for less, the repairs made; ``""`` when nothing (the message writers put it in
            a block of its own, see :mod:`.messages`).
    """

    call: ToolCall
    ok: bool
    text: str
    result: Result | None = None
    repairs: tuple[str, ...] = ()
    kind: Literal["answered", "invalid", "failed", "unknown"] = "answered"
    note: str = ""


def _with_repairs(text: str, repairs: tuple[str, ...]) -> str:
    if not repairs:
        return text
    return f"{text}\n(httpllm repaired the arguments before sending: {'; '.join(repairs)}.)"


def _repaired(repairs: tuple[str, ...]) -> str:
    return (f"(httpllm repaired the arguments before sending: {'; '.join(repairs)}.)"
            if repairs else "")


def answered(call: ToolCall, result: Result, repairs: tuple[str, ...],
             secrets: Iterable[str], *, function: Function | None = None,
             budget: int | None = None) -> Outcome:
    """The API's answer; a non-2xx one says the status and that the call failed.

    The answer goes through :func:`httpllm.execute.answer.fit`: every secret masked, then
    an answer longer than ``budget`` characters cut as the MCP server cuts it (JSON stays
    JSON, long lists keep their first items), the note saying how much was left out and
    which of ``function``'s arguments ask for less going to :attr:`Outcome.note`;
    ``None`` never cuts.
    """
    fitted = fit(result, secrets=tuple(secrets), budget=budget, tool=call.name,
                 narrowing=narrowing(function) if function is not None else ())
    text = fitted.text
    if fitted.kind == "empty":
        text = "(empty body)"
    if not result.ok:
        reason = httpx.codes.get_reason_phrase(result.status)
        moved = f" (Location: {fitted.location})" if fitted.location else ""
        text = (f"{call.name} failed: the API answered HTTP {result.status} {reason}{moved}: "
                f"{text}")
    note = "\n".join(n for n in (fitted.note, _repaired(repairs)) if n)
    if not result.ok and note:  # an error's text is prose: one block is fine
        text, note = f"{text}\n{note}", ""
    return Outcome(call=call, ok=result.ok, result=result, repairs=repairs, text=text,
                   note=note)


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
        text = sent_text(exc, tool=call.name)
    else:
        text = f"{call.name} failed: the call cannot be made into a request: {exc.message}"
    return Outcome(call=call, ok=False, repairs=repairs, kind="failed",
                   text=redact(_with_repairs(text, repairs), secrets))


def unknown(call: ToolCall, names: Iterable[str]) -> Outcome:
    """A call to a function that does not exist, naming the closest ones (difflib)."""
    known = list(names)
    close = difflib.get_close_matches(call.name, known, n=_CLOSE_MATCHES, cutoff=0.6)
    hint = f" Did you mean {', '.join(close)}?" if close else ""
    name = call.name if len(call.name) <= _NAME_MAX else call.name[: _NAME_MAX - 1] + "…"
    text = (f"There is no function named {name!r}; nothing was sent.{hint} "
            f"Call one of the {len(known)} functions you were given.")
    return Outcome(call=call, ok=False, text=text, kind="unknown")
