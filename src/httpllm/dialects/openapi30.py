"""OpenAPI 3.0 (``"3.0"``): parameters as an OpenAPI 3.0 Schema Object.

The emended schema (JSON Schema 2020-12) spelled the 3.0 way: ``nullable: true`` instead of
a ``null`` member (beside ``type``; a union keeps ``anyOf`` with each member nullable),
``const`` as a one-value enum, a numeric ``exclusiveMinimum`` as ``minimum`` plus
``exclusiveMinimum: true``, boolean subschemas as ``{}`` / ``{"not": {}}``; keywords 3.0
lacks (``prefixItems``, ``examples``, ``dependentRequired`` ...) go into the description.

A 3.0 Schema Object has no ``$defs``. Named schemas are inlined (``reference=False``); the
recursive ones (all with ``reference=True``) live under the root's ``x-defs`` extension and
are referred to as ``{"$ref": "#/x-defs/Folder"}``, a JSON pointer into the parameters
schema itself, so the parameters object is one self-contained document (a ``$ref`` with
siblings becomes ``{"allOf": [{"$ref": ...}], ...}``: 3.0 ignores ``$ref`` siblings). The
envelope has no output schema (it is JSON Schema 2020-12).

Source: https://spec.openapis.org/oas/v3.0.3#schema-object
"""

from __future__ import annotations

from typing import Any

from httpllm._types import JSON, Schema
from httpllm.dialects._base import Dialect, Options, RenderContext
from httpllm.dialects._rules import (
    booleans,
    const_as_enum,
    filter_keywords,
    nullable_as_flag,
    required_known,
    tuples_as_arrays,
)
from httpllm.normalize._context import value_key
from httpllm.records import Function

__all__ = ["DIALECTS", "OPENAPI_30", "SCHEMA_OBJECT_FIELDS"]

SCHEMA_OBJECT_FIELDS = frozenset(
    {"title", "multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum",
     "maxLength", "minLength", "pattern", "maxItems", "minItems", "uniqueItems",
     "maxProperties", "minProperties", "required", "enum", "type", "allOf", "oneOf", "anyOf",
     "not", "items", "properties", "additionalProperties", "description", "format",
     "default", "nullable", "readOnly", "writeOnly", "example", "deprecated", "$ref"}
)
"""OpenAPI 3.0.3 Schema Object fields httpllm emits (``discriminator``, ``xml`` and
``externalDocs`` exist too; the emended schema has none)."""

_NULL = {"type": "string", "nullable": True, "enum": [None]}
_DEFS_REF = "#/x-defs/"
_BOUNDS = (("exclusiveMinimum", "minimum", 1), ("exclusiveMaximum", "maximum", -1))


def _bounds(node: dict[str, Any], ctx: RenderContext) -> Schema:
    """``exclusiveMinimum: 3`` -> ``minimum: 3, exclusiveMinimum: true`` (3.0 booleans);
    beside a tighter ``minimum`` the exclusive bound is dropped (it adds nothing)."""
    out = node
    for exclusive, bound, sign in _BOUNDS:
        value, plain = out.get(exclusive), out.get(bound)
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            continue
        ctx.lose(exclusive, "rewritten", value, f"OpenAPI 3.0: {bound} + {exclusive}: true")
        out = dict(out)
        if isinstance(plain, (int, float)) and (value - plain) * sign < 0:
            del out[exclusive]
        else:
            out[bound], out[exclusive] = value, True
    return out


_PYTHON = {"string": (str,), "integer": (int,), "number": (int, float), "boolean": (bool,),
           "array": (list,), "object": (dict,)}


def _fits(value: Any, node: dict[str, Any]) -> bool:
    """A shallow check: type, enum, required keys; a union: one member (flat, no recursion)."""
    members = [m for m in node.get("anyOf", ()) if isinstance(m, dict) and "anyOf" not in m]
    if members and not any(_fits(value, m) for m in members):
        return False
    if value is None:
        return node.get("nullable") is True or any(m.get("nullable") is True for m in members)
    kinds = _PYTHON.get(str(node.get("type")), (object,))
    if isinstance(value, bool) and bool not in kinds and object not in kinds:
        return False
    enum = node.get("enum")
    if isinstance(value, dict) and not set(node.get("required", ())) <= value.keys():
        return False
    return isinstance(value, kinds) and (not isinstance(enum, list) or value_key(value) in {
        value_key(v) for v in enum})


def _fitting_default(node: dict[str, Any], ctx: RenderContext) -> Schema:
    """A ``default`` that fits its schema (openapi-spec-validator checks it; vendor
    documents break it, e.g. ``type: string, default: 0``). Its ``enum`` values are unique
    already (``normalize.kinds``, as JSON values: ``true`` is no repeat of ``1``)."""
    out = node
    if "default" in out and not _fits(out["default"], out):
        ctx.lose("default", "dropped", out["default"], "does not fit its own schema")
        out = {k: v for k, v in out.items() if k != "default"}
    return out


def _refs(node: dict[str, Any], ctx: RenderContext) -> Schema:
    """``$defs`` -> ``x-defs`` (at the root) and ``#/$defs/X`` -> ``#/x-defs/X``; a
    ``$ref`` with siblings (also one rewritten already, met again once an earlier rule
    merged a union member into its parent) -> ``{"allOf": [{"$ref": ...}], ...}``."""
    ref = node.get("$ref")
    if isinstance(ref, str):
        moved = ref.startswith("#/$defs/")
        target = {"$ref": _DEFS_REF + ref[len("#/$defs/"):] if moved else ref}
        siblings = {k: v for k, v in node.items() if k != "$ref"}
        if not siblings:
            return target if moved else node
        ctx.lose("$ref", "rewritten", ref, "siblings of $ref kept beside an allOf")
        return {**siblings, "allOf": [target]}
    defs = node.get("$defs")
    if not isinstance(defs, dict):
        return node
    ctx.lose("$defs", "rewritten", sorted(defs), "named schemas under x-defs (3.0 has no $defs)")
    return {**{k: v for k, v in node.items() if k != "$defs"}, "x-defs": defs}


def _envelope(function: Function, options: Options) -> JSON:
    return {"name": function.name, "description": function.description,
            "parameters": function.parameters}


OPENAPI_30 = Dialect(
    name="3.0",
    aliases=("openapi-3.0", "oas30"),
    keywords=SCHEMA_OBJECT_FIELDS | {"$defs"},
    refs="keep",
    rules=(booleans({}, {"not": {}}), const_as_enum, nullable_as_flag(_NULL), _bounds,
           tuples_as_arrays({}), filter_keywords, required_known, _fitting_default, _refs),
    envelope=_envelope,
    source="https://spec.openapis.org/oas/v3.0.3#schema-object",
)
"""``{"name", "description", "parameters"}`` with an OpenAPI 3.0 Schema Object."""

DIALECTS = (OPENAPI_30,)
