"""Reading an XML body schema's XML Objects into the shape the build serializes by."""

from __future__ import annotations

from typing import Any

import pytest

import httpllm
from httpllm._media import is_xml
from httpllm.compose import xml_object
from httpllm.compose.xml_object import xml_shape
from httpllm.errors import RefError
from httpllm.records import XmlNode

SCHEMAS: dict[str, Any] = {
    "Base": {"xml": {"name": "base", "namespace": "urn:b"},
             "properties": {"id": {"xml": {"attribute": True}}}},
    "Named": {"xml": {"name": "named", "prefix": "n", "namespace": "urn:n"}},
}


def resolve(ref: str, base: str) -> tuple[Any, str, str]:
    """`#/components/schemas/<name>` in :data:`SCHEMAS`."""
    name = ref.rsplit("/", 1)[-1]
    if name not in SCHEMAS:
        raise RefError(f"no {ref}", pointer=ref)
    return SCHEMAS[name], base, f"#/components/schemas/{name}"


def test_members_and_refs_add_what_the_node_lacks() -> None:
    """A node's own XML Object wins key by key over its `$ref` target's; properties come
    from the node, its `$ref` target, then its `allOf` members, the first of a name kept."""
    schema = {"$ref": "#/components/schemas/Base", "xml": {"name": "own"},
              "allOf": [{"properties": {"id": {"xml": {"name": "other"}},
                                        "extra": {"xml": {"nodeType": "text"}}}}]}
    shape = xml_shape(schema, "", resolve)
    root = shape[0]
    assert (root.name, root.namespace) == ("own", "urn:b")
    assert shape[root.properties["extra"]].node_type == "text"
    assert shape[root.properties["id"]] == XmlNode(node_type="attribute")


@pytest.mark.parametrize(("xml", "node_type"), [
    ({"nodeType": "cdata", "attribute": True}, "cdata"),
    ({"attribute": True}, "attribute"),
    ({"wrapped": True}, "element"),
    ({"nodeType": "bogus", "wrapped": False}, None),
    ({}, None)])
def test_node_type(xml: dict[str, Any], node_type: str | None) -> None:
    """`nodeType` (3.2) first, else `attribute: true`, else `wrapped: true`; else none."""
    assert xml_shape({"xml": xml}, "", resolve)[0].node_type == node_type


def test_root_named_by_its_component_properties_by_their_property() -> None:
    """The root takes the `$ref`'d component's name; a property's `$ref` does not name it
    (only its target's `xml.name` does)."""
    schema = {"$ref": "#/components/schemas/Base"}
    shape = xml_shape({"properties": {"p": schema, "q": {"$ref": "#/x/Named"}}}, "", resolve)
    assert shape[0].name is None
    assert shape[shape[0].properties["p"]].name == "base"
    assert shape[shape[0].properties["q"]].prefix == "n"
    assert xml_shape({"$ref": "#/components/schemas/Plain"}, "", lambda r, b: (
        {"type": "object"}, b, "#/components/schemas/Plain"))[0].name == "Plain"


def test_reserved_prefix_is_not_declared() -> None:
    """A prefix starting with `xml` (reserved) is left out; the namespace stays."""
    node = xml_shape({"xml": {"prefix": "xmlns", "namespace": "urn:a"}}, "", resolve)[0]
    assert (node.prefix, node.namespace) == (None, "urn:a")


def test_a_bad_ref_stops_the_read() -> None:
    """A `$ref` that does not resolve (already an error of the emend) ends that node."""
    assert xml_shape({"$ref": "#/components/schemas/Nope"}, "", resolve) == (XmlNode(),)


def test_a_wide_schema_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    """Past MAX_XML_NODES nodes the read stops; the rest are plain elements."""
    monkeypatch.setattr(xml_object, "MAX_XML_NODES", 3)
    wide = {"properties": {f"p{i}": {"xml": {"name": f"n{i}"}} for i in range(10)}}
    assert len(xml_shape(wide, "", resolve)) == 3


def test_media_types() -> None:
    """application/xml, text/xml and +xml suffixes are XML; nothing else."""
    assert [is_xml(m) for m in ("application/xml", "TEXT/XML; charset=utf-8",
                                "application/soap+xml", "application/xml-dtd",
                                "application/json")] == [True, True, True, False, False]


def test_compiled_argument_carries_the_shape() -> None:
    """A compiled XML body argument carries its shape; a JSON one none."""
    doc = {"openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "paths": {
        f"/{kind}": {"post": {"operationId": kind, "requestBody": {"content": {
            media: {"schema": {"type": "object", "xml": {"name": "r"}}}}},
            "responses": {"200": {"description": "ok"}}}}
        for kind, media in (("x", "text/xml"), ("j", "application/json"))}}
    app = httpllm.compile(doc, provider="chatgpt")
    assert app.function("x").arguments[0].xml == (XmlNode(name="r"),)
    assert app.function("j").arguments[0].xml is None


def test_an_xml_name_that_is_no_xml_name_is_a_loss_not_every_call_refused() -> None:
    """`xml: {name: "my pet"}` (or a prefix `1x`) is not carried, with a loss at the body
    schema: kept, the build refused every call of the operation ("no XML name")."""
    doc = {"openapi": "3.0.3", "info": {"title": "t", "version": "1"}, "paths": {"/p": {
        "post": {"operationId": "addPet", "requestBody": {"required": True, "content": {
            "application/xml": {"schema": {"$ref": "#/components/schemas/Pet"}}}},
            "responses": {"200": {"description": "ok"}}}}},
        "components": {"schemas": {"Pet": {
            "type": "object", "xml": {"name": "my pet", "prefix": "1x", "namespace": "urn:x"},
            "properties": {"id": {"type": "integer", "xml": {"attribute": True,
                                                             "name": "pet id"}}}}}}}
    app = httpllm.compile(doc)
    (fn,) = app.functions
    assert [(loss.keyword, loss.action, loss.value) for loss in fn.losses] == [
        ("xml", "dropped", "my pet"), ("xml", "dropped", "1x"), ("xml", "dropped", "pet id")]
    from httpllm.execute import build_request

    sent = build_request(fn, {"body": {"id": 1}}, base_url="https://api.test").content
    assert sent.endswith(b'<Pet xmlns="urn:x" id="1" />')


def test_what_one_element_cannot_hold_is_settled_and_reported() -> None:
    """A prefix bound twice on one element gets a free one for the attribute, the later of
    two properties naming one attribute loses its name (each a copy of the node, for that
    element), an array of arrays is reported; each told to `report` with its action."""
    told: list[tuple[Any, str]] = []
    schema = {"xml": {"prefix": "p", "namespace": "urn:a"}, "properties": {
        "a": {"xml": {"attribute": True, "prefix": "p", "namespace": "urn:b"}},
        "b": {"xml": {"attribute": True, "name": "x"}},
        "c": {"xml": {"attribute": True, "name": "x"}},
        "m": {"type": "array", "items": {"type": "array", "items": {}}}}}
    shape = xml_shape(schema, "", resolve, lambda note, value, action: told.append(
        (value, action)))
    root = shape[0]
    assert (shape[root.properties["a"]].prefix, shape[root.properties["a"]].namespace) == (
        "p1", "urn:b")
    assert (shape[root.properties["b"]].name, shape[root.properties["c"]].name) == ("x", None)
    assert sorted(told, key=str) == sorted(
        [("p", "rewritten"), ("x", "dropped"), (None, "rewritten")], key=str)
