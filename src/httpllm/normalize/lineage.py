"""Discriminator lineage of one document's named schemas: who extends whom, who lists whom.

Answered from the document nodes (never from emended forms), each question memoized:
which named schemas a schema extends through its root ``allOf``, which it lists as
variants, and the subtypes of an inheritance-style parent (OpenAPI 3.1 section 4.8.25,
"Models with Polymorphism Support").
"""

from __future__ import annotations

from typing import Any

from httpllm._json import scalar_text
from httpllm.normalize.naming import SchemaNames
from httpllm.pointer import unescape

__all__ = ["Lineage"]


class Lineage:
    """Inheritance and variants among the named schemas ``names`` knows."""

    __slots__ = ("_children", "_lineages", "_variant_names", "names")

    def __init__(self, names: SchemaNames) -> None:
        self.names = names
        self._variant_names: dict[str, frozenset[str]] = {}
        self._lineages: dict[str, frozenset[str]] = {}
        self._children: dict[str, list[str]] | None = None

    def inherits(self, child: str, parent: str) -> bool:
        """Whether ``parent``, or a schema it extends, lists ``child`` as a variant."""
        return any(child in self._variants(n) for n in self._lineage(parent))

    def _lineage(self, name: str) -> frozenset[str]:
        """``name`` and every named schema it extends through a root ``allOf``, transitively."""
        found = self._lineages.get(name)
        if found is None:
            seen, stack = {name}, [name]
            while stack:
                entry = self.names.entry(stack.pop())
                node = entry.node if isinstance(entry.node, dict) else {}
                members: list[Any] = node["allOf"] if isinstance(node.get("allOf"), list) else []
                if isinstance(node.get("$ref"), str) and len(node) > 1:
                    members = [*members, node]  # 3.1: a $ref with siblings extends its target
                for member in members:
                    ref = member.get("$ref") if isinstance(member, dict) else None
                    parent = self.names.name_or_none(ref, entry.base) if isinstance(
                        ref, str) else None
                    if parent is not None and parent not in seen:
                        seen.add(parent)
                        stack.append(parent)
            found = self._lineages[name] = frozenset(seen)
        return found

    def _variants(self, name: str) -> frozenset[str]:
        """Def names a named schema lists as ``$ref``s in its own ``oneOf``/``anyOf``, or as
        the subtypes of its discriminator (:meth:`subtypes`)."""
        found = self._variant_names.get(name)
        if found is None:
            entry = self.names.entry(name)
            node = entry.node if isinstance(entry.node, dict) else {}
            refs = [m["$ref"] for key in ("oneOf", "anyOf") if isinstance(node.get(key), list)
                    for m in node[key] if isinstance(m, dict) and isinstance(m.get("$ref"), str)]
            names = (self.names.name_or_none(ref, entry.base) for ref in refs)
            found = frozenset(n for n in names if n is not None)
            found |= {n for n, _ in self.subtypes(name)}
            self._variant_names[name] = found
        return found

    def subtypes(self, name: str) -> list[tuple[str, list[str]]]:
        """``[(def name, tag values)]``: the subtypes of an inheritance-style parent, a named
        schema with a ``discriminator`` and no ``oneOf``/``anyOf``. Those its ``mapping``
        names (tags: the mapping keys), else every component schema whose root ``allOf``
        refers to it (tag: the component's name); OpenAPI 3.1 section 4.8.25, "Models with
        Polymorphism Support". ``[]`` for any other schema."""
        entry = self.names.entry(name)
        node = entry.node if isinstance(entry.node, dict) else {}
        spec = node.get("discriminator")
        if not isinstance(spec, dict) or "oneOf" in node or "anyOf" in node:
            return []
        mapping = spec.get("mapping")
        found: dict[str, list[str]] = {}
        if isinstance(mapping, dict) and mapping:
            for tag, ref in mapping.items():
                target = self.names.name_or_none(ref, entry.base) if isinstance(
                    ref, str) else None
                if target is not None:
                    found.setdefault(target, []).append(scalar_text(tag))
            return list(found.items())
        if self._children is None:
            self._children = {}
            for child in self.names.all():
                for parent in self._parents(child):
                    self._children.setdefault(parent, []).append(child)
        return [(child, [unescape(self.names.pointer(child).rsplit("/", 1)[-1])])
                for child in self._children.get(name, ())]

    def _parents(self, name: str) -> list[str]:
        """The named schemas a named schema's root ``allOf`` refers to."""
        entry = self.names.entry(name)
        node = entry.node if isinstance(entry.node, dict) else {}
        members = node.get("allOf")
        refs = [m["$ref"] for m in (members if isinstance(members, list) else ())
                if isinstance(m, dict) and isinstance(m.get("$ref"), str)]
        names = (self.names.name_or_none(ref, entry.base) for ref in refs)
        return [n for n in names if n is not None and n != name]
