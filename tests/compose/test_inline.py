"""Inlining: non-recursive refs replaced by their shared inlined form, recursive ones kept."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from httpllm._types import Direction
from httpllm.compose.inline import Inliner, SizeMemo, measure
from httpllm.load import Loader
from httpllm.normalize.named import NamedSchemas
from httpllm.refs import ROOT, Resolver


def ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


SCHEMAS: dict[str, Any] = {
    "Tag": {"type": "string", "maxLength": 8},
    "Pet": {"type": "object", "properties": {"tag": ref("Tag"), "tags": {
        "type": "array", "items": ref("Tag")}}},
    "Node": {"type": "object", "properties": {"tag": ref("Tag"), "next": ref("Node")}},
    "Tree": {"type": "object", "properties": {"root": ref("Node"), "pet": ref("Pet")}},
}


def prepare(schema: Any, reference: bool = False, direction: Direction = "request",
            schemas: dict[str, Any] = SCHEMAS) -> tuple[Inliner, Any]:
    """Emend ``schema`` and every named schema it reaches, finish the graph."""
    doc = {"openapi": "3.1.0", "components": {"schemas": schemas}}
    store = NamedSchemas(Resolver(doc, ROOT, Loader(None)), "3.1", lambda at, msg: None)
    out = store.emend(schema, direction, pointer="#/op", base=ROOT)
    pending, seen = list(store.refs(out)), set()
    while pending:
        name = pending.pop()
        if name not in seen:
            seen.add(name)
            pending.extend(store.refs(store.emended(name, direction)))
    store.finish()
    return Inliner(store, reference=reference), out


def test_non_recursive_refs_are_inlined_and_shared() -> None:
    """Every non-recursive ref becomes its target's inlined form, one object shared by every
    use; no `$defs` are needed."""
    inliner, schema = prepare({"type": "object", "properties": {"a": ref("Pet"),
                                                                "b": ref("Pet")}})
    out, defs = inliner.root(schema, "request", pointer="#/op")
    assert defs == {}
    pet = {"type": "object", "properties": {
        "tag": {"type": "string", "maxLength": 8},
        "tags": {"type": "array", "items": {"type": "string", "maxLength": 8}}}}
    assert out == {"type": "object", "properties": {"a": pet, "b": pet}}
    assert out["properties"]["a"] is out["properties"]["b"]
    assert out["properties"]["a"]["properties"]["tag"] is out["properties"]["a"]["properties"][
        "tags"]["items"]


def test_a_named_schema_without_refs_is_its_own_inlined_form() -> None:
    """A named schema whose emended form holds no ref is not walked: its inlined form is
    that very object (what the walk, which changes refs only, would return)."""
    inliner, _ = prepare({"type": "object", "properties": {"a": ref("Pet")}})
    assert inliner.inlined("Tag", "request") is inliner.named.emended("Tag", "request")
    assert inliner.inlined("Pet", "request") is not inliner.named.emended("Pet", "request")


def test_recursive_refs_stay_under_defs() -> None:
    """A ref to a recursive schema stays a ref; its inlined form (non-recursive refs inside
    it inlined) goes under `$defs`."""
    inliner, schema = prepare(ref("Tree"))
    out, defs = inliner.root(schema, "request", pointer="#/op")
    assert out["properties"]["root"] == {"$ref": "#/$defs/Node"}
    assert out["properties"]["pet"]["properties"]["tag"] == {"type": "string", "maxLength": 8}
    assert defs == {"Node": {"type": "object", "properties": {
        "tag": {"type": "string", "maxLength": 8}, "next": {"$ref": "#/$defs/Node"}}}}
    assert inliner.graph.is_recursive("Node") and not inliner.graph.is_recursive("Tree")


def test_reference_true_keeps_every_ref() -> None:
    """With `reference=True` every ref stays and every reachable schema is listed."""
    inliner, schema = prepare(ref("Tree"), reference=True)
    out, defs = inliner.root(schema, "request", pointer="#/op")
    assert out == {"$ref": "#/$defs/Tree"}
    assert sorted(defs) == ["Node", "Pet", "Tag", "Tree"]
    assert defs["Pet"]["properties"]["tag"] == {"$ref": "#/$defs/Tag"}


def test_ref_siblings_survive_inlining() -> None:
    """Annotations next to a `$ref` stay on the inlined copy."""
    inliner, schema = prepare({"properties": {"t": {**ref("Tag"), "description": "the tag"}}})
    out, _ = inliner.root(schema, "request", pointer="#/op")
    assert out == {"properties": {"t": {"type": "string", "maxLength": 8,
                                        "description": "the tag"}}}


def test_inlining_mutates_nothing() -> None:
    """The emended named schemas are shared: inlining never changes them."""
    inliner, schema = prepare(ref("Tree"))
    before = {n: json.dumps(inliner.named.emended(n, "request")) for n in SCHEMAS}
    inliner.root(schema, "request", pointer="#/op")
    assert {n: json.dumps(inliner.named.emended(n, "request")) for n in SCHEMAS} == before


def test_directions_are_inlined_apart() -> None:
    """Request and response forms of one schema are inlined separately."""
    schemas = {"User": {"type": "object", "properties": {
        "id": {"type": "string", "readOnly": True}, "pw": {"type": "string", "writeOnly": True}}}}
    inliner, schema = prepare(ref("User"), schemas=schemas)
    request, _ = inliner.root(schema, "request", pointer="#/op")
    assert set(request["properties"]) == {"pw"}
    inliner, schema = prepare(ref("User"), direction="response", schemas=schemas)
    response, _ = inliner.root(schema, "response", pointer="#/op")
    assert set(response["properties"]) == {"id"}


def test_measure_depth_and_size() -> None:
    """`measure` gives subschema levels and node count as serialized; shared subtrees are
    counted per use but measured once."""
    leaf = {"type": "string"}
    schema = {"properties": {"a": leaf, "b": {"items": leaf}}}
    memo = SizeMemo()
    assert measure(schema, memo) == (2, 4)
    assert memo[id(leaf)] == (0, 1)
    assert measure(True, SizeMemo()) == (0, 1)


def test_measure_of_a_root_over_measured_subschemas() -> None:
    """A node whose subschemas are all measured already (a parameters object over seen
    arguments) is summed from their entries: the answer of a fresh walk."""
    leaf = {"type": "string"}
    arg = {"type": "object", "properties": {"a": leaf, "b": {"items": leaf}}}
    memo = SizeMemo()
    measure(arg, memo)
    root = {"type": "object", "properties": {"x": arg, "y": arg, "z": True}}
    assert measure(root, memo) == measure(root, SizeMemo()) == (3, 10)
    assert id(root) not in memo  # a function's own root is not kept
    # Some subschemas new (a body never seen): the walk, which lists the root once.
    mixed = {"type": "object", "properties": {"x": arg, "n": {"items": {"items": leaf}}}}
    assert measure(mixed, memo) == measure(mixed, SizeMemo()) == (3, 8)


def test_measure_holds_every_node_it_remembers() -> None:
    """A memo keeps each node it has a value for alive, so no id it knows can pass to a
    new node: temporaries measured and dropped leave their ids taken."""
    memo = SizeMemo()
    for _ in range(200):
        measure({"type": "object", "properties": {"a": {"type": "string"}}}, memo)
    assert memo.keys() <= {id(node) for node in memo.held}
    fresh = [{"type": "object", "properties": {"a": {"items": {}}}} for _ in range(200)]
    assert all(measure(node, memo) == (2, 3) for node in fresh)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from(sorted(SCHEMAS)), min_size=1, max_size=4), st.booleans())
def test_inlining_changes_the_spelling_only(names: list[str], reference: bool) -> None:
    """The result is the emended schema with every non-recursive ref expanded (all refs
    kept with `reference=True`), and `$defs` hold exactly the schemas still referred to."""
    schema = {"type": "object", "properties": {f"p{i}": ref(n) for i, n in enumerate(names)}}
    inliner, emended = prepare(schema, reference=reference)
    out, defs = inliner.root(emended, "request", pointer="#/op")
    named = {n: inliner.named.emended(n, "request") for n in SCHEMAS}
    keep = set(SCHEMAS) if reference else set(inliner.graph.recursive)
    assert out == expand(emended, named, keep)
    for name, form in defs.items():
        assert form == expand(named[name], named, keep)
    used = referred(out)
    for form in defs.values():
        used |= referred(form)
    assert set(defs) == used


def expand(schema: Any, defs: dict[str, Any], keep: set[str]) -> Any:
    """Replace every `#/$defs/N` ref whose N is not in ``keep`` by ``defs[N]`` (siblings of
    the ref win), until none is left."""
    root = json.loads(json.dumps(schema))
    stack = [root]
    while stack:
        current = stack.pop()
        if isinstance(current, dict):
            target = current.get("$ref")
            if isinstance(target, str) and target[8:] not in keep:
                siblings = {k: v for k, v in current.items() if k != "$ref"}
                current.clear()
                current.update({**json.loads(json.dumps(defs[target[8:]])), **siblings})
                stack.append(current)
                continue
            stack.extend(current.values())
        elif isinstance(current, list):
            stack.extend(current)
    return root


def referred(schema: Any) -> set[str]:
    text = json.dumps(schema)
    return {part.split('"', 1)[0] for part in text.split('"$ref": "#/$defs/')[1:]}


def test_a_ref_with_siblings_to_a_boolean_schema_compiles() -> None:
    """A ``$ref`` with a sibling (``description``) to a named ``true`` or ``false`` schema
    (valid OpenAPI 3.1) is its object form with the sibling, inlined, kept by reference or
    unrolled, for every provider; it raised TypeError ('bool' object is not a mapping) out
    of compile(). Validation still takes any value for ``true`` and none for ``false``."""
    import httpllm

    for named in (True, False):
        x = {"$ref": "#/components/schemas/B", "description": "the x"}
        doc = {"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
               "servers": [{"url": "https://a.example.com"}],
               "components": {"schemas": {"B": named}},
               "paths": {"/a": {"post": {"operationId": "a", "requestBody": {"content": {
                   "application/json": {"schema": {"type": "object",
                                                   "properties": {"x": x}}}}},
                   "responses": {"200": {"description": "ok"}}}}}}
        for provider in ("chatgpt", "claude", "gemini", "mcp"):
            for options in ({}, {"reference": True}, {"unroll": 2}):
                app = httpllm.compile(doc, provider=provider, **options)
                assert not app.errors and "the x" in json.dumps(app.tools())
                assert app.validate("a", {"body": {"x": 1}}).ok is named
