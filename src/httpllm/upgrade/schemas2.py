"""Swagger 2.0 Schema Objects (and the vendor extensions on them) -> OpenAPI 3.0: the node
rules, one small function each, run from :data:`NODE_RULES` on every object of every 2.0
file, children first (copy on write), after :mod:`httpllm.upgrade.swagger2` has moved the
sections.

Vendor extensions that change what a request means, one by one:

- ``x-nullable: true`` -> ``nullable: true`` (rule ``x_nullable``; a ``$ref`` beside it
  becomes ``allOf: [$ref]``, since 3.0 ignores siblings of ``$ref``);
- ``x-ms-discriminator-value`` on a definition that extends a polymorphic base (``allOf``
  with a ``$ref`` to a schema with a ``discriminator``) -> an entry of the base's
  Discriminator Object ``mapping`` (rule ``x_ms_discriminator_value``);
- ``x-ms-enum`` ``modelAsString: true`` -> the enum stays (a model should pick a listed
  value) and the value descriptions (``values[].description``) join the schema's
  description (rule ``x_ms_enum``); ``modelAsString: false`` changes nothing;
- ``x-ms-mutability: ["read"]`` -> ``readOnly: true`` (rule ``x_ms_mutability``);
- ``x-ms-paths`` -> not carried (operations told apart by a query string in the path key
  have no 3.x form): a note per path (rule ``x_ms_paths``);
- ``x-example`` on a parameter -> ``example`` (rule ``x_example``).

Left as they are, because they change client code, not the request: ``x-ms-client-flatten``,
``x-ms-client-name``, ``x-ms-parameter-location``, ``x-ms-pageable``,
``x-ms-long-running-operation``, ``x-ms-azure-resource``, ``x-ms-odata``, ``x-ms-secret``,
``x-ms-parameter-grouping``, ``x-ms-external``. ``x-ms-skip-url-encoding`` is also left:
path values are always percent-encoded (our safety rule), which a server decodes.

Source: OpenAPI 2.0 Schema Object; OpenAPI 3.0.3 Schema Object; AutoRest extensions
(Azure/autorest ``docs/extensions/readme.md``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from httpllm.pointer import escape
from httpllm.upgrade._record import Note, rewrite

if TYPE_CHECKING:
    from httpllm.upgrade.swagger2 import Context

__all__ = [
    "NODE_RULES",
    "SECTIONS",
    "array_enum",
    "discriminator",
    "file_type",
    "nodes",
    "ref",
    "rewrite_ref",
    "x_ms_discriminator_value",
    "x_ms_enum",
    "x_ms_mutability",
    "x_nullable",
]

SECTIONS = {
    "/definitions": "/components/schemas",
    "/parameters": "/components/parameters",
    "/responses": "/components/responses",
    "/securityDefinitions": "/components/securitySchemes",
}
"""2.0 top-level sections -> their 3.x place (``$ref`` prefixes are rewritten the same way;
a body parameter goes to ``/components/requestBodies`` instead)."""


def rewrite_ref(ref: str) -> str:
    """A 2.0 ``$ref`` -> its 3.x spelling (same file; the section moved).

    >>> rewrite_ref("common.json#/definitions/Error")
    'common.json#/components/schemas/Error'
    >>> rewrite_ref("#/paths/~1pets/get")
    '#/paths/~1pets/get'

    Source: OpenAPI 3.0.3 section 4.7.7 (Components Object).
    """
    head, sep, fragment = ref.partition("#")
    if not sep:
        return ref
    for old, new in SECTIONS.items():
        if fragment == old or fragment.startswith(old + "/"):
            return f"{head}#{new}{fragment[len(old):]}"
    return ref


def ref(node: dict[str, Any], ctx: Context) -> dict[str, Any]:
    """``$ref`` into ``definitions``/``parameters``/``responses``/``securityDefinitions``
    -> into ``components`` (see :func:`rewrite_ref`)."""
    value = node.get("$ref")
    if not isinstance(value, str):
        return node
    new = rewrite_ref(value)
    if new == value:
        return node
    ctx.tally["ref"] += 1
    return {**node, "$ref": new}


def x_nullable(node: dict[str, Any], ctx: Context) -> dict[str, Any]:
    """``x-nullable: true`` -> ``nullable: true`` (``{"$ref": r, "x-nullable": true}`` ->
    ``{"allOf": [{"$ref": r}], "nullable": true}``: 3.0 ignores ``$ref`` siblings).

    Source: OpenAPI 3.0.3 Schema Object ``nullable``; AutoRest ``x-nullable``.
    """
    if "x-nullable" not in node:
        return node
    out = {k: v for k, v in node.items() if k != "x-nullable"}
    if node["x-nullable"] is not True:
        return out
    ctx.tally["x_nullable"] += 1
    if "$ref" in out:
        out = {"allOf": [{"$ref": out.pop("$ref")}], **out}
    return {**out, "nullable": True}


def discriminator(node: dict[str, Any], ctx: Context) -> dict[str, Any]:
    """``discriminator: "petType"`` (a property name) -> ``{"propertyName": "petType"}``.

    Source: OpenAPI 2.0 Schema Object ``discriminator``; OpenAPI 3.0.3 section 4.7.25.
    """
    name = node.get("discriminator")
    if not isinstance(name, str):
        return node
    ctx.tally["discriminator"] += 1
    return {**node, "discriminator": {"propertyName": name}}


def file_type(node: dict[str, Any], ctx: Context) -> dict[str, Any]:
    """``type: file`` -> ``type: string, format: binary``.

    Source: OpenAPI 3.0.3 section 4.8.14.4 (Considerations for File Uploads).
    """
    if node.get("type") != "file":
        return node
    ctx.tally["file_type"] += 1
    return {**node, "type": "string", "format": "binary"}


def x_ms_mutability(node: dict[str, Any], ctx: Context) -> dict[str, Any]:
    """``x-ms-mutability: ["read"]`` (the server sets it) -> ``readOnly: true``."""
    if node.get("x-ms-mutability") != ["read"] or node.get("readOnly") is True:
        return node
    ctx.tally["x_ms_mutability"] += 1
    return {**node, "readOnly": True}


def x_ms_enum(node: dict[str, Any], ctx: Context) -> dict[str, Any]:
    """``x-ms-enum`` value descriptions -> appended to the schema's ``description``
    (``- value: description`` lines); the ``enum`` itself is kept."""
    info = node.get("x-ms-enum")
    values = info.get("values") if isinstance(info, dict) else None
    if not isinstance(values, list):
        return node
    lines = [f"- {v.get('value')}: {v['description']}" for v in values
             if isinstance(v, dict) and isinstance(v.get("description"), str)]
    if not lines:
        return node
    ctx.tally["x_ms_enum"] += 1
    text = node.get("description")
    text = text if isinstance(text, str) else ""
    return {**node, "description": "\n".join([text, *lines]).strip()}


def array_enum(node: dict[str, Any], ctx: Context, at: str) -> dict[str, Any]:
    """An ``enum`` of scalars on ``type: array`` (no array can match it: a common 2.0 slip
    for an enum of the items) -> the ``enum`` of ``items``, with a note at the original
    pointer."""
    enum, items = node.get("enum"), node.get("items")
    if node.get("type") != "array" or not isinstance(enum, list) or not enum or any(
            isinstance(v, (list, dict)) for v in enum) or not isinstance(items, dict) or (
            "enum" in items or "$ref" in items):
        return node
    ctx.tally["array_enum"] += 1
    where = ctx.pointers.original(f"{ctx.file}#{at}/enum")  # ``at`` is in the new document
    ctx.notes.append(Note(where, "an enum of single values on an array: read as the enum of "
                          "its items"))
    rest = {k: v for k, v in node.items() if k != "enum"}
    return {**rest, "items": {**items, "enum": enum}}


NODE_RULES: tuple[Callable[[dict[str, Any], Context], dict[str, Any]], ...] = (
    ref, x_nullable, discriminator, file_type, x_ms_mutability, x_ms_enum)
"""Rules for every object, in order (each returns the node itself when it does not apply)."""


def nodes(tree: Any, ctx: Context, at: str = "") -> Any:
    """Apply :data:`NODE_RULES` to every object of ``tree`` (copy on write)."""
    def visit(node: dict[str, Any], pointer: str) -> dict[str, Any]:
        for rule in NODE_RULES:
            node = rule(node, ctx)
        return array_enum(node, ctx, pointer)

    return rewrite(tree, visit, at)


def x_ms_discriminator_value(schemas: dict[str, Any], ctx: Context) -> dict[str, Any]:
    """Each definition with ``x-ms-discriminator-value`` that extends a base with a
    ``discriminator`` (``allOf`` with a local ``$ref``) -> an entry of the base's
    ``mapping`` (value -> the definition); runs on the converted ``schemas``."""
    mapping: dict[str, dict[str, str]] = {}
    for name, node in schemas.items():
        value = node.get("x-ms-discriminator-value") if isinstance(node, dict) else None
        if not isinstance(value, str) or not isinstance(node.get("allOf"), list):
            continue
        for member in node["allOf"]:
            target = member.get("$ref") if isinstance(member, dict) else None
            base = target.rpartition("/")[2] if isinstance(target, str) and target.startswith(
                "#/components/schemas/") else None
            if base is not None and isinstance(schemas.get(base), dict) and isinstance(
                    schemas[base].get("discriminator"), dict):
                ctx.tally["x_ms_discriminator_value"] += 1
                mapping.setdefault(base, {})[value] = f"#/components/schemas/{escape(name)}"
    if not mapping:
        return schemas
    out = dict(schemas)
    for base, entries in mapping.items():
        found = out[base]["discriminator"]
        out[base] = {**out[base], "discriminator": {
            **found, "mapping": {**entries, **found.get("mapping", {})}}}
    return out
