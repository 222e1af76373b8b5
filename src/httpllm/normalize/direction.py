"""Pass: request schemas drop ``readOnly`` properties, response schemas ``writeOnly`` ones;
OpenAPI-only keywords go.

The direction is decided on the resolved schema: a property is ``readOnly`` when the flag is
on the property itself, on the named schema its ``$ref`` names (``created_at: {$ref: Timestamp}``
with ``Timestamp: {type: string, readOnly: true}``), on any ``allOf`` member, or on every
non-null member of a union (a nullable ``$ref``); ``readOnly: false`` on the property itself
overrides its target. Each dropped property is recorded as a loss (``ctx.lose``).

The ``readOnly``/``writeOnly`` flags themselves stay: they are JSON Schema 2020-12
annotations, and the parent (walked after its children) needs to see them.

``example``/``examples`` are kept aside (for tool examples), ``xml``, ``externalDocs``,
``x-*`` (but the exclusive-union mark beside its ``anyOf``), leftover
``discriminator``/``nullable`` and identifiers that would change how ``$ref`` resolves
(``$id``, ``$anchor``, ``$schema``, nested ``$defs``; every ``$ref`` is already rewritten
to the root ``$defs``) are removed. Contract: *narrows* the request to
what a client may send (OpenAPI 3.1 section 4.8.24: readOnly "SHOULD NOT be sent as part of
the request").
"""

from __future__ import annotations

from typing import Any

from httpllm._types import Schema
from httpllm.loss import Loss
from httpllm.normalize._context import EXCLUSIVE, OPENAPI_ONLY, PassContext, keeps
from httpllm.normalize.shapes import SLOTS
from httpllm.pointer import escape
from httpllm.refs import def_name_of

__all__ = ["OPENAPI_ONLY", "direction", "flagged"]

_MAX_INLINE = 16  # levels of inline allOf/anyOf looked through (named schemas: ctx.flagged)
_UNIONS = ("anyOf", "oneOf")


def _is_null(node: Any) -> bool:
    return isinstance(node, dict) and (node.get("type") == "null" or node.get("enum") == [None])


def flagged(node: Any, flag: str, ref: Any, depth: int = 0) -> bool:
    """Whether a schema carries ``flag`` (``"readOnly"``/``"writeOnly"``): on itself, on the
    target of its ``$ref`` (``ref(target) -> bool``), on any ``allOf`` member, or on every
    non-null member of a ``oneOf``/``anyOf``. An explicit ``false`` on the node wins.
    Looks at most ``_MAX_INLINE`` levels of inline members deep (named schemas are answered
    by ``ref``, which memoizes them).

    >>> flagged({"anyOf": [{"$ref": "T"}, {"type": "null"}]}, "readOnly", lambda r: True)
    True
    """
    if not isinstance(node, dict) or depth > _MAX_INLINE:
        return False
    own = node.get(flag)
    if own is not None:
        return own is True
    target = node.get("$ref")
    if isinstance(target, str) and ref(target):
        return True
    members = node.get("allOf")
    if isinstance(members, list) and any(flagged(m, flag, ref, depth + 1) for m in members):
        return True
    for keyword in _UNIONS:
        members = node.get(keyword)
        if isinstance(members, list):
            real = [m for m in members if not _is_null(m)]
            if real and all(flagged(m, flag, ref, depth + 1) for m in real):
                return True
    return False


_SOURCES = frozenset({"readOnly", "writeOnly", "$ref", "allOf", *_UNIONS})
"""The keywords :func:`flagged` reads: a node holding none of them carries no flag (most
properties; checked first, with one set operation, rather than calling it)."""


def _hidden(props: dict[str, Any], flag: str, ctx: PassContext) -> set[str]:
    """The properties to drop: those marked ``flag`` (recorded as losses; a non-schema is
    :mod:`.shapes`' to drop)."""
    hidden: set[str] = set()

    def named(ref: str) -> bool:
        return ctx.flagged(def_name_of(ref) or ref, flag)  # ref_name, without the node

    for name, sub in props.items():
        if (isinstance(sub, dict) and not _SOURCES.isdisjoint(sub)
                and flagged(sub, flag, named)):
            hidden.add(name)
            where = "requests" if flag == "readOnly" else "responses"
            ctx.lose(Loss(pointer=f"{ctx.pointer}/properties/{escape(name)}", keyword=flag,
                          action="dropped", note=f"{flag}: not part of {where}"))
    return hidden


def _keep_examples(node: dict[str, Any], ctx: PassContext) -> None:
    """``example``/``examples`` kept aside at the node's pointer, for tool examples (unless
    the context keeps none)."""
    if ctx.examples is not None and ("example" in node or "examples" in node):
        found = node.get("examples")
        values = list(found) if isinstance(found, list) else []
        if "example" in node:
            values.insert(0, node["example"])
        ctx.examples[ctx.pointer] = values


_UNTOUCHED = frozenset(
    {"type", "format", "description", "title", "enum", "const", "default", "deprecated",
     "readOnly", "writeOnly", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
     "multipleOf", "minLength", "maxLength", "pattern", "minItems", "maxItems", "uniqueItems",
     "minProperties", "maxProperties", "contentMediaType", "contentEncoding", "$ref"}
) - OPENAPI_ONLY - SLOTS - {"required"}
"""Keywords this pass neither drops nor checks: a node holding no other (most leaves:
``{"type": "string", "description": ...}``) is returned at once."""


@keeps(*_UNTOUCHED)
def direction(node: dict[str, Any], ctx: PassContext) -> Schema:
    """Drop properties the direction excludes and OpenAPI-only keywords.

    >>> direction({"properties": {"id": {"type": "string", "readOnly": True}},
    ...            "required": ["id"]}, CTX)  # direction "request"
    {'properties': {}}
    """
    if node.keys() <= _UNTOUCHED:
        return node
    # Every node goes through this pass: one loop over the keys, one over the properties.
    drop = []
    for k in node:  # a plain loop: a comprehension's own frame costs more on 3-key nodes
        if k in OPENAPI_ONLY or (k[:2] == "x-" and (k != EXCLUSIVE or "anyOf" not in node)):
            drop.append(k)
    # What is not a schema where one is expected is gone already (`shapes`, the first
    # pass), and so is a malformed `required` (`kinds`).
    props = node.get("properties")
    if isinstance(props, dict) and props:
        hidden = _hidden(props, "readOnly" if ctx.direction == "request" else "writeOnly", ctx)
    else:
        props, hidden = {}, set()
    if not drop and not hidden:
        return node
    _keep_examples(node, ctx)
    out = {k: v for k, v in node.items() if k not in drop}
    if hidden:
        out["properties"] = {n: s for n, s in props.items() if n not in hidden}
        if isinstance(out.get("required"), list):
            out["required"] = [r for r in out["required"] if r not in hidden]
            if not out["required"]:
                del out["required"]
    return out
