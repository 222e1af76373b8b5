"""References: the Resolver (local, multi-file, `$anchor`, `$id`, the gate) and the RefGraph."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import httpllm
from httpllm.errors import AccessDenied, RefError
from httpllm.load import Loader
from httpllm.refs import ROOT, RefGraph, Resolver, dangling_refs, def_name, def_name_of, def_ref

FIXTURES = Path(__file__).parent / "fixtures" / "refs"
ROOT_FILE = (FIXTURES / "api" / "openapi.yaml").resolve()

DOC: dict[str, Any] = {
    "openapi": "3.1.0",
    "components": {
        "schemas": {
            "Pet": {"type": "object", "properties": {"tag": {"$ref": "#/components/schemas/Tag"}}},
            "Tag": {"$anchor": "tag", "type": "string"},
            "a/b": {"type": "null"},
            "p%c": {"type": "boolean"},
            "Alias": {"$ref": "#/components/schemas/Alias2"},
            "Alias2": {"$ref": "#/components/schemas/Tag"},
            "Loop1": {"$ref": "#/components/schemas/Loop2"},
            "Loop2": {"$ref": "#/components/schemas/Loop1"},
            "Self": {"$ref": "#/components/schemas/Self"},
            "Remote": {
                "$id": "https://example.com/schemas/remote",
                "type": "object",
                "properties": {
                    "x": {"$anchor": "x", "type": "integer"},
                    "y": {"$ref": "#x"},
                    "z": {"$ref": "other"},
                },
            },
            "Other": {"$id": "https://example.com/schemas/other", "type": "boolean"},
        }
    },
}


def resolver(doc: Any = DOC) -> Resolver:
    return Resolver(doc, ROOT, Loader(None))


# -- the Resolver --------------------------------------------------------------------------


def test_local_pointer() -> None:
    """A local `$ref` gives the node, its canonical URI and its pointer."""
    target = resolver().resolve("#/components/schemas/Tag", ROOT)
    assert target.node == {"$anchor": "tag", "type": "string"}
    assert (target.uri, target.pointer, target.base) == (
        "root:#/components/schemas/Tag", "#/components/schemas/Tag", "")


def test_escaped_and_percent_encoded_tokens() -> None:
    """`~1` and percent-encoding in a `$ref` name the key they spell."""
    r = resolver()
    assert r.resolve("#/components/schemas/a~1b", ROOT).node == {"type": "null"}
    assert r.resolve("#/components/schemas/p%25c", ROOT).node == {"type": "boolean"}


def test_chain_of_refs_is_followed() -> None:
    """A `$ref` to a bare `$ref` is followed to the schema at its end."""
    target = resolver().resolve("#/components/schemas/Alias", ROOT)
    assert target.pointer == "#/components/schemas/Tag"


def test_anchor() -> None:
    """`#name` finds the schema whose `$anchor` is `name`."""
    target = resolver().resolve("#tag", ROOT)
    assert target.pointer == "#/components/schemas/Tag"


def test_id_absolute_and_with_fragment() -> None:
    """A `$ref` to a schema's `$id` finds it in the document, named by its real pointer."""
    r = resolver()
    remote = r.resolve("https://example.com/schemas/remote", ROOT)
    assert remote.pointer == "#/components/schemas/Remote"
    assert remote.uri == "root:#/components/schemas/Remote"
    assert remote.base == "https://example.com/schemas/remote"
    inner = r.resolve("https://example.com/schemas/remote#/properties/x", ROOT)
    assert inner.pointer == "#/components/schemas/Remote/properties/x"
    anchored = r.resolve("https://example.com/schemas/remote#x", ROOT)
    assert anchored.pointer == "#/components/schemas/Remote/properties/x"


def test_two_ids_are_two_targets() -> None:
    """Different `$id`s resolve to different targets (their URIs never collide)."""
    r = resolver()
    remote = r.resolve("https://example.com/schemas/remote", ROOT)
    other = r.resolve("https://example.com/schemas/other", ROOT)
    assert remote.uri != other.uri
    assert other.node == {"$id": "https://example.com/schemas/other", "type": "boolean"}


def test_refs_inside_an_id_resolve_against_it() -> None:
    """Relative refs inside a `$id` resource use that `$id` as their base, never the network."""
    r = resolver()
    base = r.resolve("#/components/schemas/Remote", ROOT).scope
    assert base == "https://example.com/schemas/remote"
    assert r.resolve("#x", base).pointer == "#/components/schemas/Remote/properties/x"
    assert r.resolve("other", base).pointer == "#/components/schemas/Other"


@pytest.mark.parametrize(
    ("ref", "message"),
    [
        ("#/components/schemas/Nope", r"points to nowhere \(#/components/schemas/Nope does not"),
        ("#/components/schemas/Tag/type/x", "points to nowhere"),
        ("#nope", "no \\$anchor 'nope'"),
        ("https://example.com/schemas/remote#/nope", "points to nowhere"),
    ],
)
def test_dangling_ref_names_the_pointer(ref: str, message: str) -> None:
    """A `$ref` to nothing is a RefError naming what is missing."""
    with pytest.raises(RefError, match=message):
        resolver().resolve(ref, ROOT)


