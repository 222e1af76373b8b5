"""Encoding the request body by media type and Encoding Objects."""

from __future__ import annotations

import functools
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_jsonschema import from_schema

import httpllm
from httpllm._media import is_json
from httpllm.errors import RequestBuildError
from httpllm.execute import build_request
from httpllm.execute.body import Upload, encode_body

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


@pytest.mark.parametrize("value", [["a"], 5])
def test_form_body_must_be_an_object(value: Any) -> None:
    """A form body that is neither an object nor a string raises RequestBuildError (the
    compile offers an object where the document's schema is neither)."""
    with pytest.raises(RequestBuildError, match="must be an object"):
        encode_body(body({}, "application/x-www-form-urlencoded"), value)


def test_form_body_string_is_sent_as_it_is() -> None:
    """A form body given as a string (a schema of `type: string`) is the encoded form, sent
    as it is; it was refused as no object, so every call of such an operation failed."""
    form = body({"type": "string"}, "application/x-www-form-urlencoded")
    encoded = encode_body(form, "a=1&b=%20")
    assert (encoded.content, encoded.content_type) == (
        b"a=1&b=%20", "application/x-www-form-urlencoded")


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


@pytest.mark.parametrize("media_type", ["multipart/mixed", "multipart/related; type=x/y"])
def test_other_multipart_subtypes_take_named_parts(media_type: str) -> None:
    """Any multipart subtype is one part per property named by `Content-Disposition:
    form-data` (OpenAPI 3.1.1 Encoding Object), under its own media type; it raised
    RequestBuildError, so validate accepted calls that could never be built."""
    encoded = encode_body(body({}, media_type), {"a": 1, "b": "x"})
    assert encoded.parts == [("a", (None, b"1", None)), ("b", (None, b"x", None))]
    assert encoded.content_type == media_type


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


@pytest.mark.parametrize(("media_type", "value", "content"), [
    ("application/yaml", {"a": [1, "b"]}, b'{"a":[1,"b"]}'),
    ("application/octet-stream", 5, b"5"),
    ("image/png", True, b"true")])
def test_binary_body_of_another_value_is_json_text(media_type: str, value: Any,
                                                   content: bytes) -> None:
    """A value its schema allows that is neither a file nor a string (an object for
    application/yaml) is its compact JSON text (YAML 1.2 reads it), under the media type;
    it raised RequestBuildError ("needs a file or a string"), after validate accepted it."""
    encoded = encode_body(body({}, media_type), value)
    assert (encoded.content, encoded.content_type) == (content, media_type)


def test_xml_body_of_an_object_is_xml() -> None:
    """An object for application/xml is an XML document (tests/execute/test_xml_body.py
    has the rules); it raised RequestBuildError ("needs a file or a string")."""
    encoded = encode_body(body({}, "application/xml"), {"a": 1})
    assert encoded.content == b"<?xml version='1.0' encoding='utf-8'?>\n<body><a>1</a></body>"
    assert encoded.content_type == "application/xml"


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


def test_json_stream_body_of_one_record() -> None:
    """A JSON stream body given as one object (its schema no array) is that one record;
    it raised RequestBuildError ("needs a file or a string") after validate accepted it."""
    encoded = encode_body(body({"type": "object"}, "application/jsonl"), {"x": 1})
    assert encoded.content == b'{"x":1}\n'


MEDIA_TYPES = (
    "application/json", "application/merge-patch+json", "application/jsonl",
    "application/x-ndjson", "application/json-seq", "application/x-www-form-urlencoded",
    "multipart/form-data", "multipart/mixed", "multipart/related", "application/xml",
    "text/xml", "application/atom+xml", "text/plain", "text/csv", "*/*", "application/*",
    "application/octet-stream", "application/yaml", "image/png")
"""A media type of each kind the encoder knows (body._kind), and of each kind it reads
by a suffix or a prefix."""

SCHEMAS: dict[str, Any] = {
    "object": {"type": "object", "properties": {
        "a": {"type": "string"}, "n": {"type": "integer"},
        "tags": {"type": "array", "items": {"type": "string"}},
        "meta": {"type": "object", "properties": {"k": {"type": "boolean"}}}}},
    "array": {"type": "array", "items": {"type": "object",
                                         "properties": {"x": {"type": "integer"}}}},
    "string": {"type": "string"}, "integer": {"type": "integer"},
    "number": {"type": "number"}, "boolean": {"type": "boolean"}, "any": {},
}


@functools.cache
def every_body() -> Any:
    """One compiled document: an operation per media type and schema kind."""
    paths = {
        f"/{i}/{kind}": {"post": {
            "operationId": f"op{i}_{kind}",
            "requestBody": {"required": True,
                            "content": {media_type: {"schema": schema}}},
            "responses": {"200": {"description": "ok"}}}}
        for i, media_type in enumerate(MEDIA_TYPES) for kind, schema in SCHEMAS.items()}
    doc = {"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
           "servers": [{"url": "http://127.0.0.1:9"}], "paths": paths}
    return httpllm.compile(doc, provider="chatgpt")


@pytest.mark.slow  # 133 drawn sweeps, ~12 s: the full run (CI) has them, the quick loop not
@pytest.mark.parametrize("kind", SCHEMAS)
@pytest.mark.parametrize("index", range(len(MEDIA_TYPES)), ids=MEDIA_TYPES)
@given(data=st.data())
@settings(max_examples=5, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
def test_what_validate_accepts_is_built(index: int, kind: str, data: st.DataObject) -> None:
    """For every media type the encoder knows and every kind of body schema, a tool call
    drawn from the tool's parameters that validate accepts is built without error (the
    compile offers an object where a form or multipart body's schema is none): an object
    for application/xml, multipart/mixed or application/yaml, an array for a multipart
    body, were accepted and then refused by the build."""
    app = every_body()
    function = app.function(f"op{index}_{kind}")
    arguments = data.draw(from_schema(function.parameters))
    if app.validate(function.name, arguments).ok:
        assert build_request(function, arguments) is not None


@pytest.mark.parametrize(("media_type", "schema", "value"), [
    ("multipart/form-data", {"properties": {"a": {"type": "string"}}}, ["a"]),
    ("multipart/mixed", {}, 5),
    ("application/x-www-form-urlencoded", {}, [1])])
def test_a_typeless_fields_body_that_is_no_object_is_refused(
        media_type: str, schema: Any, value: Any) -> None:
    """A form or multipart body whose schema names no type (`{}`, `properties` alone) lets
    an array through JSON Schema: validate refuses it as no object, as the build does (it
    accepted it, and the build raised "must be an object")."""
    doc = {"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
           "servers": [{"url": "http://127.0.0.1:9"}],
           "paths": {"/x": {"post": {"operationId": "x", "requestBody": {
               "content": {media_type: {"schema": schema}}},
               "responses": {"200": {"description": "ok"}}}}}}
    checked = httpllm.compile(doc, provider="chatgpt").validate("x", {"body": value})
    assert [(e.pointer, e.keyword) for e in checked.errors] == [("#/body", "type")]
    assert f"an object (a {media_type} body is named" in checked.errors[0].message
