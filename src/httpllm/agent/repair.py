"""Repair the usual slips in a model's arguments, when the repair is unambiguous.

Three repairs, each of which has exactly one reading:

- ``fence``: the whole text is one Markdown code fence (```` ```json ... ``` ````): its
  content is the JSON;
- ``trailing comma``: a comma right before ``}`` or ``]`` (outside strings) is dropped;
- ``stringified``: a string where the *original* schema wants an object or an array (and
  the validator said so: a ``type`` error at that place), whose text is a JSON object or
  array of that type, is replaced by the parsed value; the whole arguments object sent as
  a JSON string is read the same way.

Anything else (a truncated object, a missing comma, single quotes, prose around the
JSON) is not guessed: the call is rejected with the validator's feedback. A general
repairer cannot be held to that: json-repair 0.64.6 completes the truncated
``{"a": 1, "b": {"c": 2`` to ``{"a": 1, "b": {"c": 2}}``, reads ``{"a": 1,, "b": 2}`` as
``{"a": "1,", "b": 2}`` and ``{'a': 'don't'}`` as ``{"a": "don't'"}``, each with an empty
repair log (so its log cannot tell a repair from a guess) and with ``strict=True`` alike,
and it keeps ``NaN``. Each repair here is named in the result the model reads.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from httpllm import pointer
from httpllm.execute.decode import loads, resolve
from httpllm.execute.feedback import ArgumentError, where
from httpllm.records import Function

__all__ = ["Repaired", "repair_text", "repair_values"]

_INFO = re.compile(r"[A-Za-z0-9_-]*[ \t]*\r?")
"""A fence's opening line after its three backticks: a language name, then blanks."""
_CONTAINERS: dict[type, str] = {dict: "object", list: "array"}


@dataclass(frozen=True, slots=True)
class Repaired:
    """Arguments after repair and what was done.

    Attributes:
        arguments: the arguments to send: a parsed mapping, or the original text when it
            is not JSON even after repair (validation then reports it).
        notes: one phrase per repair, for the model (``"removed a trailing comma"``).
    """

    arguments: Any
    notes: tuple[str, ...] = ()


def repair_text(arguments: Any) -> Repaired:
    """Parse a call's arguments, repairing a code fence, trailing commas and a
    double-encoded arguments object; anything else is left for validation to report.

    >>> repair_text('{"a": [1, 2,],}')
    Repaired(arguments={'a': [1, 2]}, notes=('removed a trailing comma',))
    """
    if arguments is None:  # Gemini leaves out the args of a call without arguments
        return Repaired({})
    if isinstance(arguments, (bytes, bytearray)):
        try:
            arguments = bytes(arguments).decode("utf-8")
        except UnicodeDecodeError:
            return Repaired(arguments)
    if not isinstance(arguments, str):
        return Repaired(arguments)
    if not arguments.strip():
        return Repaired({})
    notes: list[str] = []
    text = arguments
    value = _json(text)
    if value is _FAIL:
        fenced = _unfenced(text)
        if fenced is not None:
            text = fenced
            notes.append("removed a Markdown code fence")
            value = _json(text)
    if value is _FAIL:
        cleaned = _drop_trailing_commas(text)
        if cleaned != text:
            notes.append("removed a trailing comma")
            value = _json(cleaned)
    if isinstance(value, str) and isinstance(_json(value), dict):
        value = _json(value)
        notes.append("decoded the arguments object sent as a JSON string")
    if not isinstance(value, dict):
        return Repaired(arguments)
    return Repaired(value, tuple(notes))


_FAIL: Any = object()


def _unfenced(text: str) -> str | None:
    """The content of ``text`` when all of it is one Markdown code fence (blanks around
    it; ```` ```lang ```` on the first line, ```` ``` ```` closing the last), else ``None``.

    Read by position, in time linear in the text: the expression it replaces,
    ``\\A\\s*```...\\n(.*?)\\r?\\n?[ \\t]*```\\s*\\Z``, tried the blanks after each
    character of a fence left open (```` ```\\n ```` and 32,000 spaces: 0.6 s; 128,000:
    10 s), on arguments a model writes (one an injected page steers).
    """
    body = text.strip()
    if not (body.startswith("```") and body.endswith("```")):
        return None
    info, newline, rest = body[3:].partition("\n")
    if not newline or _INFO.fullmatch(info) is None:
        return None
    content = rest[:-3].rstrip(" \t")  # the closing fence's own line may be indented
    content = content.removesuffix("\n")
    return content.removesuffix("\r")


def _json(text: str) -> Any:
    try:
        return loads(text)
    except ValueError:
        return _FAIL


def _drop_trailing_commas(text: str) -> str:
    """``text`` without the commas that stand right before ``}`` or ``]`` outside strings."""
    out: list[str] = []
    in_string = escaped = False
    pending = -1  # index in out of a comma that may be trailing
    for char in text:
        if in_string:
            escaped, in_string = (False, True) if escaped else (char == "\\", char != '"')
        elif char == '"':
            in_string, pending = True, -1
        elif char in "}]" and pending >= 0:
            del out[pending]
            pending = -1
        elif char == ",":
            pending = len(out)
        elif not char.isspace():
            pending = -1
        out.append(char)
    return "".join(out)


def repair_values(
    function: Function, arguments: Mapping[str, Any], errors: Sequence[ArgumentError]
) -> Repaired | None:
    """Decode the strings the validator found where the schema wants an object or array.

    Only ``type`` errors whose schema location types the value as ``object`` or
    ``array`` (and not ``string``) and whose string is the JSON text of such a value are
    repaired; ``None`` when there is none.
    """
    fixes: dict[str, Any] = {}
    for error in errors:
        if error.keyword != "type" or not error.schema_pointer:
            continue
        value = pointer.get(arguments, pointer.split(error.pointer))
        wanted = _wanted(function, error.schema_pointer)
        if isinstance(value, str) and wanted:
            parsed = _json(value)
            if _CONTAINERS.get(type(parsed)) in wanted:
                fixes[error.pointer] = parsed
    if not fixes:
        return None
    repaired: Any = arguments
    for at, parsed in fixes.items():
        repaired = pointer.replace(repaired, pointer.split(at), parsed)
    notes = tuple(f"decoded {where(at)} from JSON text" for at in fixes)
    return Repaired(repaired, notes)


def _wanted(function: Function, schema_pointer: str) -> set[str]:
    """The container types the failing ``type`` keyword asks for; empty when it also
    accepts a string (then the string was not the slip)."""
    declared = _schema_at(function.schema, schema_pointer)
    types = {declared} if isinstance(declared, str) else set(declared or ())
    return set() if "string" in types else types & {"object", "array"}


def _schema_at(root: Any, schema_pointer: str) -> Any:
    """The node at a validator's schema path, following the ``$ref`` steps it took."""
    node = root
    for token in pointer.split(schema_pointer):
        if token == "$ref" and isinstance(node, dict) and isinstance(node.get("$ref"), str):
            node = resolve(node["$ref"], root)
        elif isinstance(node, dict):
            node = node.get(token)
        elif isinstance(node, list) and (at := pointer.index(token)) is not None and at < len(
                node):
            node = node[at]
        else:
            return None
    return node