@pytest.mark.parametrize("token", ["\u00b2", "\u0661", "01", "1" + "0" * 5_000])
def test_an_index_that_is_no_rfc_6901_index_points_to_nowhere(token: str) -> None:
    """An array token of a superscript or Arabic-Indic digit, a leading zero, or 5,001
    digits is no index (RFC 6901 section 4): a RefError. ``int()`` raised ValueError on
    ``²`` and on the long one (the operation failed as an InternalError) and read ``\\u0661``
    as 1."""
    doc = {"openapi": "3.1.0", "components": {"schemas": {
        "L": {"allOf": [{"type": "object"}, {"type": "string"}]}}}}
    assert resolver(doc).resolve("#/components/schemas/L/allOf/1", ROOT).node == {
        "type": "string"}
    with pytest.raises(RefError, match="points to nowhere"):
        resolver(doc).resolve(f"#/components/schemas/L/allOf/{token}", ROOT)


@pytest.mark.parametrize("name", ["Loop1", "Self"])
def test_ref_chain_loop_is_an_error(name: str) -> None:
    """A chain of bare `$ref`s that comes back to itself is a RefError, not a hang."""
    with pytest.raises(RefError, match="chain loops") as err:
        resolver().resolve(f"#/components/schemas/{name}", ROOT)
    assert err.value.pointer is not None and err.value.pointer.startswith("#/components/schemas/")


def test_long_ref_chain_is_an_error() -> None:
    """A chain longer than 64 links is refused."""
    schemas = {f"S{i}": {"$ref": f"#/components/schemas/S{i + 1}"} for i in range(70)}
    schemas["S70"] = {"type": "string"}
    with pytest.raises(RefError, match="too long"):
        resolver({"components": {"schemas": schemas}}).resolve("#/components/schemas/S0", ROOT)


@pytest.mark.parametrize("ref", [3, None, True, ["#/A"], {"$ref": "#/A"}])
def test_non_string_ref_is_an_error(ref: object) -> None:
    """`$ref` must be a string: a number, a list or an object is a RefError (a list or an
    object was a TypeError: unhashable), and in a document one operation's error."""
    with pytest.raises(RefError, match="must be a string"):
        resolver().resolve(ref, ROOT)  # type: ignore[arg-type]
    app = httpllm.compile({
        "openapi": "3.0.3", "info": {"title": "t", "version": "1"}, "paths": {
            "/a": {"post": {"operationId": "a", "requestBody": {"content": {
                "application/json": {"schema": {"type": "object", "properties": {
                    "x": {"$ref": ref}}}}}}, "responses": {"200": {"description": "ok"}}}},
            "/b": {"get": {"operationId": "b", "responses": {"200": {"description": "ok"}}}}}})
    assert [f.name for f in app.functions] == ["b"]
    assert ["must be a string" in e.message for e in app.errors] == [True]


def test_file_ref_in_a_text_document_is_denied() -> None:
    """A document given as a dict cannot reach files."""
    with pytest.raises(AccessDenied, match="relative file reference"):
        resolver().resolve("other.yaml#/A", ROOT)


def test_resolution_is_cached() -> None:
    """The same `$ref` at the same base resolves once."""
    r = resolver()
    assert r.resolve("#tag", ROOT) is r.resolve("#tag", ROOT)


# -- several files -------------------------------------------------------------------------


def file_resolver(**gate: bool) -> Resolver:
    loader = Loader(ROOT_FILE, **gate)
    from httpllm.load import load_text

    root = load_text(ROOT_FILE.read_bytes())
    return Resolver(root, ROOT_FILE.as_uri(), loader)


def test_relative_file_refs_resolve_inside_the_folder() -> None:
    """`schemas/pet.yaml#/Pet` and refs inside it resolve relative to their own file."""
    r = file_resolver()
    pet = r.resolve("schemas/pet.yaml#/Pet", ROOT_FILE.as_uri())
    assert pet.pointer == "schemas/pet.yaml#/Pet"
    owner = r.resolve(pet.node["properties"]["owner"]["$ref"], pet.scope)
    assert owner.pointer == "schemas/owner.json#"
    back = r.resolve(owner.node["properties"]["pets"]["items"]["$ref"], owner.scope)
    assert back.uri == pet.uri


def test_outside_and_network_refs_are_denied() -> None:
    """`../outside.yaml` and `http://` refs are AccessDenied without the opt-ins."""
    r = file_resolver()
    with pytest.raises(AccessDenied, match="outside the document's folder"):
        r.resolve("../outside.yaml#/Thing", ROOT_FILE.as_uri())
    with pytest.raises(AccessDenied, match="needs the network"):
        r.resolve("http://example.invalid/thing.yaml#/Thing", ROOT_FILE.as_uri())
    allowed = file_resolver(allow_outside_root=True)
    target = allowed.resolve("../outside.yaml#/Thing", ROOT_FILE.as_uri())
    assert target.node == {"type": "integer", "maximum": 9}
    assert target.pointer == "../outside.yaml#/Thing"  # no absolute path of the machine


