"""Pass: request schemas drop ``readOnly`` properties, response schemas ``writeOnly`` ones;
OpenAPI-only keywords go.

The ``readOnly``/``writeOnly`` flags themselves stay: they are JSON Schema 2020-12
annotations, and the parent (walked after its children) needs to see them.

``example``/``examples`` are kept aside (for tool examples), ``xml``, ``externalDocs``,
``x-*``, leftover ``discriminator``/``nullable`` and identifiers that would change how
``$ref`` resolves (``$id``, ``$anchor``, ``$schema``, nested ``$defs``; every ``$ref`` is
already rewritten to the root ``$defs``) are removed. Contract: *narrows* the request to
what a client may send (OpenAPI 3.1 section 4.8.24: readOnly "SHOULD NOT be sent as part of
the request").
"""

from __future__ import annotations

from typing import Any

from httpllm._types import Schema
from httpllm.normalize._context import OPENAPI_ONLY, PassContext

__all__ = ["OPENAPI_ONLY", "direction"]


def _hidden(props: dict[str, Any], flag: str, ctx: PassContext) -> set[str]:
    """The properties to drop: those marked ``flag``, and non-schemas (reported)."""
    hidden: set[str] = set()
    bad = []
    for name, sub in props.items():
        if isinstance(sub, dict):
            if sub.get(flag) is True:
                hidden.add(name)
        elif not isinstance(sub, bool):
            bad.append(name)
    for name in sorted(bad):
        ctx.report(f"{ctx.pointer}/properties/{name}", "expected a schema; dropped")
    return hidden.union(bad)


def direction(node: dict[str, Any], ctx: PassContext) -> Schema:
    """Drop properties the direction excludes and OpenAPI-only keywords.

    >>> direction({"properties": {"id": {"type": "string", "readOnly": True}},
    ...            "required": ["id"]}, REQUEST)
    {'properties': {}}
    """
    # Every node goes through this pass: one loop over the keys, one over the properties.
    drop = []
    for k in node:  # a plain loop: a comprehension's own frame costs more on 3-key nodes
        if k in OPENAPI_ONLY or k[:2] == "x-":
            drop.append(k)
    # Malformed keywords (3.0-style `required: true` on a property, a non-schema inside
    # `properties`) are reported and dropped: a provider would reject the whole tool.
    required = node.get("required")
    if required is not None and not (isinstance(required, list)
                                     and all(isinstance(r, str) for r in required)):
        ctx.report(ctx.pointer + "/required", "expected a list of property names; dropped")
        drop.append("required")
    props = node.get("properties")
    if isinstance(props, dict) and props:
        hidden = _hidden(props, "readOnly" if ctx.direction == "request" else "writeOnly", ctx)
    else:
        props, hidden = {}, set()
    if not drop and not hidden:
        return node
    if "example" in node or "examples" in node:
        found = node.get("examples")
        values = list(found) if isinstance(found, list) else []
        if "example" in node:
            values.insert(0, node["example"])
        ctx.examples[ctx.pointer] = values
    out = {k: v for k, v in node.items() if k not in drop}
    if hidden:
        out["properties"] = {n: s for n, s in props.items() if n not in hidden}
        if isinstance(out.get("required"), list):
            out["required"] = [r for r in out["required"] if r not in hidden]
            if not out["required"]:
                del out["required"]
    return out
