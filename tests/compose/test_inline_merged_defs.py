"""A `$defs` name means one schema across a tool list (issue 18, kind 10): OpenAI-compatible
servers (vLLM) merge every tool's root `$defs` into one map, so a function that keeps its
refs (past `INLINE_MAX_NODES`) must not list a recursive schema under the name the inlining
functions give its inlined form."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

import httpllm

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from checkers.census import conflicts  # the helper the corpus checks use


@pytest.fixture(autouse=True)
def _unbounded(monkeypatch: pytest.MonkeyPatch) -> None:
    """Parameters are not cut here (`big` is past any byte limit on purpose): what is
    checked is the naming of the refs a keeping function keeps."""
    monkeypatch.setattr("httpllm.compose.bounded.PARAMETERS_MIN", 10**9)
    monkeypatch.setattr("httpllm.compose.bounded.PARAMETERS_MAX", 10**9)


def _operation(name: str, schema: dict[str, Any]) -> dict[str, Any]:
    body = {"content": {"application/json": {"schema": schema}}}
    return {"post": {"operationId": name, "requestBody": body,
                     "responses": {"200": {"description": "ok"}}}}


def _document() -> dict[str, Any]:
    """`Node` is recursive and refers to `Field`; `big` is past the inlining limit."""
    wide = {"type": "object", "properties": {f"p{i}": {"type": "string"} for i in range(5100)}}
    node = {"type": "object", "properties": {
        "field": {"$ref": "#/components/schemas/Field"},
        "children": {"type": "array", "items": {"$ref": "#/components/schemas/Node"}}}}
    big = {"type": "object", "properties": {"node": {"$ref": "#/components/schemas/Node"},
                                            "wide": wide}}
    return {"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
            "paths": {"/small": _operation("small", {"$ref": "#/components/schemas/Node"}),
                      "/big": _operation("big", big)},
            "components": {"schemas": {"Node": node,
                                       "Field": {"type": "string", "minLength": 1}}}}


@pytest.mark.parametrize("provider", ["llama", "qwen", "deepseek", "chatgpt", "3.1"])
def test_no_name_means_two_schemas(provider: str) -> None:
    """The inlining function lists `Node` with `Field` inlined; the keeping one lists its
    own form under another name, and every name shared by two tools means one schema."""
    app = httpllm.compile(_document(), provider)
    small, big = app.function("small"), app.function("big")
    assert list(small.parameters["$defs"]) == ["Node"]
    assert "Node" not in big.parameters["$defs"]
    assert conflicts([(f.name, f.parameters) for f in app.functions]) == {}


def test_keeping_function_refers_to_its_own_names() -> None:
    """Every `$ref` of the keeping function names one of its own `$defs` (the renamed
    recursive schema refers to itself under its new name)."""
    big = httpllm.compile(_document(), "llama").function("big").parameters
    defs = big["$defs"]
    renamed = next(name for name in defs if name.startswith("Node"))
    assert renamed != "Node"
    assert defs[renamed]["properties"]["children"]["items"] == {"$ref": f"#/$defs/{renamed}"}
    assert big["properties"]["body"]["properties"]["node"] == {"$ref": f"#/$defs/{renamed}"}


def test_reference_mode_keeps_the_names() -> None:
    """With `reference=True` every function keeps its refs: no name is renamed."""
    app = httpllm.compile(_document(), "llama", reference=True)
    assert {"Node", "Field"} <= set(app.function("big").parameters["$defs"])
    assert conflicts([(f.name, f.parameters) for f in app.functions]) == {}


def test_strict_fallback_does_not_share_names_with_strict_tools() -> None:
    """deepseek strict: a function over OpenAI's strict limits falls back to non-strict; its
    definitions, rendered non-strict, get their own names (a `renamed` loss), so the strict
    tools' names still mean one schema."""
    doc = _document()
    paths = doc["paths"]
    del paths["/big"]
    huge = {"type": "string", "enum": [f"c{i}" for i in range(1001)]}
    paths["/wide"] = _operation("wide", {"type": "object", "properties": {
        "node": {"$ref": "#/components/schemas/Node"}, "code": huge}})
    app = httpllm.compile(doc, "deepseek", strict=True)
    small, wide = app.function("small"), app.function("wide")
    assert small.strict and not wide.strict
    assert conflicts([(f.name, f.parameters) for f in app.functions]) == {}
    assert [x.action for x in wide.losses if x.keyword == "$defs"] == ["renamed"]
    assert all(name.endswith("__nonstrict") for name in wide.parameters["$defs"])
