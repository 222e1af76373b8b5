"""Split: one function per variant of a union request body (``split_unions=True``).

A body that is ``anyOf`` several schemas (after normalization every ``oneOf`` is one) is
the hardest shape for a model and, for some providers, one they cannot take. With
``split_unions=True`` the operation becomes one function per variant, named
``{name}__{variant}``: the variant is the discriminator tag (a property every variant
requires with one value of its own), else the named schema the variant came from, else its
position (``1``, ``2`` ...); names are sanitized, at most 64 characters and unique. Each
function sends the same operation: ``Function.extra["split_of"]`` is the unsplit name and
``Function.extra["variant"]`` the variant; its body argument holds that variant only, and so
does its ``schema``, so ``validate`` checks the variant the model chose; where the union was
an exclusive ``oneOf`` (:data:`~httpllm.normalize.unions.EXCLUSIVE`) the ``schema`` is the
variant and the union (so a value matching two variants is still refused, as the document
refuses it). A ``null`` member stays allowed in every variant. Without the option the union
is left as it is (``anyOf``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from httpllm._types import Schema
from httpllm.loss import Loss
from httpllm.normalize.unions import EXCLUSIVE
from httpllm.pointer import unescape
from httpllm.records import Function

__all__ = ["split", "variants"]


def _members(schema: Any) -> tuple[list[Any], bool]:
    members = schema.get("anyOf") if isinstance(schema, dict) else None
    if not isinstance(members, list):
        return [], False
    others = [m for m in members if m != {"type": "null"}]
    return others, len(others) < len(members)


def _tags(members: list[Any]) -> list[str] | None:
    """The discriminator values: a property each member requires as one distinct value."""
    first = members[0] if isinstance(members[0], dict) else {}
    for name in first.get("properties", {}):
        values = []
        for member in members:
            prop = member.get("properties", {}).get(name) if isinstance(member, dict) else None
            enum = prop.get("enum", [prop.get("const")]) if isinstance(prop, dict) else None
            if (not isinstance(enum, list) or len(enum) != 1 or name not in
                    member.get("required", ()) or not isinstance(enum[0], (str, int))):
                break
            values.append(str(enum[0]))
        else:
            if len(set(values)) == len(values):
                return values
    return None


def _label(member: Any, index: int, origins: dict[int, str]) -> str:
    ref = member.get("$ref") if isinstance(member, dict) else None
    where = ref if isinstance(ref, str) else origins.get(id(member), "")
    if "/" in where:
        return unescape(where.rsplit("/", 1)[-1])
    title = member.get("title") if isinstance(member, dict) else None
    return title if isinstance(title, str) and title else str(index + 1)


def variants(body: Schema, origins: dict[int, str]) -> list[tuple[str, Schema]]:
    """``(label, schema)`` per variant of a union body; ``[]`` when it is not a union.

    >>> variants({"anyOf": [{"title": "Card"}, {"title": "Bank"}]}, {})
    [('Card', {'title': 'Card'}), ('Bank', {'title': 'Bank'})]
    """
    members, nullable = _members(body)
    if len(members) < 2:
        return []
    labels = _tags(members) or [_label(m, i, origins) for i, m in enumerate(members)]
    outer = {k: v for k, v in body.items() if k != "anyOf" and k != EXCLUSIVE}
    out = []
    for label, member in zip(labels, members, strict=True):
        schema = {**outer, "anyOf": [member, {"type": "null"}]} if nullable else (
            {**outer, **member} if isinstance(member, dict) and outer else member)
        out.append((label, schema))
    return out


def split(function: Function, origins: dict[int, str],
          claim: Callable[[str], str]) -> list[Function]:
    """The function, or one function per variant of its union body.

    Args:
        function: a composed (not yet rendered) function.
        origins: ``id(node) -> document pointer`` of inlined named schemas (for labels).
        claim: hands out a unique valid function name for a raw name.
    """
    body = next((a for a in function.arguments if a.location == "body"), None)
    props = function.schema.get("properties", {}) if isinstance(function.schema, dict) else {}
    union = props.get(body.name) if body is not None else None
    found = variants(union, origins) if body is not None else []
    if body is None or not found:
        return [function]
    exclusive = isinstance(union, dict) and union.get(EXCLUSIVE) is True
    out = []
    for label, schema in found:
        name = claim(f"{function.name}__{label}")
        checked = {"allOf": [schema, union]} if exclusive else schema
        root = {**function.schema, "properties": {**props, body.name: checked}}
        shown = function.parameters
        if isinstance(shown, dict) and body.name in shown.get("properties", {}):
            shown = {**shown, "properties": {**shown["properties"], body.name: schema}}
        arguments = tuple(replace(a, schema=schema) if a is body else a
                          for a in function.arguments)
        loss = Loss(pointer=f"{function.pointer}/requestBody", keyword="anyOf",
                    action="rewritten", value=label, dialect="",
                    note=f"union request body split: variant {label} of {function.name}")
        out.append(replace(function, name=name, schema=root, parameters=shown,
                           arguments=arguments, losses=(*function.losses, loss),
                           description=f"{function.description}\n\nRequest body: {label}."
                           .strip(),
                           extra={**function.extra, "split_of": function.name,
                                  "variant": label}))
    return out
