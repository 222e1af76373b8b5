"""Rules for dialects without JSON Schema's ``null``, ``const``, boolean schemas, ``allOf``
or tuples (Gemini, Ollama, OpenAPI 3.0): each rewrite says what was lost."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from httpllm._types import Schema
from httpllm.dialects._base import RenderContext
from httpllm.dialects._keywords import describe, enum_within_const

__all__ = [
    "booleans",
    "const_as_enum",
    "flatten_all_of",
    "merge_member",
    "null_members",
    "nullable_as_flag",
    "required_known",
    "tuples_as_arrays",
    "tuples_as_unions",
]


_SUBSCHEMA_LISTS = ("anyOf", "allOf", "oneOf")


def _is_null(node: Any) -> bool:
    return isinstance(node, dict) and node.get("type") == "null" and "anyOf" not in node


def booleans(any_value: Schema, never: Schema | None = None) -> Any:
    """A rule factory: boolean subschemas (``true``/``false``) under ``properties``,
    ``items`` and unions become ``any_value`` / ``never``. With ``never=None`` a ``false``
    property or union member is removed (no value can be given for it) and ``items: false``
    becomes ``maxItems`` (no item past the ``prefixItems``: *equivalent*), as it does beside
    ``prefixItems`` whatever ``never`` is (``never`` there would refuse the tuple's own
    items once a dialect without ``prefixItems`` drops them); each with a loss entry.

    Providers whose schema is a typed struct reject booleans: Ollama answers 400 "cannot
    unmarshal bool into Go struct field" (can1357/oh-my-pi#4491); Gemini's ``Schema`` is a
    message. ``additionalProperties: false`` is a keyword value, not touched here.

    >>> rule = booleans({})
    >>> rule({"type": "array", "items": False, "prefixItems": [{}]}, CTX)
    {'type': 'array', 'items': {}, 'prefixItems': [{}], 'maxItems': 1}
    >>> rule({"properties": {"a": False, "b": True}, "required": ["a"]}, CTX)
    {'properties': {'b': {}}, 'required': []}
    """

    def swap(sub: Any, ctx: RenderContext, keyword: str) -> Any:
        if not isinstance(sub, bool):
            return sub
        ctx.lose(keyword, "rewritten", sub, "boolean subschema")
        return any_value if sub or never is None else never

    def rule(node: dict[str, Any], ctx: RenderContext) -> Schema:
        out = node
        props = node.get("properties")
        if isinstance(props, dict) and any(not isinstance(v, dict) for v in props.values()):
            out = _boolean_properties(node, ctx, swap, removes=never is None)
        if node.get("items") is False and (never is None or "prefixItems" in node):
            out = _no_more_items(out, ctx, any_value)
        elif isinstance(node.get("items"), bool):
            out = {**out, "items": swap(node["items"], ctx, "items")}
        for key in _SUBSCHEMA_LISTS:
            members = node.get(key)
            if isinstance(members, list) and any(isinstance(m, bool) for m in members):
                if never is None and any(m is False for m in members):
                    ctx.lose(key, "dropped", False, "a member no value matches")
                out = {**out, key: [swap(m, ctx, key) for m in members
                                    if m is not False or never is not None]}
        return out

    return rule


def _boolean_properties(node: dict[str, Any], ctx: RenderContext,
                        swap: Callable[[Any, RenderContext, str], Any], *, removes: bool
                        ) -> Schema:
    """:func:`booleans` on ``properties``: entries that are no schema dropped, boolean ones
    swapped, ``false`` ones removed (with ``removes``) and out of ``required``."""
    props = node["properties"]
    junk = {k: v for k, v in props.items() if not isinstance(v, (dict, bool))}
    if junk:
        ctx.lose("properties", "dropped", junk, "not schemas")
    kept = {k: swap(v, ctx, "properties") for k, v in props.items()
            if (v is not False or not removes) and k not in junk}
    gone = [k for k in props if k not in kept]
    if len(gone) > len(junk):
        ctx.lose("properties", "dropped", [k for k in gone if k not in junk],
                 "false: no value can be given for them")
    out = {**node, "properties": kept}
    if gone and isinstance(node.get("required"), list):
        out["required"] = [r for r in node["required"] if r not in gone]
    return out


def _no_more_items(node: dict[str, Any], ctx: RenderContext, any_value: Schema) -> Schema:
    """``items: false`` as ``maxItems``: the ``prefixItems`` count (0 without), or the
    node's own ``maxItems`` if lower (JSON Schema 2020-12 section 10.3.1.2: ``items``
    applies past ``prefixItems``). ``items`` becomes ``any_value`` (strict modes want a
    typed ``items`` on every array: "array schema missing items"), and ``maxItems`` goes
    into the description where the mode does not keep it (DeepSeek strict)."""
    prefix = node.get("prefixItems")
    count = len(prefix) if isinstance(prefix, list) else 0
    cap = node.get("maxItems")
    if isinstance(cap, int) and not isinstance(cap, bool):
        count = min(cap, count)
    ctx.lose("items", "rewritten", False, f"no item past the first {count}: maxItems {count}")
    out = {**node, "items": any_value}
    keep = ctx.dialect.kept_keywords(ctx.strict)
    if keep is not None and "maxItems" not in keep:
        ctx.lose("maxItems", "described", count)
        return describe({k: v for k, v in out.items() if k != "maxItems"},
                        [("maxItems", count)])
    out["maxItems"] = count
    return out


def const_as_enum(node: dict[str, Any], ctx: RenderContext) -> Schema:
    """``const: v`` -> ``enum: [v]`` (equivalent), for dialects without ``const`` (Gemini:
    ``Unknown name "const"``, zed#44875; Ollama drops it; OpenAPI 3.0 has no ``const``).
    An ``enum`` beside it is narrowed to ``v`` (``enum_within_const``: ``[]`` when ``v``
    is not among its values), with its own loss."""
    if "const" not in node:
        return node
    value = node["const"]
    ctx.lose("const", "rewritten", value, "a one-value enum")
    out = {k: v for k, v in node.items() if k != "const"}
    if not isinstance(node.get("enum"), list):
        return {**out, "enum": [value]}
    return enum_within_const(out, value, ctx)


def _join(first: Any, second: Any) -> Any:
    if isinstance(first, str) and isinstance(second, str) and first and second:
        return first if second in first else f"{first}\n{second}"
    return first if first else second


def merge_member(outer: dict[str, Any], member: dict[str, Any]) -> dict[str, Any]:
    """A union node reduced to one member: the member's keywords plus the outer node's
    annotations (the outer description first: it is the site's own text)."""
    rest = {k: v for k, v in outer.items() if k not in _SUBSCHEMA_LISTS}
    out = {**member, **rest}
    if "description" in member and "description" in rest:
        out["description"] = _join(rest["description"], member["description"])
    return out


def null_members(node: dict[str, Any]) -> tuple[list[Any], bool]:
    """``(the non-null anyOf members, whether a null member was there)``."""
    members = node.get("anyOf")
    if not isinstance(members, list):
        return [], False
    others = [m for m in members if not _is_null(m)]
    return others, len(others) < len(members)


def nullable_as_flag(only_null: Schema) -> Any:
    """A rule factory: ``anyOf [X, {"type": "null"}]`` -> X with ``nullable: true``; several
    non-null members keep ``anyOf``, each member ``nullable: true`` (OpenAPI 3.0.3 gives
    ``nullable`` effect only beside ``type``; a ``$ref`` member, whose siblings 3.0
    ignores, becomes ``{"allOf": [member], "nullable": true}``). A ``{"type": "null"}``
    left alone under ``properties`` or ``items`` becomes ``only_null`` (a schema the
    dialect can spell).

    Source: OpenAPI 3.0.3 Schema Object ``nullable``; Gemini ``Schema.nullable``.

    >>> nullable_as_flag({})({"anyOf": [{"type": "string"}, {"type": "null"}]}, CTX)
    {'type': 'string', 'nullable': True}
    """

    def flag(member: Any) -> Any:
        if not isinstance(member, dict):
            return member
        # OpenAPI 3.0 ignores the siblings of a $ref: the flag goes beside an allOf.
        return {"allOf": [member], "nullable": True} if "$ref" in member else {
            **member, "nullable": True}

    def rule(node: dict[str, Any], ctx: RenderContext) -> Schema:
        out = node
        props = node.get("properties")
        if isinstance(props, dict) and any(_is_null(v) for v in props.values()):
            ctx.lose("properties", "rewritten", None, "a property that is always null")
            out = {**out, "properties": {k: ({**only_null, **{a: v[a] for a in v if a != "type"}}
                                             if _is_null(v) else v) for k, v in props.items()}}
        for keyword in ("items", "additionalProperties"):
            if _is_null(node.get(keyword)):
                ctx.lose(keyword, "rewritten", None, "values that are always null")
                out = {**out, keyword: only_null}
        others, had_null = null_members(out)
        if not had_null:
            return out
        ctx.lose("anyOf", "rewritten", None, "null member as nullable: true")
        if not others:
            return merge_member(out, only_null)
        if len(others) == 1 and isinstance(others[0], dict):
            return {**merge_member(out, others[0]), "nullable": True}
        return {**out, "anyOf": [flag(m) for m in others]}

    return rule


def required_known(node: dict[str, Any], ctx: RenderContext) -> Schema:
    """``required`` names only properties that exist (Gemini 400 "property is not defined",
    iBUHub/AIStudioToAPI#154); an emptied list is removed (OpenAPI 3.0 wants minItems 1)."""
    required = node.get("required")
    if required is None:
        return node
    if not isinstance(required, list):
        ctx.lose("required", "dropped", required, "not a list of names")
        return {k: v for k, v in node.items() if k != "required"}
    props = node.get("properties")
    names = props if isinstance(props, dict) else {}
    known = [r for r in dict.fromkeys(required) if r in names]
    if known == required and known:
        return node
    unknown = [r for r in required if r not in names]
    if unknown:
        ctx.lose("required", "dropped", unknown, "names no property")
    elif not known:
        ctx.lose("required", "dropped", [], "an empty list")
    out = {k: v for k, v in node.items() if k != "required"}
    if known:
        out["required"] = known
    return out


def flatten_all_of(node: dict[str, Any], ctx: RenderContext) -> Schema:
    """An ``allOf`` the emended schema kept (its members could not be merged, a reported
    conflict) -> its members' keywords laid over each other, later ones winning, for
    dialects without ``allOf``. *Widens* where the members disagree; reported."""
    members = node.get("allOf")
    if not isinstance(members, list):
        return node
    ctx.lose("allOf", "rewritten", None, "members laid over each other (not an intersection)")
    out = {k: v for k, v in node.items() if k != "allOf"}
    for member in members:
        if not isinstance(member, dict):
            continue
        props = {**out.get("properties", {}), **member.get("properties", {})}
        required = [*out.get("required", []), *member.get("required", [])]
        out = {**out, **member}
        if props:
            out["properties"] = props
        if required:
            out["required"] = list(dict.fromkeys(required))
    return out


def tuples_as_arrays(any_value: Schema) -> Any:
    """A rule factory: a tuple (``prefixItems`` without ``items``) gets ``items:
    any_value``, for dialects without ``prefixItems`` whose arrays need ``items`` (OpenAPI
    3.0; Gemini "items: missing field"). ``prefixItems`` itself is then described or
    dropped by :func:`filter_keywords`."""

    def rule(node: dict[str, Any], ctx: RenderContext) -> Schema:
        if "prefixItems" not in node or "items" in node:
            return node
        ctx.lose("items", "rewritten", None, "a tuple: items of any type")
        return {**node, "items": any_value}

    return rule


def _shown(member: Any) -> str:
    """One position of a tuple, in a word or two: its title, type or constant."""
    if not isinstance(member, dict):
        return "anything" if member is True else "nothing"
    if isinstance(member.get("title"), str):
        return str(member["title"])
    if "const" in member:
        return json.dumps(member["const"])
    kind = member.get("type")
    if isinstance(kind, list):
        return " or ".join(str(k) for k in kind)
    return str(kind) if kind is not None else "any value"


def tuples_as_unions(any_value: Schema | None) -> Any:
    """A rule factory: a tuple (``prefixItems``) -> ``items``, the union (``anyOf``) of the
    prefix item schemas and of ``items`` when it is a schema; a ``true`` member is
    ``any_value`` (with ``None`` it is left out, as ``false`` is); a closed tuple
    (``items: false``) also gets ``maxItems``. *Widens* (any member at any position) and,
    where ``items`` was absent, *narrows* (later items must match a member too); reported.
    The values travel as themselves, so ``execute.decode`` has nothing to undo and
    ``validate`` checks each position. A tuple with no member left is left as it is.

    ``{"type": "array", "prefixItems": [A, B]}`` -> ``{"type": "array", "items":
    {"anyOf": [A, B]}, "description": "In order: string, integer."}`` (the order the union
    cannot say, in a sentence).

    Runs before :func:`booleans` (which would read ``items: false`` as any value) and
    :func:`filter_keywords <httpllm.dialects._keywords.filter_keywords>` (which drops
    ``prefixItems`` where it is not a keyword: OpenAI strict mode, Gemini ``parameters``).
    """

    def rule(node: dict[str, Any], ctx: RenderContext) -> Schema:
        prefix = node.get("prefixItems")
        if not isinstance(prefix, list):
            return node
        rest = node.get("items")
        members: list[Any] = []
        for member in [*prefix, rest]:
            if member is True and any_value is not None:
                member = any_value
            if isinstance(member, dict) and member not in members:
                members.append(member)
        if not members:
            return node
        out = {k: v for k, v in node.items() if k != "prefixItems"}
        out["items"] = members[0] if len(members) == 1 else {"anyOf": members}
        order = "In order: " + ", ".join(_shown(m) for m in prefix) + "."
        text = out.get("description")
        out["description"] = f"{text}\n{order}" if isinstance(text, str) and text else order
        note = "a tuple: items of any member type, in any order (the order in the description)"
        if rest is False:
            most = node.get("maxItems")
            most = min(most, len(prefix)) if isinstance(most, int) else len(prefix)
            out["maxItems"] = most
            note += f", at most {most}"
        elif rest is None or (rest is True and any_value is None):
            note += ", later items too"
        ctx.lose("prefixItems", "rewritten", prefix, note)
        return out

    return rule
