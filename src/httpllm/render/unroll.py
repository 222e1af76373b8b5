"""Unroll: ``$ref``s expanded, recursion to a fixed depth (called by the render steps
``unroll_refs``, ``unroll_rendered`` and ``fall_back`` only, as ``Dialect.refs`` asks).

A function's emended parameters keep recursive (or, with ``reference=True``, all) named
schemas under the root's ``$defs`` and refer to them as ``{"$ref": "#/$defs/Name"}``.
:func:`unroll` returns the same schema with every such ref replaced by its target:

- a schema that is not recursive is inlined wherever it is used;
- a recursive one is expanded ``depth`` times along every path (``depth=2``: a ``Folder``
  whose children are ``Folder`` s whose children are not given); the ref that would open
  level ``depth + 1`` is *cut*: the nearest property holding it is removed (from
  ``properties`` and ``required``), or the union member, or a map's further entries
  (``additionalProperties: false``), and each cut is reported;
- ``depth=None`` with a recursive schema raises :class:`Unrepresentable` naming the cycle.

The expansion of a named schema depends only on how often each recursive schema it can
reach has been opened on the path so far, so it is computed once per such state and
shared; the work list is explicit (no recursion over the input) and the output is
refused past ``DEFAULT_LIMITS.unroll_nodes`` nodes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from httpllm._limits import DEFAULT_LIMITS
from httpllm._types import Schema
from httpllm.compose.inline import SizeMemo, measure, with_siblings
from httpllm.errors import Unrepresentable
from httpllm.loss import Loss
from httpllm.pointer import escape
from httpllm.refs import RefGraph, def_name_of
from httpllm.walk import children, refs_in, transform

__all__ = ["unroll"]

_CUT: dict[str, Any] = {"$cut": True}  # a child no value can reach any more (by identity)
_ROOT = ""

Key = tuple[str, tuple[tuple[str, int], ...]]


def _name(node: dict[str, Any], pointer: str) -> str | None:
    ref = node.get("$ref")
    if not isinstance(ref, str):
        return None
    name = def_name_of(ref)
    if name is None:
        raise Unrepresentable(f"$ref {ref!r} does not name a schema under $defs",
                              pointer=pointer or None)
    return name


def _direct_refs(schema: Any, pointer: str) -> list[str]:
    """The def names ``schema`` refers to, without following them, in walk order."""
    names = (_name({"$ref": ref}, pointer) for ref in refs_in(schema))
    return list(dict.fromkeys(name for name in names if name is not None))


class _Unroller:
    def __init__(self, schema: dict[str, Any], depth: int, dialect: str, pointer: str,
                 limits: Callable[[Any], list[str]] | None = None) -> None:
        self.defs: dict[str, Any] = schema["$defs"]
        self.root = {k: v for k, v in schema.items() if k != "$defs"}
        edges = {name: _direct_refs(sub, pointer) for name, sub in self.defs.items()}
        edges[_ROOT] = _direct_refs(self.root, pointer)
        missing = sorted({n for targets in edges.values() for n in targets} - self.defs.keys())
        if missing:
            raise Unrepresentable(f"$ref '#/$defs/{missing[0]}' does not resolve",
                                  pointer=pointer or None)
        self.graph = RefGraph.of(edges)
        self.reach_rec = {n: tuple(sorted(self.graph.reachable([n]) & self.graph.recursive))
                          for n in edges}
        self.depth = depth
        self.dialect = dialect
        self.pointer = pointer
        self.limits = limits
        self.results: dict[Key, Any] = {}
        self.losses: dict[tuple[str, str], Loss] = {}
        self.sizes = SizeMemo()

    def step(self, name: str, state: tuple[tuple[str, int], ...]) -> Key | None:
        """The key of ``name`` opened in ``state``, or ``None`` when it must be cut."""
        counts = dict(state)
        if name in self.graph.recursive:
            counts[name] = counts.get(name, 0) + 1
            if counts[name] > self.depth:
                return None
        return name, tuple((n, counts[n]) for n in self.reach_rec[name] if n in counts)

    def run(self) -> Any:
        pending: list[Key] = [(_ROOT, ())]
        # Every key ever queued is expanded before the root is, so the bound is checked as
        # keys are queued: ``unroll=10**8`` on one recursive schema queued 10**8 states
        # (gigabytes) before the first expansion counted against it.
        queued: set[Key] = {(_ROOT, ())}
        while pending:
            key = pending[-1]
            if key in self.results:
                pending.pop()
                continue
            deps = [k for k in (self.step(n, key[1]) for n in self.graph.graph.successors(key[0]))
                    if k is not None and k not in self.results]
            if deps:
                queued.update(deps)
                if len(queued) > DEFAULT_LIMITS.unroll_states:
                    raise self._too_many()
                pending.extend(deps)
                continue
            pending.pop()
            self.results[key] = self.expand(key)
        return self.results[(_ROOT, ())]

    def _too_many(self) -> Unrepresentable:
        return Unrepresentable(f"unrolling {self.depth} levels needs more than "
                               f"{DEFAULT_LIMITS.unroll_states} expansions; pass a smaller "
                               "unroll=k",
                               pointer=self.pointer or None)

    def expand(self, key: Key) -> Any:
        name, state = key
        template = self.defs[name] if name else self.root
        base = f"parameters#/$defs/{escape(name)}" if name else "parameters#"

        def visit(node: dict[str, Any], at: str) -> Any:
            target_name = _name(node, self.pointer)
            if target_name is None:
                return self.prune(node, at)
            child = self.step(target_name, state)
            target = _CUT if child is None else self.results[child]
            siblings = {k: v for k, v in node.items() if k != "$ref"}
            return with_siblings(target, siblings) if siblings and target is not _CUT else target

        out = transform(template, visit, pointer=base)
        if out is not _CUT and isinstance(out, dict):
            _, size = measure(out, self.sizes)
            if size > DEFAULT_LIMITS.unroll_nodes:
                raise Unrepresentable(f"unrolling {self.depth} levels gives more than "
                                      f"{DEFAULT_LIMITS.unroll_nodes} schema nodes; pass a "
                                      "smaller unroll=k",  # the CLI says --unroll K
                                      pointer=self.pointer or None)
            problems = self.limits(out) if self.limits is not None else ()
            # A part past a limit makes the whole past it (the limits count nodes), unless a
            # cut removes the part's parent later: rare, and the fallback loss says why.
            if problems:
                raise Unrepresentable(f"unrolling {self.depth} levels gives at least "
                                      + "; ".join(problems), pointer=self.pointer or None)
        return out

    def cut(self, at: str, name: str, required: bool) -> None:
        where = f"{at}/properties/{escape(name)}"
        note = (f"recursion cut after {self.depth} levels: property {name!r} removed"
                + (" (it was required)" if required else ""))
        self.losses[(where, note)] = Loss(pointer=where, keyword="properties", action="cut",
                                          value=name, dialect=self.dialect, note=note)

    def prune(self, node: dict[str, Any], at: str) -> Any:
        """Remove the cut children of ``node``; a child that cannot go cuts ``node`` too."""
        if not any(sub is _CUT for _, _, sub in children(node)):
            return node
        out = dict(node)
        for keyword, key, sub in list(children(node)):
            if sub is not _CUT:
                continue
            if keyword == "properties" and isinstance(key, str):
                required = node.get("required", [])
                self.cut(at, key, key in required)
                out["properties"] = {k: v for k, v in out["properties"].items() if k != key}
                if key in required:
                    out["required"] = [r for r in out["required"] if r != key]
            elif keyword == "anyOf":
                out["anyOf"] = [m for m in out["anyOf"] if m is not _CUT]
                where = f"{at}/anyOf/{key}"
                note = f"recursion cut after {self.depth} levels: union member {key} removed"
                self.losses[(where, note)] = Loss(pointer=where, keyword="anyOf", action="cut",
                                                  dialect=self.dialect, note=note)
            elif keyword == "additionalProperties":
                out["additionalProperties"] = False
                where = f"{at}/additionalProperties"
                note = f"recursion cut after {self.depth} levels: no more map entries"
                self.losses[(where, note)] = Loss(pointer=where, keyword=keyword, action="cut",
                                                  dialect=self.dialect, note=note)
            else:
                return _CUT
        members = out.get("anyOf")
        if isinstance(members, list) and not any(
            not (isinstance(m, dict) and m.get("type") == "null") for m in members
        ):
            return _CUT
        return out


def unroll(schema: Schema, depth: int | None, dialect_name: str, *, pointer: str,
           limits: Callable[[Any], list[str]] | None = None) -> tuple[Schema, list[Loss]]:
    """The parameters schema without ``$ref`` or ``$defs``, and what unrolling lost.

    Args:
        schema: emended parameters with ``$defs`` at the root.
        depth: how many times a recursive schema is opened along one path; ``None``:
            recursion is an error.
        dialect_name: for the loss entries.
        pointer: the operation's pointer, for errors.
        limits: ``schema -> problems``, run on each part as it is expanded (the strict
            limits of the dialect, which count nodes, so a part past one makes the whole
            past it): the first problems stop the unrolling. Unrolling Elastic's
            recursive query schemas one level for Claude's strict mode computed some 8,000
            parts for each of 130 operations (about 50 s) only to find 30,000 optional
            properties where 24 are allowed; stopped at the first part, a few.

    Returns:
        ``(schema, losses)``: one ``"unrolled"`` loss per recursive schema expanded and
        one ``"cut"`` loss per property removed at the last level.

    Raises:
        Unrepresentable: recursion with ``depth=None`` (the message names the cycle,
            ``"Folder -> Folder"``), a ref outside ``$defs``, or an output past
            ``DEFAULT_LIMITS.unroll_nodes`` nodes, or a part past ``limits``.

    >>> folder = {"type": "object", "properties": {"kids": {"type": "array",
    ...           "items": {"$ref": "#/$defs/F"}}}}
    >>> out, _ = unroll({"type": "object", "properties": {"f": {"$ref": "#/$defs/F"}},
    ...                  "$defs": {"F": folder}}, 1, "gemini", pointer="#")
    >>> out["properties"]["f"]
    {'type': 'object', 'properties': {}}
    """
    if not isinstance(schema, dict) or not isinstance(schema.get("$defs"), dict):
        return schema, []
    unroller = _Unroller(schema, depth if depth is not None else 0, dialect_name, pointer,
                         limits)
    graph = unroller.graph
    reached = sorted(graph.reachable([_ROOT]) & graph.recursive)
    if reached and depth is None:
        path = " -> ".join(graph.cycle(reached[0]))
        raise Unrepresentable(f"recursive schema {path} cannot be expressed without $ref; "
                              "pass unroll=k to expand it k levels", pointer=pointer or None)
    out = unroller.run()
    unrolled = [Loss(pointer=f"parameters#/$defs/{escape(name)}", keyword="$ref",
                     action="unrolled", value=name, dialect=dialect_name,
                     note=f"recursive schema {name} expanded {depth} levels")
                for name in reached]
    return out, [*unrolled, *unroller.losses.values()]
