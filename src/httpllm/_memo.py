"""Results remembered per object identity, for the shared nodes of one compile."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any, Generic, Protocol, TypeVar, runtime_checkable

__all__ = ["BoundedIdentityMemo", "HeldById", "IdentityCache", "IdentityMemo"]

_V = TypeVar("_V")


@runtime_checkable
class IdentityCache(Protocol[_V]):
    """The calls :class:`IdentityMemo` and :class:`BoundedIdentityMemo` share: what a
    function given either may use (their storage differs, so neither is the other's
    subclass)."""

    def get(self, obj: Any, *extra: Hashable) -> _V | None:
        """The value stored for ``obj`` (and ``extra``), or ``None``."""

    def put(self, obj: Any, value: _V, *extra: Hashable) -> _V:
        """Store and return ``value`` for ``obj`` (and ``extra``)."""

    def __len__(self) -> int:
        """The number of values stored."""


class HeldById(dict[int, _V]):
    """``id(object) -> value``, every object with a value held in ``held``: the one rule
    of a table by identity. An id cannot then be reused by another object while the table
    lives (a plain ``id()``-keyed dict can hand a freed node's result to a new one).

    Values by id and the objects in one list, not a ``(object, value)`` pair per entry: a
    compile's tables hold thousands of entries, and each pair was a container the cyclic
    collector counted (``IdentityMemo.put`` made 8,800 of the 93,000 objects an MCP
    compile of GitHub's description left to its young collections). A dict itself, so the
    walker's hottest loops (:func:`~httpllm.walk.fold`) read and write it with no call.

    ``held``: a list of its own, or one given to share (the tables of one
    :class:`IdentityMemo`, one list for all).
    """

    __slots__ = ("held",)

    def __init__(self, held: list[Any] | None = None) -> None:
        super().__init__()
        self.held: list[Any] = [] if held is None else held

    def keep(self, obj: Any, value: _V) -> _V:
        """Store and return ``value`` for ``obj``, holding ``obj`` (once per table)."""
        if id(obj) not in self:
            self.held.append(obj)
        self[id(obj)] = value
        return value


class IdentityMemo(Generic[_V]):
    """``(object, *extra) -> value``, keyed by the object's identity.

    One :class:`HeldById` per ``extra`` (the calls without it have their own), all
    holding their objects in one list: a compile's extras are many (an argument's name
    and reference), and a list per extra would be a container each.
    """

    __slots__ = ("_by_extra", "_values")

    def __init__(self) -> None:
        self._values: HeldById[_V] = HeldById()  # for calls without ``extra``
        self._by_extra: dict[tuple[Hashable, ...], HeldById[_V]] = {}

    def get(self, obj: Any, *extra: Hashable) -> _V | None:
        """The value stored for ``obj`` (and ``extra``), or ``None``."""
        if not extra:
            return self._values.get(id(obj))
        values = self._by_extra.get(extra)
        return None if values is None else values.get(id(obj))

    def put(self, obj: Any, value: _V, *extra: Hashable) -> _V:
        """Store and return ``value`` for ``obj`` (and ``extra``)."""
        if not extra:
            return self._values.keep(obj, value)
        values = self._by_extra.get(extra)
        if values is None:
            values = self._by_extra[extra] = HeldById(self._values.held)
        return values.keep(obj, value)

    def __len__(self) -> int:
        return len(self._values) + sum(map(len, self._by_extra.values()))


class BoundedIdentityMemo(Generic[_V]):
    """:class:`IdentityMemo`'s calls (an :class:`IdentityCache`) for at most ``limit``
    entries, the least recently used dropped first: for a memo that outlives compiles
    (``execute.validate``'s validators). Not locked: a memo shared by threads is guarded by
    its owner.

    Its own class rather than an option of :class:`IdentityMemo`: the check would cost the
    compile's memos 0.4 % of a compile's instructions (valgrind, GitHub's document); and an
    entry that can be dropped holds its own object (a ``(object, value)`` pair), where
    :class:`HeldById` holds them all in one list.
    """

    __slots__ = ("_entries", "_limit")

    def __init__(self, limit: int) -> None:
        self._entries: dict[Hashable, tuple[Any, _V]] = {}  # id, or (id, *extra)
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

    def __len__(self) -> int:
        return len(self._entries)
