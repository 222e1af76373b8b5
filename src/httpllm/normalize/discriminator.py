"""Pass: a discriminated union -> each variant requires its tag, as a one-value ``enum``.

``discriminator: {propertyName: kind, mapping: {...}}`` is an OpenAPI hint, not a JSON
Schema assertion (OpenAPI 3.1 section 4.8.25). Each ``anyOf`` member that is a ``$ref``
is replaced by its emended target with the tag property set to the mapping keys that
name it (or the schema's name when there is no mapping, if the variant's own tag
property allows it: else that property is kept as declared and reported) and listed in
``required``.
Contract: *narrows* to what the discriminator already meant. A ``oneOf`` whose variants now
require distinct tags loses its exclusive mark (:func:`~httpllm.normalize.unions.disjoint`):
no value can match two of them anyway.

Inheritance-style polymorphism (a parent with a ``discriminator`` and no union, whose
subtypes each ``allOf`` the parent; common in Adyen-, Azure- and Java-generated documents):
at the root of the parent's named schema, the node becomes the union of its subtypes
(``ctx.subtypes``: the ``mapping``, else the schemas that ``allOf`` the parent), each with
its own fields and its tag required. Each subtype inherits the parent's form *without* the
discriminator (see :mod:`httpllm.normalize.named`), so the expansion ends.
Contract: *narrows* the parent to its subtypes (OpenAPI 3.1 section 4.8.25).
"""

from __future__ import annotations

from typing import Any

from httpllm._json import kind, scalar_text
from httpllm._types import Schema
from httpllm.errors import HttpllmError
from httpllm.normalize._context import (
    ANNOTATIONS,
    EXCLUSIVE,
    PassContext,
    acts_on,
    is_ref,
    ref_name,
)
from httpllm.normalize.unions import disjoint
from httpllm.pointer import join

__all__ = ["discriminator"]

_TAG_KEEP = frozenset({"title", "description", "deprecated"})


def _tags(name: str, mapping: dict[str, str], ctx: PassContext) -> list[str]:
    values = [key for key, target in mapping.items() if ctx.name_of(target) == name]
    return values or [name]


def _mapping(spec: dict[str, Any], ctx: PassContext) -> dict[str, str]:
    """The discriminator's ``mapping``, tag value -> ``$ref`` (or schema name). A key that
    is no string is read as its text, and said so; an entry whose value names no schema is
    left out and reported at its pointer (a variant then takes its schema's name as tag)."""
    mapping = spec.get("mapping")
    at = join(ctx.pointer, "discriminator", "mapping")
    if not isinstance(mapping, dict):
        if mapping is not None:
            ctx.report(at, "discriminator: expected mapping to be an object of tag values "
                       f"to $refs, not {kind(mapping)}; ignored")
        return {}
    out: dict[str, str] = {}
    for key, target in mapping.items():
        tag = scalar_text(key)
        if not isinstance(key, str):
            ctx.report(join(at, tag), f"discriminator: the mapping key {key!r} is no string; "
                       f"read as the tag value {tag!r}")
        if not isinstance(target, str) or ctx.name_of(target) is None:
            shown = repr(target) if isinstance(target, str) else kind(target)
            ctx.report(join(at, tag), f"discriminator: the mapping of {tag!r} names no "
                       f"schema (expected a $ref or a schema name, not {shown}); left out")
            continue
        out[tag] = target
    return out


def _declared(old: Any, ctx: PassContext) -> list[Any] | None:
    """The values a variant's own tag property allows when it says them as a list
    (``enum``, ``const``; through one ``$ref``), else ``None`` (any string may do)."""
    if is_ref(old):
        try:
            old = ctx.resolve(ref_name(old))
        except HttpllmError:  # a schema that cannot be emended is reported where it is used
            return None
    if not isinstance(old, dict):
        return None
    if "const" in old:
        return [old["const"]]
    enum = old.get("enum")
    return list(enum) if isinstance(enum, list) else None


def _tagged(variant: dict[str, Any], prop: str, values: list[str], ctx: PassContext,
            conflicts: list[str], name: str) -> dict[str, Any]:
    """``variant`` requiring its tag ``prop`` to be one of ``values``: the mapping keys that
    name it, else its schema's name ``name``.

    The implied tag (the schema's name, OpenAPI 3.1 section 4.8.25.2.2) must be a value
    the variant's own property takes: where that property allows a list of values without
    it (PagerDuty's runner_type: enum [sidecar, runbook]; OpenAI's
    ``type: {enum: [disabled]}`` variants), the document does not tag by schema names, so
    the property is left as the document declares it, required, and ``name`` is added to
    ``conflicts`` for the union's one report. The tool required the schema's name, a value
    the API refuses: every call was refused or sent wrong. A mapping key is the document's
    own word for the value on the wire and is kept as it is.
    """
    old = variant.get("properties", {}).get(prop)
    if values == [name] and (declared := _declared(old, ctx)) is not None and (
            name not in declared):
        conflicts.append(name)
        required = list(dict.fromkeys([*variant.get("required", []), prop]))
        return {**variant, "required": required}
    tag: dict[str, Any] = {"type": "string", "enum": values}
    if isinstance(old, dict):  # its annotations stay; a default only if it is a tag value
        kept = {k: v for k, v in old.items() if k in _TAG_KEEP}
        if "default" in old and old["default"] in values:
            kept["default"] = old["default"]
        tag = {**kept, **tag}
    required = list(dict.fromkeys([*variant.get("required", []), prop]))
    return {**variant, "properties": {**variant.get("properties", {}), prop: tag},
            "required": required}


