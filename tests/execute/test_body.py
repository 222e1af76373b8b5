"""Encoding the request body by media type and Encoding Objects."""

from __future__ import annotations

from typing import Any

import pytest

from httpllm.errors import RequestBuildError
from httpllm.execute.body import Upload, encode_body, is_json

from .records import body


def test_json_body_is_compact_utf8() -> None:
    """A JSON body is compact UTF-8 JSON with the media type as Content-Type."""
    encoded = encode_body(body({"type": "object"}), {"name": "Zoë", "n": [1, None]})
    assert encoded.content == '{"name":"Zoë","n":[1,null]}'.encode()
    assert encoded.content_type == "application/json"


def test_json_suffix_media_type_is_json() -> None:
    """A +json media type is encoded as JSON and kept as the Content-Type."""
    encoded = encode_body(body({}, "application/merge-patch+json"), {"a": None})
    assert (encoded.content, encoded.content_type) == (
        b'{"a":null}',
        "application/merge-patch+json",
    )
    assert is_json("application/problem+json; charset=utf-8")


@pytest.mark.parametrize(("media_type", "prefix"), [
    ("application/jsonl", b""), ("application/x-ndjson", b""),
    ("application/json-seq", b"\x1e")])
def test_json_stream_body_from_an_array(media_type: str, prefix: bytes) -> None:
    """A JSON stream body (OpenAPI 3.2 `itemSchema`, offered as an array of the items) is
    one compact JSON text per item and line; a build error before (not a file or a string),
    so every valid call failed. A string is still sent as it is."""
    stream = {"type": "array", "items": {"type": "object"}}
    encoded = encode_body(body(stream, media_type), [{"x": 1}, {"y": "ü"}])
    assert encoded.content == prefix + b'{"x":1}\n' + prefix + '{"y":"ü"}\n'.encode()
    assert encoded.content_type == media_type
    assert encode_body(body(stream, media_type), '{"x":1}\n').content == b'{"x":1}\n'


def test_itemschema_call_is_sent_as_json_lines() -> None:
    """The way back from a compiled 3.2 stream body: the array the model gives is sent as
    JSON Lines."""
    import httpllm
    from httpllm.execute import build_request

    doc = {"openapi": "3.2.0", "info": {"title": "t", "version": "1"},
           "servers": [{"url": "https://api.example.com"}],
           "paths": {"/s": {"post": {"operationId": "stream", "requestBody": {
               "required": True, "content": {"application/jsonl": {"itemSchema": {
                   "type": "object", "properties": {"x": {"type": "integer"}}}}}},
               "responses": {"200": {"description": "ok"}}}}}}
    for provider in ("chatgpt", "claude", "gemini", "mcp"):
        app = httpllm.compile(doc, provider)
        call = {"body": [{"x": 1}, {"x": 2}]}
        assert app.validate("stream", call).ok
        request = build_request(app.function("stream"), call)
        assert request.content == b'{"x":1}\n{"x":2}\n', provider
        assert request.headers["content-type"] == "application/jsonl"


def test_file_in_a_json_body_is_refused() -> None:
    """A file cannot travel in a JSON body."""
    with pytest.raises(RequestBuildError, match="not JSON"):
        encode_body(body({}), {"f": Upload(content=b"x")})


def test_form_body_by_default_rules() -> None:
    """Form bodies: primitives as text, arrays repeated, objects as JSON text, %20 for space."""
    value = {"name": "a b&c", "tags": ["x", "y"], "address": {"city": "Köln"}, "n": 1, "skip": None}
    encoded = encode_body(body({}, "application/x-www-form-urlencoded"), value)
    assert encoded.content == (
        b"name=a%20b%26c&tags=x&tags=y&address=%7B%22city%22%3A%22K%C3%B6ln%22%7D&n=1"
    )
    assert encoded.content_type == "application/x-www-form-urlencoded"


def test_form_body_with_style_encodings() -> None:
    """An Encoding Object with style/explode serializes the property like a query parameter."""
    encoding = {
        "filter": {"style": "deepObject", "explode": True},
        "ids": {"explode": False},
        "words": {"style": "spaceDelimited"},
        "path": {"allowReserved": True},
    }
    value = {"filter": {"a": 1}, "ids": [1, 2], "words": ["hi", "there"], "path": "/x/y"}
    encoded = encode_body(body({}, "application/x-www-form-urlencoded", encoding=encoding), value)
    assert encoded.content == b"filter%5Ba%5D=1&ids=1,2&words=hi%20there&path=/x/y"


def test_form_body_content_type_json_encodes_primitives_as_json() -> None:
    """An Encoding Object contentType of application/json makes the property JSON text."""
    encoding = {"v": {"contentType": "application/json"}}
    encoded = encode_body(
        body({}, "application/x-www-form-urlencoded", encoding=encoding), {"v": "x"}
    )
    assert encoded.content == b"v=%22x%22"


@pytest.mark.parametrize("value", [["a"], "a=b"])
def test_form_body_must_be_an_object(value: Any) -> None:
    """A form body that is not an object raises RequestBuildError."""
    with pytest.raises(RequestBuildError, match="must be an object"):
        encode_body(body({}, "application/x-www-form-urlencoded"), value)