def test_compile_multi_file_document() -> None:
    """A document over several files compiles; refs to files outside the folder or on the
    network are errors of their own operations, naming the `$ref`'s pointer."""
    app = httpllm.compile(ROOT_FILE, "3.1")
    (add,) = app.functions
    body = add.parameters["properties"]["body"]
    assert add.parameters["properties"]["limit"] == {"type": "integer", "minimum": 1}
    assert body == {"$ref": "#/$defs/Pet"}
    defs = add.parameters["$defs"]
    assert defs["Pet"]["properties"]["tag"] == {"type": "string", "maxLength": 8}
    assert defs["Pet"]["properties"]["owner"] == {"$ref": "#/$defs/owner"}
    assert defs["owner"]["properties"]["pets"]["items"] == {"$ref": "#/$defs/Pet"}
    assert app.cycles == (("Pet", "owner"),)
    errors = {e.path: (e.kind, e.pointer) for e in app.errors}
    assert errors == {
        "/outside": ("AccessDenied", "#/paths/~1outside/get/parameters/0/schema"),
        "/network": ("AccessDenied", "#/paths/~1network/get/parameters/0/schema"),
    }


def test_compile_with_opt_ins(monkeypatch: pytest.MonkeyPatch) -> None:
    """`allow_outside_root=True` reads `../outside.yaml`; `allow_network=True` hands the URL
    to the fetcher (stubbed here: nothing is fetched)."""
    fetched: list[str] = []

    def fake_fetch(self: Loader, uri: str) -> Any:
        fetched.append(uri)
        return {"Thing": {"type": "string"}}

    monkeypatch.setattr(Loader, "_fetch", fake_fetch)
    app = httpllm.compile(ROOT_FILE, "3.1", allow_outside_root=True, allow_network=True)
    assert app.errors == ()
    by_name = {f.name: f.parameters["properties"].get("q") for f in app.functions}
    assert by_name["readOutside"] == {"type": "integer", "maximum": 9}
    assert by_name["readNetwork"] == {"type": "string"}
    assert fetched == ["http://example.invalid/thing.yaml"]


def test_compile_dangling_ref_names_the_site() -> None:
    """A dangling `$ref` fails its operation with a RefError at the `$ref`'s pointer."""
    doc = {
        "openapi": "3.1.0",
        "info": {"title": "t", "version": "1"},
        "paths": {"/a": {"get": {
            "operationId": "a",
            "parameters": [{"name": "q", "in": "query",
                            "schema": {"$ref": "#/components/schemas/Missing"}}],
            "responses": {"204": {"description": "x"}},
        }}},
    }
    app = httpllm.compile(doc, "3.1")
    (error,) = app.errors
    assert error.kind == "RefError"
    assert error.pointer == "#/paths/~1a/get/parameters/0/schema"
    assert "#/components/schemas/Missing" in error.message


# -- the RefGraph --------------------------------------------------------------------------


def graph(edges: dict[str, list[str]]) -> RefGraph:
    g = RefGraph()
    for name, targets in edges.items():
        g.add(name, targets)
    g.finish()
    return g


def test_graph_self_and_mutual_cycles() -> None:
    """A schema on a cycle is recursive; one merely reaching a cycle is not."""
    g = graph({"Node": ["Node"], "A": ["B"], "B": ["A", "Leaf"], "Top": ["A"], "Leaf": []})
    assert g.recursive == {"Node", "A", "B"}
    assert g.cycles == [["A", "B"], ["Node"]]
    assert not g.is_recursive("Top") and not g.is_recursive("Leaf")


def test_graph_order_puts_dependencies_first() -> None:
    """`order` ranks a referenced schema before the schemas that use it."""
    g = graph({"Top": ["Mid"], "Mid": ["Leaf"], "Leaf": []})
    assert g.order["Leaf"] < g.order["Mid"] < g.order["Top"]


def test_graph_reachable() -> None:
    """`reachable` follows edges from the given names, which it includes."""
    g = graph({"Top": ["Mid"], "Mid": ["Leaf"], "Leaf": [], "Other": []})
    assert g.reachable(["Top"]) == {"Top", "Mid", "Leaf"}
    assert g.reachable(["Unknown"]) == set()


def test_def_name() -> None:
    """Def names are the last pointer token made safe and unique."""
    taken: set[str] = set()
    assert def_name(["components", "schemas", "Pet"], taken) == "Pet"
    assert def_name(["other", "Pet"], taken) == "Pet_2"
    assert def_name(["a b/c"], taken) == "a_b_c"
    assert def_name([], taken) == "schema"
    assert def_name(["~~"], taken) == "schema_2"


def document(schemas: dict[str, Any], body: str, output: str | None = None) -> dict[str, Any]:
    """One operation whose body (and response) refer to named schemas."""
    op: dict[str, Any] = {
        "operationId": "op",
        "requestBody": {"content": {"application/json": {
            "schema": {"$ref": f"#/components/schemas/{body}"}}}},
        "responses": {"204": {"description": "none"}},
    }
    if output is not None:
        op["responses"] = {"200": {"description": "ok", "content": {"application/json": {
            "schema": {"$ref": f"#/components/schemas/{output}"}}}}}
    return {"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
            "paths": {"/x": {"post": op}}, "components": {"schemas": schemas}}


def ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


