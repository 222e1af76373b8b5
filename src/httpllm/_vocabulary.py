"""The words of the two specifications: JSON Schema's keywords (draft 4 to 2020-12) and
the fields of OpenAPI's objects (Swagger 2.0 to OpenAPI 3.2), one table per fact.

At the bottom of the layers, so every stage reads the same table: the dialects (which
keywords a provider keeps), ``parse`` (a path item's operations) and ``_content`` (what
a ``$ref`` into another file may point at). Sources: JSON Schema 2020-12 Core and
Validation (sections listed per table), draft-07 (draft-handrews-json-schema-01 and
-validation-01), draft 2019-09, draft 4; OpenAPI 2.0, 3.0.3, 3.1.1 and 3.2.0, each
object's *Fixed Fields*.
"""

from __future__ import annotations

__all__ = [
    "DRAFT_7",
    "EARLIER_DRAFTS",
    "IDENTIFIERS",
    "JSON_SCHEMA_2020_12",
    "JSON_SCHEMA_KEYWORDS",
    "METHODS",
    "METHODS_32",
    "OPENAPI_FIELDS",
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
``$defs`` and ``$comment``, applicator, validation, meta-data, content): all but
:data:`IDENTIFIERS`."""

IDENTIFIERS = frozenset(
    {"$schema", "$id", "$anchor", "$dynamicRef", "$dynamicAnchor", "$vocabulary"}
)
"""The core keywords of 2020-12 that name a schema, its dialect or a place in it (Core
sections 8.1-8.2.3): none is in :data:`JSON_SCHEMA_2020_12`."""

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
(``$schema`` and ``$id`` are in :data:`IDENTIFIERS`)."""

EARLIER_DRAFTS = frozenset({"id", "$recursiveRef", "$recursiveAnchor"})
"""The keywords of draft 4 (``id``) and 2019-09 (``$recursiveRef``, ``$recursiveAnchor``)
that neither 2020-12 nor draft 7 has."""

JSON_SCHEMA_KEYWORDS = JSON_SCHEMA_2020_12 | IDENTIFIERS | DRAFT_7 | EARLIER_DRAFTS
"""Every keyword of JSON Schema, draft 4 to 2020-12."""

METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
"""The operations of a path item (OpenAPI 3.0 and 3.1 Path Item Object; Swagger 2.0 has
all but ``trace``), in the specification's order."""

METHODS_32 = (*METHODS, "query")
"""OpenAPI 3.2 adds the ``query`` method (and any other in ``additionalOperations``)."""

OPENAPI_FIELDS = frozenset({
    # the document (2.0: swagger, host, basePath, schemes, consumes, produces, ...)
    "openapi", "swagger", "info", "servers", "paths", "components", "security", "tags",
    "webhooks", "jsonSchemaDialect", "$self", "host", "basePath", "schemes", "consumes",
    "produces", "securityDefinitions", "externalDocs",
    # info, contact, license, server, tag
    "summary", "termsOfService", "contact", "license", "version", "url", "variables",
    "name", "email", "identifier", "server", "parent", "kind",
    # components
    "schemas", "parameters", "responses", "requestBodies", "headers", "securitySchemes",
    "links", "callbacks", "pathItems", "mediaTypes",
    # path items and operations
    *METHODS_32, "additionalOperations", "operationId", "requestBody",
    # parameters, media types, encodings, examples, links
    "in", "allowEmptyValue", "style", "explode", "allowReserved", "schema", "content",
    "collectionFormat", "itemSchema", "encoding", "prefixEncoding", "itemEncoding",
    "contentType", "value", "externalValue", "dataValue", "serializedValue", "operationRef",
    # security schemes and OAuth flows
    "bearerFormat", "flows", "openIdConnectUrl", "oauth2MetadataUrl", "scheme",
    "authorizationUrl", "tokenUrl", "refreshUrl", "scopes", "deviceAuthorizationUrl", "flow",
    # the Schema Object's own fields, its XML Object and Discriminator Object
    "nullable", "discriminator", "xml", "example", "namespace", "prefix", "attribute",
    "wrapped", "nodeType", "propertyName", "mapping", "defaultMapping",
})
"""Every field of an OpenAPI object, Swagger 2.0 to OpenAPI 3.2, that JSON Schema does not
have (a Schema Object's JSON Schema keywords are :data:`JSON_SCHEMA_KEYWORDS`)."""
