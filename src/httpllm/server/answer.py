"""An HTTP answer (:class:`httpllm.execute.Result`) -> the ``CallToolResult`` a model reads.

Every answer first goes through :func:`httpllm.execute.answer.fit`: each credential of the
call masked in every encoding, *then* cut to the budget, with a note (its own text block,
so the answer block stays valid JSON) saying what was left out and how to ask for less.

- 2xx JSON with an ``outputSchema`` listed: ``structuredContent`` (wrapped as
  ``{"result": ...}`` when the schema was) plus the same JSON as text, when it passes the
  schema as the strictest client checks it (:mod:`.contract`: Ajv with ajv-formats, formats
  asserted); an answer that fails it, or that a cut made no longer JSON, is ``isError`` with
  a first block leading with the reason and the answer as it came (an MCP client refuses
  ``structuredContent`` off the schema, and a success without it: a protocol error would
  lose the answer);
- 2xx text: one text block; with a listed schema that wraps a string
  (``{"result": string}``), also its ``structuredContent``; an empty body is an empty
  answer (``""``), not an error;
- 2xx binary (``image/*``, ``audio/*``, anything else), whatever its schema says: an
  image, audio or embedded-resource block, read whole (a body cut at the byte limit, or
  holding a credential, is described instead);
- non-2xx: ``isError`` with ``HTTP <status> <reason>`` and the body.

Source: MCP 2025-11-25 ``server/tools`` (structured content, output schema, error handling,
image, audio and embedded-resource content).
"""

from __future__ import annotations

import base64
import threading
from collections.abc import Callable, Mapping
from http import HTTPStatus
from typing import Any

from httpllm._media import is_json
from httpllm.cut import narrowing
from httpllm.dialects.mcp import RESULT, output_schema
from httpllm.execute import Result
from httpllm.execute.answer import Fitted, fit
from httpllm.execute.security import REDACTED
from httpllm.records import Function
from httpllm.server.contract import Checker, checker
from httpllm.server.tools import lists_output

__all__ = ["REDACTED", "Answers", "failure"]


def failure(text: str) -> dict[str, Any]:
    """An ``isError`` result with one text block."""
    return {"content": [{"type": "text", "text": text}], "isError": True}


Listed = Callable[[str], "Mapping[str, Any] | None"]
"""``listed(tool name) -> the outputSchema the server lists for it`` (or ``None``)."""


class Answers:
    """Turns results into ``CallToolResult`` objects for one server.

    Args:
        budget: most characters of answer text a model reads (longer answers are cut).
        structured: whether tools list their ``outputSchema`` (answers then carry
            ``structuredContent``); without, every answer is text.
        listed: the ``outputSchema`` the server lists for a tool, when it is not the one
            the ``mcp`` dialect makes of the function's output (answers are checked
            against what clients were given).
    """

    def __init__(self, budget: int, *, structured: bool = True,
                 listed: Listed | None = None) -> None:
        self.budget = budget
        self.structured = structured
        self.listed = listed
        self._checks: dict[str, tuple[bool, Checker | None]] = {}
        self._lock = threading.Lock()

    def __call__(self, function: Function, result: Result,
                 secrets: tuple[str, ...] = ()) -> dict[str, Any]:
        """The ``CallToolResult`` (as JSON) of one HTTP answer, credentials masked."""
        fitted = fit(result, secrets=secrets, budget=self.budget, tool=function.name,
                     narrowing=narrowing(function))
        if not result.ok:
            return self._error(function, result, fitted)
        if fitted.kind == "binary":
            return _binary(function, fitted)
        blocks = [{"type": "text", "text": fitted.text}]
        if fitted.note:
            blocks.append({"type": "text", "text": fitted.note})
        check = self._check(function)
        if check is None:
            return {"content": blocks}
        return self._structured(function, result, fitted, blocks, *check)

    def _structured(self, function: Function, result: Result, fitted: Fitted,
                    blocks: list[dict[str, Any]], wrapped: bool,
                    check: Checker | None) -> dict[str, Any]:
        structured: Any = None
        problem: str | None = None
        if fitted.kind == "json" and fitted.has_value:  # a JSON null is a value too
            structured = {RESULT: fitted.value} if wrapped else fitted.value
        elif fitted.kind in ("text", "empty") and wrapped:
            structured = {RESULT: fitted.text}  # a text answer to a string schema
        elif fitted.kind == "json":
            problem = "the answer was cut as text, so it is no longer JSON"
        elif fitted.kind == "text" and is_json(fitted.media_type):
            problem = ("it does not read as JSON (not JSON text, or a number no double "
                       "holds: 1e400, NaN)")
        else:
            problem = f"it is {'empty' if fitted.kind == 'empty' else 'text'}"
        if problem is None and check is not None:
            problem = check(structured)
        elif problem is None and not wrapped and not isinstance(structured, dict):
            problem = "it is not an object"  # structuredContent is one (MCP)
        if problem is None:
            return {"content": blocks, "structuredContent": structured}
        said = "no content" if fitted.kind == "empty" else "an answer"
        lead = (f"Mismatch: {problem}. {function.method.upper()} {function.path} answered "
                f"HTTP {_status(result.status)} with {said} that does not match its "
                "documented response schema, so it comes as plain data; the answer as it "
                "came is below.")
        if fitted.kind == "empty":
            blocks = []
        return {"content": [{"type": "text", "text": lead}, *blocks], "isError": True}

    def _error(self, function: Function, result: Result, fitted: Fitted) -> dict[str, Any]:
        moved = f" (Location: {fitted.location})" if fitted.location else ""
        head = (f"{function.method.upper()} {function.path} answered HTTP "
                f"{_status(result.status)}{moved}")
        if not fitted.text:
            return failure(f"{head} with no body.")
        blocks = [{"type": "text", "text": f"{head}:\n{fitted.text}"}]
        if fitted.note:
            blocks.append({"type": "text", "text": fitted.note})
        return {"content": blocks, "isError": True}

    def _check(self, function: Function) -> tuple[bool, Checker | None] | None:
        """``(whether the listed schema wraps, its check)`` for a tool listing an
        ``outputSchema``, else ``None``."""
        if not self.structured:
            return None
        with self._lock:
            hit = self._checks.get(function.name)
        if hit is None:
            if function.output is None or not lists_output(function):
                return None
            schema, wrapped = output_schema(function.output)
            given = self.listed(function.name) if self.listed is not None else None
            hit = (wrapped, checker(dict(given if given is not None else schema)))
            with self._lock:
                self._checks[function.name] = hit
        return hit


def _binary(function: Function, fitted: Fitted) -> dict[str, Any]:
    """An image, audio or embedded-resource block of a binary answer read whole; else the
    sentence describing it (cut at the byte limit, or holding a credential)."""
    if not fitted.data:
        blocks = [{"type": "text", "text": fitted.text}]
        if fitted.note:
            blocks.append({"type": "text", "text": fitted.note})
        return {"content": blocks}
    data = base64.b64encode(fitted.data).decode("ascii")
    media = fitted.media_type
    kind = media.split("/", 1)[0]
    if kind in ("image", "audio"):
        return {"content": [{"type": kind, "data": data, "mimeType": media}]}
    uri = f"httpllm://answer/{function.name}"
    return {"content": [{"type": "resource", "resource": {
        "uri": uri, "mimeType": media, "blob": data}}, {"type": "text", "text": fitted.text}]}


def _status(code: int) -> str:
    try:
        return f"{code} {HTTPStatus(code).phrase}"
    except ValueError:
        return str(code)
