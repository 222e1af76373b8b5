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

    Args:
        limit: most entries kept, the least recently used dropped first (a memo that
            outlives compiles, such as ``execute.validate``'s validators); ``None``: every
            entry is kept (the memos of one compile). Not locked: a memo shared by threads
            is guarded by its owner.
    """

    __slots__ = ("_entries", "_limit")

    def __init__(self, limit: int | None = None) -> None:
        self._entries: dict[Hashable, tuple[Any, _V]] = {}  # id, or (id, *extra)
        self._limit = limit

    def get(self, obj: Any, *extra: Hashable) -> _V | None:
        """The value stored for ``obj`` (and ``extra``), or ``None``."""
        key = (id(obj), *extra) if extra else id(obj)
        hit = self._entries.get(key)
        if hit is None or hit[0] is not obj:
            return None
        if self._limit is not None:  # now the most recently used: last in order
            del self._entries[key]
            self._entries[key] = hit
        return hit[1]

    def put(self, obj: Any, value: _V, *extra: Hashable) -> _V:
        """Store and return ``value`` for ``obj`` (and ``extra``)."""
        key = (id(obj), *extra) if extra else id(obj)
        entries = self._entries
        entries[key] = (obj, value)
        if self._limit is not None:
            entries[key] = entries.pop(key)  # last in order
            while len(entries) > self._limit:
                del entries[next(iter(entries))]
        return value

    def __len__(self) -> int:
        return len(self._entries)
