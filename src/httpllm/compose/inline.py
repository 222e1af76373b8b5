"""References in a function's schema: inline the non-recursive ones, keep recursive ones.

``reference=False`` replaces every ``{"$ref": "#/$defs/N"}`` whose target is not
recursive by the (shared) inlined form of ``N``; recursive targets stay as refs and go
under the root's ``$defs``. ``reference=True`` keeps every ref and lists every named
schema the function reaches under ``$defs``. Inlined forms are computed once per
``(name, direction)``, dependencies first, and shared by every operation.
"""

from __future__ import annotations

from typing import Any

from httpllm._types import Direction, Schema
from httpllm.normalize.named import NamedSchemas
from httpllm.refs import def_name_of, def_ref
from httpllm.walk import FoldMemo, fold, transform

__all__ = ["INLINE_MAX_NODES", "Inliner", "SizeMemo", "measure", "with_siblings"]

INLINE_MAX_NODES = 5_000
"""Most schema nodes a function's parameters (or output) may have once every
non-recursive ``$ref`` is inlined; past it, that function keeps its named schemas under
``$defs`` as with ``reference=True`` (with a warning). Shared subtrees count once per
place they appear, as in the serialized JSON: Elastic's ``search`` inlines to 155,000
nodes (18 MB), while the largest function of GitHub's, Stripe's and Cloudflare's
descriptions has 185, 362 and 1,972."""


SizeMemo = FoldMemo
"""The :func:`measure` results of one compile, shared by its functions (see
:data:`walk.FoldMemo <httpllm.walk.FoldMemo>`)."""


def _size(node: dict[str, Any], kids: list[tuple[int, int]]) -> tuple[int, int]:
    depth, size = 0, 1
    for d, n in kids:
        if d + 1 > depth:
            depth = d + 1
        size += n
    return depth, size


def measure(schema: Schema, memo: SizeMemo) -> tuple[int, int]:
    """``(depth, size)`` of a schema as it will be serialized: subschema levels and nodes
    (a boolean subschema is one node). A :func:`walk.fold <httpllm.walk.fold>`: shared
    subtrees are measured once (``memo``), so this costs the number of distinct nodes
    even when the serialized tree is far larger.
    """
    return fold(schema, _size, (0, 1), memo)


_name = def_name_of


def with_siblings(target: Schema, siblings: dict[str, Any]) -> Schema:
    """An inlined ``$ref``: its target with the ``$ref``'s sibling keywords over it. A
    boolean target (a named ``true`` or ``false`` schema, JSON Schema 2020-12 4.3.2) is
    its object form first: ``{}`` or ``{"not": {}}``.

    >>> with_siblings(False, {"description": "never"})
    {'not': {}, 'description': 'never'}
    """
    if target is True:
        return dict(siblings)
    if target is False:  # kept whole: a sibling `not` must not replace it
        return {"allOf": [{"not": {}}, siblings]} if "not" in siblings else {
            "not": {}, **siblings}
    return {**target, **siblings}


def _leaf_of(visit: Any) -> Any:
    """A walk's ``leaf`` for an inlining or renaming ``visit`` (which reads no pointer): a
    leaf without ``$ref`` as it is, a ``$ref`` what ``visit`` makes of it, unlisted."""
    def leaf(node: dict[str, Any]) -> Schema:
        return node if "$ref" not in node else visit(node)

    return leaf


