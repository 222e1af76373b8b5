"""What an upgrade keeps besides the new document: where each moved node came from, the
notes (what could not be carried) and how often each rule applied."""

from __future__ import annotations

import collections
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from httpllm.pointer import escape

__all__ = ["Note", "PointerMap", "Tally", "rewrite"]


@dataclass(frozen=True, slots=True)
class Note:
    """Something the upgrade could not carry, at its *original* pointer."""

    pointer: str
    message: str


@dataclass(slots=True)
class PointerMap:
    """New pointer prefixes -> the original ones, per file label (``""`` = the root file).

    ``sections`` apply in every file (``/components/schemas`` -> ``/definitions``);
    ``moved`` holds the moves of single nodes (a parameter's ``schema`` -> the parameter).
    The longest matching prefix wins, at a token boundary.

    >>> m = PointerMap(sections={"/components/schemas": "/definitions"})
    >>> m.original("#/components/schemas/Pet/properties/id")
    '#/definitions/Pet/properties/id'
    """

    sections: dict[str, str] = field(default_factory=dict)
    moved: dict[str, dict[str, str]] = field(default_factory=dict)

    def move(self, file: str, new: str, old: str) -> None:
        """Record that the node now at ``file#new`` was at ``file#old``."""
        if new != old:
            self.moved.setdefault(file, {})[new] = old

    def original(self, pointer: str) -> str:
        """The original pointer of a pointer into the upgraded document (unchanged when
        nothing moved there): ``"#/..."`` or ``"file.json#/..."``."""
        file, sep, fragment = pointer.partition("#")
        if not sep:
            return pointer
        for table in (self.moved.get(file, {}), self.sections):  # a move, then its section
            fragment = _longest(table, fragment)
        return f"{file}#{fragment}"

    def __bool__(self) -> bool:
        return bool(self.sections or self.moved)


def _longest(table: dict[str, str], fragment: str) -> str:
    """``fragment`` with its longest prefix found in ``table`` replaced."""
    prefix = fragment
    while prefix:
        if prefix in table:
            return table[prefix] + fragment[len(prefix):]
        prefix = prefix.rpartition("/")[0]
    return fragment


class Tally(collections.Counter[str]):
    """How often each conversion rule applied (rule name -> count)."""


_SKIP = frozenset({"example", "examples", "x-example", "x-examples", "x-ms-examples", "default",
                   "enum", "const"})
"""Keys whose values are data, not document nodes: never rewritten (except as names in a
map of names, such as a property called ``default``)."""
_NAMES = frozenset({"properties", "definitions", "schemas", "parameters", "responses",
                    "headers", "patternProperties", "securityDefinitions", "paths"})


def rewrite(tree: Any, visit: Callable[[dict[str, Any], str], dict[str, Any]],
            at: str = "") -> Any:
    """Apply ``visit(node, pointer)`` to every object of ``tree``, children first, copying on
    write: the result shares every unchanged subtree (and is ``tree`` itself when nothing
    changed). Iterative; a node met again (YAML alias) is rewritten once; data values
    (``example``, ``default``, ``enum`` ...) are left alone.
    """
    done: dict[int, Any] = {}  # per walk; an IdentityMemo measured slower (architecture.md)
    entered: set[int] = set()
    stack: list[tuple[Any, str, bool]] = [(tree, at, False)]
    while stack:
        node, pointer, ready = stack.pop()
        names = pointer.rpartition("/")[2] in _NAMES
        if id(node) in done or not isinstance(node, (dict, list)):
            continue
        if not ready:
            if id(node) in entered:
                continue  # a node inside itself (recursive YAML alias): left as it is
            entered.add(id(node))
            stack.append((node, pointer, True))
            items = node.items() if isinstance(node, dict) else enumerate(node)
            stack.extend((child, f"{pointer}/{escape(key)}", False) for key, child in items
                         if isinstance(child, (dict, list)) and (names or key not in _SKIP))
            continue
        done[id(node)] = _rebuilt(node, pointer, done, visit, names)
    return done.get(id(tree), tree)


def _rebuilt(node: Any, pointer: str, done: dict[int, Any],
             visit: Callable[[dict[str, Any], str], dict[str, Any]], names: bool) -> Any:
    if isinstance(node, list):
        items = [done.get(id(v), v) for v in node]
        return items if any(a is not b for a, b in zip(items, node, strict=True)) else node
    new = {k: (v if k in _SKIP and not names else done.get(id(v), v)) for k, v in node.items()}
    changed = any(new[k] is not v for k, v in node.items())
    return visit(new if changed else node, pointer)
