"""Choosing the converter by version, the pointer map, and 2.0 documents split over files."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import httpllm
from httpllm.load import Loader
from httpllm.upgrade import PointerMap, upgrade

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "swagger2"


def test_other_versions_pass_through_unchanged() -> None:
    """A 3.0 or 3.1 document is returned as the same object, with no version recorded."""
    doc: dict[str, Any] = {"openapi": "3.1.0", "info": {}, "paths": {}}
    done = upgrade(doc)
    assert done.root is doc and done.version == "" and done.original("#/a") == "#/a"


def test_swagger2_becomes_openapi30_with_a_tally() -> None:
    """A 2.0 document becomes a 3.0.3 one and each rule counts what it did."""
    doc = {"swagger": "2.0", "info": {"title": "t", "version": "1"},
           "definitions": {"A": {"type": "string"}},
           "paths": {"/a": {"get": {"responses": {"200": {
               "description": "ok", "schema": {"$ref": "#/definitions/A"}}}}}}}
    done = upgrade(doc)
    assert done.version == "2.0" and done.root["openapi"] == "3.0.3"
    assert done.tally["ref"] == 1 and done.tally["definitions"] == 1
    assert done.tally["response_schema"] == 1 and done.tally["document"] == 1


def test_pointer_map_prefers_a_move_then_its_section() -> None:
    """A moved node maps back first; the section rule applies to the result and to the rest."""
    m = PointerMap(sections={"/components/responses": "/responses"})
    m.move("", "/components/responses/E/content/application~1json/schema",
           "/components/responses/E/schema")
    assert m.original("#/components/responses/E/content/application~1json/schema/type") == (
        "#/responses/E/schema/type")
    assert m.original("#/components/responses/E/description") == "#/responses/E/description"
    assert m.original("other.json#/paths/~1a") == "other.json#/paths/~1a"


def test_multi_file_swagger2_compiles() -> None:
    """Refs into another 2.0 file (parameters, a body parameter, responses, definitions) and a
    path item in a plain YAML file are upgraded as the loader reads them."""
    app = httpllm.compile(FIXTURES / "api.yaml", "3.1")
    assert [f.name for f in app.functions] == ["listPets", "putPet"]
    put = app.function("putPet")
    assert [(a.name, a.location) for a in put.arguments] == [
        ("id", "path"), ("note", "query"), ("body", "body")]
    assert put.schema["properties"]["body"]["required"] == ["name"]
    tags = app.function("listPets").arguments[0]
    assert (tags.style, tags.explode) == ("pipeDelimited", False)
    assert app.version == "2.0"


def test_errors_and_losses_name_original_pointers() -> None:
    """An error inside a definition names #/definitions/...; a loss in a parameter names the
    2.0 parameter, at its index in the 2.0 list (the body parameter before it counts)."""
    app = httpllm.compile(FIXTURES / "api.yaml", "3.1", strip_constraints=True)
    assert [e.pointer for e in app.errors] == ["#/definitions/Broken/properties/missing"]
    assert "'#/definitions/Nowhere' points to nowhere" in app.errors[0].message
    losses = [x.pointer for x in app.function("putPet").losses]
    assert losses == ["#/paths/~1pets~1{id}/put/parameters/1/maxLength"]


def test_loader_transform_upgrades_each_file() -> None:
    """The loader hands each file it reads to the upgrade: a 2.0 file arrives as 3.0."""
    path = FIXTURES / "api.yaml"
    loader = Loader(path.resolve())
    upgrade(httpllm.load.load_text(path.read_bytes()), loader=loader,
            base=path.resolve().as_uri())
    shared = loader((FIXTURES / "common" / "shared.json").resolve().as_uri())
    assert set(shared["components"]) == {"schemas", "parameters", "requestBodies", "responses"}


def test_notes_become_warnings_at_original_pointers() -> None:
    """What the upgrade cannot carry is a warning at its 2.0 pointer."""
    doc = {"swagger": "2.0", "info": {"title": "t", "version": "1"},
           "paths": {"/a/{ids}": {"get": {"parameters": [
               {"name": "ids", "in": "path", "required": True, "type": "array",
                "items": {"type": "string"}, "collectionFormat": "multi"}],
               "responses": {"200": {"description": "ok"}}}}}}
    app = httpllm.compile(doc, "3.1")
    assert [w.pointer for w in app.warnings] == [
        "#/paths/~1a~1{ids}/get/parameters/0/collectionFormat"]


def test_a_parameter_entry_that_is_no_mapping_is_its_operations_error() -> None:
    """A 2.0 ``parameters`` entry that is not an object (a string, ``null``, a number, a
    list), on the operation or its path item, fails that operation alone at the entry's
    own pointer; the upgrade raised AttributeError or TypeError out of compile()."""
    for entry in ("x", None, 5, [1]):
        for holder in ("get", None):
            item: dict[str, Any] = {"get": {"parameters": [
                {"name": "q", "in": "query", "type": "string"}],
                "responses": {"200": {"description": "ok"}}}}
            owner = item["get"] if holder else item
            owner["parameters"] = [entry, *owner.get("parameters", ())]
            doc = {"swagger": "2.0", "info": {"title": "t", "version": "1"},
                   "host": "a.example.com", "paths": {"/a": item,
                   "/b": {"get": {"operationId": "b",
                                  "responses": {"200": {"description": "ok"}}}}}}
            app = httpllm.compile(doc)
            where = "get/parameters/0" if holder else "parameters/0"
            assert [e.pointer for e in app.errors] == [f"#/paths/~1a/{where}"]
            assert [t["function"]["name"] for t in app.tools()] == ["b"]


def test_paths_or_an_operation_that_is_no_object_is_refused_as_in_openapi_3() -> None:
    """A 2.0 ``paths`` that is not an object is the document's SpecError at ``#/paths``,
    an operation that is not one (``get: x``) that operation's error; both were dropped
    by the upgrade, and the document compiled to no tools, or without the operation,
    saying nothing."""
    doc: dict[str, Any] = {"swagger": "2.0", "info": {"title": "t", "version": "1"},
                           "host": "a.example.com", "paths": []}
    with pytest.raises(httpllm.errors.SpecError) as raised:
        httpllm.compile(doc)
    assert raised.value.pointer == "#/paths"
    doc["paths"] = {"/a": {"get": "x", "post": {"operationId": "b", "responses": {
        "200": {"description": "ok"}}}}}
    app = httpllm.compile(doc)
    assert [(e.method, e.pointer) for e in app.errors] == [("get", "#/paths/~1a/get")]
    assert [t["function"]["name"] for t in app.tools()] == ["b"]
