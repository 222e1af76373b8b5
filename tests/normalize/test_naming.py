"""The `$defs` names of a document's named schemas (httpllm/normalize/naming.py)."""

from __future__ import annotations

from typing import Any

import pytest

from httpllm.errors import RefError
from httpllm.load import Loader
from httpllm.normalize.naming import EmendedRefs, SchemaNames, collect_refs
from httpllm.refs import ROOT, Resolver


def names(schemas: dict[str, Any], version: str = "3.1") -> SchemaNames:
    doc = {"openapi": f"{version}.0", "components": {"schemas": schemas}}
    return SchemaNames(Resolver(doc, ROOT, Loader(None)), version)


def test_components_are_named_first_and_other_targets_after() -> None:
    """Component schemas keep their keys; a target inside one gets a name of its own path,
    not one a component already has; an unknown name is not contained."""
    known = names({"Pet": {"properties": {"tag": {"type": "string"}}},
                   "Pet_properties_tag": {"type": "integer"}})
    assert known.all() == ["Pet", "Pet_properties_tag"]
    inner = known.name_for("#/components/schemas/Pet/properties/tag", ROOT)
    assert inner not in ("Pet", "Pet_properties_tag") and inner in known
    assert known.pointer(inner) == "#/components/schemas/Pet/properties/tag"
    assert "Nothing" not in known


def test_name_or_none_reads_a_bare_mapping_name_and_never_raises() -> None:
    known = names({"Cat": {"type": "object"}})
    assert known.name_or_none("Cat", ROOT) == "Cat"
    assert known.name_or_none("Dog", ROOT) is None
    with pytest.raises(RefError):
        known.name_for("#/components/schemas/Dog", ROOT)


def test_an_alias_component_gives_its_name_to_its_target() -> None:
    """A component that is only a `$ref` to a schema no component is names that schema,
    whose place it then reports; one to another component does not rename it."""
    doc = {"openapi": "3.1.0", "x-models": {"Animal": {"type": "object"}},
           "components": {"schemas": {"Pet": {"$ref": "#/x-models/Animal"},
                                      "Cat": {"$ref": "#/components/schemas/Dog"},
                                      "Dog": {"type": "object"}}}}
    known = SchemaNames(Resolver(doc, ROOT, Loader(None)), "3.1")
    assert known.name_for("#/x-models/Animal", ROOT) == "Pet"
    assert known.labels()["Pet"] == "#/x-models/Animal"
    assert known.name_for("#/components/schemas/Cat", ROOT) == "Dog"


@pytest.mark.parametrize(("version", "node", "out"), [
    ("3.0", {"$ref": "#/components/schemas/A", "description": "d", "maxLength": 2},
     {"$ref": "#/$defs/A", "description": "d"}),
    ("3.1", {"$ref": "#/components/schemas/A", "description": "d"},
     {"$ref": "#/$defs/A", "description": "d"}),
    ("3.1", {"$ref": "#/components/schemas/A", "maxLength": 2},
     {"maxLength": 2, "allOf": [{"$ref": "#/$defs/A"}]}),
])
def test_rewrite_ref_keeps_siblings_as_the_version_says(version: str, node: dict[str, Any],
                                                         out: dict[str, Any]) -> None:
    assert names({"A": {"type": "string"}}, version).rewrite_ref(node, "#/x", ROOT) == out


def test_rewrite_ref_names_the_pointer_of_a_dangling_ref() -> None:
    with pytest.raises(RefError) as caught:
        names({}).rewrite_ref({"$ref": "#/components/schemas/No"}, "#/paths/x", ROOT)
    assert caught.value.pointer == "#/paths/x"


def test_emended_refs_are_remembered_per_object() -> None:
    schema = {"items": {"$ref": "#/$defs/A"}, "properties": {"b": {"$ref": "#/$defs/B"}}}
    refs = EmendedRefs()
    assert refs(schema) == frozenset(collect_refs(schema)) == {"A", "B"}
    schema["extra"] = {"$ref": "#/$defs/C"}  # emended schemas are never mutated: not seen
    assert refs(schema) == {"A", "B"}
    empty: dict[str, Any] = {"type": "string"}
    refs.none(empty)
    assert refs(empty) == frozenset()