CYCLES: dict[str, tuple[dict[str, Any], tuple[tuple[str, ...], ...]]] = {
    "self": ({"Node": {"type": "object", "properties": {"next": ref("Node")}}}, (("Node",),)),
    "mutual": ({
        "A": {"type": "object", "properties": {"b": ref("B")}},
        "B": {"type": "object", "properties": {"a": ref("A")}},
    }, (("A", "B"),)),
    "through-allOf": ({
        "A": {"allOf": [ref("B")], "properties": {"x": {"type": "string"}}},
        "B": {"type": "object", "properties": {"child": ref("A")}},
    }, (("A",),)),
    "through-array-items": ({
        "A": {"type": "array", "items": ref("A")},
    }, (("A",),)),
    "none": ({
        "A": {"type": "object", "properties": {"b": ref("B"), "c": ref("B")}},
        "B": {"type": "string"},
    }, ()),
}


@pytest.mark.parametrize("case", list(CYCLES))
def test_compile_finds_cycles(case: str) -> None:
    """Cycles of the emended schemas are found: self, mutual, through a merged allOf."""
    schemas, cycles = CYCLES[case]
    app = httpllm.compile(document(schemas, "A" if "A" in schemas else "Node"), "3.1")
    assert app.errors == ()
    assert app.cycles == cycles


def pets(version: str = "3.0.3") -> dict[str, Any]:
    """The classic discriminator inheritance: the parent lists its children, which extend it."""
    schemas = {
        "Pet": {
            "type": "object",
            "required": ["petType"],
            "properties": {"petType": {"type": "string"}, "name": {"type": "string"}},
            "oneOf": [ref("Cat"), ref("Dog")],
            "discriminator": {"propertyName": "petType"},
        },
        "Cat": {"allOf": [ref("Pet"), {"type": "object",
                                       "properties": {"lives": {"type": "integer"}}}]},
        "Dog": {"allOf": [ref("Pet"), {"type": "object",
                                       "properties": {"bark": {"type": "boolean"}}}]},
    }
    doc = document(schemas, "Pet")
    doc["openapi"] = version
    doc["paths"]["/cats"] = {"get": {"operationId": "getCat", "responses": {"200": {
        "description": "ok", "content": {"application/json": {"schema": ref("Cat")}}}}}}
    return doc


CAT = {
    "type": "object",
    "required": ["petType"],
    "properties": {
        "petType": {"type": "string"},
        "name": {"type": "string"},
        "lives": {"type": "integer"},
    },
}


@pytest.mark.parametrize("include", [None, "getCat"])
def test_discriminator_inheritance_is_not_recursive(include: str | None) -> None:
    """Parent `oneOf: [Cat, Dog]` with children `allOf: [Pet, ...]` makes no cycle, and a
    child inherits the parent's properties, not its union, whatever is compiled first."""
    app = httpllm.compile(pets(), "3.1", include=include)
    assert app.errors == () and app.cycles == ()
    cat = app.function("getCat").output
    assert cat == CAT
    if include is None:
        body = app.function("op").parameters["properties"]["body"]
        assert "$defs" not in app.function("op").parameters
        tags = [m["properties"]["petType"] for m in body["anyOf"]]
        assert tags == [{"type": "string", "enum": ["Cat"]}, {"type": "string", "enum": ["Dog"]}]
        assert body["anyOf"][0]["required"] == ["petType"]
        assert body["anyOf"][0]["properties"]["lives"] == {"type": "integer"}


def test_a_schema_that_extends_a_union_keeps_it() -> None:
    """`allOf: [Pet, ...]` in a schema Pet does not list still means Pet's union and more."""
    doc = pets()
    doc["components"]["schemas"]["Owned"] = {
        "allOf": [ref("Pet"), {"properties": {"owner": {"type": "string"}}}]}
    doc["paths"]["/owned"] = {"get": {"operationId": "getOwned", "responses": {"200": {
        "description": "ok", "content": {"application/json": {"schema": ref("Owned")}}}}}}
    app = httpllm.compile(doc, "3.1", include="getOwned")
    owned = app.function("getOwned").output
    assert [m["properties"]["petType"]["enum"] for m in owned["anyOf"]] == [["Cat"], ["Dog"]]
    assert owned["properties"]["owner"] == {"type": "string"}


# -- dangling refs no operation reaches -----------------------------------------------------


def test_dangling_refs_in_components_are_found_once_each() -> None:
    doc = {"openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "paths": {},
           "components": {"schemas": {
               "Ok": {"type": "string"},
               "Pet": {"oneOf": [{"$ref": "#/components/schemas/Ok"},
                                 {"$ref": "#/components/schemas/Cat"}]},
               "List": {"type": "array", "items": {"$ref": "other.yaml#/X"}}}}}
    found = dangling_refs(resolver(doc))
    assert [at for at, _ in found] == ["#/components/schemas/List/items/$ref",
                                       "#/components/schemas/Pet/oneOf/1/$ref"]
    assert "does not exist" in found[1][1]


