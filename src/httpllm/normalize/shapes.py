"""Pass: a keyword whose value must be a subschema (or a list or map of them) holds one.

``items: "x"``, ``anyOf: [{...}, 7]``, ``patternProperties: {"^x": 5}``, ``properties: [1]``,
``properties: {"a": "string"}``, ``allOf: {...}`` (one schema where a list of them is
expected; no walker reads into it): the value, or its members that are not schemas, are
reported and dropped; so is ``items: []``, which constrains no item (Ajv's draft-07
meta-schema wants one schema at least). A provider would reject the tool over one (Ajv,
the MCP TypeScript SDK client's validator, then lists no tool at all); a property dropped
this way leaves ``required`` too, as a ``readOnly`` one does in :mod:`.direction`. This
pass comes first, so every later one reads a subschema where it expects one: ``allOf``
merging a ``properties: "..."`` beside it raised ``AttributeError`` there, and the
document was lost. Contract: *widening* (reported), as a dropped assertion takes what it refused.
Source: JSON Schema Core 2020-12 sections 10.2 (``allOf``, ``anyOf``, ``oneOf``: non-empty
arrays of schemas; ``not``, ``if``...: a schema) and 10.3 (``items``, ``prefixItems``,
``properties``, ``patternProperties``...: a schema, an array or an object of schemas).
"""

from __future__ import annotations

from typing import Any

from httpllm._types import Schema
from httpllm.normalize._context import PassContext, acts_on
from httpllm.pointer import escape
from httpllm.walk import IN_ARRAY, IN_VALUE

__all__ = ["SLOTS", "shapes"]

_VALUE_MAPS = frozenset({"patternProperties", "dependentSchemas", "properties"})
"""Keywords whose value maps names to schemas (``$defs`` is the named schemas' own)."""
SLOTS = IN_VALUE | IN_ARRAY | _VALUE_MAPS
"""Every keyword this pass checks."""


@acts_on(*SLOTS)
def shapes(node: dict[str, Any], ctx: PassContext) -> Schema:
    """Drop what is not a schema where a schema is expected, with a report each.

    >>> shapes({"type": "array", "items": "x"}, CTX)
    {'type': 'array'}
    """
    drop: list[str] = []
    fixed: dict[str, Any] = {}
    for keyword in node:  # most nodes hold two or three keys: cheaper than a set operation
        if keyword in SLOTS:
            _check(node, keyword, drop, fixed, ctx)
    if not drop and not fixed:
        return node
    out = {k: v for k, v in node.items() if k not in drop}
    out.update(fixed)
    return out


def _check(node: dict[str, Any], keyword: str, drop: list[str], fixed: dict[str, Any],
           ctx: PassContext) -> None:
    """Check one keyword's value: a schema, or a list or map of them (see the module)."""
    value = node[keyword]
    if keyword in _VALUE_MAPS:
        if not isinstance(value, dict):
            ctx.report(f"{ctx.pointer}/{keyword}", "expected a map of schemas; dropped")
            drop.append(keyword)
            return
        bad = [k for k, sub in value.items() if not isinstance(sub, dict | bool)]
        if not bad:
            return
        for k in sorted(bad) if keyword == "properties" else bad:
            ctx.report(f"{ctx.pointer}/{keyword}/{escape(k)}", "expected a schema; dropped")
        fixed[keyword] = {k: v for k, v in value.items() if k not in bad}
        required = node.get("required")
        if keyword == "properties" and isinstance(required, list):
            kept = [name for name in required if name not in bad]
            if kept:
                fixed["required"] = kept
            else:
                drop.append("required")
        return
    if keyword in IN_ARRAY and not isinstance(value, list):
        ctx.report(f"{ctx.pointer}/{keyword}", "expected a list of schemas; dropped")
        drop.append(keyword)
        return
    if isinstance(value, dict | bool):
        return
    if isinstance(value, list) and (keyword in IN_ARRAY or keyword == "items"):
        _check_list(value, keyword, drop, fixed, ctx)
        return
    ctx.report(f"{ctx.pointer}/{keyword}", "expected a schema; dropped")
    drop.append(keyword)


def _check_list(value: list[Any], keyword: str, drop: list[str], fixed: dict[str, Any],
                ctx: PassContext) -> None:
    """Check a list of schemas: its members that are none leave; ``items: []`` leaves."""
    if not value and keyword == "items":
        ctx.report(f"{ctx.pointer}/items", "items [] constrains no item; dropped (Ajv "
                   "refuses an empty list)")
        drop.append(keyword)
        return
    bad_at = [i for i, sub in enumerate(value) if not isinstance(sub, dict | bool)]
    if not bad_at:
        return
    for i in bad_at:
        ctx.report(f"{ctx.pointer}/{keyword}/{i}", "expected a schema; dropped")
    kept_members = [sub for sub in value if isinstance(sub, dict | bool)]
    if kept_members:
        fixed[keyword] = kept_members
    else:
        drop.append(keyword)
