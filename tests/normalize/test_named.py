"""Named schemas: each emended once per direction and shared; the ref graph from the output."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from httpllm.errors import AccessDenied, LimitExceeded, RefError
from httpllm.load import Loader
from httpllm.normalize.named import NamedSchemas
from httpllm.normalize.naming import SchemaNames, collect_refs
from httpllm.refs import ROOT, Resolver

from ._support import SETTINGS


def ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def named(schemas: dict[str, Any], version: str = "3.1") -> tuple[NamedSchemas, list[Any]]:
    warnings: list[Any] = []
    doc = {"openapi": f"{version}.0", "components": {"schemas": schemas}}
    store = NamedSchemas(Resolver(doc, ROOT, Loader(None)), version,
                         lambda at, message: warnings.append((at, message)))
    return store, warnings


USER = {
    "type": "object",
    "properties": {"id": {"type": "string", "readOnly": True}, "name": {"type": "string"},
                   "friend": ref("User"), "x-internal": {"type": "string"}},
    "required": ["id", "name"],
    "example": {"name": "Ann"},
}


def test_emended_once_per_direction_and_shared() -> None:
    """The same name and direction give the very same object; directions differ."""
    store, _ = named({"User": USER})
    request = store.emended("User", "request")
    assert store.emended("User", "request") is request
    response = store.emended("User", "response")
    assert request == {"type": "object", "required": ["name"],
                       "properties": {"name": {"type": "string"},
                                      "friend": {"$ref": "#/$defs/User"},
                                      "x-internal": {"type": "string"}}}
    assert set(response["properties"]) == {"id", "name", "friend", "x-internal"}
    assert store.examples == {"#/components/schemas/User": [{"name": "Ann"}]}


def test_examples_false_keeps_no_example_and_emends_alike() -> None:
    """A store told to keep no examples (the response schemas': no one reads them) keeps
    none, and emends every schema as a store that keeps them does."""
    doc = {"openapi": "3.1.0", "components": {"schemas": {"User": USER}}}
    stores = [NamedSchemas(Resolver(doc, ROOT, Loader(None)), "3.1", lambda at, m: None,
                           examples=keep) for keep in (True, False)]
    for direction in ("request", "response"):
        assert stores[0].emended("User", direction) == stores[1].emended("User", direction)
    assert stores[0].examples and stores[1].examples == {}


def test_inline_schemas_are_emended_with_refs_rewritten() -> None:
    """An operation's inline schema gets `#/$defs/<name>` refs; the same node is emended
    once per direction."""
    store, _ = named({"User": USER})
    schema = {"type": "array", "items": ref("User")}
    out = store.emend(schema, "request", pointer="#/paths/~1u/get", base=ROOT)
    assert out == {"type": "array", "items": {"$ref": "#/$defs/User"}}
    assert store.emend(schema, "request", pointer="#/paths/~1u/get", base=ROOT) is out
    assert store.refs(out) == {"User"}


@pytest.mark.parametrize(
    ("version", "site", "out"),
    [
        ("3.0", {**ref("Tag"), "description": "d", "maxLength": 3},
         {"$ref": "#/$defs/Tag", "description": "d"}),
        ("3.0", {**ref("Tag"), "nullable": True},
         {"anyOf": [{"$ref": "#/$defs/Tag"}, {"type": "null"}]}),
        ("3.1", {**ref("Tag"), "description": "d"}, {"$ref": "#/$defs/Tag", "description": "d"}),
        ("3.1", {**ref("Tag"), "maxLength": 3, "description": "d"},
         {"type": "string", "minLength": 1, "maxLength": 3, "description": "d"}),
    ],
)
def test_ref_siblings(version: str, site: dict[str, Any], out: dict[str, Any]) -> None:
    """3.0 keeps only annotation (and `nullable`) siblings of a `$ref`; 3.1 merges the
    others with the target like an `allOf`."""
    store, _ = named({"Tag": {"type": "string", "minLength": 1}}, version)
    assert store.emend(site, "request", pointer="#/x", base=ROOT) == out


def test_dangling_ref_is_a_ref_error_at_its_pointer() -> None:
    """A `$ref` to nothing raises RefError naming where the `$ref` is; the failure of a
    named schema is remembered."""
    store, _ = named({"Bad": {"properties": {"x": ref("Missing")}}})
    with pytest.raises(RefError) as err:
        store.emended("Bad", "request")
    assert err.value.pointer == "#/components/schemas/Bad/properties/x"
    with pytest.raises(RefError) as again:
        store.emended("Bad", "request")
    assert again.value is err.value


def test_gate_errors_name_the_ref_pointer() -> None:
    """A `$ref` the gate refuses raises AccessDenied naming the `$ref`'s pointer."""
    store, _ = named({"Far": {"properties": {"x": {"$ref": "http://example.invalid/a.json"}}}})
    with pytest.raises(AccessDenied) as err:
        store.emended("Far", "request")
    assert err.value.pointer == "#/components/schemas/Far/properties/x"


def test_long_allof_chain_is_limit_exceeded() -> None:
    """An `allOf` chain of named schemas deeper than 48 raises LimitExceeded."""
    schemas = {f"S{i}": {"allOf": [ref(f"S{i + 1}")]} for i in range(60)}
    schemas["S60"] = {"type": "string"}
    store, _ = named(schemas)
    with pytest.raises(LimitExceeded, match="chain deeper than 48"):
        store.emended("S0", "request")


def test_component_alias_keeps_the_component_name() -> None:
    """A component that is only a `$ref` names its target."""
    store, _ = named({"Pet": ref("Animal"), "Animal": {"type": "object"}})
    assert store.names.name_for("#/components/schemas/Pet", ROOT) == "Animal"
    store, _ = named({"Animal": {"type": "object"}, "Pet": ref("Animal")})
    assert store.names.name_for("#/components/schemas/Pet", ROOT) == "Animal"


def test_ref_in_place_of_a_properties_map() -> None:
    """`properties: {$ref: ...}` (common in split documents) stands for the map it points
    to: each property becomes a ref to its schema there."""
    store, _ = named({"Attrs": {"size": {"type": "integer"}, "tag": ref("Tag")},
                      "Tag": {"type": "string"}})
    out = store.emend({"type": "object", "properties": ref("Attrs")}, "request",
                      pointer="#/x", base=ROOT)
    assert out == {"type": "object", "properties": {"size": {"$ref": "#/$defs/size"},
                                                    "tag": {"$ref": "#/$defs/Tag"}}}
    assert store.emended("size", "request") == {"type": "integer"}
    with pytest.raises(RefError) as err:
        store.emend({"properties": ref("Nope")}, "request", pointer="#/y", base=ROOT)
    assert err.value.pointer == "#/y/properties"


def test_collect_refs() -> None:
    """Every `#/$defs/...` ref of an emended schema, unescaped, shared nodes once."""
    shared = {"$ref": "#/$defs/a~1b"}
    schema = {"anyOf": [shared, shared, {"items": {"$ref": "#/$defs/C"}}],
              "properties": {"p": {"$ref": "#/components/schemas/Not"}}}
    assert collect_refs(schema) == {"a/b", "C"}


# -- the graph: only refs left in the emended output make edges ------------------------------


PETS = {
    "Pet": {"type": "object", "required": ["petType"],
            "properties": {"petType": {"type": "string"}, "owner": ref("Person")},
            "oneOf": [ref("Cat"), ref("Dog")], "discriminator": {"propertyName": "petType"}},
    "Cat": {"allOf": [ref("Pet"), {"properties": {"lives": {"type": "integer"}}}]},
    "Dog": {"allOf": [ref("Pet"), {"properties": {"bark": {"type": "boolean"}}}]},
    "Person": {"type": "object", "properties": {"name": {"type": "string"}}},
}


@pytest.mark.parametrize("first", ["Pet", "Cat", "Dog"])
def test_discriminator_inheritance(first: str) -> None:
    """Parent `oneOf: [Cat, Dog]` + children `allOf: [Pet, ...]`: the children inherit the
    parent's base form, nothing is recursive, and the result does not depend on which
    schema is emended first."""
    store, warnings = named(PETS)
    store.emended(first, "response")
    for name in PETS:
        store.emended(name, "response")
    graph = store.finish()
    assert warnings == []
    assert graph.recursive == frozenset()
    cat = store.emended("Cat", "response")
    assert cat == {"type": "object", "required": ["petType"],
                   "properties": {"petType": {"type": "string"},
                                  "owner": {"$ref": "#/$defs/Person"},
                                  "lives": {"type": "integer"}}}
    pet = store.emended("Pet", "response")
    assert [m["properties"]["petType"]["enum"] for m in pet["anyOf"]] == [["Cat"], ["Dog"]]
    for name in PETS:
        assert set(graph.graph.successors(name)) == collect_refs(store.emended(name, "response"))


def test_dropped_properties_make_no_edges() -> None:
    """A readOnly property dropped from a request leaves no edge, so a broken schema it
    referred to does not matter to requests."""
    store, _ = named({
        "User": {"type": "object", "properties": {"name": {"type": "string"},
                                                  "audit": {**ref("Audit"), "readOnly": True}}},
        "Audit": {"properties": {"by": ref("Missing")}},
    })
    out = store.emended("User", "request")
    assert out == {"type": "object", "properties": {"name": {"type": "string"}}}
    assert store.refs(out) == frozenset() == collect_refs(out)


NAMES = ["A", "B", "C"]


@st.composite
def documents(draw: st.DrawFn) -> dict[str, Any]:
    """Small documents whose schemas refer to each other through properties, items,
    allOf, unions, readOnly properties and discriminators. An `allOf` only reaches later
    names and a union only earlier ones (the inheritance idiom: child `allOf` parent, parent
    `oneOf` child); a cycle through `allOf` or unions alone (`A = A and B`, `A = B = A`)
    has no order-free meaning and is left out."""
    leaf = st.sampled_from([{"type": "string"}, {"type": "integer", "nullable": True}])
    refs = st.builds(ref, st.sampled_from(NAMES))
    sub = st.one_of(leaf, refs, st.builds(lambda r: {**r, "readOnly": True}, refs),
                    st.builds(lambda r: {"type": "array", "items": r}, refs))
    schemas: dict[str, Any] = {}
    for name in NAMES:
        node: dict[str, Any] = {"type": "object",
                                "properties": draw(st.dictionaries(st.sampled_from("xyz"), sub,
                                                                   max_size=3))}
        shape = draw(st.sampled_from(["plain", "allOf", "oneOf", "discriminated"]))
        others = draw(st.lists(st.sampled_from(NAMES), min_size=1, max_size=2, unique=True))
        later = [n for n in others if n > name]
        if shape == "allOf" and later:
            node["allOf"] = [ref(n) for n in later]
        elif shape in ("oneOf", "discriminated") and [n for n in others if n < name]:
            node["oneOf"] = [ref(n) for n in others if n < name]
            if shape == "discriminated":
                node["discriminator"] = {"propertyName": "kind"}
        schemas[name] = node
    return schemas


@given(documents(), st.permutations(NAMES), st.sampled_from(["request", "response"]))
@SETTINGS
@pytest.mark.slow
def test_edges_are_the_refs_left_in_the_output(schemas: dict[str, Any], order: list[str],
                                                way: Any) -> None:
    """For every named schema the graph's edges are exactly the `$ref`s in its emended
    form, and the emended forms do not depend on the order they are asked for. The forms
    compared are those after `finish`, which cuts a cycle that passes no property or item
    (`normalize.guarded`: `A: {allOf: [B]}`, `B: {oneOf: [A]}`)."""
    first, _ = named(schemas)
    second, _ = named(schemas)
    for name in NAMES:
        try:
            first.emended(name, way)
        except LimitExceeded:
            return  # allOf cycles nest past the chain limit: reported, nothing to compare
    for name in order:
        second.emended(name, way)
    graph = first.finish()
    second.finish()
    outs = {name: first.emended(name, way) for name in NAMES}
    for name in NAMES:
        out = outs[name]
        assert set(first.refs(out)) == collect_refs(out), name
        assert set(graph.graph.successors(name)) == collect_refs(out), name
        assert json.dumps(second.emended(name, way)) == json.dumps(out), name


# -- lone `$ref`s whose target is named already: not visited ---------------------------------


@pytest.mark.parametrize("direction", ["request", "response"])
def test_every_pass_keeps_an_emended_ref(direction: Any) -> None:
    """The rule behind `known_ref`: the passes return `{"$ref": "#/$defs/N"}` as it is."""
    from httpllm.normalize import _PLAN, _apply

    from ._support import Reports, context

    node = {"$ref": "#/$defs/Pet"}
    reports = Reports()
    assert _apply(node, _PLAN, context(direction, reports=reports)) is node
    assert reports == []


SPLIT = {
    "Pet": {"type": "object", "properties": {
        "owner": ref("Person"), "self": ref("Pet"),
        "tag": {"$ref": "#/components/schemas/Person/properties/tag"},
        "kind": {"$ref": "#/paths/~1kinds/get/x-kind"},
        "note": {"$ref": "#/components/schemas/Pet/properties/kind"},
        "id": {"type": "string", "readOnly": True},
        "secret": {"type": "string", "writeOnly": True}},
        "required": ["id", "owner"]},
    "Person": {"type": "object", "properties": {"tag": {"type": "string"}, "pet": ref("Pet")}},
}


class _Unknown(SchemaNames):
    """Names that know no target: every `$ref` is visited, as before `known`."""

    __slots__ = ()

    def known(self, ref: Any, base: str) -> str | None:
        return None


def _walked(store: NamedSchemas) -> NamedSchemas:
    """``store`` with :meth:`SchemaNames.known` answering nothing."""
    store.names.__class__ = _Unknown
    return store


@pytest.mark.parametrize("direction", ["request", "response"])
@pytest.mark.parametrize("order", [["Pet", "Person"], ["Person", "Pet"]])
def test_known_refs_emend_as_visited_ones(direction: Any, order: list[str]) -> None:
    """A named target's lone `$ref` (and a site that is one) emends to what the visit gives;
    a target met first (a property of a schema, a node under `paths`) gets the same name
    in the same order (a cycle, `Pet -> Person -> Pet`, included), and the losses and edges
    are the same."""
    doc = {"openapi": "3.1.0", "paths": {"/kinds": {"get": {"x-kind": {"type": "string"}}}},
           "components": {"schemas": SPLIT}}
    fast, slow = (NamedSchemas(Resolver(doc, ROOT, Loader(None)), "3.1", lambda at, m: None)
                  for _ in range(2))
    _walked(slow)
    for store in (fast, slow):
        for name in order:
            store.emended(name, direction)
        store.emend(ref("Person"), direction, pointer="#/site", base=ROOT)
        store.close([store.emended("Pet", direction)], direction)
        store.finish()
    assert fast.names.all() == slow.names.all()
    for name in fast.names.all():
        assert json.dumps(fast.emended(name, direction)) == json.dumps(
            slow.emended(name, direction)), name
        assert fast.refs(fast.emended(name, direction)) == slow.refs(
            slow.emended(name, direction))
    site = ref("Pet")
    assert fast.emend(site, direction, pointer="#/s", base=ROOT) == {"$ref": "#/$defs/Pet"}
    assert fast.refs(fast.emend(site, direction, pointer="#/s", base=ROOT)) == {"Pet"}
    lost = [store.losses.dropped(store.emend(site, direction, pointer="#/s", base=ROOT),
                                 direction, pointer="#/s", base=ROOT) for store in (fast, slow)]
    assert lost[0] == lost[1] != []
    assert fast.graph.cycles == slow.graph.cycles == [["Person", "Pet"]]


def test_unknown_refs_are_still_errors_at_their_pointer() -> None:
    """A lone `$ref` to nothing (or to no schema) is visited: the error names its place,
    as a site and below one."""
    store, _ = named({"Pet": {"type": "object"}})
    with pytest.raises(RefError) as err:
        store.emend({"type": "array", "items": ref("Nope")}, "response", pointer="#/r",
                    base=ROOT)
    assert err.value.pointer == "#/r/items"
    with pytest.raises(RefError):
        store.emend(ref("Nope"), "response", pointer="#/s", base=ROOT)
    with pytest.raises(RefError, match="expected a Schema Object"):
        store.emend({"items": {"$ref": "#/openapi"}}, "response", pointer="#/t", base=ROOT)
    assert store.names.known(7, ROOT) is None
    assert store.names.known("other.json#/A", ROOT) is None  # another file: not read here


LEAVES = [{"type": "string"}, {"type": "string", "example": "octocat"},
          {"type": "integer", "examples": [1, 2], "description": "d"},
          {"type": "string", "nullable": True}, {"type": "number", "example": 1e400},
          {"enum": ["a", 1]}, {"type": "array"}, {}]


@pytest.mark.parametrize("examples", [True, False])
@pytest.mark.parametrize("leaf", LEAVES, ids=repr)
def test_a_lone_leaf_emends_as_walked(leaf: dict[str, Any], examples: bool,
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """A site or named schema that is one leaf (a parameter's `{"type": "string"}`) is
    emended without a pass context when no pass would change it but by dropping its
    examples: the same form, warnings, examples kept and refs as the walk's."""
    import httpllm.normalize.named as named_module

    def run() -> tuple[str, str, list[Any], dict[str, Any], frozenset[str]]:
        warnings: list[Any] = []
        doc = {"openapi": "3.0.0", "components": {"schemas": {"L": leaf}}}
        store = NamedSchemas(Resolver(doc, ROOT, Loader(None)), "3.0",
                             lambda at, m: warnings.append((at, m)), examples=examples)
        site = store.emend(dict(leaf), "response", pointer="#/s", base=ROOT)
        own = store.emended("L", "request")
        return json.dumps(site), json.dumps(own), warnings, store.examples, store.refs(site)

    fast = run()
    monkeypatch.setattr(named_module, "leaf_emend", lambda keep_examples: lambda node: None)
    assert fast == run()


_WARNING_ORDER = """
import json, sys
from tests.normalize.test_named import named, ref
schemas = {f"U{i}": {"type": "object", "discriminator": {"propertyName": "k",
                                                           "mapping": {"x": 5}}}
           for i in range(12)}
schemas["Root"] = {"type": "object", "properties": {f"p{i}": ref(f"U{i}") for i in range(12)}}
store, warnings = named(schemas)
store.close([store.emended("Root", "request")], "request")
print(json.dumps([at for at, _ in warnings]))
"""


@pytest.mark.slow
def test_the_warnings_of_the_schemas_a_close_reaches_keep_their_order() -> None:
    """`close` emends the named schemas it reaches by name, so their warnings come in the
    same order in every run; it took them in a frozenset's order, which the hash seed
    sets (OpenAI's discriminator warnings moved between runs)."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    runs = set()
    for seed in ("1", "2", "3", "4"):
        env = {**os.environ, "PYTHONHASHSEED": seed,
               "PYTHONPATH": os.pathsep.join([str(root / "src"), str(root)])}
        done = subprocess.run([sys.executable, "-c", _WARNING_ORDER], env=env, cwd=root,
                              capture_output=True, text=True, check=True, timeout=60)
        runs.add(done.stdout)
    assert len(runs) == 1 and len(json.loads(runs.pop())) == 12


def test_a_fault_of_ours_in_one_named_schema_fails_only_what_reaches_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """An exception outside HttpllmError while emending one named schema (a fault of ours)
    fails it as an InternalError at its pointer: the operations whose request reaches it
    are errors of that kind, a response reaching it is dropped with a warning, and every
    other operation compiles (it sank the whole document, or the first read of an
    output)."""
    import httpllm

    emend = NamedSchemas._emend

    def faulty(self: NamedSchemas, schema: Any, *args: Any, **kwargs: Any) -> Any:
        if kwargs.get("name") == "Bad":
            raise TypeError("unhashable type: 'dict'")
        return emend(self, schema, *args, **kwargs)

    monkeypatch.setattr(NamedSchemas, "_emend", faulty)

    def body(name: str) -> dict[str, Any]:
        return {"content": {"application/json": {"schema": {
            "$ref": f"#/components/schemas/{name}"}}}}

    fine = {"200": {"description": "ok"}}
    document = {"openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "paths": {
        "/a": {"post": {"operationId": "a", "requestBody": body("Bad"), "responses": fine}},
        "/b": {"post": {"operationId": "b", "requestBody": body("Good"), "responses": fine}},
        "/c": {"get": {"operationId": "c", "responses": {"200": {
            "description": "ok", **body("Bad")}}}}},
        "components": {"schemas": {"Bad": {"type": "object"}, "Good": {"type": "string"}}}}
    app = httpllm.compile(document, "mcp")
    assert [f.name for f in app.functions] == ["b", "c"]
    [error] = app.errors
    assert (error.path, error.kind, error.pointer) == ("/a", "InternalError",
                                                       "#/components/schemas/Bad")
    assert "TypeError: unhashable type: 'dict'" in error.message
    assert app.function("c").output is None
    assert any(w.message.startswith("response schema dropped: httpllm failed here (TypeError")
               for w in app.warnings)
