"""What a ``$ref`` into another file may read: OpenAPI or JSON Schema content, never a
settings file or a secret beside the document.

The document is untrusted, and what its ``$ref`` reads ends up in tools a model (and its
provider) reads, so the loader's gate (:meth:`httpllm.load.Loader._read`) asks of every
file it reads for a ``$ref`` that it holds content (:func:`schema_content`) and no value
shaped like a credential, whatever key holds it (:func:`credential_in`), and the resolver
(:meth:`httpllm.refs.Resolver._checked`) asks :func:`reads_as_content` of what the
``$ref`` points at in it. Content is told by its keywords holding the kinds of value
they take; a credential by its shape or by the key that names it, never by the other
keys beside it: a real schema carries vendors' keywords (``javaType``, ``readonly``).
"""

from __future__ import annotations

import re
from typing import Any

from httpllm._vocabulary import METHODS_32
from httpllm.pointer import escape

__all__ = ["credential_in", "reads_as_content", "schema_content"]

_OBJECT, _LIST, _TEXT, _FLAG = (dict,), (list,), (str,), (bool,)
_NUMBER = (int, float)
_SCHEMA_WORDS: dict[str, tuple[type, ...]] = {
    # OpenAPI / Swagger documents and their component collections
    "openapi": (str, *_NUMBER), "swagger": (str, *_NUMBER), "paths": _OBJECT,
    "components": _OBJECT, "definitions": _OBJECT, "schemas": _OBJECT, "responses": _OBJECT,
    "parameters": (dict, list), "requestBodies": _OBJECT, "securitySchemes": _OBJECT,
    "securityDefinitions": _OBJECT, "examples": (dict, list), "headers": _OBJECT,
    "links": _OBJECT, "callbacks": _OBJECT, "pathItems": _OBJECT, "webhooks": _OBJECT,
    # operations, parameters, bodies, examples
    "operationId": _TEXT, "requestBody": _OBJECT, "content": _OBJECT,
    "schema": (dict, bool), "summary": _TEXT, "externalValue": _TEXT, "explode": _FLAG,
    "allowReserved": _FLAG, "mediaType": _TEXT, "encoding": _OBJECT,
    # security schemes (their credentials come from the host, never from a file)
    "scheme": _TEXT, "bearerFormat": _TEXT, "flows": _OBJECT, "openIdConnectUrl": _TEXT,
    "authorizationUrl": _TEXT, "tokenUrl": _TEXT,
    # JSON Schema
    "$schema": _TEXT, "$id": _TEXT, "$ref": _TEXT, "$defs": _OBJECT, "$anchor": _TEXT,
    "$dynamicRef": _TEXT, "properties": _OBJECT, "patternProperties": _OBJECT,
    "additionalProperties": (dict, bool), "items": (dict, bool, list), "prefixItems": _LIST,
    "allOf": _LIST, "anyOf": _LIST, "oneOf": _LIST, "not": (dict, bool), "enum": _LIST,
    "const": (object,), "format": _TEXT, "nullable": _FLAG, "discriminator": (dict, str),
    "minimum": _NUMBER, "maximum": _NUMBER, "minLength": _NUMBER, "maxLength": _NUMBER,
    "pattern": _TEXT, "minItems": _NUMBER, "maxItems": _NUMBER,
}
"""Keys that mark OpenAPI or JSON Schema content, each with the JSON types its value takes
(``type`` counts when its value is a JSON Schema or security scheme type, ``in`` when it
names a parameter's place). A key holding a value its keyword never takes is a setting
that shares the word: a database's ``schema: public``, a service's ``headers: [...]``.
Generic words (``name``, ``value``, ``title``, ``description``, ``data``) are left out: a
Kubernetes secret, a cloud service-account key or an application's settings have them
too."""

_MAPS = frozenset({
    "paths", "components", "definitions", "schemas", "responses", "parameters",
    "requestBodies", "securitySchemes", "securityDefinitions", "headers", "links", "callbacks",
    "pathItems", "webhooks", "content", "encoding", "flows", "$defs", "properties",
    "patternProperties",
})
"""Keywords of :data:`_SCHEMA_WORDS` whose object maps names to objects (OpenAPI) or
schemas (JSON Schema): a client's ``headers: {Authorization: "Bearer ..."}`` is neither."""

