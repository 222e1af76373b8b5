"""The records of a checked tool call, and the one text a model reads to correct it.

An :class:`ArgumentError` says where (a pointer into the arguments object), what was expected
and what was received; a :class:`ValidationResult` holds them with the decoded arguments and
renders :meth:`ValidationResult.feedback`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

__all__ = ["ArgumentError", "ArgumentNote", "ValidationResult", "argument_error", "show"]

_SHOW_MAX = 80
"""Longest rendering of a received value in a message, in characters."""
_WHERE_MAX = 160
"""Longest place (an argument path) in a message, in characters; a longer one is cut."""
_FEEDBACK_MAX = 20
"""Most errors one feedback text lists; it counts the others. The model wrote every
name it is told about: 200,000 unknown arguments (2.7 MB) came back as 13 MB of
feedback, one line each, past any answer budget, and a 300,000-character name twice."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ArgumentError:
    """One thing wrong with a tool call's arguments.

    Attributes:
        pointer: where, in the arguments object, spelled like a ``$ref`` (``"#/body/labels/0"``;
            ``"#"`` is the arguments object itself).
        keyword: the JSON Schema keyword that failed (``"type"``, ``"enum"``, ``"required"`` ...),
            or ``"json"`` when the text is not JSON, ``"allowEmptyValue"`` and ``"path"`` for
            the OpenAPI parameter rules; ``"format"`` for a number outside its format's range,
            ``"required"`` for a required value that would send nothing.
        expected: what was expected, a short phrase (``'one of "metric", "imperial"'``).
        received: what was received, as short JSON text (``'"kelvin"'``), or ``"nothing"``.
        message: one line, ``"units: expected ...; received ..."``.
        schema_pointer: where the failing keyword lives in ``Function.schema``, or ``""``.

    Example:
        ``ArgumentError(pointer="#/days", keyword="type", expected="an integer",
        received='"three" (a string)', message='days: expected an integer; received ...')``
    """

    pointer: str
    keyword: str
    expected: str
    received: str
    message: str
    schema_pointer: str = ""

    def to_json(self) -> dict[str, str]:
        """The error as a JSON object."""
        return {
            "pointer": self.pointer,
            "keyword": self.keyword,
            "expected": self.expected,
            "received": self.received,
            "message": self.message,
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class ArgumentNote:
    """Something ``validate`` changed in a call it accepts (not an error).

    Attributes:
        pointer: where, in the arguments object (``"#/body/nickname"``).
        message: one line, ``"body/nickname: null for an optional value ...; left out"``.
    """

    pointer: str
    message: str

    def to_json(self) -> dict[str, str]:
        """The note as a JSON object."""
        return {"pointer": self.pointer, "message": self.message}


@dataclass(frozen=True, slots=True, kw_only=True)
class ValidationResult:
    """What :func:`httpllm.execute.validate` found in one tool call.

    Attributes:
        function: the function's name.
        errors: every problem found; empty when the call is valid.
        arguments: the decoded arguments (strict-mode rewrites undone, host arguments merged,
            ``null``s for optional values that do not allow ``null`` left out), or ``None``
            when the text was not a JSON object.
        notes: what was changed in the arguments (one :class:`ArgumentNote` per ``null``
            left out); a call with notes and no errors is valid.
    """

    function: str
    errors: tuple[ArgumentError, ...]
    arguments: dict[str, Any] | None
    notes: tuple[ArgumentNote, ...] = ()

    @property
    def ok(self) -> bool:
        """Whether the call may be sent: no errors and a decoded arguments object."""
        return not self.errors and self.arguments is not None

    def feedback(self) -> str:
        """One text a model can act on to correct its call; ``""`` when the call is valid.

        Example:
            ``Invalid arguments for getWeather; nothing was sent. Fix these and call
            getWeather again:`` then one line per error, ``- units: expected one of
            "metric", "imperial"; received "kelvin"``.
        """
        return "\n".join(self.feedback_lines())

    def feedback_lines(self) -> list[str]:
        """The lines of :meth:`feedback` (``[]`` when the call is valid): the command
        line prints each on one line, whatever the arguments' keys hold."""
        if self.ok:
            return []
        head = (
            f"Invalid arguments for {self.function}; nothing was sent. "
            f"Fix these and call {self.function} again:"
        )
        lines = [head, *(f"- {error.message}" for error in self.errors[:_FEEDBACK_MAX])]
        if len(self.errors) > _FEEDBACK_MAX:
            more = len(self.errors) - _FEEDBACK_MAX
            lines.append(f"- and {more:,} more error{'s' if more > 1 else ''} not listed here")
        return lines


def where(pointer: str) -> str:
    """A pointer as a model reads it: ``"#/body/tags/0"`` -> ``"body/tags/0"``."""
    label = pointer.removeprefix("#").removeprefix("/")
    if len(label) > _WHERE_MAX:  # the model's own names, echoed: never longer than this
        label = label[: _WHERE_MAX - 1] + "…"
    return label or "(the arguments object)"


def show(value: Any) -> str:
    """A value as short JSON text for a message, cut to ``_SHOW_MAX`` characters."""
    try:
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError):
        text = f"<{type(value).__name__}>"
    return text if len(text) <= _SHOW_MAX else text[: _SHOW_MAX - 1] + "…"


def argument_error(
    pointer: str, keyword: str, expected: str, received: str, schema_pointer: str = ""
) -> ArgumentError:
    """Make an :class:`ArgumentError` whose message is ``"<where>: expected X; received Y"``."""
    return ArgumentError(
        pointer=pointer,
        keyword=keyword,
        expected=expected,
        received=received,
        message=f"{where(pointer)}: expected {expected}; received {received}",
        schema_pointer=schema_pointer,
    )
