"""One argument on the wire: what it adds to the request, and the calls that would send nothing.

``build_request`` places each parameter through :func:`path_text`, :func:`query_pairs_of`,
:func:`header_text_of` and :func:`cookie_pairs_of`; ``validate`` runs the same functions, so a
call it accepts is a call that builds and carries every required value. A value can match
its schema and still send nothing, because RFC 6570 treats ``null``, ``[]``, ``{}`` and
``null`` members as undefined:

- a path value that expands to nothing (``{}``, ``[]``, ``[""]``, ``{"a": null}``) or to a
  ``.``/``..`` segment: ``build_request`` would refuse it (:func:`path_errors`);
- ``null``, an empty array or object, or one of ``null`` members, for a required query,
  header or cookie parameter: the parameter would be missing (:func:`parameter_errors`);
- the same for a required property of a form or multipart body: the encoder leaves it out
  (``body.silent_properties``; ``validate`` checks the body without them);
- a required body that is ``null`` (sent as JSON ``null`` only when the body is JSON and its
  schema explicitly allows ``null``), or that encodes to no bytes (``""`` as a binary or text
  body, an empty form): a server reads either as no body (:func:`body_error`);
- an XML body holding a key that is no XML name or a character XML 1.0 cannot carry, and a
  form or multipart body that is no object (a form's string aside) where its schema says
  no type (``{}``, ``properties`` alone): the build would refuse them (:func:`body_error`).

Source: RFC 6570 sections 2.3 and 3.2.1; OpenAPI 3.1.0 sections 4.8.12 (Parameter Object
``required``) and 4.8.13 (Request Body Object ``required``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import unquote

from httpllm import pointer
from httpllm.compose.xml_object import is_xml
from httpllm.errors import RequestBuildError
from httpllm.execute.body import encode_body, form_pairs, sends_null
from httpllm.execute.feedback import ArgumentError, argument_error, show
from httpllm.execute.serialize import (
    FORM_STYLES,
    content_text,
    cookie_text,
    expand,
    header_text,
    path_reserved,
    percent,
    query_pairs,
    reserved,
)
from httpllm.records import Argument, Function
from httpllm.upgrade.openapi32 import FORM

__all__ = [
    "IGNORED_HEADERS",
    "VARIABLE",
    "body_error",
    "cookie_pairs_of",
    "form_style",
    "header_text_of",
    "is_dot_segment",
    "parameter_errors",
    "path_errors",
    "path_text",
    "query_pairs_of",
]

VARIABLE = re.compile(r"\{([^{}]*)\}")
"""A template expression: ``{name}`` in a path or server URL."""

IGNORED_HEADERS = frozenset(("accept", "content-type", "authorization"))
"""Header parameters OpenAPI says to ignore (3.1.0 section 4.8.12.1)."""

_DOTS = (".", "..")

_NON_JSON = (TypeError, ValueError)
"""What serializing a value that is not JSON raises (``validate`` reports it elsewhere)."""


def path_text(argument: Argument, value: Any) -> str | None:
    """The percent-encoded text a path value fills its template expression with.

    ``None`` or ``""`` when the value expands to nothing.

    >>> from httpllm.records import Argument
    >>> a = Argument(name="id", location="path", original="id", required=True, schema={},
    ...              style="simple")
    >>> path_text(a, ["a b", "c"]), path_text(a, [""]), path_text(a, {})
    ('a%20b,c', '', None)
    """
    if value is None:
        return None
    name = argument.wire_name
    if argument.style is None:
        return percent(content_text(argument.media_type or "text/plain", value))
    encode = path_reserved if argument.allow_reserved else percent  # OpenAPI 3.2 only
    return expand(argument.style, name, value, argument.explode, encode)


def is_dot_segment(segment: str) -> bool:
    """Whether a path segment is ``.`` or ``..``, percent-encoded or not (``%2e%2E``: a
    triple of an unreserved character is that character, RFC 3986 section 6.2.2.2), which
    a server's or a proxy's normalization removes with the segment before it."""
    return unquote(segment) in _DOTS


def form_style(function: Function) -> str:
    """How ``function`` sends what ``deepObject`` and form bodies leave undefined:
    ``Function.extra["form_style"]`` (``compile(form_style=...)``, or the document's or the
    operation's ``x-httpllm-form-style``), else ``"brackets"`` (:data:`.serialize.FORM_STYLES`).
    """
    chosen = function.extra.get("form_style")
    return chosen if isinstance(chosen, str) and chosen in FORM_STYLES else "brackets"


def query_pairs_of(
    argument: Argument, value: Any, nested: str = "brackets"
) -> list[tuple[str, str]]:
    """The encoded ``name=value`` pairs a query value adds (``[]``: none).

    An OpenAPI 3.2 ``in: querystring`` form parameter (a style and a media type: its
    object is the whole query) is sent as a form body is
    (:func:`~httpllm.execute.body.form_pairs`).
    """
    if value is None:
        return []
    name = argument.wire_name
    if argument.style is None:
        text = content_text(argument.media_type or "application/json", value)
        return [(percent(name), percent(text))]
    if argument.media_type is not None and isinstance(value, Mapping):
        return form_pairs(argument, value, nested)
    encode = reserved if argument.allow_reserved else percent
    return query_pairs(argument.style, name, value, argument.explode, encode, nested=nested)


def header_text_of(argument: Argument, value: Any) -> str | None:
    """The header field value a header parameter sends, or ``None`` for no header."""
    name = argument.wire_name
    if value is None or name.lower() in IGNORED_HEADERS:
        return None
    if argument.style is None:
        return header_text(content_text(argument.media_type or "text/plain", value))
    return expand("simple", name, value, argument.explode, header_text)


def cookie_pairs_of(argument: Argument, value: Any) -> list[tuple[str, str]]:
    """The encoded ``name=value`` cookie pairs a cookie parameter adds (``[]``: none).

    ``form`` (the default) percent-encodes as RFC 6570 does; OpenAPI 3.2's ``cookie`` style
    sends names and values as given (:func:`~httpllm.execute.serialize.cookie_text`).
    """
    if value is None:
        return []
    name = argument.wire_name
    if argument.style is None:
        text = content_text(argument.media_type or "text/plain", value)
        return [(percent(name), percent(text))]
    if argument.style == "cookie":
        return query_pairs("form", cookie_text(name), value, argument.explode, cookie_text,
                           raw=True)
    return query_pairs("form", name, value, argument.explode, percent)


def path_errors(function: Function, args: Mapping[str, Any]) -> dict[str, ArgumentError]:
    """Path values that would fill their segment with nothing, ``.`` or ``..``, by pointer.

    Values not given are left to the schema's ``required``; values that are not JSON to the
    schema check.
    """
    texts: dict[str, str] = {}
    errors: dict[str, ArgumentError] = {}
    for argument in function.arguments:
        if argument.location != "path" or argument.name not in args:
            continue
        value = args[argument.name]
        try:
            text = path_text(argument, value)
        except _NON_JSON:
            continue
        at = pointer.join("#", argument.name)
        if not text or is_dot_segment(text):
            errors[at] = _path_error(at, value, text)
        texts[argument.wire_name] = text or ""
    for segment in function.path.split("/"):
        names = VARIABLE.findall(segment)
        if not names or any(n not in texts for n in names):
            continue
        if is_dot_segment(VARIABLE.sub(lambda m: texts[m.group(1)], segment)):
            for argument in function.arguments:
                at = pointer.join("#", argument.name)
                if argument.location == "path" and argument.original in names:
                    errors.setdefault(at, _path_error(at, args[argument.name], "."))
    return errors


def _path_error(at: str, value: Any, text: str | None) -> ArgumentError:
    if isinstance(value, str) and value in ("", *_DOTS):
        expected = 'a path segment other than "", "." and ".."'
    elif text:
        expected = 'a value that does not expand to a "." or ".." path segment'
    else:
        expected = (
            'a value that fills the path segment (null, [], {}, [""] and null members '
            "expand to nothing)"
        )
    return argument_error(at, "path", expected, show(value))


_PLACES = {"query": "query parameter", "header": "header", "cookie": "cookie"}


def _sends_nothing(argument: Argument, value: Any, nested: str) -> bool:
    name = argument.wire_name
    if argument.location == "query":
        return not query_pairs_of(argument, value, nested)
    if argument.location == "header":
        return name.lower() not in IGNORED_HEADERS and header_text_of(argument, value) is None
    if argument.location == "cookie":
        return not cookie_pairs_of(argument, value)
    return False


def parameter_errors(function: Function, args: Mapping[str, Any]) -> dict[str, ArgumentError]:
    """Required query, header and cookie parameters whose value sends nothing, by pointer."""
    errors: dict[str, ArgumentError] = {}
    for argument in function.arguments:
        if not argument.required or argument.location not in _PLACES:
            continue
        if argument.name not in args:
            continue
        value = args[argument.name]
        try:
            silent = _sends_nothing(argument, value, form_style(function))
        except _NON_JSON:
            continue
        if silent:
            at = pointer.join("#", argument.name)
            errors[at] = silent_error(at, value, f"required {_PLACES[argument.location]}")
    return errors


def silent_error(at: str, value: Any, slot: str) -> ArgumentError:
    """The error for a value that a required slot (``"required query parameter"``) would
    drop from the request."""
    if value is None:
        wanted = "a value other than null"
    elif isinstance(value, (list, tuple)):
        wanted = "at least one item that is not null" if value else "at least one item"
    elif isinstance(value, Mapping):
        wanted = "at least one property that is not null" if value else "at least one property"
    else:
        wanted = "a value that is sent"
    expected = f"{wanted} ({slot}; {show(value)} would send nothing)"
    return argument_error(at, "required", expected, show(value))


def body_error(function: Function, argument: Argument, value: Any) -> ArgumentError | None:
    """A required body that would reach the server as no body: ``null`` (unless JSON
    ``null`` is sent, see :func:`httpllm.execute.body.sends_null`) or zero bytes; or a
    body the build would refuse: an XML body holding what XML cannot (a key that is no
    XML name, U+0000 ...: the :mod:`httpllm.execute.xml_body` rules), a form or multipart
    body that is no object (compile offers an object where the schema's ``type`` names
    none; a schema naming no type lets an array through)."""
    at = pointer.join("#", argument.name)
    media_type = argument.media_type or "application/json"
    if value is None:
        if not argument.required or sends_null(function, argument):
            return None
        expected = "a request body (the body is required; null sends no body)"
        return argument_error(at, "required", expected, "null")
    try:
        encoded = encode_body(argument, value, form_style(function))
    except RequestBuildError as exc:
        essence = media_type.split(";", 1)[0].strip().lower()
        if essence.startswith("multipart/") or essence == FORM:
            if isinstance(value, Mapping):
                return None
            kind = "parts" if essence.startswith("multipart/") else "fields"
            return argument_error(at, "type", f"an object (a {essence} body is named "
                                  f"{kind}, one per property)", show(value))
        if not is_xml(media_type) or isinstance(value, str):
            return None
        why = exc.message.removeprefix(f"argument {argument.name!r}: ")
        return argument_error(at, "xml", f"a value an XML document can hold ({why})",
                              show(value))
    except _NON_JSON:
        return None
    if not argument.required or encoded.parts is not None or encoded.content:
        return None
    expected = f"a non-empty body (the body is required; this value is 0 bytes as {media_type})"
    return argument_error(at, "required", expected, show(value))
