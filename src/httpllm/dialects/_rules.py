"""Shared dialect rules: small pure node rules, each reporting every change it makes.

Rules see a node whose children are already rendered and return the node (the same
object when unchanged). They never drop anything without ``ctx.lose``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from httpllm._memo import IdentityMemo
from httpllm._types import Schema
from httpllm.dialects._base import RenderContext, Rule
from httpllm.errors import Unrepresentable
from httpllm.normalize.nullable import allows_null, with_null
from httpllm.pointer import escape, unescape
from httpllm.refs import RefGraph
from httpllm.walk import children, refs_in, transform

if TYPE_CHECKING:
    from httpllm.records import Function

__all__ = [
    "CONSTRAINTS",
    "JSON_SCHEMA_2020_12",
    "close_objects",
    "describe",
    "filter_keywords",
    "foreign_keywords",
    "maps_as_entries",
    "no_recursion",
    "recursive_defs",
    "ref_alone",
    "seal_objects",
    "to_description",
    "typed_nodes",
    # gemini, ollama, 3.0
    "booleans",
    "const_as_enum",
    "flatten_all_of",
    "limit_depth",
    "merge_member",
    "null_members",
    "nullable_as_flag",
    "required_known",
    "tuples_as_arrays",
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

JSON_SCHEMA_2020_12 = frozenset(
    {"$ref", "$defs", "type", "enum", "const", "properties", "required",
     "additionalProperties", "patternProperties", "propertyNames", "items", "prefixItems",
     "contains", "minContains", "maxContains", "minItems", "maxItems", "uniqueItems",
     "minProperties", "maxProperties", "dependentRequired", "dependentSchemas", "anyOf",
     "oneOf", "allOf", "not", "if", "then", "else", "unevaluatedItems",
     "unevaluatedProperties", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
     "multipleOf", "minLength", "maxLength", "pattern", "format", "contentMediaType",
     "contentEncoding", "contentSchema", "title", "description", "default", "examples",
     "deprecated", "readOnly", "writeOnly", "$comment"}
)
"""Every keyword of JSON Schema 2020-12 (core, applicator, validation, meta-data, content)."""


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


def filter_keywords(node: dict[str, Any], ctx: RenderContext) -> Schema:
    """Keep the dialect's keywords; constraints (and with ``strip_constraints``, every
    validation keyword) go into the description, anything else is dropped."""
    keep = ctx.dialect.keywords
    if ctx.strict and ctx.dialect.strict_keywords is not None:
        keep = ctx.dialect.strict_keywords
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
    return describe(out, moved)


def ref_alone(node: dict[str, Any], ctx: RenderContext) -> Schema:
    """A ``$ref`` with siblings becomes ``{"anyOf": [{"$ref": ...}], ...siblings}``: strict
    OpenAI rejects siblings next to ``$ref`` (openai-python ``lib/_pydantic.py``)."""
    if "$ref" not in node or len(node) == 1:
        return node
    siblings = {k: v for k, v in node.items() if k != "$ref"}
    return {**siblings, "anyOf": [{"$ref": node["$ref"]}]}


_APPLIES_TO = {"properties": "object", "required": "object", "additionalProperties": "object",
               "items": "array"}
_APPLIES_KEYS = frozenset(_APPLIES_TO)


def foreign_keywords(node: dict[str, Any], ctx: RenderContext) -> Schema:
    """Object and array keywords on a node whose ``type`` excludes objects or arrays are
    dropped, with a loss entry. *Equivalent* (JSON Schema 2020-12 applies them to objects
    or arrays only), but strict modes check them anyway: ``{"type": "string",
    "additionalProperties": true}`` is rejected there (an untyped ``true`` schema).

    >>> foreign_keywords({"type": "string", "additionalProperties": True}, CTX)
    {'type': 'string'}
    """
    kind = node.get("type")
    if not isinstance(kind, (str, list)) or _APPLIES_KEYS.isdisjoint(node):
        return node
    kinds = {kind} if isinstance(kind, str) else set(kind)
    foreign = [key for key in node if key in _APPLIES_TO and _APPLIES_TO[key] not in kinds]
    if not foreign:
        return node
    for key in foreign:
        ctx.lose(key, "dropped", node[key], f"no effect: the type is not {_APPLIES_TO[key]}")
    return {k: v for k, v in node.items() if k not in foreign}


_TYPED = frozenset({"type", "anyOf", "oneOf", "$ref", "allOf"})
"""A node with one of these keywords has its type (or its members have theirs)."""


def typed_nodes(node: dict[str, Any], ctx: RenderContext) -> Schema:
    """Give every node a ``type``: inferred from ``properties``/``items``/``enum``; an
    untyped node (any value) becomes ``{"type": "string"}`` with a loss entry (strict
    modes reject untyped nodes: "schema must have a 'type' key")."""
    if not _TYPED.isdisjoint(node):
        return node
    if "properties" in node or "additionalProperties" in node:
        return {**node, "type": "object"}
    if "items" in node or "prefixItems" in node:
        return {**node, "type": "array"}
    values = node.get("enum", [node["const"]] if "const" in node else None)
    if isinstance(values, list) and values:
        kinds = {"string" if isinstance(v, str) else "boolean" if isinstance(v, bool) else
                 "integer" if isinstance(v, int) else "number" if isinstance(v, float) else
                 "null" if v is None else "object" for v in values}
        if len(kinds) == 1:
            return {**node, "type": kinds.pop()}
        return node
    if not ctx.options.lenient:
        raise Unrepresentable(f"{ctx.pointer}: a schema without a type (any value) cannot be "
                              "expressed in strict mode (lenient=False)")
    ctx.lose("type", "rewritten", None, "any value: typed as string")
    return {**node, "type": "string"}


def _is_map(node: dict[str, Any]) -> bool:
    """An object that declares no ``properties`` keyword (an explicit ``properties: {}``
    is a closed, empty object once strict mode closes it)."""
    if node.get("type") != "object" or "properties" in node:
        return False
    return node.get("additionalProperties", True) is not False


def maps_as_entries(node: dict[str, Any], ctx: RenderContext) -> Schema:
    """A map (object without properties) becomes an array of ``{key, value}`` entries.

    Strict modes demand ``additionalProperties: false``, which would make a map always
    empty (openai/openai-python#2004). ``execute.decode`` turns the entries back into a
    map; a value the document leaves untyped travels as JSON text.
    """
    if not _is_map(node):
        return node
    extra = node.get("additionalProperties", True)
    if isinstance(extra, dict) and extra:
        value: Schema = extra
    else:
        value = {"type": "string", "description": "The value, as JSON text."}
    entry = {"type": "object", "properties": {"key": {"type": "string"}, "value": value},
             "required": ["key", "value"], "additionalProperties": False}
    keep = {k: v for k, v in node.items() if k in ("description", "title")}
    ctx.lose("additionalProperties", "rewritten", extra if extra is not True else True,
             "map given as an array of {key, value} entries")
    note = "A map, given as a list of {key, value} entries."
    text = keep.get("description")
    keep["description"] = f"{text}\n{note}" if text else note
    return {**keep, "type": "array", "items": entry}


def _with_null(sub: dict[str, Any], memo: IdentityMemo[dict[str, Any]]) -> dict[str, Any]:
    """:func:`with_null` once per shared node (an argument's schema is optional in many
    functions): one object, so later measures and the serializer see it as shared."""
    hit = memo.get(sub)
    return hit if hit is not None else memo.put(sub, with_null(sub))


def close_objects(node: dict[str, Any], ctx: RenderContext) -> Schema:
    """Strict objects: ``additionalProperties: false``; every property required, the
    optional ones made nullable (OpenAI structured outputs: "all fields must be required";
    optional = a union with null)."""
    if node.get("type") != "object" and "properties" not in node:
        return node
    props = node.get("properties", {})
    required = node.get("required", [])
    named = {name for name in required if isinstance(name, str)}
    optional = [name for name in props if name not in named]
    extra = node.get("additionalProperties")
    if (node.get("additionalProperties") is False and not optional
            and list(required) == list(props) and "properties" in node):
        return node
    out = dict(node)
    if extra is not None and extra is not False:
        ctx.lose("additionalProperties", "dropped", extra, "strict mode closes every object")
    out["additionalProperties"] = False
    out.setdefault("properties", {})
    if optional:
        memo = ctx.identity_memo("with_null")
        out["properties"] = {
            name: (_with_null(sub, memo) if name not in named and isinstance(sub, dict)
                   and not allows_null(sub) else sub)
            for name, sub in props.items()
        }
        ctx.lose("required", "rewritten", list(required),
                 "optional properties made required and nullable: " + ", ".join(optional))
    out["required"] = list(props)
    return out


# -- Appended for the claude, bedrock, openai-compatible, mistral and mcp dialects. ----------

Test = Callable[[Any, dict[str, Any]], bool]
"""``(value, node) -> bool``: whether a keyword's value must leave the schema."""


def to_description(table: Mapping[str, Test | None], note: str = "") -> Rule:
    """A rule moving each keyword of ``table`` into the description (``@keyword value``)
    when its test holds for the node (``None``: always).

    >>> rule = to_description({"minItems": lambda v, n: v > 1})
    >>> rule({"type": "array", "minItems": 2}, CTX)
    {'type': 'array', 'description': '@minItems 2'}
    """

    def rule(node: dict[str, Any], ctx: RenderContext) -> Schema:
        moved = [(key, node[key]) for key, test in table.items()
                 if key in node and (test is None or test(node[key], node))]
        if not moved:
            return node
        for key, value in moved:
            ctx.lose(key, "described", value, note)
        gone = {key for key, _ in moved}
        return describe({k: v for k, v in node.items() if k not in gone}, moved)

    return rule


def seal_objects(node: dict[str, Any], ctx: RenderContext) -> Schema:
    """Every object gets ``additionalProperties: false`` and ``properties``; ``required``
    is left alone (Anthropic strict: "additionalProperties must be false", optional
    properties allowed). Run :func:`maps_as_entries` first, or a map becomes empty."""
    if node.get("type") != "object" and "properties" not in node:
        return node
    extra = node.get("additionalProperties")
    if extra is False and "properties" in node:
        return node
    if extra is not None and extra is not False:
        ctx.lose("additionalProperties", "dropped", extra, "strict mode closes every object")
    return {**node, "properties": node.get("properties", {}), "additionalProperties": False}


def recursive_defs(root: dict[str, Any]) -> list[str]:
    """The names under the root's ``$defs`` that lie on a reference cycle, sorted.

    ``$defs`` holds recursive schemas only with ``reference=False``; with
    ``reference=True`` it holds every named schema, most of them not recursive.
    """
    defs = root.get("$defs")
    if not isinstance(defs, dict):
        return []
    graph = RefGraph.of({name: _local_refs(sub) for name, sub in defs.items()})
    return sorted(graph.recursive & defs.keys())


def _local_refs(schema: Any) -> set[str]:
    """Names of the ``#/$defs/...`` targets a schema refers to."""
    return {unescape(ref[8:].split("/", 1)[0]) for ref in refs_in(schema)
            if ref.startswith("#/$defs/")}


def no_recursion(node: dict[str, Any], ctx: RenderContext) -> Schema:
    """At the root (the node holding ``$defs``): recursive schemas are unrolled
    ``Options.unroll`` levels, or the function leaves strict mode (Anthropic strict:
    "recursive schemas are not supported")."""
    names = recursive_defs(node)
    if not names:
        return node
    if ctx.options.unroll is None:
        ctx.fail(f"recursive schemas ({', '.join(names)}) are not supported in strict mode;"
                 " pass unroll=N to expand them")
        return node
    from httpllm.dialects._unroll import unroll
    from httpllm.errors import Unrepresentable

    try:
        out, lost = unroll(node, ctx.options.unroll, ctx.dialect.name, pointer=ctx.pointer)
    except Unrepresentable as exc:
        ctx.fail(exc.message)
        return node
    ctx.losses.extend(lost)
    return out


# -- rules for dialects without JSON Schema's null, const or boolean schemas ------------------
# (gemini, ollama, 3.0; appended by the dialect work of issue "gemini, ollama, 3.0")

_SUBSCHEMA_LISTS = ("anyOf", "allOf", "oneOf")


def _is_null(node: Any) -> bool:
    return isinstance(node, dict) and node.get("type") == "null" and "anyOf" not in node


def booleans(any_value: Schema, never: Schema | None = None) -> Any:
    """A rule factory: boolean subschemas (``true``/``false``) under ``properties``,
    ``items`` and unions become ``any_value`` / ``never``; with ``never=None`` a ``false``
    property or union member is removed (no value can be given for it).

    Providers whose schema is a typed struct reject booleans: Ollama answers 400 "cannot
    unmarshal bool into Go struct field" (can1357/oh-my-pi#4491); Gemini's ``Schema`` is a
    message. ``additionalProperties: false`` is a keyword value, not touched here.
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
            junk = {k: v for k, v in props.items() if not isinstance(v, (dict, bool))}
            if junk:
                ctx.lose("properties", "dropped", junk, "not schemas")
            kept = {k: swap(v, ctx, "properties") for k, v in props.items()
                    if (v is not False or never is not None) and k not in junk}
            gone = [k for k in props if k not in kept]
            out = {**out, "properties": kept}
            if gone and isinstance(node.get("required"), list):
                out["required"] = [r for r in node["required"] if r not in gone]
        if isinstance(node.get("items"), bool):
            out = {**out, "items": swap(node["items"], ctx, "items")}
        for key in _SUBSCHEMA_LISTS:
            members = node.get(key)
            if isinstance(members, list) and any(isinstance(m, bool) for m in members):
                out = {**out, key: [swap(m, ctx, key) for m in members
                                    if m is not False or never is not None]}
        return out

    return rule


def const_as_enum(node: dict[str, Any], ctx: RenderContext) -> Schema:
    """``const: v`` -> ``enum: [v]`` (equivalent), for dialects without ``const`` (Gemini:
    ``Unknown name "const"``, zed#44875; Ollama drops it; OpenAPI 3.0 has no ``const``)."""
    if "const" not in node:
        return node
    value = node["const"]
    ctx.lose("const", "rewritten", value, "a one-value enum")
    out = {k: v for k, v in node.items() if k != "const"}
    enum = node.get("enum")
    out["enum"] = [value] if not isinstance(enum, list) or value in enum else []
    return out


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


def _nests(node: Any) -> bool:
    if not isinstance(node, dict):
        return False
    kind = node.get("type")
    kind = kind.lower() if isinstance(kind, str) else ""
    return kind in ("object", "array") or "properties" in node or "items" in node


def _too_deep(parameters: dict[str, Any], limit: int) -> list[tuple[str, Any]]:
    """``(pointer, node)`` of the first nodes, pre-order, nested deeper than ``limit``."""
    found: list[tuple[str, Any]] = []
    props = parameters.get("properties")
    stack: list[tuple[Any, str, int]] = [
        (sub, f"parameters#/properties/{escape(name)}", 0)
        for name, sub in reversed(list(props.items() if isinstance(props, dict) else ()))
    ]
    while stack:
        node, at, level = stack.pop()
        if not isinstance(node, dict):
            continue
        kids = []
        for keyword, key, sub in children(node):
            where = f"{at}/{keyword}" if key is None else f"{at}/{keyword}/{escape(key)}"
            deeper = level + (1 if _nests(sub) else 0)
            if deeper > limit:
                found.append((where, sub))
            else:
                kids.append((sub, where, deeper))
        stack.extend(reversed(kids))
    return found


def _as_json_text(node: dict[str, Any], at: str, limit: int) -> dict[str, Any]:
    label = node.get("title") or at.rsplit("/", 1)[-1].replace("~1", "/").replace("~0", "~")
    if label in ("items", "additionalProperties") or label.isdigit():
        label = "value"
    text = f"JSON-encoded {label}: send this value as JSON text."
    shape = json.dumps(node, ensure_ascii=False, separators=(",", ":"))
    if len(shape) <= 1000:
        text += f" Its JSON Schema: {shape}"
    out: dict[str, Any] = {"type": "string", "description": text}
    if node.get("nullable") is True:
        out["nullable"] = True
    return out


def limit_depth(parameters: Schema, function: Function, ctx: RenderContext) -> Schema:
    """A ``finish`` step: enforce ``Options.max_depth``, object/array levels below each
    argument (the argument itself is level 0: in bug case C29, ``sections`` is 1, a
    ``Section`` 2, ``blocks`` 3, a ``Block`` 4, ``rows`` 5).

    Past the limit the function is an error naming the first path that is too deep; with
    ``Options.collapse_deep`` each subtree starting past the limit becomes a string of JSON
    text (``{"type": "string", "description": "JSON-encoded rows: ..."}``) with a loss
    entry, and ``execute.decode`` JSON-decodes it (guided by ``Function.schema``).

    Raises:
        Unrepresentable: too deep and ``collapse_deep`` is off.

    Source: "A FunctionDeclaration in the request exceeds the maximum allowed nesting depth"
    (google-gemini/gemini-cli#5923; the limit is not documented).
    """
    limit = ctx.options.max_depth
    if limit is None or not isinstance(parameters, dict):
        return parameters
    found = _too_deep(parameters, limit)
    if not found:
        return parameters
    if not ctx.options.collapse_deep:
        raise Unrepresentable(
            f"{function.name}: {found[0][0]} nests deeper than max_depth={limit} object/array "
            "levels; pass collapse_deep=True to send deeper parts as JSON text",
            pointer=function.pointer or None)
    targets = dict(found)

    def visit(node: dict[str, Any], at: str) -> Schema:
        if at not in targets:
            return node
        ctx.pointer = at
        ctx.lose("type", "rewritten", None, f"nested deeper than max_depth={limit}: JSON text")
        return _as_json_text(targets[at], at, limit)

    return transform(parameters, visit, pointer="parameters#")


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
