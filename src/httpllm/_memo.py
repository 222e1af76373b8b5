"""Results remembered per object identity, for the shared nodes of one compile."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any, Generic, TypeVar

__all__ = ["IdentityMemo"]

_V = TypeVar("_V")


class IdentityMemo(Generic[_V]):
    """``(object, *extra) -> value``, keyed by the object's identity.

    Each entry holds its object, so the id cannot be reused by another object while the
    memo lives (a plain ``id()``-keyed dict can hand a freed node's result to a new one).
    """

    __slots__ = ("_entries",)

    def __init__(self) -> None:
        self._entries: dict[Hashable, tuple[Any, _V]] = {}  # id, or (id, *extra)

    def get(self, obj: Any, *extra: Hashable) -> _V | None:
        """The value stored for ``obj`` (and ``extra``), or ``None``."""
        hit = self._entries.get((id(obj), *extra) if extra else id(obj))
        return hit[1] if hit is not None and hit[0] is obj else None

    def put(self, obj: Any, value: _V, *extra: Hashable) -> _V:
        """Store and return ``value`` for ``obj`` (and ``extra``)."""
        self._entries[(id(obj), *extra) if extra else id(obj)] = (obj, value)
        return value
