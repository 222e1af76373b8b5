"""The loss report: what a dialect dropped, moved to a description or rewrote; and the
failures: nodes a dialect could not express at all."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal

__all__ = ["Action", "Failure", "Loss", "Undo", "distinct"]

Action = Literal[
    "dropped",  # the keyword is gone; the provider never sees it
    "described",  # moved into the description text (e.g. ``@minimum 0``)
    "rewritten",  # expressed differently (const -> enum, map -> entries array, ...)
    "unrolled",  # a recursive $ref expanded to a fixed depth
    "cut",  # the deepest level of an unrolled recursion removed
    "truncated",  # a text cut to the provider's limit
    "fallback",  # the function left strict mode (or a similar mode) for this reason
    "renamed",  # a name changed to satisfy the provider's name rule (argument, operationId)
]

Undo = Literal[
    "",  # nothing the way back reads
    "enum-as-text",  # enum values sent as their JSON text (Gemini), read back as the values
    "null-marker",  # {"null": true} offered for a real null (strict OpenAI), read back as null
]
"""What a rewrite asks the way back to undo: the one thing ``execute.decode`` reads of a
loss, as data (its ``note`` says it for people, in words that may change)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Loss:
    """One entry of the loss report.

    Attributes:
        pointer: where the original keyword lives in the document, spelled like a ``$ref``
            (``"#/components/schemas/Pet/properties/tag/maxLength"``; another file of the
            document: ``"pets.yaml#/Pet/..."``); a pointer into the compiled parameters as
            the dialect's rules found them (``"parameters#/properties/..."``,
            ``"parameters#/required"``) when the node has no place in the document (e.g.
            the parameters object itself); ``"parameters#"``: the whole parameters object.
            docs/compile.md lists the forms.
        keyword: the JSON Schema keyword (or ``"name"``, ``"description"`` ...) affected.
        action: what happened to it, see :data:`Action`.
        value: the original value (JSON), or ``None``.
        dialect: the provider dialect that made the change.
        note: a short human explanation.
        undo: what ``execute.decode`` undoes of this rewrite on every call (:data:`Undo`;
            ``""``: nothing). Not part of :meth:`to_json`, whose ``note`` says it.
    """

    pointer: str
    keyword: str
    action: Action
    value: Any = None
    dialect: str = ""
    note: str = ""
    undo: Undo = ""

    def to_json(self) -> dict[str, Any]:
        """The entry as a JSON object."""
        out: dict[str, Any] = {
            "pointer": self.pointer,
            "keyword": self.keyword,
            "action": self.action,
            "dialect": self.dialect,
        }
        if self.value is not None:
            out["value"] = self.value
        if self.note:
            out["note"] = self.note
        return out


@dataclass(frozen=True, slots=True, kw_only=True)
class Failure:
    """A node the dialect cannot express: never an entry of the loss report, but the
    reason a function leaves strict mode (the ``fallback`` loss quotes :attr:`message`)
    or, outside strict mode, is an :class:`~httpllm.errors.Unrepresentable` error.

    Attributes:
        pointer: the node, spelled as a :class:`Loss` pointer (a document pointer, or
            ``"parameters#..."`` for the compiled parameters).
        reason: what cannot be expressed (``"allOf with $ref is not supported in strict
            mode"``).
        argument: the argument whose schema holds the node, once known, or ``None``.
    """

    pointer: str
    reason: str
    argument: str | None = None

    @property
    def message(self) -> str:
        """``"{pointer}: {reason}"``, then ``" (argument {name})"`` when it is known.

        >>> Failure(pointer="#/x", reason="no strict form", argument="body").message
        '#/x: no strict form (argument body)'
        """
        text = f"{self.pointer}: {self.reason}"
        return text if self.argument is None else f"{text} (argument {self.argument})"


def distinct(losses: Iterable[Loss]) -> tuple[Loss, ...]:
    """``losses`` without repeated entries, in first-seen order.

    A named schema reached along several paths of one function (Elastic's ``Duration`` in
    a dozen properties of one request body) yields the same entry once per path; the report
    lists it once per function. Entries are the same when every field is: the value is
    compared, not hashed (it may be a dict).
    """
    seen: dict[tuple[str, str, str, str, str, str], list[Any]] = {}
    out: list[Loss] = []
    for loss in losses:
        values = seen.setdefault((loss.pointer, loss.keyword, loss.action, loss.dialect,
                                  loss.note, loss.undo), [])
        if any(v is loss.value or v == loss.value for v in values):
            continue
        values.append(loss.value)
        out.append(loss)
    return tuple(out)
