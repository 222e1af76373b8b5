"""The words of the two specifications: JSON Schema's keywords per draft and a path item's
operations, one table per fact.

At the bottom of the layers, so every stage reads the same table: the dialects (which
keywords a provider keeps), ``parse`` (a path item's operations) and ``_content`` (what
a ``$ref`` into another file may point at). Sources: JSON Schema 2020-12 Core and
Validation, draft-07 (draft-handrews-json-schema-01 and -validation-01); OpenAPI 3.0.3,
3.1.1 and 3.2.0, the Path Item Object's *Fixed Fields*.
"""

from __future__ import annotations

__all__ = [
    "DRAFT_7",
    "JSON_SCHEMA_2020_12",
    "METHODS",
    "METHODS_32",
]


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
"""Every keyword of JSON Schema 2020-12 a tool's schema may hold (core's ``$ref``,
``$defs`` and ``$comment``, applicator, validation, meta-data, content): all but those
that name a schema, its dialect or a place in it (``$schema``, ``$id``, ``$anchor``,
``$dynamicRef``, ``$dynamicAnchor``, ``$vocabulary``: Core sections 8.1-8.2.3)."""

DRAFT_7 = frozenset(
    {"$ref", "definitions", "type", "enum", "const", "properties", "required",
     "additionalProperties", "patternProperties", "propertyNames", "dependencies", "items",
     "additionalItems", "contains", "minItems", "maxItems", "uniqueItems", "minProperties",
     "maxProperties", "anyOf", "oneOf", "allOf", "not", "if", "then", "else", "minimum",
     "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minLength",
     "maxLength", "pattern", "format", "contentMediaType", "contentEncoding", "title",
     "description", "default", "examples", "readOnly", "writeOnly", "$comment"}
)
"""Every keyword of JSON Schema Draft 7 (validation and core) a tool's schema may hold
(all but ``$schema`` and ``$id``)."""

METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
"""The operations of a path item (OpenAPI 3.0 and 3.1 Path Item Object; Swagger 2.0 has
all but ``trace``), in the specification's order."""

METHODS_32 = (*METHODS, "query")
"""OpenAPI 3.2 adds the ``query`` method (and any other in ``additionalOperations``)."""