def test_unreached_dangling_refs_are_warnings_and_reached_ones_errors() -> None:
    """The operation that reaches a dangling ref is an error; a component no operation
    reaches gets a warning when warnings are read; the rest compiles."""
    doc = {"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
           "paths": {"/a": {"post": {"operationId": "a", "requestBody": {"content": {
               "application/json": {"schema": {"$ref": "#/components/schemas/Used"}}}},
               "responses": {"204": {"description": "ok"}}}},
               "/b": {"get": {"operationId": "b", "responses": {"204": {
                   "description": "ok"}}}}},
           "components": {"schemas": {
               "Used": {"properties": {"x": {"$ref": "#/components/schemas/Gone"}}},
               "Unused": {"items": {"$ref": "#/components/schemas/Lost"}}}}}
    app = httpllm.compile(doc, "chatgpt")
    assert [f.name for f in app.functions] == ["b"]
    assert [e.path for e in app.errors] == ["/a"]
    (warning,) = app.warnings
    assert warning.pointer == "#/components/schemas/Unused/items/$ref"
    assert "no operation reaches it" in warning.message


# -- components kept in other files (sendgrid/sendgrid-oai) --------------------------------


def _write(folder: Path, files: dict[str, Any]) -> Path:
    import json

    for name, content in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(json.dumps(content), encoding="utf-8")
    return folder / "openapi.json"


_SPLIT: dict[str, Any] = {
    "openapi.json": {
        "openapi": "3.0.3", "info": {"title": "split", "version": "1"},
        "servers": [{"url": "https://api.example.com"}],
        "security": [{"Key": []}, {"Token": []}],
        "paths": {"/pets": {"post": {
            "operationId": "addPet",
            "parameters": [{"$ref": "#/components/parameters/limit"}],
            "requestBody": {"$ref": "#/components/requestBodies/NewPet"},
            "responses": {"201": {"$ref": "#/components/responses/Created"}}}}},
        "components": {
            "securitySchemes": {"$ref": "./parts/securitySchemes.json"},
            "parameters": {"$ref": "./parts/parameters.json"},
            "requestBodies": {"$ref": "./parts/requestBodies.json"},
            "responses": {"$ref": "./parts/responses.json"},
            "headers": {"$ref": "./parts/headers.json"},
            "examples": {"$ref": "./parts/examples.json"},
            "schemas": {"$ref": "./parts/schemas.json"}}},
    "parts/securitySchemes.json": {
        "Key": {"type": "apiKey", "in": "header", "name": "X-Key"},
        "Token": {"$ref": "./token.json#/scheme"}},
    "parts/token.json": {"scheme": {"type": "http", "scheme": "bearer"}},
    "parts/parameters.json": {"limit": {
        "name": "limit", "in": "query", "schema": {"type": "integer"},
        "examples": {"few": {"$ref": "../openapi.json#/components/examples/Few"}}}},
    "parts/requestBodies.json": {"NewPet": {"required": True, "content": {
        "application/json": {"schema": {"$ref": "../openapi.json#/components/schemas/Pet"}}}}},
    "parts/responses.json": {"Created": {
        "description": "created",
        "headers": {"Location": {"$ref": "../openapi.json#/components/headers/Location"}},
        "content": {"application/json": {"schema": {"$ref": "schemas.json#/Pet"}}}}},
    "parts/headers.json": {"Location": {"schema": {"type": "string"}}},
    "parts/examples.json": {"Few": {"value": 2}},
    "parts/schemas.json": {"Pet": {"type": "object", "required": ["name"],
                                   "properties": {"name": {"type": "string"}}}},
}


def test_a_pointer_passes_through_a_ref_on_its_way(tmp_path: Path) -> None:
    """`#/components/headers/Location` when `components.headers` is a `$ref` to a file is
    `Location` in that file: its node, its file's URI and pointer; from another file too."""
    root_file = _write(tmp_path, _SPLIT)
    from httpllm.load import load_text

    r = Resolver(load_text(root_file.read_bytes()), root_file.as_uri(), Loader(root_file))
    target = r.resolve("#/components/headers/Location", r.base)
    assert target.node == {"schema": {"type": "string"}}
    assert target.uri == (tmp_path / "parts" / "headers.json").as_uri() + "#/Location"
    assert target.pointer == "parts/headers.json#/Location"
    assert r.resolve("../openapi.json#/components/examples/Few",
                     (tmp_path / "parts" / "x.json").as_uri()).node == {"value": 2}
    with pytest.raises(RefError, match=r"points to nowhere \(#/components/headers/Gone "):
        r.resolve("#/components/headers/Gone", r.base)


def test_a_pointer_through_refs_that_loop_is_an_error() -> None:
    """A pointer that passes through a `$ref` leading back to itself is a RefError."""
    doc = {"a": {"$ref": "#/b/x"}, "b": {"$ref": "#/a/y"}}
    with pytest.raises(RefError, match="loops"):
        resolver(doc).resolve("#/a/y", ROOT)


def test_components_kept_in_other_files_compile(tmp_path: Path) -> None:
    """Every `components` map may be a `$ref` to a file (as SendGrid's are), and an entry a
    `$ref` to another: the security schemes are the operation's (the credential is sent),
    and parameters, request bodies, responses and schemas are found through
    `#/components/...` pointers."""
    from httpllm.execute.request import build_request

    app = httpllm.compile(_write(tmp_path, _SPLIT), "3.1")
    assert app.errors == ()
    (add,) = app.functions
    assert add.security_schemes == {
        "Key": {"type": "apiKey", "in": "header", "name": "X-Key"},
        "Token": {"type": "http", "scheme": "bearer"}}
    assert add.parameters["properties"]["limit"] == {"type": "integer"}
    assert add.parameters["required"] == ["body"]
    assert add.output is not None and add.output["required"] == ["name"]
    request = build_request(add, {"limit": 2, "body": {"name": "Rex"}}, auth={"Key": "k1"})
    assert request.headers["X-Key"] == "k1"
    request = build_request(add, {"body": {"name": "Rex"}}, auth={"Token": "t1"})
    assert request.headers["Authorization"] == "Bearer t1"
    assert app.warnings == ()


