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
    ({"type": "object", "properties": {"a": {"type": "string", "xml": {
        "name": "xmlns", "attribute": True}}}}, "an attribute named 'xmlns'"),
])
def test_what_the_document_names_must_be_xml_too(schema: Any, says: str) -> None:
    """An attribute named `xmlns` made the model's value the element's default namespace
    (`<body xmlns="urn:evil"/>`, no attribute at all to a namespace-aware reader):
    validate refuses it (naming why) and the build raises."""
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
    both; what builds parses back to the same names and text, a carriage return too (it
    was written raw, and a parser reads a raw one as a line feed, XML 1.0 section 2.11)."""
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
    assert root.get("id") == str(value["id"])
    assert (root.find("name").text or "") == value["name"]  # type: ignore[union-attr]
    tags = root.find("tags")
    if value.get("tags"):
        assert [t.text or "" for t in tags] == value["tags"]  # type: ignore[union-attr]


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


def losses_of(doc: dict[str, Any]) -> list[tuple[str, str, Any]]:
    """The `xml` losses of `send`: action and value, with the first words of the note."""
    function = httpllm.compile(doc, provider="chatgpt").function("send")
    return [(loss.action, loss.value, loss.note.split(":")[0]) for loss in function.losses
            if loss.keyword == "xml"]


@pytest.mark.parametrize(("schema", "value", "elements"), [
    ({"type": "array", "items": {"type": "array", "items": {"type": "integer"}}},
     [[1, 2], [3]], [["body", ["1", "2"]], ["body", ["3"]]]),
    ({"type": "object", "properties": {"m": {"type": "array", "items": {
        "type": "array", "items": {"type": "integer", "xml": {"name": "i"}}}}}},
     {"m": [[1], [2, 3]]}, [["m", ["1"]], ["m", ["2", "3"]]])])
def test_an_array_of_arrays_keeps_its_inner_arrays(
        schema: Any, value: Any, elements: list[Any]) -> None:
    """An array whose items are arrays (no node type of their own) sends each inner array
    wrapped in an element named as its items, with a loss saying so: unwrapped,
    `[[1, 2], [3]]` was sent as `[1, 2, 3]` and `[[1], [2, 3]]` read the same."""
    doc = document(schema)
    assert [(a, n) for a, _, n in losses_of(doc)] == [(
        "rewritten", "an array whose items are arrays")]
    root = ET.fromstring(built(doc, value).content)
    assert [[e.tag, [i.text for i in e]] for e in root] == elements


def test_two_properties_naming_one_attribute_both_arrive() -> None:
    """Two properties whose XML Objects name the same attribute: the later one's name is
    not carried (a loss), so both values arrive; the second overwrote the first without
    a word (`<body id="2"/>`)."""
    schema = {"type": "object", "properties": {
        "a": {"type": "string", "xml": {"name": "id", "attribute": True}},
        "b": {"type": "string", "xml": {"name": "id", "attribute": True}}}}
    assert losses_of(document(schema)) == [
        ("dropped", "id", "xml.name 'id' of property 'b' names the attribute property 'a' "
         "names (one element holds one attribute of a name)")]
    root = ET.fromstring(built(document(schema), {"a": "1", "b": "2"}).content)
    assert root.attrib == {"id": "1", "b": "2"}


def test_an_attribute_prefix_bound_on_its_element_gets_a_free_one() -> None:
    """An attribute whose prefix its element binds to another namespace is declared under
    a free prefix (a loss): element and attribute each keep their namespace; the
    attribute's declaration replaced the element's (`xmlns:p="urn:b"`), moving the
    element to urn:b."""
    schema = {"type": "object", "xml": {"name": "r", "prefix": "p", "namespace": "urn:a"},
              "properties": {"a": {"type": "string", "xml": {
                  "attribute": True, "prefix": "p", "namespace": "urn:b"}},
                  "c": {"type": "string"}}}
    assert [(a, v) for a, v, _ in losses_of(document(schema))] == [("rewritten", "p")]
    root = ET.fromstring(built(document(schema), {"a": "1", "c": "x"}).content)
    assert (root.tag, root.attrib) == ("{urn:a}r", {"{urn:b}a": "1"})


@pytest.mark.parametrize(("namespace", "why"), [
    ("urn:a\x01", "holds U+0001"), ("", "is no namespace name"),
    ("http://www.w3.org/2000/xmlns/", "is reserved")])
def test_a_namespace_xml_cannot_declare_is_a_loss(namespace: str, why: str) -> None:
    """A namespace XML cannot declare (a character XML 1.0 cannot carry, an empty one, a
    reserved one) is not carried, nor its prefix, with a loss; the calls build. The first
    failed every call ("U+0001 cannot be in an XML 1.0 document"), the reserved one was
    declared (`xmlns:p="http://www.w3.org/2000/xmlns/"`, which no parser reads), the
    empty one was left out without a word."""
    schema = {"type": "object", "xml": {"name": "r", "prefix": "p", "namespace": namespace},
              "properties": {"c": {"type": "string"}}}
    function = httpllm.compile(document(schema), provider="chatgpt").function("send")
    [loss] = [loss for loss in function.losses if loss.keyword == "xml"]
    assert loss.action == "dropped"
    assert f"{why}" in loss.note
    assert xml_of(built(document(schema), {"c": "x"})) == "<r><c>x</c></r>"


def test_a_carriage_return_arrives_as_given(xml_server: str) -> None:
    """A carriage return in text is written `&#13;`: written raw, a parser read it as a
    line feed (XML 1.0 section 2.11); in an attribute too (section 3.3.3)."""
    schema = {"type": "object", "xml": {"name": "r"}, "properties": {
        "c": {"type": "string"}, "d": {"type": "string", "xml": {"attribute": True}}}}
    app = httpllm.compile(document(schema), provider="chatgpt")
    value = {"d": "x\ry\tz\nw", "c": "a\rb\r\nc"}
    result = app.execute("send", {"body": value}, base_url=f"{xml_server}/api")
    assert result.body["elements"] == [["r", {"d": "x\ry\tz\nw"}, None],  # type: ignore[index]
                                       ["c", {}, "a\rb\r\nc"]]


async def parameters_seen(request: Request) -> Response:
    """Answer with the XML of the `q` query parameter and the `X-Q` header, parsed."""
    def read(text: str) -> list[Any]:
        return [[e.tag, e.text] for e in ET.fromstring(text).iter()]
    return JSONResponse({"q": read(request.query_params["q"]),
                         "header": read(request.headers["x-q"])})


def test_an_xml_content_parameter_is_sent_as_xml() -> None:
    """A query or header parameter whose `content` is `application/xml` is sent as an XML
    document (no declaration) by its schema's XML Objects, its root named by `xml.name`,
    else by the parameter; it was sent as JSON text (`q={"a":"x"}`). A value XML cannot
    hold is refused by validate and the build alike."""
    doc = document({"type": "object"})
    doc["paths"]["/things"]["post"]["parameters"] = [
        {"name": "q", "in": "query", "content": {"application/xml": {"schema": {
            "type": "object", "xml": {"name": "f"}, "properties": {"a": {"type": "string"}}}}}},
        {"name": "X-Q", "in": "header", "content": {"text/xml": {"schema": {
            "type": "object", "properties": {"n": {"type": "integer"}}}}}}]
    app = httpllm.compile(doc, provider="chatgpt")
    with running(Starlette(routes=[Route("/api/things", parameters_seen, methods=["POST"])]),
                 lifespan="off") as url:
        result = app.execute("send", {"q": {"a": "x<y"}, "X-Q": {"n": 1}, "body": {}},
                             base_url=f"{url}/api")
    assert result.body == {"q": [["f", None], ["a", "x<y"]],
                           "header": [["X-Q", None], ["n", "1"]]}
    checked = app.validate("send", {"q": {"a b": "x"}, "body": {}})
    assert [(e.pointer, e.keyword) for e in checked.errors] == [("#/q", "xml")]
    with pytest.raises(RequestBuildError, match="'a b' is no XML name"):
        build_request(app.function("send"), {"q": {"a b": "x"}, "body": {}})


def test_an_attribute_given_twice_is_refused_never_overwritten() -> None:
    """Where the compile cannot settle two properties naming one attribute (the later
    one named by its property, `id`), a call giving both is refused by validate and the
    build (Namespaces in XML 1.0 section 3.1), never sent with one value lost."""
    schema = {"type": "object", "properties": {
        "a": {"type": "string", "xml": {"name": "id", "attribute": True}},
        "id": {"type": "string", "xml": {"attribute": True}}}}
    app = httpllm.compile(document(schema), provider="chatgpt")
    checked = app.validate("send", {"body": {"a": "1", "id": "2"}})
    assert [(e.pointer, e.keyword) for e in checked.errors] == [("#/body", "xml")]
    with pytest.raises(RequestBuildError, match="attribute 'id' is given twice"):
        build_request(app.function("send"), {"body": {"a": "1", "id": "2"}})
    assert xml_of(built(document(schema), {"id": "2"})) == '<body id="2" />'
