"""Pass: ``oneOf``/``anyOf`` -> one flat, de-duplicated ``anyOf``.

The emended form has one union keyword, ``anyOf``: members that are themselves bare
unions are spliced in, equal members kept once, ``null`` last, and a one-member union
is replaced by its member. Contract: *widens* only where ``oneOf`` members overlap
(``oneOf`` demands exactly one match); discriminated unions stay disjoint because the
discriminator pass makes each member's tag required.
"""

from __future__ import annotations

import operator
from typing import Any

from httpllm._types import Schema
from httpllm.normalize._context import ANNOTATIONS, PassContext, canonical

__all__ = ["unions"]


def _flatten(members: list[Schema]) -> list[Schema]:
    out: list[Schema] = []
    seen: set[str] = set()
    nulls: list[Schema] = []
    stack = list(reversed(members))
    while stack:
        member = stack.pop()
        if isinstance(member, dict) and "anyOf" in member and set(member) <= {"anyOf"} | {
            "title", "$comment"
        }:
            stack.extend(reversed(member["anyOf"]))
            continue
        key = canonical(member)
        if key in seen:
            continue
        seen.add(key)
        (nulls if member == {"type": "null"} else out).append(member)
    return out + nulls


def unions(node: dict[str, Any], ctx: PassContext) -> Schema:
    """Turn ``oneOf`` into ``anyOf``, flatten nested unions and drop duplicates.

    >>> unions({"oneOf": [{"type": "string"},
    ...                   {"anyOf": [{"type": "string"}, {"type": "null"}]}]}, CTX)
    {'anyOf': [{'type': 'string'}, {'type': 'null'}]}
    """
    if "oneOf" not in node and "anyOf" not in node:
        return node
    out = dict(node)
    one_of = out.pop("oneOf", None)
    any_of = out.pop("anyOf", None)
    if isinstance(one_of, list) and isinstance(any_of, list):
        # Both present: an intersection of two unions, left for the allOf pass.
        out["allOf"] = [*out.get("allOf", []), {"anyOf": one_of}]
        members = any_of
    else:
        members = one_of if isinstance(one_of, list) else any_of
    if not isinstance(members, list) or not members:
        ctx.report(ctx.pointer, "a union needs a non-empty list of schemas")
        return out
    members = _flatten(members)
    if len(members) == 1 and isinstance(members[0], dict) and "discriminator" not in out:
        only = members[0]
        if set(out) <= ANNOTATIONS:
            return {**only, **out}  # the site's own annotations win over the member's
        out["allOf"] = [*out.get("allOf", []), only]
        return out
    if one_of is None and len(members) == len(any_of) and all(map(operator.is_, members, any_of)):
        return node  # already flat: identity means unchanged
    out["anyOf"] = members
    return out
