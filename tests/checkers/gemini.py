"""Gemini `functionDeclarations[].parameters` (the OpenAPI-subset `Schema`) checker.

Two layers:

1. the SDK's own model: `google.genai.types.FunctionDeclaration.model_validate` (pydantic,
   `extra="forbid"`: an unknown keyword fails; a list-valued `type` crashes with
   `AttributeError`, which is caught and reported);
2. invariant 6 of the bug cases (shared/cases/README.md) and the API errors of
   provider-rules.md section 3 that the SDK does not catch: only :data:`FIELDS`; a single
   `type` from :data:`TYPES` on every node (nullability is `nullable: true`, never a `NULL`
   type or a type list); `enum` only on STRING, strings only, no `null` or `""` member;
   `required` names exist in the sibling `properties`; no empty `properties` on an OBJECT; an
   ARRAY has `items` and nothing else has; `format` per type from :data:`FORMATS` (STRING only
   `enum` and `date-time`, the Developer API's answer in google-gemini/gemini-cli#3178);
   function name rule of the SDK docstring (letter or `_` first; `a-zA-Z0-9_.:-`; <= 128).

A declaration without `parameters` is a zero-argument function and is valid.
"""

from __future__ import annotations

import re
from typing import Any

from ._schema import child, iter_schemas

__all__ = ["FIELDS", "FORMATS", "TYPES", "check", "check_parameters", "declarations"]

FIELDS = frozenset(
    {
        "type", "format", "title", "description", "nullable", "enum", "properties", "required",
        "propertyOrdering", "items", "anyOf", "default", "example",
        "minimum", "maximum", "minLength", "maxLength", "pattern",
        "minItems", "maxItems", "minProperties", "maxProperties",
    }
)  # fmt: skip
"""Invariant 6: the `Schema` fields a compiled declaration may use (no `$ref`/`$defs`/`ref`/
`defs`/`const`/`additionalProperties`/`oneOf`/`allOf`)."""

TYPES = frozenset({"string", "number", "integer", "boolean", "array", "object"})

FORMATS = {
    "string": frozenset({"enum", "date-time"}),
    "integer": frozenset({"int32", "int64"}),
    "number": frozenset({"float", "double"}),
}

NAME = re.compile(r"^[a-zA-Z_][a-zA-Z0-9_.:-]{0,127}$")


def declarations(x: Any) -> list[dict[str, Any]]:
    """The function declarations in a Function, a `Tool` dict, a tools list or a declaration."""
    if not isinstance(x, (dict, list)) and hasattr(x, "parameters"):
        decl: dict[str, Any] = {"name": x.name, "description": x.description}
        if x.parameters is not None:
            decl["parameters"] = x.parameters
        return [decl]
    if isinstance(x, list):
        return [d for item in x for d in declarations(item)]
    for key in ("functionDeclarations", "function_declarations"):
        if isinstance(x, dict) and key in x:
            return list(x[key] or [])
    return [x]


def check(tool_or_function: Any) -> list[str]:
    """SDK-model and invariant-6 violations of every declaration in `tool_or_function`."""
    out = []
    for decl in declarations(tool_or_function):
        name = decl.get("name") if isinstance(decl, dict) else None
        prefix = f"[{name}] "
        out.extend(prefix + p for p in _sdk_problems(decl))
        if not isinstance(name, str) or not NAME.match(name):
            out.append(f"{prefix}#: function name {name!r} does not match {NAME.pattern}")
        if isinstance(decl, dict) and decl.get("parameters") is not None:
            out.extend(prefix + p for p in check_parameters(decl["parameters"]))
    return out


def _sdk_problems(decl: Any) -> list[str]:
    from google.genai import types
    from pydantic import ValidationError

    try:
        types.FunctionDeclaration.model_validate(decl)
    except ValidationError as exc:
        return [
            "#/" + "/".join(str(p) for p in err["loc"]) + f": SDK: {err['msg']}"
            for err in exc.errors()
        ]
    except AttributeError as exc:  # a list-valued `type` ends here (provider-rules.md 3)
        return [f"#: SDK crashed with AttributeError ({exc}); a type list?"]
    except Exception as exc:  # any other SDK failure is a rejection too
        return [f"#: SDK raised {type(exc).__name__}: {exc}"]
    return []


def check_parameters(schema: Any) -> list[str]:
    """Invariant-6 violations of one `parameters` schema."""
    if not isinstance(schema, dict):
        return [f"#: parameters must be an object, got {schema!r}"]
    out = []
    if str(schema.get("type", "")).lower() != "object":
        out.append(f"#: parameters root must be type OBJECT, got {schema.get('type')!r}")
    for pointer, node in iter_schemas(schema, unique=True):
        out.extend(_node_problems(pointer, node))
    return out


def _node_problems(pointer: str, node: Any) -> list[str]:
    if not isinstance(node, dict):
        return [f"{pointer}: schema must be an object, got {node!r}"]
    out = [
        f"{pointer}: field {k!r} is not part of Gemini's Schema" for k in node if k not in FIELDS
    ]
    raw = node.get("type")
    if raw is None:
        if "anyOf" not in node:
            out.append(f"{pointer}: type must be specified")
        typ = None
    elif not isinstance(raw, str):
        out.append(f"{pointer}: type must be a single string, got {raw!r}")
        typ = None
    else:
        typ = raw.lower()
        if typ not in TYPES:
            out.append(f"{pointer}: type {raw!r} is not allowed (nullable: true expresses null)")
    if "nullable" in node and not isinstance(node["nullable"], bool):
        out.append(f"{pointer}: nullable must be a boolean")
    out.extend(_enum_problems(pointer, node, typ))
    out.extend(_shape_problems(pointer, node, typ))
    fmt = node.get("format")
    if fmt is not None and typ is not None and fmt not in FORMATS.get(typ, frozenset()):
        out.append(f"{pointer}: format {fmt!r} is not supported on {typ.upper()}")
    return out


def _enum_problems(pointer: str, node: dict[str, Any], typ: str | None) -> list[str]:
    if "enum" not in node:
        return []
    enum = node["enum"]
    out = []
    if typ != "string":
        out.append(f"{pointer}: enum is only allowed on STRING, here on {typ!r}")
    if not isinstance(enum, list) or not enum:
        return [*out, f"{pointer}: enum must be a non-empty list"]
    for i, value in enumerate(enum):
        if not isinstance(value, str):
            out.append(f"{pointer}/enum/{i}: enum member {value!r} is not a string")
        elif value == "":
            out.append(f"{pointer}/enum/{i}: enum member cannot be empty")
    return out


def _shape_problems(pointer: str, node: dict[str, Any], typ: str | None) -> list[str]:
    out = []
    props = node.get("properties")
    if props is not None and not isinstance(props, dict):
        out.append(f"{pointer}: properties must be an object")
        props = {}
    if typ == "object" and props == {}:
        out.append(f"{pointer}: properties should be non-empty for OBJECT type")
    required = node.get("required", [])
    if not isinstance(required, list):
        out.append(f"{pointer}: required must be a list")
    else:
        unknown = [name for name in required if name not in (props or {})]
        if unknown:
            out.append(f"{pointer}: required names undefined properties {unknown}")
    if typ == "array" and "items" not in node:
        out.append(f"{pointer}: items: missing field for ARRAY")
    if "items" in node and typ is not None and typ != "array":
        out.append(f"{pointer}: items on a non-ARRAY node ({typ.upper()})")
    ordering = child(node, "propertyOrdering")
    if isinstance(ordering, list) and not set(ordering) <= set(props or {}):
        out.append(f"{pointer}: propertyOrdering names undefined properties")
    return out