def _said(conflicts: list[str], prop: str, ctx: PassContext) -> None:
    """One report for the variants whose own ``prop`` does not allow their implied tag."""
    if conflicts:
        ctx.report(ctx.pointer, f"discriminator: {prop!r} of {', '.join(conflicts)} does not "
                   "allow the schema's name, the tag a variant no mapping names takes; "
                   "left as declared")


def _variant(name: str, ctx: PassContext) -> dict[str, Any] | None:
    """A subtype's emended object form (its own union left out), or ``None``."""
    target = ctx.resolve(name)
    if target is None or (isinstance(target, dict) and "anyOf" in target):
        target = ctx.resolve_base(name)  # being emended, or a parent itself: its own fields
    if not isinstance(target, dict) or "anyOf" in target or target.get("type") not in (
        None, "object"
    ):
        return None
    return target


def _subtypes(node: dict[str, Any], prop: str, ctx: PassContext) -> Schema:
    """An inheritance-style parent -> the union of its subtypes, each requiring its tag."""
    tagged: list[Schema] = []
    conflicts: list[str] = []
    for name, tags in ctx.subtypes():
        target = _variant(name, ctx)
        if target is None:
            ctx.report(ctx.pointer, f"discriminator: subtype {name!r} is not an object schema; "
                       "left out of the union")
            continue
        tagged.append(_tagged(target, prop, tags, ctx, conflicts, name))
    _said(conflicts, prop, ctx)
    if not tagged:
        return node
    kept = {k: v for k, v in node.items() if k in ANNOTATIONS}
    if len(tagged) == 1:
        return {**tagged[0], **kept}
    return {**kept, "anyOf": tagged}


@acts_on("discriminator")
def discriminator(node: dict[str, Any], ctx: PassContext) -> Schema:
    """Make each variant of a discriminated ``anyOf`` require its own tag value.

    >>> discriminator({"anyOf": [{"$ref": "#/$defs/Cat"}, {"$ref": "#/$defs/Dog"}],
    ...                "discriminator": {"propertyName": "kind"}}, CTX)["anyOf"][0]["properties"]
    {'kind': {'type': 'string', 'enum': ['Cat']}}
    """
    spec = node.get("discriminator")
    if spec is None:
        return node
    out = {k: v for k, v in node.items() if k != "discriminator"}
    prop = spec.get("propertyName") if isinstance(spec, dict) else None
    members = out.get("anyOf")
    if not isinstance(prop, str):
        return out
    mapping = _mapping(spec, ctx)  # its faults said even where lineage reads it
    if members is None and ctx.root is not None and ctx.pointer == ctx.root:
        return _subtypes(out, prop, ctx)
    if not isinstance(members, list):
        return out
    tagged: list[Schema] = []
    conflicts: list[str] = []
    for member in members:
        if not is_ref(member):
            tagged.append(member)
            continue
        name = ref_name(member)
        target = ctx.resolve(name)
        if target is None:  # being emended (a cycle): its form without unions
            target = ctx.resolve_base(name)
        if not isinstance(target, dict) or "anyOf" in target or target.get("type") not in (
            None, "object"
        ):
            ctx.report(ctx.pointer, f"discriminator: variant {name!r} is not an object schema; "
                       f"its {prop!r} tag cannot be required")
            tagged.append(member)
            continue
        siblings = {k: v for k, v in member.items() if k != "$ref"}
        tagged.append(_tagged({**target, **siblings}, prop, _tags(name, mapping, ctx), ctx,
                              conflicts, name))
    _said(conflicts, prop, ctx)
    if len(tagged) == 1 and isinstance(tagged[0], dict) and set(out) - {"anyOf"} <= ANNOTATIONS:
        return {**tagged[0], **{k: v for k, v in out.items() if k != "anyOf"}}
    out["anyOf"] = tagged
    if EXCLUSIVE in out and disjoint(tagged, ctx.resolve):
        del out[EXCLUSIVE]  # distinct required tags: exactly one variant can match anyway
    return out
