"""An XML request body: the model's value serialized by the schema's XML Objects.

Every body here is read back by a real XML parser (xml.etree.ElementTree, and a uvicorn
server on 127.0.0.1 that parses what it receives): before, an object for an XML body was
accepted by validate and refused by the build ("a application/xml body needs a file or a
string, not dict"), so every call of such an operation failed.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from loopback import running
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

import httpllm
from httpllm.errors import RequestBuildError
from httpllm.execute import build_request

SERVER = "http://127.0.0.1:9/api"


def document(schema: Any, media_type: str = "application/xml", *,
             schemas: dict[str, Any] | None = None, version: str = "3.0.3") -> dict[str, Any]:
    """One operation, `send`, whose required body is `schema` as `media_type`."""
    return {
        "openapi": version, "info": {"title": "t", "version": "1"},
        "servers": [{"url": SERVER}],
        "paths": {"/things": {"post": {
            "operationId": "send",
            "requestBody": {"required": True, "content": {media_type: {"schema": schema}}},
            "responses": {"200": {"description": "ok"}}}}},
        "components": {"schemas": schemas or {}},
    }


PET = {
    "type": "object", "xml": {"name": "pet"},
    "properties": {
        "id": {"type": "integer", "xml": {"attribute": True}},
        "name": {"type": "string"},
        "owner": {"$ref": "#/components/schemas/Person"},
        "photos": {"type": "array", "items": {"type": "string", "xml": {"name": "photo"}}},
        "tags": {"type": "array", "xml": {"wrapped": True},
                 "items": {"type": "string", "xml": {"name": "tag"}}},
        "aliases": {"type": "array", "xml": {"wrapped": True}, "items": {"type": "string"}},
    },
}
PERSON = {"type": "object", "properties": {"name": {"type": "string"}}}


def built(doc: dict[str, Any], value: Any) -> httpx.Request:
    """The request `send` builds for the body `value`, after validate accepted it."""
    app = httpllm.compile(doc, provider="chatgpt")
    assert not app.errors
    checked = app.validate("send", {"body": value})
    assert checked.ok, checked.errors
    return build_request(app.function("send"), {"body": value})


def xml_of(request: httpx.Request) -> str:
    """The body without its XML declaration, after checking a parser reads it."""
    ET.fromstring(request.content)
    head, _, rest = request.content.decode().partition("\n")
    assert head == "<?xml version='1.0' encoding='utf-8'?>"
    return rest


def test_object_body_follows_the_xml_objects() -> None:
    """The root is named by `xml.name`; `attribute: true` is an attribute, an unwrapped
    array repeats its items in the parent (named by the items' name), a wrapped one holds
    them (items without a name take the array's), a `$ref`'d property is named by its
    property."""
    doc = document({"$ref": "#/components/schemas/Pet"},
                   schemas={"Pet": PET, "Person": PERSON})
    value = {"id": 7, "name": "Rex", "owner": {"name": "Ann"}, "photos": ["a.png", "b.png"],
             "tags": ["x", "y"], "aliases": ["r"]}
    request = built(doc, value)
    assert request.headers["content-type"] == "application/xml"
    assert xml_of(request) == (
        '<pet id="7"><name>Rex</name><owner><name>Ann</name></owner>'
        "<photo>a.png</photo><photo>b.png</photo><tags><tag>x</tag><tag>y</tag></tags>"
        "<aliases><aliases>r</aliases></aliases></pet>")


def test_the_root_takes_the_ref_component_name() -> None:
    """With no `xml.name`, the root element is named by the component its `$ref` names;
    an inline schema's root by the argument, `body`."""
    doc = document({"$ref": "#/components/schemas/Person"}, schemas={"Person": PERSON})
    assert xml_of(built(doc, {"name": "Ann"})) == "<Person><name>Ann</name></Person>"
    assert xml_of(built(document(PERSON), {"name": "Ann"})) == "<body><name>Ann</name></body>"


def test_swagger2_xml_body_goes_the_same_way() -> None:
    """A Swagger 2.0 body parameter under `consumes: [application/xml]` is XML by its
    definitions' XML Objects (after the upgrade), as the Swagger petstore shows."""
    doc = {
        "swagger": "2.0", "info": {"title": "t", "version": "1"}, "host": "127.0.0.1:9",
        "schemes": ["http"], "consumes": ["application/xml"],
        "paths": {"/pet": {"post": {"operationId": "send", "parameters": [
            {"in": "body", "name": "body", "required": True,
             "schema": {"$ref": "#/definitions/Pet"}}],
            "responses": {"200": {"description": "ok"}}}}},
        "definitions": {
            "Tag": {"type": "object", "xml": {"name": "Tag"},
                    "properties": {"name": {"type": "string"}}},
            "Pet": {"type": "object", "xml": {"name": "Pet"}, "properties": {
                "name": {"type": "string"},
                "tags": {"type": "array", "xml": {"name": "tag", "wrapped": True},
                         "items": {"$ref": "#/definitions/Tag"}}}}},
    }
    request = built(doc, {"name": "doggie", "tags": [{"name": "a"}]})
    assert xml_of(request) == "<Pet><name>doggie</name><tag><Tag><name>a</name></Tag></tag></Pet>"


def test_node_types_of_openapi_32() -> None:
    """`nodeType`: `attribute`, `text` and `cdata` (text of the parent), `element` for an
    array (wrapped), `none` for an object (its properties in the parent)."""
    schema = {"type": "object", "xml": {"name": "doc"}, "properties": {
        "lang": {"type": "string", "xml": {"nodeType": "attribute"}},
        "title": {"type": "string", "xml": {"nodeType": "text"}},
        "items": {"type": "array", "xml": {"nodeType": "element"},
                  "items": {"type": "integer", "xml": {"name": "i"}}},
        "meta": {"type": "object", "xml": {"nodeType": "none"},
                 "properties": {"k": {"type": "string"}}},
        "raw": {"type": "string", "xml": {"nodeType": "cdata"}}}}
    value = {"lang": "en", "title": "T", "items": [1, 2], "meta": {"k": "v"}, "raw": "<x>"}
    assert xml_of(built(document(schema, version="3.2.0"), value)) == (
        '<doc lang="en">T<items><i>1</i><i>2</i></items><k>v</k>&lt;x&gt;</doc>')


def test_namespaces_and_prefixes_are_declared() -> None:
    """`namespace` declares the element's namespace (with its `prefix` when given); a
    parser reads each element in it; a prefix without a namespace is left out."""
    schema = {"type": "object", "xml": {"name": "feed", "namespace": "urn:a"},
              "properties": {
                  "title": {"type": "string", "xml": {"prefix": "b", "namespace": "urn:b"}},
                  "lang": {"type": "string", "xml": {"attribute": True, "prefix": "b",
                                                     "namespace": "urn:b"}},
                  "note": {"type": "string", "xml": {"prefix": "c"}}}}
    request = built(document(schema, "application/atom+xml"),
                    {"title": "T", "lang": "en", "note": "n"})
    root = ET.fromstring(request.content)
    assert root.tag == "{urn:a}feed"
    assert [child.tag for child in root] == ["{urn:b}title", "{urn:a}note"]
    assert root.attrib == {"{urn:b}lang": "en"}
    assert request.headers["content-type"] == "application/atom+xml"


@pytest.mark.parametrize("text", [
    "</name><admin>true</admin><name>", "a & b < c > d", "]]><x/>", '"quoted" \'too\'',
    "<?xml version='1.0'?>", "&amp; &#60;", "Zoë \U0001f600"])
def test_values_never_add_markup(text: str) -> None:
    """A string written to break out of its element or attribute is escaped by the
    ElementTree writer: the parser reads back exactly one element per property and the
    same text."""
    schema = {"type": "object", "xml": {"name": "r"}, "properties": {
        "name": {"type": "string"}, "id": {"type": "string", "xml": {"attribute": True}}}}
    root = ET.fromstring(built(document(schema), {"name": text, "id": text}).content)
    assert [child.tag for child in root] == ["name"]
    assert (root[0].text, root.get("id")) == (text, text)


@pytest.mark.parametrize(("value", "says"), [
    ({"bad key": "x"}, "'bad key' is no XML name"),
    ({"x><y": "x"}, "'x><y' is no XML name"),
    ({"a": "\x00"}, "U+0000 cannot be in an XML 1.0 document"),
    ({"a": "\x1b[31m"}, "U+001B cannot be in an XML 1.0 document")])
def test_what_xml_cannot_hold_is_refused_by_validate_and_build(value: Any, says: str) -> None:
    """A key that is no XML name or a character XML 1.0 cannot carry: validate refuses it
    (naming why) and the build raises, never writing it."""
    doc = document({"type": "object", "additionalProperties": {"type": "string"}})
    app = httpllm.compile(doc, provider="chatgpt")
    checked = app.validate("send", {"body": value})
    assert not checked.ok
    assert says in checked.errors[0].message
    with pytest.raises(RequestBuildError, match=re.escape(says)):
        build_request(app.function("send"), {"body": value})


@pytest.mark.parametrize(("schema", "says"), [
    ({"type": "object", "xml": {"name": "r", "namespace": "urn:a\x01"},
      "properties": {"a": {"type": "string"}}}, "U+0001 cannot be in an XML 1.0 document"),
    ({"type": "object", "properties": {"a": {"type": "string", "xml": {
        "prefix": "p", "namespace": "urn:\x0b", "attribute": True}}}},
     "U+000B cannot be in an XML 1.0 document"),
    ({"type": "object", "properties": {"a": {"type": "string", "xml": {
        "name": "xmlns", "attribute": True}}}}, "an attribute named 'xmlns'"),
])
def test_what_the_document_names_must_be_xml_too(schema: Any, says: str) -> None:
    """A namespace the document gives holding a character XML 1.0 cannot carry was
    written as it is (`<r xmlns="urn:a\x01">`, which no parser reads), and an attribute
    named `xmlns` made the model's value the element's default namespace (`<body
    xmlns="urn:evil"/>`, no attribute at all to a namespace-aware reader): validate
    refuses both (naming why) and the build raises."""
    app = httpllm.compile(document(schema), provider="chatgpt")
    checked = app.validate("send", {"body": {"a": "urn:evil"}})
    assert not checked.ok
    assert says in checked.errors[0].message
    with pytest.raises(RequestBuildError, match=re.escape(says)):
        build_request(app.function("send"), {"body": {"a": "urn:evil"}})


def test_a_recursive_schema_follows_the_value() -> None:
    """A recursive schema is read once (a cycle of nodes); the value's depth decides the
    elements' depth."""
    node = {"type": "object", "xml": {"name": "node"}, "properties": {
        "label": {"type": "string", "xml": {"attribute": True}},
        "children": {"type": "array", "items": {"$ref": "#/components/schemas/Node"}}}}
    doc = document({"$ref": "#/components/schemas/Node"}, schemas={"Node": node})
    value = {"label": "a", "children": [{"label": "b", "children": [{"label": "c"}]}]}
    assert xml_of(built(doc, value)) == (
        '<node label="a"><node label="b"><node label="c" /></node></node>')


def test_a_string_or_scalar_body() -> None:
    """A string is the XML itself, sent as it is; a number is the root's text."""
    doc = document({"type": "string"})
    assert built(doc, "<a>1</a>").content == b"<a>1</a>"
    assert xml_of(built(document({"type": "integer"}), 5)) == "<body>5</body>"


@given(st.fixed_dictionaries({"id": st.integers(), "name": st.text()},
                             optional={"tags": st.lists(st.text())}))
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_round_trip(value: dict[str, Any]) -> None:
    """Any value validate accepts builds, or (a character XML cannot hold) is refused by
    both; what builds parses back to the same names and text (a carriage return reaching
    the parser as a line feed, XML 1.0 section 2.11)."""
    doc = document({"$ref": "#/components/schemas/Pet"}, schemas={"Pet": PET, "Person": PERSON})
    app = httpllm.compile(doc, provider="chatgpt")
    checked = app.validate("send", {"body": value})
    try:
        request = build_request(app.function("send"), {"body": value})
    except RequestBuildError:
        assert not checked.ok
        return
    assert checked.ok
    root = ET.fromstring(request.content)
    def read(text: str) -> str:
        return text.replace("\r\n", "\n").replace("\r", "\n")
    assert root.get("id") == str(value["id"])
    assert (root.find("name").text or "") == read(value["name"])  # type: ignore[union-attr]
    tags = root.find("tags")
    if value.get("tags"):
        assert [t.text or "" for t in tags] == [read(t) for t in value["tags"]]  # type: ignore[union-attr]


async def parsed(request: Request) -> Response:
    """Answer with the received XML as JSON: each element's tag, attributes and text."""
    root = ET.fromstring(await request.body())
    return JSONResponse({"type": request.headers["content-type"],
                         "elements": [[e.tag, e.attrib, e.text] for e in root.iter()]})


@pytest.fixture(scope="module")
def xml_server() -> Iterator[str]:
    """A server on 127.0.0.1 that parses the XML body it receives."""
    with running(Starlette(routes=[Route("/api/things", parsed, methods=["POST"])]),
                 lifespan="off") as url:
        yield url


def test_a_server_parses_the_body(xml_server: str) -> None:
    """Executed against a server that parses XML: it reads the pet the model gave."""
    doc = document({"$ref": "#/components/schemas/Pet"}, schemas={"Pet": PET, "Person": PERSON})
    app = httpllm.compile(doc, provider="chatgpt")
    result = app.execute("send", {"body": {"id": 1, "name": "a<b", "tags": ["t"]}},
                         base_url=f"{xml_server}/api")
    assert result.status == 200, result.body
    assert result.body == {"type": "application/xml", "elements": [
        ["pet", {"id": "1"}, None], ["name", {}, "a<b"], ["tags", {}, None],
        ["tag", {}, "t"]]}
    assert json.dumps(result.body)
