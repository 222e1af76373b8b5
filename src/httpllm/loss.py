"""The loss report: what a dialect dropped, moved to a description or rewrote."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

__all__ = ["Action", "Loss"]

Action = Literal[
    "dropped",  # the keyword is gone; the provider never sees it
    "described",  # moved into the description text (e.g. ``@minimum 0``)
    "rewritten",  # expressed differently (const -> enum, map -> entries array, ...)
    "unrolled",  # a recursive $ref expanded to a fixed depth
    "cut",  # the deepest level of an unrolled recursion removed
    "truncated",  # a text cut to the provider's limit
    "fallback",  # the function left strict mode (or a similar mode) for this reason
    "renamed",  # a name changed to satisfy the provider's name rule
]


@dataclass(frozen=True, slots=True, kw_only=True)
class Loss:
    """One entry of the loss report.

    Attributes:
        pointer: where the original keyword lives in the document, spelled like a ``$ref``
            (``"#/components/schemas/Pet/properties/tag/maxLength"``); a pointer into the
            compiled parameters (``"parameters#/properties/..."``) when the node has no
            place in the document (e.g. the parameters object itself).
        keyword: the JSON Schema keyword (or ``"name"``, ``"description"`` ...) affected.
        action: what happened to it, see :data:`Action`.
        value: the original value (JSON), or ``None``.
        dialect: the provider dialect that made the change.
        note: a short human explanation.
    """

    pointer: str
    keyword: str
    action: Action
    value: Any = None
    dialect: str = ""
    note: str = ""

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