@pytest.mark.parametrize("leaf", [
    {"$ref": "#/$defs/A"}, {"$ref": "#/$defs/a~1b", "description": "d"}, {"type": "string"},
    {"$ref": "#/$defs/A/properties/x"}, {"$ref": 5}, {"$ref": "#/components/schemas/A"},
], ids=repr)
def test_the_emended_refs_of_a_leaf_are_read_without_a_walk(leaf: dict[str, Any]) -> None:
    assert EmendedRefs()(leaf) == frozenset(collect_refs(leaf))


# -- a schema's $id is the base of the $refs in it ---------------------------------------------


def _id_doc(schemas: dict[str, Any], body: dict[str, Any]) -> dict[str, Any]:
    return {"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
            "servers": [{"url": "https://api.example.com"}],
            "paths": {"/a": {"post": {"operationId": "a", "requestBody": {"content": {
                "application/json": {"schema": body}}},
                "responses": {"204": {"description": "ok"}}}}},
            "components": {"schemas": schemas}}


def test_a_component_schemas_own_id_is_the_base_of_its_refs() -> None:
    """`#/$defs/Inner` inside a component whose `$id` is `https://s.example/wrap` is that
    resource's `$defs` (JSON Schema 2020-12 section 8.2.1): the component was named with
    the file as its base, so the `$ref` pointed to nowhere and the operation was skipped,
    while the same schema reached through another file's `$ref` resolved."""
    import httpllm

    doc = _id_doc({"Wrap": {"$id": "https://s.example/wrap", "type": "object",
                            "properties": {"inner": {"$ref": "#/$defs/Inner"},
                                           "other": {"$ref": "thing"}},
                            "$defs": {"Inner": {"type": "integer"}}},
                   "Thing": {"$id": "https://s.example/thing", "type": "string"}},
                  {"$ref": "#/components/schemas/Wrap"})
    app = httpllm.compile(doc, "3.1")
    assert not app.errors and not app.warnings
    body = app.tools()[0]["parameters"]["properties"]["body"]["properties"]
    assert body == {"inner": {"type": "integer"}, "other": {"type": "string"}}
    assert app.validate("a", {"body": {"inner": "x"}}).errors[0].pointer == "#/body/inner"


def test_an_id_beside_a_ref_and_an_inline_schemas_id_are_its_base() -> None:
    """`{$id: https://s.example/n/, $ref: t}` is `https://s.example/n/t` ($id is processed
    before the `$ref` of the same object, JSON Schema 2020-12 section 8.2.3.1), and an
    operation's inline schema with an `$id` is the base of the `$ref`s in it."""
    import httpllm

    schemas = {"T": {"$id": "https://s.example/n/t", "type": "boolean"},
               "U": {"$id": "https://s.example/u", "type": "number"}}
    doc = _id_doc(schemas, {"$id": "https://s.example/", "type": "object",
                            "properties": {"t": {"$id": "n/", "$ref": "t"},
                                           "u": {"$ref": "u"}}})
    app = httpllm.compile(doc, "3.1")
    assert not app.errors
    body = app.tools()[0]["parameters"]["properties"]["body"]["properties"]
    assert body == {"t": {"type": "boolean"}, "u": {"type": "number"}}


def test_a_nested_subschemas_id_is_the_base_of_the_refs_under_it() -> None:
    """An `$id` on any subschema, not only a component's or an operation's top schema,
    starts a schema resource: the `$ref`s under it resolve against it (JSON Schema 2020-12
    sections 8.2.1 and 9.1.2), a relative `$id` against the base enclosing it. `c.json`
    under `b`'s `$id: https://ex.com/b/` was read as a file beside a document given as a
    dict (refused: the operation was skipped), and `#/$defs/D` looked in the document."""
    import httpllm

    inner = {"$id": "https://ex.com/b/", "type": "object",
             "properties": {"c": {"$ref": "c.json"}, "d": {"$ref": "#/$defs/D"},
                            "e": {"$id": "e/", "properties": {"f": {"$ref": "f.json"}}},
                            "g": {"$id": "g/", "$ref": "../c.json"}},
             "$defs": {"D": {"type": "integer"}}}
    schemas = {"A": {"type": "object", "properties": {"b": inner}},
               "C": {"$id": "https://ex.com/b/c.json", "type": "boolean"},
               "F": {"$id": "https://ex.com/b/e/f.json", "type": "null"}}
    expected = {"c": {"type": "boolean"}, "d": {"type": "integer"},
                "e": {"properties": {"f": {"type": "null"}}}, "g": {"type": "boolean"}}
    for body in ({"$ref": "#/components/schemas/A"}, schemas["A"]):  # named, then inline
        app = httpllm.compile(_id_doc(schemas, body), "3.1")
        assert not app.errors and not app.warnings
        b = app.tools()[0]["parameters"]["properties"]["body"]["properties"]["b"]
        assert b["properties"] == expected