class Inliner:
    """Inlines named schemas for one compile (after the ref graph is finished)."""

    def __init__(self, named: NamedSchemas, *, reference: bool,
                 origins: dict[int, str] | None = None,
                 sizes: SizeMemo | None = None) -> None:
        self.named = named
        self.graph = named.graph
        self.reference = reference
        self._done: dict[tuple[str, Direction], Schema] = {}
        self._left: dict[str, frozenset[str]] = {}  # recursive refs left in an inlined form
        self.origins: dict[int, str] = {} if origins is None else origins
        self.sizes: SizeMemo = SizeMemo() if sizes is None else sizes
        self._keeping: Inliner | None = None
        self._held: list[Any] = []
        self._for_inlining = False  # set on the keeping inliner of an inlining one
        self._renamed: dict[tuple[str, Direction], str | None] = {}
        self._alias_defs: dict[tuple[str, Direction], Schema] = {}
        self._closures: dict[tuple[frozenset[str], Direction], tuple[str, ...]] = {}
        self._renamings: dict[tuple[tuple[str, ...], Direction], dict[str, Schema] | None] = {}

    def origin(self, node: Any, pointer: str) -> None:
        """Record that the shared ``node`` stands for the document's ``pointer`` (held: a
        node's id must not be reused while ``origins`` lives)."""
        if id(node) not in self.origins:
            self.origins[id(node)] = pointer
            self._held.append(node)

    def keeping(self) -> Inliner:
        """The inliner that keeps every ref (``reference=True``), sharing this one's
        ``origins`` and ``sizes``: for functions past :data:`INLINE_MAX_NODES`."""
        if self.reference:
            return self
        if self._keeping is None:
            self._keeping = Inliner(self.named, reference=True, origins=self.origins,
                                    sizes=self.sizes)
            self._keeping._for_inlining = True  # a flag, not the inliner: no reference cycle
        return self._keeping

    def _visit_for(self, direction: Direction) -> Any:
        def visit(node: dict[str, Any], at: str = "") -> Schema:
            ref = node.get("$ref")
            name = _name(ref) if isinstance(ref, str) else None
            if name is None or self.graph.is_recursive(name):
                return node
            target = self._done[(name, direction)]
            siblings = {k: v for k, v in node.items() if k != "$ref"}
            return with_siblings(target, siblings) if siblings else target

        return visit

    def inlined(self, name: str, direction: Direction) -> Schema:
        """The inlined form of a named schema (computed once, dependencies first)."""
        key = (name, direction)
        if key in self._done:
            return self._done[key]
        order = self.graph.order
        pending = sorted(
            (n for n in self.graph.reachable([name]) if (n, direction) not in self._done),
            key=lambda n: order.get(n, 0),
        )
        visit = self._visit_for(direction)
        leaf = _leaf_of(visit)
        for item in pending:
            emended = self.named.emended(item, direction)
            if self.reference or not self.named.refs(emended):
                out = emended  # no ref to inline: the walk would return it as it is
            else:
                out = transform(emended, visit, pointer=self.named.names.pointer(item),
                                leaf=leaf)
            self._done[(item, direction)] = out
            self._left[item] = self._remaining(self.graph.graph.successors(item))
            if isinstance(out, dict):
                self.origins.setdefault(id(out), self.named.names.pointer(item))
        return self._done[key]

    def _remaining(self, names: Any) -> frozenset[str]:
        """The refs left after inlining ``names``: recursive ones stay (all with reference)."""
        left: set[str] = set()
        for name in names:
            if self.reference or self.graph.is_recursive(name):
                left.add(name)
            else:
                left |= self._left.get(name, frozenset())
        return frozenset(left)

    def root(
        self, schema: Schema, direction: Direction, *, pointer: str
    ) -> tuple[Schema, dict[str, Schema]]:
        """Inline the refs of an operation-level schema; return it and its ``$defs``."""
        used = self.named.refs(schema)
        for name in used:
            self.inlined(name, direction)
        if self.reference or not used:
            out = schema
        elif set(schema) == {"$ref"} and not self.graph.is_recursive(_name(schema["$ref"]) or ""):
            out = self._done[(_name(schema["$ref"]) or "", direction)]
        else:
            visit = self._visit_for(direction)
            out = transform(schema, visit, pointer=pointer, leaf=_leaf_of(visit))
        names = self._defs_of(used, direction)
        if self._for_inlining and names:
            return self._distinct(out, names, direction, pointer)
        done = self._done
        return out, {name: done[(name, direction)] for name in names}

    def _defs_of(self, used: frozenset[str], direction: Direction) -> tuple[str, ...]:
        """The sorted names a root whose refs are ``used`` lists under ``$defs``: the refs
        inlining leaves and, transitively, those their inlined forms leave. Once per
        ``(used, direction)``: on Stripe's description most responses reach the same few
        hundred recursive schemas, and walking that closure per function cost 2x the
        compile."""
        key = (used, direction)
        found = self._closures.get(key)
        if found is None:
            seen: set[str] = set()
            stack = list(self._remaining(used))
            while stack:
                name = stack.pop()
                if name in seen:
                    continue
                seen.add(name)
                self.inlined(name, direction)
                stack.extend(self._left[name] - seen)
            found = self._closures[key] = tuple(sorted(seen))
        return found

    def _alias(self, name: str, direction: Direction) -> str | None:
        """For the keeping inliner of an inlining compile: a ``$defs`` name of its own for
        each recursive named schema (``<name>__refs``), which the functions that inline list
        under ``name`` in another form (their other refs inlined); ``None`` for the others,
        which only keeping functions list. OpenAI-compatible servers (vLLM) merge every
        tool's root ``$defs`` into one map, so a name must mean one schema across the tool
        list (issue 18)."""
        key = (name, direction)
        if key not in self._renamed:
            alias = None
            if self._for_inlining and self.graph.is_recursive(name):
                taken = set(self.named.names.all())
                alias, n = f"{name}__refs", 2
                while alias in taken:
                    alias, n = f"{name}__refs{n}", n + 1
            self._renamed[key] = alias
        return self._renamed[key]

    def _distinct(self, schema: Schema, names: tuple[str, ...], direction: Direction,
                  pointer: str) -> tuple[Schema, dict[str, Schema]]:
        """:meth:`root`'s result (its ``$defs`` are ``names``) with every ``$defs`` name that
        :meth:`_alias` renames renamed, in the ``$ref``s too (the renamed definitions are
        made once per compile, the ``$defs`` map once per set of names)."""
        key = (names, direction)
        if key not in self._renamings:
            self._renamings[key] = self._renamed_defs(names, direction)
        renamed = self._renamings[key]
        if renamed is None:
            done = self._done
            return schema, {name: done[(name, direction)] for name in names}
        visit = self._renaming(direction)
        return transform(schema, visit, pointer=pointer, leaf=_leaf_of(visit)), dict(renamed)

    def _renaming(self, direction: Direction) -> Any:
        def visit(node: dict[str, Any], at: str = "") -> Schema:
            ref = node.get("$ref")
            name = _name(ref) if isinstance(ref, str) else None
            alias = self._alias(name, direction) if name is not None else None
            return node if alias is None else {**node, "$ref": def_ref(alias)}

        return visit

    def _renamed_defs(self, names: tuple[str, ...],
                      direction: Direction) -> dict[str, Schema] | None:
        """The ``$defs`` of ``names`` as :meth:`_distinct` lists them (sorted by their new
        names), or ``None`` when no name is renamed."""
        aliases = {name: self._alias(name, direction) for name in names}
        if not any(aliases.values()):
            return None
        done = self._alias_defs
        visit = self._renaming(direction)
        leaf = _leaf_of(visit)
        for name in names:
            if (name, direction) not in done:
                done[(name, direction)] = transform(self._done[(name, direction)], visit,
                                                    pointer=self.named.names.pointer(name),
                                                    leaf=leaf)
        return dict(sorted((aliases[name] or name, done[(name, direction)]) for name in names))