_PLACES = frozenset({"query", "header", "path", "cookie", "querystring", "body", "formData"})
"""What ``in`` names in a parameter or an API key scheme (OpenAPI 3.x, 3.2, Swagger 2.0)."""

_OBJECT_FIELDS = frozenset({
    "description", "summary", "value", "externalValue", "required", "deprecated", "style",
    "explode", "example", "examples", "content", "schema", "headers", "links", "name", "in",
    "allowEmptyValue", "allowReserved", "title",
})
"""The fields of a small OpenAPI object (a response, a body, a header, an example) that may
hold nothing but a ``description``: a file whose keys are all among them (or ``x-``
extensions) is OpenAPI content too."""

_SCHEMA_TYPES = frozenset({"object", "array", "string", "number", "integer", "boolean",
                           "null", "file",
                           # security scheme types (OpenAPI 3.x, Swagger 2.0)
                           "apiKey", "http", "oauth2", "openIdConnect", "mutualTLS", "basic"})


def schema_content(value: Any, levels: int = 4) -> bool:
    """Whether ``value`` has an OpenAPI or JSON Schema keyword among the keys of its first
    ``levels`` levels of mappings (a schema, a path item, an example object, a file of
    named schemas, a whole document), or is a small OpenAPI object (only
    :data:`_OBJECT_FIELDS`: ``{"description": "ok"}``) or a mapping of names to them (a
    file of named examples). A JSON Schema may also be ``true``/``false``."""
    if isinstance(value, bool):
        return True
    if _small_object(value) or (isinstance(value, dict) and value and all(
            _small_object(v) for v in value.values())):
        return True  # one small object, or a file of named ones (examples, headers)
    layer = [value] if isinstance(value, dict) else []
    seen = 0
    for _ in range(levels):
        below: list[Any] = []
        for node in layer:
            for key, child in node.items():
                if _marks_content(key, child):
                    return True
                if isinstance(child, dict):
                    below.append(child)
            seen += len(node)
            if seen > 100_000:  # a huge file with no keyword near its top: not a schema
                return False
        layer = below
    return False


_METHODS = frozenset(METHODS_32)
"""A path item's operations (OpenAPI 3.x; ``query`` in 3.2): an object under one of them."""


def reads_as_content(node: Any) -> bool:
    """Whether ``node``, what a ``$ref`` into another file points at, is OpenAPI or JSON
    Schema content *itself*: ``true``/``false`` or ``{}``, a small OpenAPI object (only
    :data:`_OBJECT_FIELDS`: a response, a header, an example), an object with a keyword
    of either at its own top (:data:`_SCHEMA_WORDS` holding a value it takes, ``type``,
    ``in``, an operation under a path item's method), or a map whose every value is one
    of these (``paths``, named ``properties`` or security schemes kept in a file). A file
    passes :func:`schema_content` when a keyword sits anywhere in its first levels, so a
    settings file holding ``logging: {format: json}`` beside ``stripe_key: sk_live_...``
    was read and its key inlined by a ``$ref`` to the whole file (or to
    ``#/stripe_key``): the target must read as content where it is. One keyword at the
    top is not enough when a sibling names a credential (:func:`_credential_field`):
    ``{scheme: postgres, password: ...}`` put the password into the loss report as a
    dropped keyword's value. A vendor's keyword beside them is content.

    >>> reads_as_content({"type": "object"}), reads_as_content({"/pets": {"get": {}}})
    (True, True)
    >>> reads_as_content({"logging": {"format": "json"}, "stripe_key": "sk_live_x"})
    False
    >>> reads_as_content({"scheme": "https", "api_key": "sk_live_x"})
    False
    >>> reads_as_content({"type": "object", "javaType": "com.example.Pet"})
    True
    >>> reads_as_content("sk_live_x"), reads_as_content(["a"])
    (False, False)
    """
    return _content_here(node) or (isinstance(node, dict) and bool(node) and all(
        _content_here(value) for value in node.values()))


_CREDENTIAL_NAMES = ("password", "passwd", "pwd", "secret", "token", "apikey", "privatekey",
                     "secretkey", "accesskey", "credential", "credentials")
"""What a key naming a credential is, or ends with, once lower-cased without its ``x-`` and
its punctuation: ``password``, ``client_secret``, ``api_key``, ``x-auth-token``. No
field of OpenAPI or keyword of JSON Schema is named so that holds a text (OAuth's
``password`` flow is an object)."""


