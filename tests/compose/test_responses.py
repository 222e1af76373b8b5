"""Success-response schemas: located while compiling, computed on first read, all at once."""

from __future__ import annotations

import gc
from typing import Any

import pytest

import httpllm
from httpllm.compose.responses import Responses, _plain_key
from httpllm.normalize.named import NamedSchemas
from httpllm.records import Function, evolve


def ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def document(schemas: dict[str, Any], responses: dict[str, Any]) -> dict[str, Any]:
    paths = {
        f"/{name}": {"get": {"operationId": name, "responses": {"200": {
            "description": "ok", "content": {"application/json": {"schema": schema}}}}}}
        for name, schema in responses.items()
    }
    return {"openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "paths": paths,
            "components": {"schemas": schemas}}


SCHEMAS: dict[str, Any] = {
    "Pet": {"type": "object", "properties": {"id": {"type": "integer", "readOnly": True},
                                             "secret": {"type": "string", "writeOnly": True}}},
    "Node": {"type": "object", "properties": {"next": ref("Node")}},
}


def test_nothing_is_computed_until_an_output_is_read(monkeypatch: pytest.MonkeyPatch) -> None:
    """chatgpt's tool list never reads a response: compiling and tools() emend none."""
    calls: list[int] = []
    real = Responses._compute
    monkeypatch.setattr(Responses, "_compute", lambda self: calls.append(1) or real(self))
    app = httpllm.compile(document(SCHEMAS, {"getPet": ref("Pet")}), "chatgpt")
    app.tools()
    assert calls == []
    assert app.functions[0].output is not None
    assert app.function("getPet").output is app.functions[0].output
    assert calls == [1]  # once for the whole application


def test_output_is_the_response_form_inlined() -> None:
    """Direction `response` drops writeOnly properties and keeps readOnly ones."""
    app = httpllm.compile(document(SCHEMAS, {"getPet": ref("Pet")}), "chatgpt")
    output = app.functions[0].output
    assert set(output["properties"]) == {"id"}


def test_recursive_output_keeps_defs_and_its_cycle() -> None:
    app = httpllm.compile(document(SCHEMAS, {"getNode": ref("Node")}), "3.1")
    output = app.functions[0].output
    assert output["$ref"] == "#/$defs/Node"
    assert output["$defs"]["Node"]["properties"]["next"] == {"$ref": "#/$defs/Node"}
    assert app.cycles == (("Node",),)


def test_a_bad_response_is_dropped_with_a_warning_and_the_operation_compiles() -> None:
    """A dangling `$ref` in a response never sinks the operation: a call does not need it."""
    doc = document(SCHEMAS, {"getMissing": ref("Missing"), "getPet": ref("Pet")})
    app = httpllm.compile(doc, "chatgpt")
    assert [f.name for f in app.functions] == ["getMissing", "getPet"]
    assert app.errors == ()
    assert app.function("getMissing").output is None
    assert app.function("getPet").output is not None
    (warning,) = app.warnings
    at = "#/paths/~1getMissing/get/responses/200/content/application~1json/schema"
    assert warning.pointer == at
    assert warning.message.startswith("response schema dropped:")


def test_a_response_reaching_a_bad_named_schema_is_dropped() -> None:
    schemas = {**SCHEMAS, "Owner": {"type": "object", "properties": {"pet": ref("Nowhere")}}}
    app = httpllm.compile(document(schemas, {"getOwner": ref("Owner")}), "chatgpt")
    assert app.functions[0].output is None
    assert "response schema dropped" in app.warnings[0].message