@pytest.mark.parametrize(("ref", "name"), [
    ("#/$defs/Pet", "Pet"), ("#/$defs/a~1b", "a/b"), ("#/$defs/a~0b", "a~b"),
    ("#/$defs/", ""), ("#/$defs/A/properties/x", None), ("#/definitions/Pet", None),
    ("#/components/schemas/Pet", None), ("other.yaml#/$defs/Pet", None), ("#", None),
])
def test_def_name_of(ref: str, name: str | None) -> None:
    """One reading of a `$defs` name: exactly one entry, unescaped; a ref into an entry's
    subschema names no entry (the four readings it replaced gave "A", "A/properties/x",
    "x" and an error for it)."""
    assert def_name_of(ref) == name
    if name is not None:
        assert def_ref(name) == ref


def test_recursion_and_inlining_read_names_alike() -> None:
    """A recursive named schema stays a `$ref` under `$defs`: the inliner kept it, the
    ref graph of the root's `$defs` finds it recursive, and its refs name its entry."""
    from httpllm.dialects._recursion import recursive_defs
    from httpllm.walk import refs_in

    doc = {"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
           "paths": {"/n": {"post": {"operationId": "make", "requestBody": {"content": {
               "application/json": {"schema": {"$ref": "#/components/schemas/Node"}}}},
               "responses": {"200": {"description": "ok"}}}}},
           "components": {"schemas": {"Node": {"type": "object", "properties": {
               "next": {"$ref": "#/components/schemas/Node"}}}}}}
    [function] = httpllm.compile(doc, "3.1").functions
    defs = function.parameters["$defs"]
    assert recursive_defs(function.parameters) == sorted(defs) == ["Node"]
    assert {def_name_of(r) for r in refs_in(function.parameters)} == {"Node"}


def test_dangling_refs_resolve_each_ref_against_its_ids() -> None:
    """A `$ref` under a schema's `$id` is resolved against that `$id`, as the operations'
    walk does: `#/$defs/Inner` in `Wrap` was reported as pointing to nowhere, with "no
    operation reaches it", beside the operation that compiled it."""
    doc = {"openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "paths": {},
           "components": {"schemas": {
               "Wrap": {"$id": "https://s.example/wrap",
                        "properties": {"inner": {"$ref": "#/$defs/Inner"},
                                       "gone": {"$ref": "#/$defs/Gone"}},
                        "$defs": {"Inner": {"type": "integer"}}}}}}
    assert [at for at, _ in dangling_refs(resolver(doc))] == [
        "#/components/schemas/Wrap/properties/gone/$ref"]


def test_an_id_embedded_in_another_file_is_found_there(tmp_path: Path) -> None:
    """A `$ref` naming an `$id` (absolute, or relative to the `$id` enclosing it) of a
    schema embedded in another file read for the document is that schema (JSON Schema
    2020-12 sections 8.2.1 and 9.1.2): only the root document's `$id`s were looked up, so
    `t` inside `parts.json`'s `https://ex.com/s/` went to the network, and was refused."""
    root_file = _write(tmp_path, {"openapi.json": {"openapi": "3.1.0"}, "parts.json": {
        "B": {"$id": "https://ex.com/s/", "type": "object", "properties": {
            "a": {"$ref": "t"}, "b": {"$ref": "https://ex.com/s/t"},
            "c": {"$id": "t", "type": "integer"}}}}})
    r = Resolver({"openapi": "3.1.0"}, root_file.as_uri(), Loader(root_file))
    b = r.resolve("parts.json#/B", root_file.as_uri())
    for ref in ("t", "https://ex.com/s/t"):
        target = r.resolve(ref, b.scope)
        assert (target.node["type"], target.pointer) == ("integer", "parts.json#/B/properties/c")
    with pytest.raises(AccessDenied, match=r"never fetched; beside parts\.json: .*/u is not a"):
        r.resolve("u", b.scope)  # no `$id` names it: never the network, a file beside


_SELF_DOC: dict[str, Any] = {
    "openapi": "3.2.0", "$self": "https://ex.com/api/openapi.json",
    "info": {"title": "t", "version": "1"}, "servers": [{"url": "https://api.example.com"}],
    "paths": {"/a": {"post": {"operationId": "a", "requestBody": {"content": {
        "application/json": {"schema": {"$ref": "parts.json#/B"}}}},
        "responses": {"204": {"description": "ok"}}}}},
    "components": {"schemas": {"A": {"type": "integer"}}}}


