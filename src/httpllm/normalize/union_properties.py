"""Pass: each object member of an object's ``anyOf`` declares the object's ``properties``.

Contract: *equivalent*. ``{properties: P, anyOf: [{properties: M}, ...]}`` is one object that
holds ``P``'s properties, some of them narrowed by a member (GitHub's ``checks/update``: the
members narrow ``status``). Strict modes close every object to its own ``properties``
(OpenAI, DeepSeek, Claude, Bedrock, Mistral; ``execute.validate`` closes the same ones), so
each member forbade the parent's other names: no call could give them, and validate refused
every real one. Declared in the member, a parent's property takes the schema its value
already had to match: the parent's (which constrains it anyway), or the member's
``additionalProperties`` where that applied; the object accepts exactly the same instances.

Left as written: a member closed by the document (``additionalProperties: false``) or
holding ``unevaluatedProperties`` without ``additionalProperties`` (a parent's name it
declared would be evaluated, and ``unevaluatedProperties: false`` no longer refuse it), a
``$ref`` member (a named schema is shared), a member that declares no properties (strict
modes leave it open), and a member's own names the parent does not declare (the parent,
closed, still forbids them: declaring them there would take ``additionalProperties``'
schema, any value, which strict modes can only offer as JSON text).
Each member takes a copy of the parent's schemas, so a wide union of a wide object (or
unions nested in its properties) multiplies the tool: a union whose members would take
more than :data:`MAX_COPIED` nodes is left as written and reported at its pointer (strict
modes then close each member to its own names, as before the pass).
Source: JSON Schema 2020-12 sections 10.2.1.2 (``anyOf``), 10.3.2.1-10.3.2.3.
"""

from __future__ import annotations

from typing import Any

from httpllm._types import Schema
from httpllm.normalize._context import PassContext, acts_on, is_ref
from httpllm.normalize.required_properties import undeclared_schema, unevaluated
from httpllm.walk import fold

__all__ = ["MAX_COPIED", "union_properties"]

MAX_COPIED = 4096
"""Most schema nodes (as serialized) one union's members take from the parent: 200
properties of 50 nodes in 100 members made a 185 kB body a 17 MB tool, cut to JSON text
for every provider, and a validator taking seconds to build."""


@acts_on("anyOf")
def union_properties(node: dict[str, Any], ctx: PassContext) -> Schema:
    """Declare in each object member of ``anyOf`` the parent's properties it lacks.

    >>> union_properties({"properties": {"a": {"type": "string"}}, "anyOf": [
    ...     {"properties": {"b": {"const": 1}}}]}, CTX)  # doctest: +NORMALIZE_WHITESPACE
    {'properties': {'a': {'type': 'string'}},
     'anyOf': [{'properties': {'b': {'const': 1}, 'a': {'type': 'string'}}}]}
    """
    props, members = node.get("properties"), node.get("anyOf")
    if not isinstance(props, dict) or not props or not isinstance(members, list):
        return node
    if _copied(props, members) > MAX_COPIED:
        ctx.report(ctx.pointer, "anyOf members not given the object's properties: over "
                   f"{MAX_COPIED:,} schema nodes to copy; strict modes close each member "
                   "to its own properties")
        return node
    spread = [_declared(m, props) if _open_object(m) else m for m in members]
    if all(new is old for new, old in zip(spread, members, strict=True)):
        return node
    return {**node, "anyOf": spread}


def _open_object(member: Any) -> bool:
    """A member that describes part of the object and may be closed by a strict mode: its
    own ``properties``, not a ``$ref``, not closed by the document (nor by
    ``unevaluatedProperties``: :func:`unevaluated`), an object if typed."""
    if not isinstance(member, dict) or is_ref(member) or unevaluated(member):
        return False
    kind = member.get("type", "object")
    return (isinstance(member.get("properties"), dict) and bool(member["properties"])
            and member.get("additionalProperties", True) is not False
            and (kind == "object" or (isinstance(kind, list) and "object" in kind)))


def _copied(props: dict[str, Any], members: list[Any]) -> int:
    """Nodes the open object members would take from ``props``, counted up to just past
    :data:`MAX_COPIED` (each property's size measured once, however many members lack it)."""
    sizes: dict[str, int] = {}
    total = 0
    for member in filter(_open_object, members):
        for name in props:
            if name not in member["properties"]:
                if name not in sizes:
                    sizes[name] = _size(props[name])
                total += sizes[name]
                if total > MAX_COPIED:
                    return total
    return total


def _size(schema: Any) -> int:
    """Nodes ``schema`` holds as serialized (a shared subschema counted at each place)."""
    return fold(schema, lambda _node, sizes: 1 + sum(sizes), 1)


def _declared(member: dict[str, Any], props: dict[str, Any]) -> dict[str, Any]:
    """``member`` declaring each of ``props`` it lacks: the parent's schema where the member
    holds an undeclared name to any value, else the schema it holds it to
    (:func:`undeclared_schema`)."""
    own = member["properties"]
    missing = [n for n in props if n not in own]
    if not missing:
        return member
    properties = dict(own)
    for name in missing:
        schema = undeclared_schema(member, name)
        properties[name] = props[name] if schema == {} else schema
    return {**member, "properties": properties}