def _credential_field(key: Any, value: Any) -> bool:
    """Whether ``key: value`` is a credential by its name: a text or number (or a list of
    them) under a key :data:`_CREDENTIAL_NAMES` names. ``{scheme: postgres, password:
    hunter2}`` is a database's settings beside a keyword, not a security scheme; a
    vendor's own keyword (jsonschema2pojo's ``javaType: com.x.Pet``, a lower-case
    ``readonly: true``) is content, as in the document itself. Values shaped like a
    credential are refused for the whole file, whatever key holds them
    (:func:`credential_in`)."""
    if not isinstance(key, str):
        return False
    name = re.sub(r"[^a-z0-9]", "", key.lower().removeprefix("x-"))
    plain = (str, int, float)
    return name.endswith(_CREDENTIAL_NAMES) and (
        (isinstance(value, plain) and not isinstance(value, bool)) or (
            isinstance(value, list) and bool(value) and all(
                isinstance(v, plain) and not isinstance(v, bool) for v in value)))


def _content_here(node: Any) -> bool:
    if isinstance(node, bool) or node == {}:
        return True
    if not isinstance(node, dict) or any(_credential_field(k, v) for k, v in node.items()):
        return False
    return _small_object(node) or any(
        _marks_content(key, value) or (key in _METHODS and isinstance(value, dict))
        for key, value in node.items())


def _marks_content(key: Any, value: Any) -> bool:
    """Whether ``key: value`` is an OpenAPI or JSON Schema keyword with a value it takes
    (:data:`_SCHEMA_WORDS`): ``schema: {...}`` is, a database setting ``schema: public``
    is not, nor a map of a setting's texts (``headers: {Authorization: "Bearer ..."}``,
    ``properties: {executor: 4g}``): each keyword of :data:`_MAPS` maps names to objects
    (or schemas, ``true``/``false``)."""
    if key == "type":
        return _is_type(value)
    if key == "in":
        return isinstance(value, str) and value in _PLACES
    types = _SCHEMA_WORDS.get(key) if isinstance(key, str) else None
    if types is None or not isinstance(value, types):
        return False
    return key not in _MAPS or not isinstance(value, dict) or all(
        isinstance(v, (dict, bool)) for v in value.values())


def _small_object(value: Any) -> bool:
    """Only :data:`_OBJECT_FIELDS` (or ``x-``), each keyword of :data:`_SCHEMA_WORDS` with a
    value it takes (:func:`_marks_content`): ``{headers: {Authorization: "Bearer ..."}}``,
    a client's settings, is not a response."""
    return isinstance(value, dict) and bool(value) and all(
        isinstance(k, str) and (k.startswith("x-") or (k in _OBJECT_FIELDS and (
            k not in _SCHEMA_WORDS or _marks_content(k, v)))) for k, v in value.items())


def _is_type(value: Any) -> bool:
    if isinstance(value, list):
        return bool(value) and all(_is_type(v) for v in value)
    return isinstance(value, str) and value in _SCHEMA_TYPES


