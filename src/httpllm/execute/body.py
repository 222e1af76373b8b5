"""Encode the request body argument by its media type.

One encoder per kind of media type, chosen by a table:

- ``application/json`` and ``*/*+json``: compact UTF-8 JSON;
- ``application/x-www-form-urlencoded``: a string or a file is sent as it is (the encoded
  form); an object, one ``name=value`` per property, percent-encoded
  as RFC 3986 says (space ``%20``). A property whose Encoding Object has ``style``,
  ``explode`` or ``allowReserved`` is serialized like a query parameter; otherwise by its
  ``contentType`` (default: objects as JSON text, arrays as one pair per member, primitives
  as text); an array of objects, which OpenAPI leaves undefined there, as indexed brackets
  (``tax_id_data[0][type]=eu_vat``, :data:`httpllm.execute.serialize.FORM_STYLES`);
- ``multipart/form-data``: one part per property and per array member, named by the
  property (RFC 7578 section 4.3); objects are JSON parts, files are file parts, primitives
  are text parts with no ``Content-Type`` (RFC 7578 section 4.4 defaults it to
  ``text/plain``); an Encoding Object's ``contentType`` (its first concrete media type) is
  the part's ``Content-Type``, and a JSON one makes the part JSON text (a string quoted).
  Any other multipart type (``multipart/mixed``, ``multipart/related`` ...) takes the
  same named parts (OpenAPI 3.1.1 Encoding Object: "for multipart, the encoding keys MUST
  map to the name parameter of the Content-Disposition: form-data header of each part")
  under its own ``Content-Type``;
- ``application/xml``, ``text/xml`` and ``*/*+xml``: an object, array, number or boolean
  as an XML document by the schema's XML Objects (:mod:`httpllm.execute.xml_body`);
  a string or a file is sent as it is (the XML itself);
- JSON Lines, NDJSON and JSON text sequences (``application/jsonl``, ``application/x-ndjson``,
  ``application/json-seq`` ...) given as an array: one compact JSON text per item and line
  (after U+001E for a sequence, RFC 7464); any other value that is no string is one such
  record; a string or a file is sent as it is;
- ``text/*``: the string, UTF-8 (``; charset=utf-8`` added when the media type names none);
  numbers and booleans as JSON text, arrays and objects as JSON text (OpenAPI defines no
  other text form);
- anything else (``application/octet-stream``, ``image/png``, ``application/yaml`` ...):
  the bytes of a file, or a string — base64-decoded when its schema says
  ``contentEncoding: base64`` (3.1) or ``format: byte`` (3.0), else UTF-8; a value its
  schema allows that is neither (an object, a number) is its compact JSON text, as for
  ``text/*`` (YAML 1.2 reads JSON text as YAML).

So every value ``validate`` accepts for a body has a form here: the build refuses only what
no request can carry (a file in a JSON body, a form body that is no object, a name or
character XML cannot hold).

A wildcard media type (``*/*``, ``application/*``) takes the kind the value has: a file is
binary, a string text, anything else JSON.

Source: OpenAPI 3.1.0 section 4.8.14 (Media Type Object: x-www-form-urlencoded and multipart
content), 4.8.15 (Encoding Object); OpenAPI 3.1.1 Encoding Object and Appendix E.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from httpllm._escape import identity, percent, reserved
from httpllm._media import essence as media_essence
from httpllm._media import is_json, is_xml
from httpllm.errors import RequestBuildError
from httpllm.execute.decode import allows_null
from httpllm.execute.serialize import bracketed, query_pairs, scalar
from httpllm.execute.xml_body import xml_bytes
from httpllm.records import Argument, Function

__all__ = ["Body", "Part", "Upload", "encode_body", "form_pairs", "null_items",
           "sends_null", "silent_properties"]

Part = tuple[str, tuple[str | None, bytes, str | None]]
"""One multipart part as httpx takes it: ``(name, (filename, content, content_type))``."""

_STYLE_FIELDS = ("style", "explode", "allowReserved")


@dataclass(frozen=True, slots=True, kw_only=True)
class Upload:
    """A file the host supplies for a binary argument (``files=`` of ``build_request``).

    Attributes:
        content: the file's bytes.
        filename: the file name sent in the part's ``Content-Disposition``; ``None`` uses the
            property name.
        content_type: the part's ``Content-Type``; ``None`` takes the Encoding Object's, else
            ``application/octet-stream``.
    """

    content: bytes
    filename: str | None = None
    content_type: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Body:
    """An encoded body: either ``content`` bytes or multipart ``parts``.

    Attributes:
        content: the body bytes (``None`` for multipart).
        content_type: the ``Content-Type`` header; for multipart, ``None`` (httpx adds
            ``multipart/form-data`` with the boundary) or the other multipart media type
            the boundary is added to (``multipart/mixed``).
        parts: the multipart parts, in property order (``None`` unless multipart).
    """

    content: bytes | None = None
    content_type: str | None = None
    parts: list[Part] | None = field(default=None)




def encode_body(argument: Argument, value: Any, nested: str = "brackets") -> Body:
    """Encode the value of the body argument by ``argument.media_type``.

    ``nested`` (:data:`httpllm.execute.serialize.FORM_STYLES`) says how a form body sends
    what OpenAPI leaves undefined: arrays in a ``deepObject`` and arrays of objects.

    Raises:
        RequestBuildError: the value cannot take that media type (a file in a JSON body, an
            key that is no XML name, a form body that is neither an object nor a string ...).
    """
    media_type = argument.media_type or "application/json"
    kind = _kind(media_type, value)
    return _ENCODERS[kind](argument, media_type, value, nested)


def silent_properties(argument: Argument, value: Any, nested: str = "brackets") -> list[str]:
    """The properties of a form or multipart body that would add nothing to it.

    ``null``, ``[]``, an array of ``null``s, and (for a property with an Encoding ``style``)
    ``{}`` are left out by the encoder; ``[]`` for any other body, or a body that is not an
    object.

    >>> from httpllm.records import Argument, Function
    >>> form = Argument(name="body", location="body", original=None, required=True,
    ...                 schema={}, media_type="application/x-www-form-urlencoded")
    >>> silent_properties(form, {"Tags": [], "Name": "a", "Note": None})
    ['Tags', 'Note']
    """
    media_type = argument.media_type or "application/json"
    if not isinstance(value, Mapping):
        return []
    kind = _kind(media_type, value)
    if kind not in ("form", "multipart"):
        return []
    adds = _form_pairs if kind == "form" else _multipart_parts
    silent: list[str] = []
    for name, item in value.items():
        try:
            if not adds(argument, name, item, nested):
                silent.append(name)
        except (RequestBuildError, TypeError, ValueError):
            continue
    return silent


def null_items(argument: Argument, value: Any) -> list[tuple[str, int]]:
    """``(property, index)`` of each ``null`` item of an array property that a form or
    multipart value (a body, or an OpenAPI 3.2 form ``querystring``) sends by its media
    type (no ``style``, ``explode`` or ``allowReserved``): the encoder would leave it out.

    A form or a part has no ``null``: OpenAPI leaves how one is sent to the implementation
    (3.2.0 section 4.15.1.1, "If null values are entirely omitted ..."), so ``validate``
    and ``build_request`` refuse such an item rather than send an array one item short
    (:func:`httpllm.execute.wire.form_null_items`).

    >>> from httpllm.records import Argument
    >>> form = Argument(name="body", location="body", original=None, required=True,
    ...                 schema={}, media_type="application/x-www-form-urlencoded")
    >>> null_items(form, {"tags": ["a", None], "note": None})
    [('tags', 1)]
    """
    media_type = argument.media_type or "application/json"
    if not isinstance(value, Mapping) or _kind(media_type, value) not in ("form", "multipart"):
        return []
    return [(name, index) for name, item in value.items()
            if isinstance(item, (list, tuple))
            and not any(key in (argument.encoding.get(name) or {}) for key in _STYLE_FIELDS)
            for index, member in enumerate(item) if member is None]


def sends_null(function: Function, argument: Argument) -> bool:
    """Whether a ``null`` body is sent as the JSON text ``null``: the body is required, its
    media type is JSON (or a wildcard) and its schema explicitly allows ``null``.

    Otherwise a ``null`` body means no body (``validate`` refuses it for a required one).
    """
    media_type = argument.media_type or "application/json"
    return (
        argument.location == "body"
        and argument.required
        and _kind(media_type, None) == "json"
        and allows_null(argument.schema, function.schema)
    )


_SEQUENCES = {"application/jsonl": "", "application/x-jsonlines": "",
              "application/jsonlines": "", "application/x-ndjson": "",
              "application/ndjson": "", "application/json-seq": "\x1e"}
"""JSON streams by media type, each with the prefix of its records: JSON Lines and NDJSON
(none), JSON text sequences (RFC 7464: the record separator U+001E)."""


def _kind(media_type: str, value: Any) -> str:
    essence = media_essence(media_type)
    if is_json(essence):
        return "json"
    plain = isinstance(value, (str, bytes, Upload))  # a text or file sent as it is
    if essence in _SEQUENCES and not plain:
        return "sequence"
    if is_xml(essence) and not plain:
        return "xml"
    if essence == "application/x-www-form-urlencoded":
        return "binary" if plain else "form"
    if essence.startswith("multipart/"):
        return "multipart"
    if essence in ("*/*", "application/*"):
        if isinstance(value, (Upload, bytes)):
            return "binary"
        return "text" if isinstance(value, str) else "json"
    if essence.startswith("text/"):
        return "text"
    return "binary"


def _json(argument: Argument, media_type: str, value: Any, nested: str) -> Body:
    content_type = media_type if is_json(media_type) else "application/json"
    return Body(content=_json_text(argument, value).encode("utf-8"), content_type=content_type)


def _json_text(argument: Argument, value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise RequestBuildError(
            f"argument {argument.name!r}: the body is not JSON ({exc}); "
            "a file needs a multipart/form-data or binary body"
        ) from exc


def _sequence(argument: Argument, media_type: str, value: Any, nested: str) -> Body:
    """A JSON stream given as an array (an OpenAPI 3.2 ``itemSchema`` is offered as one):
    each item compact JSON on its own line, after the media type's record prefix; any
    other value (an object, a number) is the one record."""
    prefix = _SEQUENCES[media_essence(media_type)]
    records = value if isinstance(value, (list, tuple)) else [value]
    lines = "".join(f"{prefix}{_json_text(argument, item)}\n" for item in records)
    return Body(content=lines.encode("utf-8"), content_type=media_type)


def _text(argument: Argument, media_type: str, value: Any, nested: str) -> Body:
    if isinstance(value, (Upload, bytes)):
        raise RequestBuildError(f"argument {argument.name!r}: a file cannot be a text body")
    essence = media_essence(media_type)
    content_type = "text/plain" if essence in ("*/*", "application/*") else media_type
    if "charset=" not in content_type.lower():
        content_type += "; charset=utf-8"
    return Body(content=scalar(value).encode("utf-8"), content_type=content_type)


def _binary(argument: Argument, media_type: str, value: Any, nested: str) -> Body:
    wildcard = "*" in media_essence(media_type)
    if isinstance(value, Upload):
        own = value.content_type or "application/octet-stream"
        return Body(content=value.content, content_type=own if wildcard else media_type)
    if isinstance(value, bytes):
        return Body(
            content=value, content_type="application/octet-stream" if wildcard else media_type
        )
    if not isinstance(value, str):  # what its schema allows: JSON text, as text/* has
        return Body(content=_json_text(argument, value).encode("utf-8"),
                    content_type=media_type)
    return Body(content=_string_bytes(argument, value), content_type=media_type)


def _xml(argument: Argument, media_type: str, value: Any, nested: str) -> Body:
    """An object, array, number or boolean as an XML document, by the schema's XML
    Objects (:mod:`httpllm.execute.xml_body`)."""
    return Body(content=xml_bytes(argument, value), content_type=media_type)


def _string_bytes(argument: Argument, value: str) -> bytes:
    schema = argument.schema if isinstance(argument.schema, dict) else {}
    encoding = schema.get("contentEncoding") or (
        "base64" if schema.get("format") == "byte" else None
    )
    if encoding not in ("base64", "base64url"):
        return value.encode("utf-8")
    try:
        if encoding == "base64url":
            return base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))
        return base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise RequestBuildError(f"argument {argument.name!r}: not {encoding} ({exc})") from exc


def _object(argument: Argument, media_type: str, value: Any) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise RequestBuildError(
            f"argument {argument.name!r}: a {media_type} body must be an object, "
            f"not {type(value).__name__}"
        )
    return value


def _form(argument: Argument, media_type: str, value: Any, nested: str) -> Body:
    pairs = form_pairs(argument, _object(argument, media_type, value), nested)
    content = "&".join(f"{k}={v}" for k, v in pairs).encode("ascii")
    return Body(content=content, content_type=media_type)


def form_pairs(argument: Argument, value: Mapping[str, Any], nested: str = "brackets", *,
               by_name: bool = False) -> list[tuple[str, str]]:
    """The encoded ``name=value`` pairs of an ``application/x-www-form-urlencoded`` object,
    its properties in order, each by its Encoding Object in ``argument.encoding`` (a form
    body, or an OpenAPI 3.2 ``in: querystring`` parameter, which is the whole query).

    ``by_name`` (a querystring): a property without ``style``, ``explode`` or
    ``allowReserved`` is sent as OpenAPI 3.2 says (Encoding By Name), an array one pair per
    item, an object or array item as JSON text (its default ``contentType``), whatever
    ``nested`` says for a form body.

    Raises:
        RequestBuildError: a property is a file.

    Source: OpenAPI 3.2.0 sections 4.14.5.1 (Encoding By Name) and 4.15.1.1 (Encoding Object
    ``contentType`` defaults).
    """
    return [pair for name, item in value.items()
            for pair in _form_pairs(argument, name, item, nested, by_name)]


def _form_pairs(argument: Argument, name: str, item: Any, nested: str,
                by_name: bool = False) -> list[tuple[str, str]]:
    """The encoded pairs one property of a form body adds (``[]``: none).

    An array holding objects or arrays, whose form serialization OpenAPI leaves undefined,
    is sent by ``nested``: ``name[0][key]=value`` (``brackets``) or one JSON text per member
    (``repeat``); ``by_name``: one JSON text per member."""
    encoding = argument.encoding.get(name) or {}
    if isinstance(item, (Upload, bytes)):
        raise RequestBuildError(
            f"argument {argument.name!r}: property {name!r} is a file; "
            "application/x-www-form-urlencoded carries text only (base64 it)"
        )
    if any(key in encoding for key in _STYLE_FIELDS):
        style = str(encoding.get("style", "form"))
        explode = bool(encoding.get("explode", style == "form"))
        encode = reserved if encoding.get("allowReserved") else percent
        if style == "form" and explode and _holds_composites(item, nested):
            return bracketed(name, item, encode)
        return query_pairs(style, name, item, explode, encode, nested=nested)
    if not by_name and _holds_composites(item, nested) and "contentType" not in encoding:
        return bracketed(name, item, percent)
    members = item if isinstance(item, (list, tuple)) else [item]
    declared = encoding.get("contentType")
    return [
        (percent(name), percent(_part_text(member, declared)))
        for member in members
        if member is not None
    ]


def _holds_composites(item: Any, nested: str) -> bool:
    """Whether ``item`` is an array with an object or array member, sent by brackets."""
    return (
        nested == "brackets"
        and isinstance(item, (list, tuple))
        and any(isinstance(member, (Mapping, list, tuple)) for member in item)
    )


def _part_text(value: Any, content_type: Any) -> str:
    """A form value by content type: JSON for objects and JSON media types, else text."""
    declared = _first_media_type(content_type)
    if isinstance(value, (Mapping, list, tuple)) or (declared and is_json(declared)):
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return scalar(value)


def _first_media_type(content_type: Any) -> str | None:
    """The first concrete media type of an Encoding Object ``contentType`` list."""
    if not isinstance(content_type, str):
        return None
    for item in content_type.split(","):
        item = item.strip()
        if item and "*" not in media_essence(item):
            return item
    return None


def _multipart(argument: Argument, media_type: str, value: Any, nested: str) -> Body:
    """One part per property, named by ``Content-Disposition: form-data; name=...``,
    for every multipart subtype: OpenAPI 3.1.1 Encoding Object ("for multipart, the
    encoding keys MUST map to the name parameter of the Content-Disposition: form-data
    header of each part"). A subtype other than ``form-data`` is the ``Content-Type``'s
    (``multipart/mixed; boundary=...``)."""
    parts = [
        part
        for name, item in _object(argument, media_type, value).items()
        for part in _multipart_parts(argument, name, item, nested)
    ]
    form_data = media_essence(media_type) == "multipart/form-data"
    return Body(parts=parts, content_type=None if form_data else media_type)


def _multipart_parts(argument: Argument, name: str, item: Any, nested: str) -> list[Part]:
    """The parts one property of a multipart body adds (``[]``: none)."""
    if item is None:
        return []
    encoding = argument.encoding.get(name) or {}
    declared = _first_media_type(encoding.get("contentType"))
    styled = any(key in encoding for key in _STYLE_FIELDS)
    if styled and not isinstance(item, (Upload, bytes)):
        style = str(encoding.get("style", "form"))
        explode = bool(encoding.get("explode", style == "form"))
        pairs = query_pairs(style, name, item, explode, identity, raw=True, nested=nested)
        return [(k, (None, v.encode("utf-8"), None)) for k, v in pairs]
    members = item if isinstance(item, (list, tuple)) else [item]
    return [(name, _part(name, m, declared)) for m in members if m is not None]


def _part(name: str, value: Any, declared: str | None) -> tuple[str | None, bytes, str | None]:
    """One part: a file as it is; JSON text for an object, an array or a JSON ``contentType``
    (a string ``x`` as ``"x"``), else the value's text."""
    if isinstance(value, Upload):
        content_type = value.content_type or declared or "application/octet-stream"
        return (value.filename or name, value.content, content_type)
    if isinstance(value, bytes):
        return (name, value, declared or "application/octet-stream")
    if isinstance(value, (Mapping, list, tuple)):
        return (None, _part_text(value, declared).encode("utf-8"), declared or "application/json")
    return (None, _part_text(value, declared).encode("utf-8"), declared)


_ENCODERS: dict[str, Callable[[Argument, str, Any, str], Body]] = {
    "json": _json,
    "sequence": _sequence,
    "form": _form,
    "multipart": _multipart,
    "text": _text,
    "binary": _binary,
    "xml": _xml,
}
