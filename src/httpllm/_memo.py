"""Results remembered per object identity, for the shared nodes of one compile."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any, Generic, TypeVar

__all__ = ["BoundedIdentityMemo", "IdentityMemo"]

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

    def __len__(self) -> int:
        return len(self._entries)


class BoundedIdentityMemo(IdentityMemo[_V]):
    """An :class:`IdentityMemo` of at most ``limit`` entries, the least recently used
    dropped first: for a memo that outlives compiles (``execute.validate``'s validators).
    Not locked: a memo shared by threads is guarded by its owner.

    A subclass rather than an option of :class:`IdentityMemo`: the check would cost the
    compile's memos 0.4 % of a compile's instructions (valgrind, GitHub's document).
    """

    __slots__ = ("_limit",)

    def __init__(self, limit: int) -> None:
        super().__init__()
        self._limit = limit

    def get(self, obj: Any, *extra: Hashable) -> _V | None:
        """The value stored for ``obj`` (and ``extra``), now the most recently used."""
        key = (id(obj), *extra) if extra else id(obj)
        hit = self._entries.get(key)
        if hit is None or hit[0] is not obj:
            return None
        self._entries[key] = self._entries.pop(key)  # last in order: most recent
        return hit[1]

    def put(self, obj: Any, value: _V, *extra: Hashable) -> _V:
        """Store and return ``value`` for ``obj`` (and ``extra``); past ``limit`` entries
        the least recently used goes."""
        entries, key = self._entries, (id(obj), *extra) if extra else id(obj)
        entries.pop(key, None)
        entries[key] = (obj, value)
        while len(entries) > self._limit:
            del entries[next(iter(entries))]
        return value