_SHAPES = (
    ("an AWS access key ID", r"\b(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b",
     ("A3T", "AKIA", "ASIA", "ABIA", "ACCA")),
    ("a private key",
     r"-----BEGIN[A-Z0-9 ]* PRIVATE KEY(?: BLOCK)?-----[\s\S]{0,200}?[A-Za-z0-9+/]{40}",
     ("PRIVATE KEY",)),
    ("a password in a URL", r"\b[A-Za-z][A-Za-z0-9+.-]*://[^\s/?#@:{}]+:[^\s/?#@{}]+@",
     ("://",)),
    ("a password", r"(?i:\b(?:password|passwd|pwd)\s*=\s*[^\s&;,'\"<>{}\[\]])",
     ("pass", "pwd")),
    ("a Stripe secret key", r"\b[rs]k_live_[0-9A-Za-z]+", ("k_live_",)),
    ("a GitHub token", r"\bgh[pousr]_[A-Za-z0-9]{36}\b|\bgithub_pat_[A-Za-z0-9_]{22,}",
     ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_")),
    ("a Slack token", r"\bxox[abposr]-[0-9A-Za-z-]{10,}", ("xox",)),
    ("a Google API key", r"\bAIza[0-9A-Za-z_-]{35}\b", ("AIza",)),
)
"""What a credential looks like, whatever key holds it, as secret scanners tell them (Yelp's
detect-secrets plugins ``aws``, ``private_key``, ``basic_auth``, ``keyword``, ``stripe``,
``github_token``, ``slack``; gitleaks' ``gcp-api-key`` rule), with the texts every match
holds, in lower case for a shape that ignores case (a file holding none of them is not
searched for that shape). A private key needs
its key material after the header (a schema's ``-----BEGIN RSA PRIVATE KEY----- ...``
placeholder, HashiCorp Vault's, is none), a URL's password a user before it, and
``password=`` a value that is no placeholder (``password={password}``, ``<your
password>``)."""

_EACH = tuple((re.compile(rx), anchors, rx.startswith("(?i:")) for _, rx, anchors in _SHAPES)
_CREDENTIAL = re.compile("|".join(f"(?P<c{n}>{rx})" for n, (_, rx, _) in enumerate(_SHAPES)))

_EXAMPLE_DATA = frozenset({"example", "examples"})
"""Keys whose values are the API's own sample data (the Schema, Parameter, Media Type and
Header Objects' ``example``/``examples``, JSON Schema's ``examples``): real descriptions
fill them with sample connection strings and keys (DigitalOcean's database and certificate
schemas: 26 values in 18 of the files its document refers to; none of the corpus's
documents holds one elsewhere), and a settings file seldom names a key so."""


def credential_in(value: Any) -> tuple[str, str] | None:
    """``(pointer, what)`` of a text in ``value``, a file a ``$ref`` reads, that
    looks like a credential (:data:`_SHAPES`), whatever key holds it: an ``x-`` extension,
    a vocabulary word a settings file also uses (``url``, ``default``, ``value``,
    ``description``), a setting's own name, a list item. Example data
    (:data:`_EXAMPLE_DATA`) is not searched. ``None`` when there is none.

    >>> credential_in({"type": "object", "x-deploy": {"url": "https://u:hunter2@db/x"}})
    ('#/x-deploy/url', 'a password in a URL')
    >>> credential_in({"type": "string", "example": "https://u:hunter2@db/x"}) is None
    True
    """
    if not _may_hold_one("\n".join(_texts(value))):
        return None  # most files hold none: the texts are searched joined, then one by one
    # (node, (parent's link, key)): a pointer is spelled only for what is found
    stack: list[tuple[Any, Any]] = [(value, None)]
    pop, push = stack.pop, stack.append
    while stack:
        node, link = pop()
        if type(node) is str:
            found = _CREDENTIAL.search(node)
            if found is not None:
                keys: list[str] = []
                while link is not None:
                    link, key = link
                    keys.append(escape(str(key)))
                what = _SHAPES[int(str(found.lastgroup)[1:])][0]
                return "#" + "".join(f"/{k}" for k in reversed(keys)), what
        elif isinstance(node, dict):
            for key, child in node.items():
                if key not in _EXAMPLE_DATA and not isinstance(child, (int, float, bool,
                                                                        type(None))):
                    push((child, (link, key)))
        elif isinstance(node, list):
            for index, child in enumerate(node):
                if not isinstance(child, (int, float, bool, type(None))):
                    push((child, (link, index)))
    return None  # a match across two joined texts: no text holds one


def _may_hold_one(text: str) -> bool:
    """Whether ``text`` holds a match of a shape whose anchors it holds (a search per shape
    only where one of its fixed texts is: a few substring tests, where searching the whole
    alternation costs DigitalOcean's 1,224 files 0.3 s)."""
    lowered = ""
    for pattern, anchors, fold in _EACH:
        if fold and not lowered:
            lowered = text.lower()
        held = lowered if fold else text
        if any(a in held for a in anchors) and pattern.search(text) is not None:
            return True
    return False


def _texts(value: Any) -> list[str]:
    """Every text in ``value`` that :func:`credential_in` searches (example data left out)."""
    texts: list[str] = []
    stack = [value]
    while stack:
        node = stack.pop()
        if type(node) is str:
            texts.append(node)
        elif isinstance(node, dict):
            stack.extend(child for key, child in node.items() if key not in _EXAMPLE_DATA)
        elif isinstance(node, list):
            stack.extend(node)
    return texts
