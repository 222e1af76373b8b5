"""Reference cycles that pass no property or item: found, and cut where they close.

``A: {$ref: B}``, ``B: {anyOf: [{$ref: A}, ...]}`` refers back to ``A`` without the
instance moving (no ``properties``, ``items`` ... between): JSON Schema leaves such a
schema undefined (2020-12 Core section 7: "Schemas SHOULD NOT make use of infinite
recursive nesting like this; the behavior is undefined"), and validators loop on it. Ajv
8.20, the validator of the MCP TypeScript SDK client, overflows its stack compiling it,
and since that client compiles every listed ``outputSchema`` in ``listTools``, one such
response left the server with no tool listed at all. So each ``$ref`` that closes such
a cycle is read as any value (``{}``), with a warning naming the cycle.

The in-place keywords are those whose subschemas apply to the instance itself:
``allOf``, ``anyOf``, ``oneOf``, ``not``, ``if``, ``then``, ``else``,
``dependentSchemas``; every other subschema keyword moves into a part of the instance.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from typing import Any

from httpllm._types import Schema
from httpllm.refs import def_name_of

__all__ = ["IN_PLACE", "cut_cycles", "cut_refs", "unguarded_refs"]

IN_PLACE_LISTS = ("allOf", "anyOf", "oneOf")
IN_PLACE_ONE = ("not", "if", "then", "else")
IN_PLACE = frozenset((*IN_PLACE_LISTS, *IN_PLACE_ONE, "dependentSchemas"))
"""Keywords whose subschemas apply to the instance where the schema applies."""


def _in_place(node: dict[str, Any]) -> list[Any]:
    """The subschemas of ``node`` that apply to the instance itself."""
    found: list[Any] = []
    for keyword in IN_PLACE_LISTS:
        members = node.get(keyword)
        if isinstance(members, list):
            found.extend(members)
    for keyword in IN_PLACE_ONE:
        if keyword in node:
            found.append(node[keyword])
    deps = node.get("dependentSchemas")
    if isinstance(deps, dict):
        found.extend(deps.values())
    return found


def unguarded_refs(schema: Schema) -> set[str]:
    """The ``$defs`` names ``schema`` refers to where the instance is the schema's own:
    through in-place keywords only (iterative: any depth).

    >>> sorted(unguarded_refs({"anyOf": [{"$ref": "#/$defs/A"}, {"properties": {
    ...     "x": {"$ref": "#/$defs/B"}}}]}))
    ['A']
    """
    names: set[str] = set()
    stack: list[Any] = [schema]
    seen: set[int] = set()
    while stack:
        node = stack.pop()
        if not isinstance(node, dict) or id(node) in seen:
            continue
        seen.add(id(node))
        ref = node.get("$ref")
        name = def_name_of(ref) if isinstance(ref, str) else None
        if name is not None:
            names.add(name)
        stack.extend(_in_place(node))
    return names


def cut_refs(schema: Schema, names: Collection[str],
             cut: Callable[[str], None]) -> Schema:
    """``schema`` with each ``$ref`` to one of ``names`` reached through in-place keywords
    read as any value: the ``$ref`` keyword leaves its node (``{}`` when it was alone);
    ``cut(name)`` is called for each. The same object when nothing is cut; shared
    subschemas are rebuilt, never changed.

    >>> cut_refs({"anyOf": [{"$ref": "#/$defs/A"}, {"type": "string"}]}, {"A"}, print)
    A
    {'anyOf': [{}, {'type': 'string'}]}
    """
    return _cut(schema, names, cut, 0)


def cut_cycles(forms: Mapping[str, Schema], warn: Callable[[str, str], None]
               ) -> dict[str, Schema]:
    """The emended forms (of one direction, by ``$defs`` name) that change when every
    cycle of in-place references among ``forms`` is cut: in each, the names sorted, each
    ``$ref`` back to a name not after its own is read as any value (:func:`cut_refs`),
    which leaves no such cycle. ``warn(first name, message)`` once per cycle, naming it
    in the order its refs run.

    >>> forms = {"A": {"oneOf": [{"$ref": "#/$defs/B"}]},
    ...          "B": {"oneOf": [{"$ref": "#/$defs/A"}]}}
    >>> cut_cycles(forms, lambda name, message: print(name, message.split(" passes")[0]))
    A $ref cycle A -> B -> A
    {'B': {'oneOf': [{}]}}
    """
    import networkx as nx

    loops = nx.DiGraph()
    for name, form in forms.items():
        loops.add_edges_from((name, t) for t in unguarded_refs(form) if t in forms)
    changed: dict[str, Schema] = {}
    for component in nx.strongly_connected_components(loops):
        if len(component) == 1 and not loops.has_edge(*component, *component):
            continue
        order = sorted(component)
        rank = {name: i for i, name in enumerate(order)}
        path = [u for u, _ in nx.find_cycle(loops.subgraph(component), order[0])]
        warn(order[0], (
            f"$ref cycle {' -> '.join([*path, path[0]])} passes no property or item (JSON "
            "Schema leaves it undefined; validators loop on it, Ajv overflows its stack): "
            "each $ref back to an earlier schema of the cycle is read as any value"))
        for name in order:
            back = {t for t in loops.successors(name) if t in rank and rank[t] <= rank[name]}
            if back:
                changed[name] = cut_refs(forms[name], back, _ignore)
    return changed


def _ignore(_: str) -> None:
    return None


_MAX_DEPTH = 256
"""In-place levels :func:`cut_refs` descends (recursive: well within Python's stack)."""


def _cut(node: Any, names: Collection[str], cut: Callable[[str], None], depth: int) -> Any:
    if not isinstance(node, dict) or depth > _MAX_DEPTH or (
            "$ref" not in node and IN_PLACE.isdisjoint(node)):
        return node
    out: dict[str, Any] | None = None
    ref = node.get("$ref")
    name = def_name_of(ref) if isinstance(ref, str) else None
    if name is not None and name in names:
        cut(name)
        out = {k: v for k, v in node.items() if k != "$ref"}
    for keyword in IN_PLACE_LISTS:
        members = node.get(keyword)
        if isinstance(members, list):
            new = [_cut(m, names, cut, depth + 1) for m in members]
            if any(a is not b for a, b in zip(new, members, strict=True)):
                out = dict(node) if out is None else out
                out[keyword] = new
    for keyword in IN_PLACE_ONE:
        if keyword in node:
            sub = _cut(node[keyword], names, cut, depth + 1)
            if sub is not node[keyword]:
                out = dict(node) if out is None else out
                out[keyword] = sub
    deps = node.get("dependentSchemas")
    if isinstance(deps, dict):
        new_deps = {k: _cut(v, names, cut, depth + 1) for k, v in deps.items()}
        if any(new_deps[k] is not deps[k] for k in deps):
            out = dict(node) if out is None else out
            out["dependentSchemas"] = new_deps
    return node if out is None else out
