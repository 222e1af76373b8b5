"""An HTTP answer (:class:`httpllm.execute.Result`) -> the ``CallToolResult`` a model reads.

- 2xx JSON with an ``outputSchema`` listed: ``structuredContent`` (wrapped as
  ``{"result": ...}`` when the schema was) plus the same JSON as text;
- 2xx JSON that does not match the listed schema (or no JSON where one is listed):
  ``isError`` naming the mismatch, with the answer as text; MCP clients reject
  ``structuredContent`` that does not match (and a success without it), which would lose
  the answer;
- other 2xx JSON or text: one text block; an image: an image block (within budget); other
  binary: a text block naming its type and size;
- non-2xx: ``isError`` with ``HTTP <status> <reason>`` and the body.

Every text is cut to the budget (:mod:`httpllm.cut`) with a note saying how much was
left out and how to ask for less, and every credential the call used is replaced by
``[redacted]`` (an upstream that echoes its request must not hand a secret to the model).

Source: MCP 2025-11-25 ``server/tools`` (structured content, output schema, error handling).
"""

from __future__ import annotations

import base64
import threading
from http import HTTPStatus
from typing import Any

import jsonschema_rs

from httpllm.cut import cut_json, cut_text, dumps, narrowing, note
from httpllm.dialects.mcp import RESULT, output_schema
from httpllm.execute import Result
from httpllm.execute.body import is_json
from httpllm.execute.security import REDACTED, redact
from httpllm.records import Function

__all__ = ["REDACTED", "Answers", "failure"]

_TEXTUAL = ("text/", "application/xml", "application/javascript", "application/yaml",
            "application/x-www-form-urlencoded", "application/x-ndjson")


def failure(text: str) -> dict[str, Any]:
    """An ``isError`` result with one text block."""
    return {"content": [{"type": "text", "text": text}], "isError": True}


def _scrub_value(value: Any, secrets: tuple[str, ...]) -> Any:
    """A copy of a JSON value with secrets redacted in every string (iterative)."""
    holder: list[Any] = [None]
    stack: list[tuple[Any, Any, Any]] = [(value, holder, 0)]
    while stack:
        node, parent, key = stack.pop()
        if isinstance(node, dict):
            new: Any = {}
            for k, v in node.items():
                new[redact(k, secrets)] = None
                stack.append((v, new, redact(k, secrets)))
        elif isinstance(node, list):
            new = [None] * len(node)
            stack.extend((v, new, i) for i, v in enumerate(node))
        else:
            new = redact(node, secrets) if isinstance(node, str) else node
        parent[key] = new
    return holder[0]


