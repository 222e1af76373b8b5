"""Members a model answers with text standing for other values, and the unions where such
a text is ambiguous.

A dialect that sends a value as text (Gemini's string enums: ``5`` as ``"5"``; a strict
mode's object or array constants as JSON text; an object without properties or any value
as JSON text) records the rendered node here, in the compile's
:meth:`~httpllm.dialects.RenderContext.identity_memo` (:func:`record`). The rule
:func:`ambiguous_texts` reads that record at each union, after its members were rendered:
where a string member takes a text another member sends for a non-string value, the text
means two values, and ``execute.decode`` reads it as the non-string value (else that
value could never be sent), so those strings are a reported loss.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import jsonschema_rs

from httpllm._types import Schema
from httpllm.dialects._base import RenderContext, leaf_triggers

__all__ = ["Texts", "ambiguous_texts", "record", "sent_as_text"]

_MEMO = "texts"
"""The :meth:`~httpllm.dialects.RenderContext.identity_memo` key of the record."""


@dataclass(frozen=True, slots=True)
class Texts:
    """What the strings a rendered node takes stand for.

    Attributes:
        values: text -> the non-string const or enum value sent as that text
            (``{"5": 5}``), the first value per text as ``one_per_text`` keeps them.
        json: any string the node takes is JSON text (an untyped node, an object without
            properties).
    """

    values: dict[str, Any] = field(default_factory=dict)
    json: bool = False


def sent_as_text(values: list[Any]) -> dict[str, Any]:
    """text -> value for the non-string values of an enum, the first value per text.

    >>> sent_as_text([5, "a", 5.0, True])
    {'5': 5, '5.0': 5.0, 'true': True}
    """
    out: dict[str, Any] = {}
    for value in values:
        if not isinstance(value, str):
            out.setdefault(json.dumps(value), value)
    return out


def record(node: dict[str, Any], texts: Texts, ctx: RenderContext) -> dict[str, Any]:
    """Remember that the rendered ``node`` is answered with ``texts``; also under its
    ``enum`` list, which the later rules share when they copy the node. Returns ``node``."""
    memo = ctx.identity_memo(_MEMO)
    memo.put(node, texts)
    enum = node.get("enum")
    if isinstance(enum, list) and enum:
        memo.put(enum, texts)
    return node


def _texts_of(node: dict[str, Any], ctx: RenderContext) -> Texts | None:
    memo = ctx.identity_memo(_MEMO)
    found: Texts | None = memo.get(node)
    enum = node.get("enum")
    return memo.get(enum) if found is None and isinstance(enum, list) else found


def _members(node: dict[str, Any]) -> list[dict[str, Any]]:
    """The members of a rendered ``anyOf``/``oneOf``, nested unions flattened
    (iteratively); a ``$ref`` member is not followed (it counts as neither kind)."""
    out: list[dict[str, Any]] = []
    stack: list[Any] = [node]
    while stack:
        member = stack.pop()
        if not isinstance(member, dict):
            continue
        nested = [m for key in ("anyOf", "oneOf") for m in member.get(key, ())]
        if nested:
            stack.extend(reversed(nested))
        elif member is not node:
            out.append(member)
    return out


def _is_string(member: dict[str, Any]) -> bool:
    declared = member.get("type")
    return declared == "string" or (isinstance(declared, list) and "string" in declared)


def _takes(member: dict[str, Any], text: str) -> bool:
    """Whether the string member may take ``text`` as itself: in its ``enum``, within its
    lengths, matching its ``pattern``. The pattern comes from the document, so
    jsonschema-rs runs it (ECMA-262, as JSON Schema reads it, in linear time or under a
    backtracking limit), never Python's backtracking ``re``: ``^(1+)+x$`` against the text
    of a 30-digit number held the compile for minutes. One it cannot read counts as
    matching: the loss then names a string that may be valid."""
    enum = member.get("enum")
    if isinstance(enum, list):
        return text in enum
    low, high = member.get("minLength", 0), member.get("maxLength")
    if (isinstance(low, int) and len(text) < low) or (isinstance(high, int) and len(text) > high):
        return False
    pattern = member.get("pattern")
    if not isinstance(pattern, str):
        return True
    try:
        return bool(jsonschema_rs.is_valid({"pattern": pattern}, text))
    except (ValueError, jsonschema_rs.ValidationError):
        return True


@leaf_triggers()
def ambiguous_texts(node: dict[str, Any], ctx: RenderContext) -> Schema:
    """A union whose members answer with one text meaning two values: a string member
    takes a text that another member sends for a non-string value (``anyOf: [{type:
    string}, {const: 5}]``, both ``"5"``). ``execute.decode`` reads the text as the
    non-string value, in any order of the members (else that member could never be sent),
    so the strings with those texts cannot be sent: an ``anyOf`` (``oneOf``) ``dropped``
    loss, its value the list of those strings. A member whose every string is JSON text
    beside a string member is the one that loses (decode keeps a string where a member
    takes strings): the loss says its values cannot be sent. The node is unchanged.

    Source: JSON Schema 2020-12 Core section 10.2.1.2 (``anyOf``); the text readings are
    ``execute.decode``'s (its module docstring).
    """
    keyword = "anyOf" if "anyOf" in node else "oneOf" if "oneOf" in node else None
    if keyword is None:
        return node
    texted: list[Texts] = []
    strings: list[dict[str, Any]] = []
    for member in _members(node):
        texts = _texts_of(member, ctx)
        if texts is not None:
            texted.append(texts)
        elif _is_string(member):
            strings.append(member)
    if not texted or not strings:
        return node
    lost: dict[str, Any] = {}
    for texts in texted:
        for text, value in texts.values.items():
            if text not in lost and any(_takes(s, text) for s in strings):
                lost[text] = value
    if lost:
        ctx.lose(keyword, "dropped", list(lost),
                 "strings another member sends as its values' text: execute.decode reads "
                 "them as " + ", ".join(json.dumps(v) for v in lost.values()))
    if any(texts.json for texts in texted):
        ctx.lose(keyword, "dropped", None,
                 "a member sent as JSON text beside a string member: execute.decode keeps "
                 "the string, so the values only that member takes cannot be sent")
    return node