def test_file_in_a_form_body_is_refused() -> None:
    """A file cannot travel in an application/x-www-form-urlencoded body."""
    with pytest.raises(RequestBuildError, match="text only"):
        encode_body(body({}, "application/x-www-form-urlencoded"), {"f": Upload(content=b"x")})


def test_multipart_parts_follow_the_default_content_types() -> None:
    """Multipart: text parts bare, objects as JSON parts, arrays one part per member, files."""
    value = {
        "id": 7,
        "address": {"city": "x"},
        "children": ["a", "b"],
        "photo": Upload(content=b"\x89PNG", filename="p.png"),
        "raw": b"\x00",
        "none": None,
    }
    encoded = encode_body(body({}, "multipart/form-data"), value)
    assert encoded.content is None
    assert encoded.parts == [
        ("id", (None, b"7", None)),
        ("address", (None, b'{"city":"x"}', "application/json")),
        ("children", (None, b"a", None)),
        ("children", (None, b"b", None)),
        ("photo", ("p.png", b"\x89PNG", "application/octet-stream")),
        ("raw", ("raw", b"\x00", "application/octet-stream")),
    ]


def test_multipart_encoding_content_type_applies_to_the_part() -> None:
    """The first concrete media type of an Encoding Object contentType is the part's type."""
    encoding = {
        "meta": {"contentType": "application/xml; charset=utf-8"},
        "img": {"contentType": "image/*, image/png"},
    }
    value = {"meta": "<a/>", "img": Upload(content=b"i")}
    encoded = encode_body(body({}, "multipart/form-data", encoding=encoding), value)
    assert encoded.parts == [
        ("meta", (None, b"<a/>", "application/xml; charset=utf-8")),
        ("img", ("img", b"i", "image/png")),
    ]


def test_multipart_json_content_type_makes_a_primitive_part_json() -> None:
    """A part whose Encoding Object contentType is JSON holds JSON text, a string quoted,
    as a form body's property does: `x` is no JSON document."""
    encoding = {"note": {"contentType": "application/json"},
                "tags": {"contentType": "application/vnd.api+json"}}
    value = {"note": "x", "tags": ["a", 2]}
    encoded = encode_body(body({}, "multipart/form-data", encoding=encoding), value)
    assert encoded.parts == [
        ("note", (None, b'"x"', "application/json")),
        ("tags", (None, b'"a"', "application/vnd.api+json")),
        ("tags", (None, b"2", "application/vnd.api+json")),
    ]


def test_multipart_style_encoding_gives_raw_text_parts() -> None:
    """A styled multipart property becomes text parts with literal delimiters."""
    encoding = {"tags": {"style": "pipeDelimited", "explode": False}}
    encoded = encode_body(body({}, "multipart/form-data", encoding=encoding), {"tags": ["a", "b"]})
    assert encoded.parts == [("tags", (None, b"a|b", None))]


def test_other_multipart_subtypes_are_refused() -> None:
    """Only multipart/form-data is encoded; other multipart subtypes raise RequestBuildError."""
    with pytest.raises(RequestBuildError, match="multipart/mixed"):
        encode_body(body({}, "multipart/mixed"), {"a": 1})


def test_text_body_adds_a_utf8_charset() -> None:
    """A text body is UTF-8 and says so when its media type names no charset."""
    encoded = encode_body(body({"type": "string"}, "text/plain"), "héllo")
    assert (encoded.content, encoded.content_type) == (
        "héllo".encode(),
        "text/plain; charset=utf-8",
    )
    kept = encode_body(body({}, "text/csv; charset=latin-1"), 3)
    assert (kept.content, kept.content_type) == (b"3", "text/csv; charset=latin-1")


def test_binary_body_from_a_file_string_or_base64() -> None:
    """A binary body takes a file's bytes, a string's UTF-8, or decodes base64 when declared."""
    octets = body({"type": "string", "format": "binary"}, "application/octet-stream")
    assert encode_body(octets, Upload(content=b"\x01")).content == b"\x01"
    assert encode_body(octets, "abc").content == b"abc"
    image = body({"type": "string", "contentEncoding": "base64"}, "image/png")
    encoded = encode_body(image, "iVBORw==")
    assert (encoded.content, encoded.content_type) == (b"\x89PNG", "image/png")
    with pytest.raises(RequestBuildError, match="not base64"):
        encode_body(image, "***")


def test_binary_body_of_an_object_is_refused() -> None:
    """An object cannot be an application/xml (or other non-JSON, non-text) body."""
    with pytest.raises(RequestBuildError, match="needs a file or a string"):
        encode_body(body({}, "application/xml"), {"a": 1})


@pytest.mark.parametrize(
    ("value", "content", "content_type"),
    [
        ({"a": 1}, b'{"a":1}', "application/json"),
        ("text", b"text", "text/plain; charset=utf-8"),
        (Upload(content=b"\x00", content_type="image/gif"), b"\x00", "image/gif"),
    ],
)
def test_wildcard_media_type_takes_the_kind_of_the_value(
    value: Any, content: bytes, content_type: str
) -> None:
    """A */* body is JSON, text or binary by what the value is."""
    encoded = encode_body(body({}, "*/*"), value)
    assert (encoded.content, encoded.content_type) == (content, content_type)