class Answers:
    """Turns results into ``CallToolResult`` objects for one server.

    Args:
        budget: most characters of answer text a model reads (longer answers are cut).
        structured: whether tools list their ``outputSchema`` (answers then carry
            ``structuredContent``); without, every answer is text.
    """

    def __init__(self, budget: int, *, structured: bool = True) -> None:
        self.budget = budget
        self.structured = structured
        self._checks: dict[str, tuple[dict[str, Any], bool, Any]] = {}
        self._lock = threading.Lock()

    def __call__(self, function: Function, result: Result,
                 secrets: tuple[str, ...] = ()) -> dict[str, Any]:
        """The ``CallToolResult`` (as JSON) of one HTTP answer."""
        ctype = result.headers.get("content-type", "")
        if not result.ok:
            return self._error(function, result, ctype, secrets)
        try:
            if result.content and is_json(ctype) and not isinstance(result.body, str):
                return self._json(function, result.body, secrets)
            if self._output(function) is not None:
                return self._json(function, result.body if result.content else None,
                                  secrets)
        except RecursionError:  # nested past what json.dumps can write back
            return self._text(function, result.content.decode("utf-8", "replace"), secrets)
        if result.content and not ctype.lower().startswith(_TEXTUAL) and ctype:
            return self._binary(result, ctype)
        return self._text(function, result.body or (
            f"{function.method.upper()} {function.path} answered HTTP "
            f"{_status(result.status)} with no body."), secrets)

    def _error(self, function: Function, result: Result, ctype: str,
               secrets: tuple[str, ...]) -> dict[str, Any]:
        body = result.body if isinstance(result.body, str) else dumps(result.body)
        if result.content and ctype and not ctype.lower().startswith(_TEXTUAL) and \
                not is_json(ctype):
            body = f"({ctype}, {len(result.content):,} bytes)"
        cut = cut_text(body, self.budget)
        head = (f"{function.method.upper()} {function.path} answered HTTP "
                f"{_status(result.status)}" + (":" if cut.text else " with no body."))
        blocks = [head, cut.text] if cut.text else [head]
        if cut.cut:
            blocks.append(note(cut, self.budget, function.name, narrowing(function)))
        return failure(redact("\n".join(blocks), secrets))

    def _json(self, function: Function, body: Any, secrets: tuple[str, ...]) -> dict[str, Any]:
        cut = cut_json(body, self.budget)
        text = redact(cut.text, secrets)
        blocks: list[dict[str, Any]] = [{"type": "text", "text": text}]
        if cut.cut:
            blocks.append({"type": "text", "text": note(cut, self.budget, function.name,
                                                         narrowing(function))})
        if self._output(function) is None:
            return {"content": blocks}
        value = cut.value if text == cut.text else _scrub_value(cut.value, secrets)
        _, wrapped, validator = self._check(function)
        structured = {RESULT: value} if wrapped else value
        problem = None if cut.value is not None or body is None else \
            "the answer was cut as text, so it is no longer JSON"
        if problem is None:
            problem = _mismatch(validator, structured)
        if problem is not None:
            said = "no content" if body is None else "an answer"
            blocks.insert(0, {"type": "text", "text": (
                f"{function.method.upper()} {function.path} succeeded with {said} that does "
                f"not match its documented response schema ({problem}); the answer as it "
                "came is below.")})
            return {"content": blocks, "isError": True}
        return {"content": blocks, "structuredContent": structured}

    def _output(self, function: Function) -> Any:
        """The function's listed output schema, or ``None``."""
        return function.output if self.structured else None

    def _check(self, function: Function) -> tuple[dict[str, Any], bool, Any]:
        """The listed output schema, whether it wraps, and its validator (per tool)."""
        with self._lock:
            hit = self._checks.get(function.name)
        if hit is None:
            assert function.output is not None
            schema, wrapped = output_schema(function.output)
            try:
                validator: Any = jsonschema_rs.Draft202012Validator(schema)
            except (ValueError, jsonschema_rs.ValidationError):
                validator = None  # a schema the checker cannot compile: clients judge it
            hit = (schema, wrapped, validator)
            with self._lock:
                self._checks[function.name] = hit
        return hit

    def _binary(self, result: Result, ctype: str) -> dict[str, Any]:
        media = ctype.split(";", 1)[0].strip().lower()
        data = base64.b64encode(result.content).decode("ascii")
        if media.startswith("image/") and len(data) <= self.budget:
            return {"content": [{"type": "image", "data": data, "mimeType": media}]}
        return {"content": [{"type": "text", "text": (
            f"A binary answer ({media}, {len(result.content):,} bytes), not shown.")}]}

    def _text(self, function: Function, body: str, secrets: tuple[str, ...]) -> dict[str, Any]:
        cut = cut_text(body, self.budget)
        blocks = [{"type": "text", "text": redact(cut.text, secrets)}]
        if cut.cut:
            blocks.append({"type": "text", "text": note(cut, self.budget, function.name,
                                                         narrowing(function))})
        return {"content": blocks}


def _mismatch(validator: Any, instance: Any) -> str | None:
    """The first way ``instance`` fails the schema, as ``at /path: message``, or ``None``."""
    if validator is None:
        return None
    try:
        error = next(iter(validator.iter_errors(instance)), None)
    except (ValueError, TypeError) as exc:
        return str(exc).splitlines()[0]
    if error is None:
        return None
    where = "/".join(str(p) for p in error.instance_path) or "(root)"
    return f"at {where}: {error.message.splitlines()[0][:200]}"


def _status(code: int) -> str:
    try:
        return f"{code} {HTTPStatus(code).phrase}"
    except ValueError:
        return str(code)
