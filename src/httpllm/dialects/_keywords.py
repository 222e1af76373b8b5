"""Dialect rules on keywords: what a dialect keeps, moves into the description as
``@keyword value`` tags (samchon/openapi's convention), or drops; each change is a loss."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from httpllm._types import Schema
from httpllm._vocabulary import JSON_SCHEMA_2020_12
from httpllm.dialects._base import RenderContext, Rule, leaf_triggers
from httpllm.normalize._context import value_key
from httpllm.normalize.unions import EXCLUSIVE

__all__ = [
    "CONSTRAINTS",
    "JSON_SCHEMA_2020_12",
    "Test",
    "describe",
    "enum_within_const",
    "exclusive_unions",
    "filter_keywords",
    "one_per_text",
    "to_description",
]


CONSTRAINTS = frozenset(
    {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minLength",
     "maxLength", "pattern", "format", "minItems", "maxItems", "uniqueItems", "minProperties",
     "maxProperties", "default", "contentMediaType", "contentEncoding", "minContains",
     "maxContains", "dependentRequired", "title", "deprecated", "readOnly", "writeOnly",
     "examples", "const"}
)
"""Keywords whose meaning survives as text: moved into the description as ``@keyword value``
tags when a dialect cannot take them (samchon/openapi's ``@minimum 0`` convention)."""


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def describe(node: dict[str, Any], tags: list[tuple[str, Any]]) -> dict[str, Any]:
    """Append ``@keyword value`` lines to the node's description.

    >>> describe({"type": "integer", "description": "Page size."}, [("minimum", 1)])
    {'type': 'integer', 'description': 'Page size.\\n@minimum 1'}
    """
    if not tags:
        return node
    lines = [f"@{key} {_text(value)}" for key, value in tags]
    text = node.get("description")
    body = "\n".join(lines)
    return {**node, "description": f"{text}\n{body}" if isinstance(text, str) and text else body}


def one_per_text(values: list[Any], ctx: RenderContext) -> list[Any]:
    """The values of an enum a dialect sends as strings (a string as itself, any other
    value as its JSON text), one per text: of two distinct JSON values with one text
    (``1`` and ``"1"``, ``true`` and ``"true"``, ``null`` and ``"null"``) the model's
    ``"1"`` could be either, so the first is kept and the later ones are dropped, with a
    loss naming them; ``execute.decode`` reads the text as the first value. Values equal as
    JSON values (``1``, ``1.0``) are no conflict.

    >>> one_per_text([1, "1", "2", 1.0], CTX)
    [1, '2', 1.0]
    """
    first: dict[str, Any] = {}
    dropped: list[int] = []
    for index, value in enumerate(values):
        text = value if isinstance(value, str) else json.dumps(value)
        if text not in first:
            first[text] = value
        elif value_key(first[text]) != value_key(value):
            dropped.append(index)
    if not dropped:
        return values
    ctx.lose("enum", "dropped", [values[i] for i in dropped], "sent as strings, each has the "
             "text of an earlier value: the model could not tell them apart (decode reads "
             "the earlier one)")
    return [v for i, v in enumerate(values) if i not in dropped]


def enum_within_const(node: dict[str, Any], value: Any, ctx: RenderContext) -> dict[str, Any]:
    """``node``'s ``enum`` narrowed to ``value``, the ``const`` beside it that the dialect
    rewrites or leaves out: an instance must satisfy both (JSON Schema 2020-12 Validation
    sections 6.1.2 and 6.1.3), so the values offered are those equal to ``value`` as JSON
    values (``true`` is not ``1``). None is: ``enum: []``, no value allowed, as an empty
    enum is kept everywhere (a dialect that cannot spell it drops it with its own loss),
    never the enum's other values. A change is an ``enum`` loss at the node.

    >>> enum_within_const({"const": "a", "enum": ["a", "b"]}, "a", CTX)
    {'const': 'a', 'enum': ['a']}
    """
    enum = node.get("enum")
    if not isinstance(enum, list):
        return node
    key = value_key(value)
    kept = [value] if any(value_key(v) == key for v in enum) else []
    if kept and len(enum) == 1:
        return node
    ctx.lose("enum", "rewritten", enum, "narrowed to the const beside it" if kept else
             f"the const beside it, {_text(value)}, is not among its values: no value "
             "allowed")
    return {**node, "enum": kept}


@leaf_triggers(EXCLUSIVE)
def exclusive_unions(node: dict[str, Any], ctx: RenderContext) -> Schema:
    """An exclusive union (``anyOf`` marked :data:`~httpllm.normalize.unions.EXCLUSIVE`, a
    document ``oneOf``) as the dialect spells it: ``oneOf`` where ``Dialect.one_of`` and
    the keyword is kept, else ``anyOf`` with a ``rewritten`` loss (``validate`` still
    accepts exactly one alternative). The mark itself never reaches a tool: the renderer
    runs this rule first on every node, for every dialect, registered ones included.

    >>> from httpllm.dialects import Options, get_dialect
    >>> ctx = RenderContext(dialect=get_dialect("mcp"), options=Options())  # one_of=True
    >>> exclusive_unions({"anyOf": [{}, {"required": ["a"]}], "x-httpllm-oneOf": True}, ctx)
    {'oneOf': [{}, {'required': ['a']}]}
    """
    if EXCLUSIVE not in node:
        return node
    out = {k: v for k, v in node.items() if k != EXCLUSIVE}
    if node[EXCLUSIVE] is not True or "anyOf" not in out:
        return out
    keep = ctx.dialect.kept_keywords(ctx.strict)
    if ctx.dialect.one_of and (keep is None or "oneOf" in keep):
        return {("oneOf" if k == "anyOf" else k): v for k, v in out.items()}
    ctx.lose("oneOf", "rewritten", None,
             "spelled anyOf; validate still accepts exactly one alternative")
    return out


@leaf_triggers()  # a leaf's keywords are all kept, or it is visited
def filter_keywords(node: dict[str, Any], ctx: RenderContext) -> Schema:
    """Keep the dialect's keywords; constraints (and with ``strip_constraints``, every
    validation keyword) go into the description, anything else is dropped. A ``const``
    that leaves narrows the ``enum`` kept beside it (:func:`enum_within_const`): offered
    alone, the enum would let the model send the values the const forbids (DeepSeek's
    strict mode keeps ``enum`` but not ``const``)."""
    keep = ctx.dialect.kept_keywords(ctx.strict)
    strip = ctx.options.strip_constraints
    if not strip and (keep is None or keep.issuperset(node)):
        return node
    moved: list[tuple[str, Any]] = []
    dropped: list[str] = []
    for key, value in node.items():
        if key == "description":
            continue
        allowed = keep is None or key in keep
        if allowed and not (strip and key in CONSTRAINTS and key not in ("title", "const")):
            continue
        if key in CONSTRAINTS and not (key == "const" and allowed):
            moved.append((key, value))
        else:
            dropped.append(key)
    if not moved and not dropped:
        return node
    for key, value in moved:
        ctx.lose(key, "described", value)
    for key in dropped:
        ctx.lose(key, "dropped", node[key])
    out = {k: v for k, v in node.items() if k not in dropped and k not in dict(moved)}
    if "const" not in out and "const" in node and "enum" in out:
        out = enum_within_const(out, node["const"], ctx)  # the model may send only the const
    return describe(out, moved)


Test = Callable[[Any, dict[str, Any]], bool]
"""``(value, node) -> bool``: whether a keyword's value must leave the schema."""


def to_description(table: Mapping[str, Test | None], note: str = "") -> Rule:
    """A rule moving each keyword of ``table`` into the description (``@keyword value``)
    when its test holds for the node (``None``: always).

    >>> rule = to_description({"minItems": lambda v, n: v > 1})
    >>> rule({"type": "array", "minItems": 2}, CTX)
    {'type': 'array', 'description': '@minItems 2'}
    """

    keywords = frozenset(table)

    def moving(node: dict[str, Any]) -> list[tuple[str, Any]]:
        return [(key, node[key]) for key, test in table.items()
                if key in node and (test is None or test(node[key], node))]

    def rule(node: dict[str, Any], ctx: RenderContext) -> Schema:
        if keywords.isdisjoint(node):  # most nodes: one set operation
            return node
        moved = moving(node)
        if not moved:
            return node
        gone = {key for key, _ in moved}
        if "const" in gone and "enum" not in gone and "enum" in node:
            # the model may send only the const: the enum left is narrowed to it, and
            # tested again (an emptied enum may have to leave too: Claude strict)
            node = enum_within_const(node, node["const"], ctx)
            moved = moving(node)
            gone = {key for key, _ in moved}
        for key, value in moved:
            ctx.lose(key, "described", value, note)
        return describe({k: v for k, v in node.items() if k not in gone}, moved)

    return leaf_triggers(*keywords)(rule)