def test_a_nested_id_moves_a_lone_ref_whose_target_is_named_already() -> None:
    """A lone `#/$defs/D` under a nested `$id` is that resource's `D`, even when the same
    `$ref` outside it names an already emended schema (the shortcut for known targets
    reads no pointer, so it is not taken in a schema with nested `$id`s)."""
    import httpllm

    schemas = {"A": {"$id": "https://ex.com/a", "type": "object", "properties": {
        "x": {"$ref": "#/$defs/D"},
        "y": {"$id": "https://ex.com/y", "properties": {"z": {"$ref": "#/$defs/D"}},
              "$defs": {"D": {"type": "boolean"}}}},
        "$defs": {"D": {"type": "integer"}}}}
    app = httpllm.compile(_id_doc(schemas, {"$ref": "#/components/schemas/A"}), "3.1")
    assert not app.errors
    body = app.tools()[0]["parameters"]["properties"]["body"]["properties"]
    assert body["x"] == {"type": "integer"}
    assert body["y"]["properties"]["z"] == {"type": "boolean"}


def test_a_ref_to_an_http_url_no_id_names_is_never_fetched() -> None:
    """A `$ref` whose target under a nested `$id` is no embedded resource is never fetched
    (an `$id` is a name): it is looked for beside the document, which, given as a dict,
    has none, so it is the operation's error."""
    import httpllm

    schemas = {"A": {"type": "object", "properties": {
        "b": {"$id": "https://ex.com/b/", "properties": {"c": {"$ref": "nope.json"}}}}}}
    app = httpllm.compile(_id_doc(schemas, {"$ref": "#/components/schemas/A"}), "3.1")
    assert [(e.kind, e.pointer) for e in app.errors] == [
        ("AccessDenied", "#/components/schemas/A/properties/b/properties/c")]
    assert "is https://ex.com/b/nope.json (against the base an $id" in app.errors[0].message
    assert "is never fetched" in app.errors[0].message


@pytest.mark.parametrize("own", [None, "v2/openapi.json"])
def test_name_at_reads_a_label_from_the_root_documents_file(tmp_path: Any,
                                                           own: str | None) -> None:
    """A place as losses and `Inliner.origins` give it (`models/A.json#`, or an
    operation's `$ref` schema in another file, `paths/x.json#/schema`) is relative to the
    root document's file: a name's place is read as text, another is resolved from that
    file, never from the OpenAPI 3.2 `$self` the document's own `$ref`s resolve against
    (there `v2/paths/x.json` names another schema)."""
    import json
    from pathlib import Path

    root = {"openapi": "3.2.0", **({"$self": own} if own else {})}
    files = {"openapi.json": root, "paths/x.json": {"schema": {"$ref": "../models/A.json"}},
             "models/A.json": {"type": "object"}, "models/B.json": {"type": "string"},
             "v2/paths/x.json": {"schema": {"$ref": "../../models/B.json"}}}
    for name, content in files.items():
        (Path(tmp_path) / name).parent.mkdir(parents=True, exist_ok=True)
        (Path(tmp_path) / name).write_text(json.dumps(content))
    path = Path(tmp_path) / "openapi.json"
    known = SchemaNames(Resolver(root, path.as_uri(), Loader(path)), "3.1")
    a = known.name_for((Path(tmp_path) / "models" / "A.json").as_uri(), known.resolver.base)
    assert known.labels()[a] == "models/A.json#"
    assert known.name_at("models/A.json#") == a
    assert known.name_at("paths/x.json#/schema") == a
    assert known.name_at("models/Nowhere.json#") is None