@pytest.mark.parametrize("decoy", [False, True])
def test_a_ref_from_another_file_to_the_self_name_is_the_document(
        tmp_path: Path, decoy: bool) -> None:
    """OpenAPI 3.2 `$self` is the document's own URI (section 4.8.1): a file beside it
    referring to `openapi.json#/...`, `$self`'s name, means the document, read as `spec.json`
    here; it read a file of that name from disk (a missing file: the operation's error; a
    different one: its schema, a string for an integer)."""
    _write(tmp_path, {"spec.json": _SELF_DOC, "parts.json": {"B": {"type": "object", "properties": {
        "a": {"$ref": "openapi.json#/components/schemas/A"}}}}})
    if decoy:
        _write(tmp_path, {"openapi.json": {"openapi": "3.1.0", "info": {"title": "x",
               "version": "1"}, "components": {"schemas": {"A": {"type": "string"}}}}})
    app = httpllm.compile(tmp_path / "spec.json", "3.1")
    assert not app.errors
    assert app.tools()[0]["parameters"]["properties"]["body"]["properties"] == {
        "a": {"type": "integer"}}


def test_a_relative_id_nested_in_another_file_is_the_schema_there(tmp_path: Path) -> None:
    """`parts.json#/$defs/D` with `$id: d.json` holds `#/$defs/M`, relative to D (JSON
    Schema 2020-12 sections 8.2.1 and 9.1.2): the nested `$id` names the `file:` URI
    `d.json` beside the file, which was read from disk (missing: the operation's error),
    as a `file:` URI's embedded `$id`s were not searched; no file answering for it, the
    files read are, and M is found in D."""
    doc = {"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
           "servers": [{"url": "https://api.example.com"}],
           "paths": {"/a": {"post": {"operationId": "a", "requestBody": {"content": {
               "application/json": {"schema": {"$ref": "parts.json#/$defs/D"}}}},
               "responses": {"204": {"description": "ok"}}}}}}
    _write(tmp_path, {"spec.json": doc, "parts.json": {"$defs": {"D": {
        "$id": "d.json", "type": "object", "properties": {"m": {"$ref": "#/$defs/M"}},
        "$defs": {"M": {"type": "number"}}}}}})
    app = httpllm.compile(tmp_path / "spec.json", "3.1")
    assert not app.errors
    assert app.tools()[0]["parameters"]["properties"]["body"]["properties"] == {
        "m": {"type": "number"}}


# -- base URIs an `$id` or `$self` gives: names, found among the files read, else beside ----


def _body_doc(schema: dict[str, Any], version: str = "3.1.0",
              **top: Any) -> dict[str, Any]:
    """A document of one operation whose request body is ``schema``."""
    return {"openapi": version, **top, "info": {"title": "t", "version": "1"},
            "servers": [{"url": "https://api.example.com"}],
            "paths": {"/a": {"post": {"operationId": "a", "requestBody": {"content": {
                "application/json": {"schema": schema}}},
                "responses": {"204": {"description": "ok"}}}}}}


def _body(folder: Path, dialect: str = "3.1", **options: Any) -> Any:
    """The request body's properties of the one tool of ``folder/openapi.json``."""
    app = httpllm.compile(folder / "openapi.json", dialect, **options)
    assert not app.errors, app.errors
    return app.tools()[0]["parameters"]["properties"]["body"]["properties"]


def test_a_files_top_id_is_the_base_of_its_refs(tmp_path: Path) -> None:
    """A file's top `$id` is the base of every `$ref` in it (JSON Schema 2020-12 section
    8.2.1): `d.json#/$defs/M` beside `D` (`$id: d.json`) in `o.json`, whose top `$id` is
    `https://ex.com/o/`, is `M` in the resource `https://ex.com/o/d.json`; the pointer
    walk left the top `$id` out, resolved `d.json` against the file, and failed: cannot
    read `d.json`."""
    _write(tmp_path, {"openapi.json": _body_doc({"$ref": "o.json#/$defs/X"}), "o.json": {
        "$id": "https://ex.com/o/", "$defs": {
            "D": {"$id": "d.json", "$defs": {"M": {"type": "object", "properties": {
                "m": {"type": "number"}}}}},
            "X": {"$ref": "d.json#/$defs/M"}}}})
    assert _body(tmp_path) == {"m": {"type": "number"}}


def test_a_canonical_https_id_keeps_its_sibling_files_on_disk(tmp_path: Path) -> None:
    """A schema file whose `$id` is a canonical `https:` URI, and a `$ref` to a file beside
    it (at its top or under a nested `$id`): the URI the `$ref` names against the `$id` is no
    resource of the files read, so it is the file of that name beside the file, read from
    disk, never fetched (the nested one needed the network, refused)."""
    _write(tmp_path, {"openapi.json": _body_doc({"$ref": "a.json"}), "a.json": {
        "$id": "https://ex.com/schemas/a.json", "type": "object", "properties": {
            "top": {"$ref": "other.json"},
            "nested": {"$id": "https://ex.com/elsewhere/n.json", "type": "object",
                       "properties": {"x": {"$ref": "other.json#/properties/v"}}}}},
        "other.json": {"type": "object", "properties": {"v": {"type": "integer"}}}})
    assert _body(tmp_path) == {
        "top": {"type": "object", "properties": {"v": {"type": "integer"}}},
        "nested": {"type": "object", "properties": {"x": {"type": "integer"}}}}