def test_equal_plain_responses_are_emended_once_and_each_warns_at_its_place(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Equal responses made of strings share the first one's emended form; one whose emend
    fails is emended (and reported) at each place."""
    emended: list[Any] = []
    real = NamedSchemas.emend

    def emend(self: NamedSchemas, schema: Any, direction: Any, **kw: Any) -> Any:
        if direction == "response":
            emended.append(schema)
        return real(self, schema, direction, **kw)

    monkeypatch.setattr(NamedSchemas, "emend", emend)
    doc = document(SCHEMAS, {"a": ref("Pet"), "b": ref("Pet"), "c": ref("Missing"),
                             "d": ref("Missing")})
    app = httpllm.compile(doc, "chatgpt")
    assert app.function("a").output is app.function("b").output
    assert emended == [ref("Pet"), ref("Missing"), ref("Missing")]
    assert [w.pointer.split("/")[2] for w in app.warnings] == ["~1c", "~1d"]


def test_a_number_is_never_plain() -> None:
    """A number's text does not say whether the loader held it (`_json.Unheld`)."""
    assert _plain_key(ref("Pet")) == repr(ref("Pet"))
    assert _plain_key({"type": "array", "items": ref("Pet")}) is not None
    assert _plain_key({"type": "integer", "maximum": 5}) is None
    assert _plain_key({"type": "array", "items": {"type": "integer", "maximum": 5}}) is None
    assert _plain_key({"type": "array", "items": {"items": ref("Pet")}}) is None


def test_warnings_and_cycles_include_the_responses() -> None:
    """Reading `warnings` or `cycles` computes the responses first, so they are complete."""
    app = httpllm.compile(document(SCHEMAS, {"getNode": ref("Node")}), "chatgpt")
    assert app.cycles == (("Node",),)
    assert app.to_json()["cycles"] == [["Node"]]


def test_the_compile_leaves_no_reference_cycles() -> None:
    """The collector is paused while compiling: what a compile builds must be freed by
    reference counting, or the next collection pays for all of it. (networkx's condensation
    graph caches a view of itself: 4 objects per compile, whatever the document's size.)"""
    doc = document(SCHEMAS, {f"get{i}": ref("Pet" if i % 2 else "Node") for i in range(40)})
    gc.collect()
    gc.disable()
    try:
        app = httpllm.compile(doc, "chatgpt")
        app.tools()
        del app
        assert gc.collect() <= 4
    finally:
        gc.enable()


def test_evolve_is_replace_for_slotted_records() -> None:
    fn = httpllm.compile(document(SCHEMAS, {"getPet": ref("Pet")}), "chatgpt").functions[0]
    new = evolve(fn, description="other")
    assert isinstance(new, Function) and new.description == "other"
    assert new.parameters is fn.parameters and new.output is fn.output
    with pytest.raises(TypeError, match="no field 'nope'"):
        evolve(fn, nope=1)


def test_past_the_inline_limit_a_function_keeps_its_defs() -> None:
    """A function whose inlined parameters would pass INLINE_MAX_NODES keeps its named
    schemas under `$defs` (as reference=True), with a warning; others still inline."""
    from httpllm.compose.inline import INLINE_MAX_NODES

    leaf = {"type": "object", "properties": {f"p{i}": {"type": "string"} for i in range(40)}}
    wide = {"type": "object", "properties": {f"l{i}": ref("Leaf")
                                             for i in range(INLINE_MAX_NODES // 40 + 1)}}
    schemas = {"Leaf": leaf, "Wide": wide}
    doc = document(schemas, {})
    doc["paths"] = {
        "/wide": {"post": {"operationId": "postWide", "requestBody": {"content": {
            "application/json": {"schema": ref("Wide")}}}, "responses": {"204": {
                "description": "ok"}}}},
        "/leaf": {"post": {"operationId": "postLeaf", "requestBody": {"content": {
            "application/json": {"schema": ref("Leaf")}}}, "responses": {"204": {
                "description": "ok"}}}},
    }
    app = httpllm.compile(doc, "chatgpt")
    wide_fn, leaf_fn = app.function("postWide"), app.function("postLeaf")
    assert set(wide_fn.parameters["$defs"]) == {"Leaf", "Wide"}
    assert wide_fn.parameters["properties"]["body"] == {"$ref": "#/$defs/Wide"}
    assert "$defs" not in leaf_fn.parameters
    (warning,) = app.warnings
    assert warning.pointer == "#/paths/~1wide/post" and "kept under $defs" in warning.message
