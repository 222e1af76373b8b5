"""The keyword parameters object: path, query, header and cookie parameters and the body.

Every argument is one property of one object. The request body is one argument, ``body``
(always wrapped, whatever its shape, so a body field can never collide with a parameter
and a union body never sits at the root). A parameter whose name another location
already uses gets the suffix ``__<in>`` (``id__query``): no argument is ever lost.
Transport headers (``Accept``, ``Content-Type``, ``Authorization``: OpenAPI 3.1 section
4.8.12.1 says they are ignored) and security-scheme credentials are not arguments; nor are
the headers that frame or route a request (:data:`HOST_HEADERS`: ``Host``,
``Content-Length``, ``Transfer-Encoding`` ...), which the host's HTTP client owns (each is
dropped with a loss entry).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from httpllm._escape import is_token  # also read from here by execute.security
from httpllm._media import essence, is_json
from httpllm._memo import IdentityCache
from httpllm._types import Location, Schema
from httpllm.loss import Loss
from httpllm.records import Argument
from httpllm.refs import def_name_of
from httpllm.walk import refs_in

__all__ = [
    "BODY",
    "DEFAULT_STYLE",
    "HOST_HEADERS",
    "IGNORED_HEADERS",
    "LOCATIONS",
    "ParameterSpec",
    "PATH_SEGMENT",
    "argument_names",
    "flagged_ref_opened",
    "is_host_header",
    "is_token",
    "pick_media_type",
    "as_validated",
    "without_flags",
]

BODY = "body"
LOCATIONS: tuple[Location, ...] = ("path", "query", "header", "cookie")
IGNORED_HEADERS = frozenset({"accept", "content-type", "authorization"})
HOST_HEADERS = frozenset({
    # framing and connection (RFC 9110 sections 7.6.1, 8.6, 10.1.1; RFC 9112 sections 6, 9)
    "host", "content-length", "transfer-encoding", "connection", "te", "trailer", "upgrade",
    "keep-alive", "expect", "proxy-connection", "http2-settings",
    # routing by front ends (RFC 7239; the de facto X-Forwarded-* and rewrite headers)
    "forwarded", "x-forwarded-host", "x-forwarded-proto", "x-forwarded-port",
    "x-original-url", "x-rewrite-url", "x-http-method-override",
})
"""Headers that frame a request or route it (with every ``Proxy-*`` one, see
:func:`is_host_header`): never arguments, whatever a document declares. A model choosing
``Host`` moves the host's credentials to another virtual host behind a Host-routing front
end; ``Transfer-Encoding`` beside the client's ``Content-Length`` is a request-smuggling
shape; ``X-HTTP-Method-Override`` turns a read into a write. ``X-Forwarded-For`` is not
among them: it routes nothing, and APIs declare it for the end user's address (Okta).
Source: issue 22 finding 2."""


def is_host_header(name: str) -> bool:
    """Whether a header belongs to the host's HTTP client, never to a model argument:
    :data:`HOST_HEADERS`, every ``Proxy-*`` header, and names HTTP cannot carry (empty, or
    with characters outside RFC 9110's ``token``: ``:authority``, ``a b``).

    >>> is_host_header("Transfer-Encoding"), is_host_header("Proxy-Authorization")
    (True, True)
    >>> is_host_header("X-Request-Id")
    False
    """
    lower = name.lower()
    return lower in HOST_HEADERS or lower.startswith("proxy-") or not is_token(name)


DEFAULT_STYLE = {"path": "simple", "query": "form", "header": "simple", "cookie": "form"}
_MEDIA_PREFERENCE = (
    "application/json",
    "application/x-www-form-urlencoded",
    "multipart/form-data",
    "text/plain",
    "application/octet-stream",
)


_FLAGS = ("readOnly", "writeOnly")
_ALTERNATIVES = ("anyOf", "allOf")


def _unflag(node: Any, found: list[tuple[Any, str, str, Any]], at: str) -> Any:
    if not isinstance(node, dict) or ("readOnly" not in node and "writeOnly" not in node):
        return node
    found.extend((node, at, flag, node[flag]) for flag in _FLAGS if flag in node)
    return {k: v for k, v in node.items() if k not in _FLAGS}


def without_flags(schema: Schema) -> tuple[Schema, list[tuple[Any, str, str, Any]]]:
    """An argument's schema without ``readOnly``/``writeOnly`` on itself or on a member of
    its ``anyOf``/``allOf`` (one level: unions are flat), and what was dropped as
    ``(node it was on, pointer relative to the schema, flag, value)``. The same object when
    there is nothing to drop. A ``$ref``'s target is shared with other places and kept.

    The flags speak of properties: a parameter (or a request body) is sent whatever its
    schema says, so the schema the model sees must not call the argument read-only.

    >>> without_flags({"type": "string", "readOnly": True})[0]
    {'type': 'string'}

    Source: OpenAPI 3.0.3 section 4.7.24.1 (``readOnly``: "Relevant only for Schema
    `properties` definitions"); JSON Schema Validation 2020-12 section 9.4.
    """
    found: list[tuple[Any, str, str, Any]] = []
    out = _unflag(schema, found, "")
    if not isinstance(out, dict):
        return out, found
    for keyword in _ALTERNATIVES:
        members = out.get(keyword)
        if not isinstance(members, list):
            continue
        kept = [_unflag(m, found, f"/{keyword}/{i}") for i, m in enumerate(members)]
        if any(a is not b for a, b in zip(kept, members, strict=True)):
            out = {**out, keyword: kept}
    return out, found


def flagged_ref_opened(schema: Schema, defs: dict[str, Schema]
                       ) -> tuple[Schema, dict[str, Schema]]:
    """With ``reference=True``: an argument whose schema is a ``$ref`` to a ``$defs`` entry
    that is itself ``readOnly``/``writeOnly`` (a path id typed by a read-only ``Id``) gets
    that entry's schema in place of the ``$ref`` (the ``$ref``'s siblings kept over it), so
    that :func:`without_flags` can drop the flags; the entry leaves ``defs`` unless
    something else still refers to it. Anything else is returned as it is.

    >>> flagged_ref_opened({"$ref": "#/$defs/Id"}, {"Id": {"type": "string", "readOnly": True}})
    ({'type': 'string', 'readOnly': True}, {})
    """
    found = _def_of(schema, defs)
    if found is None or not any(flag in found[1] for flag in _FLAGS):
        return schema, defs
    name, opened = found
    rest = {k: v for k, v in defs.items() if k != name}
    ref = schema["$ref"]
    still = any(r == ref for node in (opened, *rest.values()) for r in refs_in(node))
    return opened, defs if still else rest


def _def_of(schema: Schema, defs: Any) -> tuple[str, dict[str, Any]] | None:
    """``(name, schema)`` of the ``defs`` entry ``schema`` is a ``$ref`` to, opened: the
    entry with the ``$ref``'s siblings over it; ``None`` when ``schema`` is no such ``$ref``
    or the entry is no object."""
    ref = schema.get("$ref") if isinstance(schema, dict) else None
    name = def_name_of(ref) if isinstance(ref, str) and isinstance(defs, dict) else None
    if name is None:
        return None
    target = defs.get(name)
    if not isinstance(target, dict):
        return None
    siblings = {k: v for k, v in schema.items() if k != "$ref"}
    return name, ({**target, **siblings} if siblings else target)


@dataclass(slots=True)
class ParameterSpec:
    """A resolved Parameter Object (or the request body), before naming.

    A component parameter's spec is shared by every operation that lists it: never
    changed once made.

    Attributes:
        examples: the values of its ``example``/``examples`` (or its media type's, or its
            schema's), for tool input examples.
        lost: the losses of reading it (an example holding a number no double holds).
    """

    name: str
    location: Location
    node: dict[str, Any]
    pointer: str
    base: str
    required: bool = False
    schema: Any = None
    media_type: str | None = None
    schema_pointer: str = ""
    examples: list[Any] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)
    lost: list[Loss] = field(default_factory=list)


def pick_media_type(content: dict[str, Any]) -> str | None:
    """The media type to use from a Content map: JSON first, then form, multipart, text,
    binary, then the first one listed (``*/*`` counts as JSON-like)."""
    if not content:
        return None
    if len(content) == 1:  # the common case: the only one, whatever it is
        only = next(iter(content))
        if isinstance(only, str):
            return only
    keys = list(content)
    lowered = {essence(k): k for k in keys}
    for want in _MEDIA_PREFERENCE:
        if want in lowered:
            return lowered[want]
    for key in keys:
        base = essence(key)
        # JSON-like for the choice: ``+json``, also an unregistered ``text/json``
        if is_json(base) or base.endswith("/json") or base in ("*/*", "application/*"):
            return key
    return keys[0]


def argument_names(specs: list[ParameterSpec], has_body: bool) -> list[str]:
    """Names for each parameter: the plain name unless another location uses it first.

    Order of preference: the body keeps ``body``; then path, query, header, cookie.
    """
    plain = [spec.name for spec in specs]
    if len(set(plain)) == len(plain) and not (has_body and BODY in plain):
        return plain  # no collision (the common case)
    taken: set[str] = {BODY} if has_body else set()
    order = sorted(range(len(specs)), key=lambda i: LOCATIONS.index(specs[i].location))
    names = [""] * len(specs)
    for i in order:
        spec = specs[i]
        name = spec.name
        if name in taken:
            name = f"{spec.name}__{spec.location}"
            n = 2
            while name in taken:
                name, n = f"{spec.name}__{spec.location}{n}", n + 1
        taken.add(name)
        names[i] = name
    return names


PATH_SEGMENT = r"^(?:[^.]|[\s\S][^.]|[\s\S]{3})"
"""A string that is not ``""``, ``"."`` or ``".."`` (one character other than a dot, a
second character other than a dot, or three characters), without lookaround, so that
RE2 (Gemini), ECMA-262 and xgrammar read it alike. ``execute.validate`` refuses those
three values for a path parameter (``execute.wire.path_errors``: they would empty or
climb the path, RFC 3986 section 5.2.4)."""

_PATH_NOTE = 'Not "", "." or "..".'
_PLAIN_STRING_SKIP = frozenset({"pattern", "enum", "const", "format"})


def _segment(schema: Schema, keeps: Callable[[str], bool], defs: Any) -> Schema:
    """A simple-style path parameter's string schema that also says it is a segment; a
    ``$ref`` to a plain string entry of ``defs`` (``reference=True``) is opened to say it."""
    original = schema
    found = _def_of(schema, defs)
    if found is not None:
        schema = found[1]
    if not isinstance(schema, dict) or schema.get("type") != "string" or (
            not _PLAIN_STRING_SKIP.isdisjoint(schema)):
        return original  # typed otherwise, or already constrained (enum, format, pattern)
    if keeps("pattern"):
        return {**schema, "pattern": PATH_SEGMENT}
    text = schema.get("description")
    return {**schema, "description": f"{text}\n{_PATH_NOTE}" if text else _PATH_NOTE}


def _without_unused(parameters: dict[str, Any], defs: dict[str, Any],
                    opened: set[str]) -> dict[str, Any]:
    """``parameters`` without the ``$defs`` entries of ``opened`` (``#/$defs/...``) that
    nothing refers to any more."""
    used = set(refs_in({k: v for k, v in parameters.items() if k != "$defs"}))
    used.update(r for sub in defs.values() for r in refs_in(sub))
    gone = {def_name_of(ref) for ref in opened - used} - {None}
    if not gone:
        return parameters
    kept = {k: v for k, v in defs.items() if k not in gone}
    if kept:
        return {**parameters, "$defs": kept}
    return {k: v for k, v in parameters.items() if k != "$defs"}


def as_validated(parameters: Schema, arguments: Sequence[Argument],
                 keeps: Callable[[str], bool], memo: IdentityCache[Schema],
                 key: object = None, *, close: bool = True) -> Schema:
    """The parameters object as ``execute.validate`` enforces it, where the dialect can say
    so: closed (``additionalProperties: false``: validate refuses unknown arguments) when
    the dialect ``keeps`` the keyword, and each simple-style path parameter of plain string
    type with :data:`PATH_SEGMENT` as its ``pattern`` (else a sentence in its description;
    with ``reference=True`` a ``$ref`` to a plain string entry of ``$defs`` is opened to
    say it, and the entry goes when nothing else refers to it).
    Nothing is recorded as lost: these are added, not taken from the document.
    ``close=False`` leaves the closing to the dialect (strict modes close every object).

    ``memo`` holds the path parameters' rewritten schemas (shared by every function that
    lists a component parameter), under ``key`` (one per ``keeps``).

    >>> from httpllm._memo import IdentityMemo
    >>> as_validated({"type": "object", "properties": {}}, [], lambda k: True, IdentityMemo())
    {'type': 'object', 'properties': {}, 'additionalProperties': False}
    """
    if not isinstance(parameters, dict):
        return parameters
    out = parameters
    props = parameters.get("properties")
    defs = parameters.get("$defs")
    if isinstance(props, dict):
        changed = {}
        for argument in arguments:
            sub = props.get(argument.name)
            if argument.location != "path" or argument.style != "simple" or sub is None:
                continue
            new = memo.get(sub, key)
            if new is None:
                new = memo.put(sub, _segment(sub, keeps, defs), key)
            if new is not sub:
                changed[argument.name] = new
        if changed:
            out = {**out, "properties": {**props, **changed}}
            opened = {props[n]["$ref"] for n in changed if "$ref" in props[n]}
            if opened and isinstance(defs, dict):
                out = _without_unused(out, defs, opened)
    if close and "additionalProperties" not in out and keeps("additionalProperties"):
        out = {**out, "additionalProperties": False}
    return out