def test_an_id_base_is_never_fetched(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With the network allowed, a relative `$ref` under an `https:` `$id` (at a file's
    top, or nested) is still a name, never a URL to fetch: it is looked for beside the
    file (the nested one was fetched)."""
    fetched: list[str] = []

    def fetch(self: Loader, uri: str) -> Any:
        fetched.append(uri)
        raise AssertionError(f"fetched {uri}")

    monkeypatch.setattr(Loader, "_fetch", fetch)
    _write(tmp_path, {"openapi.json": _body_doc({"$ref": "a.json"}), "a.json": {
        "$id": "https://ex.com/s/a.json", "type": "object", "properties": {
            "b": {"$ref": "b.json"}, "n": {"$id": "https://ex.com/n/", "$ref": "b.json"}}},
        "b.json": {"type": "boolean"}})
    assert _body(tmp_path, allow_network=True) == {"b": {"type": "boolean"},
                                                    "n": {"type": "boolean"}}
    assert fetched == []


@pytest.mark.parametrize("given", ["absolute", "../../"])
def test_an_id_outside_the_folder_reads_nothing_there(tmp_path: Path, given: str) -> None:
    """An `$id` naming a folder outside the readable one (`file:///.../outside/`,
    `../../`) cannot make a `$ref` read a file there: the gate refuses it, and the `$ref`
    is the file beside the one declaring the `$id`."""
    spec, outside = tmp_path / "deep" / "spec", tmp_path / "outside"
    own = outside.as_uri() + "/" if given == "absolute" else "../../outside/"
    _write(outside, {"x.json": {"type": "string", "description": "outside"}})
    _write(spec, {"openapi.json": _body_doc({"$ref": "a.json"}), "a.json": {
        "$id": own, "type": "object", "properties": {"x": {"$ref": "x.json"}}},
        "x.json": {"type": "integer"}})
    loader_files: list[str] = []
    original = Loader.__call__

    def spy(self: Loader, uri: str) -> Any:
        loader_files.append(uri)
        return original(self, uri)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Loader, "__call__", spy)
        assert _body(spec) == {"x": {"type": "integer"}}
    assert (outside / "x.json").as_uri() in loader_files  # asked for, and refused
    app = httpllm.compile(spec / "openapi.json", "3.1")
    assert "outside" not in str(app.tools())


def test_a_relative_self_is_the_base_of_the_documents_refs(tmp_path: Path) -> None:
    """OpenAPI 3.2 `$self` is the document's base URI (sections 4.1 and 4.1.2.2.1,
    "Establishing the Base URI"), resolved against the retrieval URI when relative:
    `other.json` in a document whose `$self` is `v2/openapi.json` is `v2/other.json`; it
    was `./other.json`, the `$self` applying only to `$ref`s naming the document itself."""
    _write(tmp_path, {
        "openapi.json": _body_doc({"$ref": "other.json"}, "3.2.0", **{"$self": "v2/openapi.json"}),
        "other.json": {"type": "object", "properties": {"o": {"type": "string"}}},
        "v2/other.json": {"type": "object", "properties": {"o": {"type": "integer"}}}})
    assert _body(tmp_path) == {"o": {"type": "integer"}}


@pytest.mark.parametrize("own", ["v2/openapi.json", "https://ex.com/api/openapi.json",
                                 "../outside/openapi.json"])
def test_a_self_naming_no_file_falls_back_beside_the_document(tmp_path: Path, own: str) -> None:
    """A `$ref` that names, against `$self`, no file the gate lets us read (none there, a
    URL, a folder outside the readable one: never read) is the file beside the document."""
    spec = tmp_path / "spec"
    _write(tmp_path / "outside", {"other.json": {"type": "string"}})
    _write(spec, {
        "openapi.json": _body_doc({"$ref": "other.json"}, "3.2.0", **{"$self": own}),
        "other.json": {"type": "object", "properties": {"o": {"type": "integer"}}}})
    assert _body(spec) == {"o": {"type": "integer"}}


@pytest.mark.parametrize("version", ["3.0.3", "3.1.0"])
def test_an_id_is_a_keyword_in_31_only_wherever_it_is(tmp_path: Path, version: str) -> None:
    """OpenAPI 3.0's Schema Object has no `$id` (section 4.7.24): it is ignored as any
    unknown keyword, on a component and nested alike (a component's own `$id` was the base
    of its `$ref`s, a nested one was not); in 3.1 both are bases."""
    doc = _body_doc({"type": "object", "properties": {
        "top": {"$ref": "#/components/schemas/Top"},
        "nested": {"$ref": "#/components/schemas/Nested"}}}, version)
    doc["components"] = {"schemas": {
        "Top": {"$id": "sub/", "type": "object", "properties": {"x": {"$ref": "b.json"}}},
        "Nested": {"type": "object", "properties": {"n": {
            "$id": "sub/", "type": "object", "properties": {"x": {"$ref": "b.json"}}}}}}}
    _write(tmp_path, {"openapi.json": doc, "b.json": {"type": "integer"},
                      "sub/b.json": {"type": "string"}})
    body = _body(tmp_path)
    kind = "integer" if version.startswith("3.0") else "string"
    assert body["top"]["properties"]["x"] == {"type": kind}
    assert body["nested"]["properties"]["n"]["properties"]["x"] == {"type": kind}
