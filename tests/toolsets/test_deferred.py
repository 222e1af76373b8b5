"""Native deferred loading, checked with the providers' own SDK types."""

from __future__ import annotations

from typing import Any, get_type_hints

import pytest
from pydantic import TypeAdapter
from sdk import lazy

import httpllm
from httpllm.errors import DialectError, UnknownFunction
from httpllm.toolsets.deferred import (
    ALWAYS_COUNT,
    NAMESPACE_MAX,
    always_loaded,
    deferred_tools,
    upfront,
)

from ._specs import PETSTORE, document, operation

anthropic_types = lazy("anthropic.types")
responses = lazy("openai.types.responses")


def _api() -> dict[str, Any]:
    """Twelve issue reads and writes under a path parameter, three user reads, one
    untagged read."""
    paths: dict[str, Any] = {}
    for i in range(12):
        paths[f"/repos/{{owner}}/issues{i}"] = {
            "parameters": [{"name": "owner", "in": "path", "required": True,
                            "schema": {"type": "string"}}],
            "get": operation(f"issues_get{i}", tags=("issues",), parameters=i % 3,
                             summary=f"Get issue kind {i}"),
            "post": operation(f"issues_create{i}", tags=("issues",), summary=f"Create {i}"),
        }
    for i in range(3):
        paths[f"/users{i}"] = {"get": operation(f"users_list{i}", tags=("users",),
                                                summary=f"Users {i}")}
    paths["/meta"] = {"get": operation("meta", summary="Root")}
    return document(paths)


def _checked(adapter_type: Any, tool: dict[str, Any]) -> None:
    """Valid for the SDK type, with no key the TypedDict does not declare (it would be
    stripped silently)."""
    TypeAdapter(adapter_type).validate_python(tool)
    assert set(tool) <= set(get_type_hints(adapter_type, include_extras=True)), tool.keys()


def test_anthropic_tools_defer_all_but_the_always_loaded() -> None:
    """Claude: the BM25 tool-search tool first, every other tool deferred but three reads."""
    app = httpllm.compile(_api(), "claude")
    tools = deferred_tools(app)
    _checked(anthropic_types.ToolSearchToolBm25_20251119Param, tools[0])
    for tool in tools[1:]:
        _checked(anthropic_types.ToolParam, tool)
    TypeAdapter(list[anthropic_types.ToolUnionParam]).validate_python(tools)
    loaded = [t["name"] for t in tools[1:] if not t.get("defer_loading")]
    assert loaded == [f.name for f in always_loaded(app.functions)]
    assert len(loaded) == ALWAYS_COUNT
    assert sorted(t["name"] for t in tools[1:]) == sorted(f.name for f in app.functions)


def test_the_default_rule_prefers_reads_with_fewest_required_arguments() -> None:
    """The always-loaded functions are GET operations, fewest (required) arguments first."""
    app = httpllm.compile(_api(), "claude")
    chosen = always_loaded(app.functions)
    assert all(f.method == "get" for f in chosen)
    assert [f.name for f in chosen] == ["users_list0", "users_list1", "users_list2"]


def test_strict_tools_with_examples_stay_valid_when_deferred() -> None:
    """Strict Claude tools with input_examples keep both beside defer_loading."""
    body = {"content": {"application/json": {
        "schema": {"type": "object", "properties": {"name": {"type": "string"}}},
        "example": {"name": "Rex"}}}}
    spec = document({"/pets": {"post": operation("makePet") | {"requestBody": body}},
                     "/toys": {"get": operation("listToys")}})
    tools = deferred_tools(httpllm.compile(spec, "claude", strict=True), always=[])
    for tool in tools[1:]:
        _checked(anthropic_types.ToolParam, tool)
        assert tool["strict"] is True and tool["defer_loading"] is True
    assert any("input_examples" in tool for tool in tools[1:])


def test_regex_search_and_always_override() -> None:
    """search="regex" picks the regex tool; always=[...] replaces the rule; [] defers all."""
    app = httpllm.compile(_api(), "claude")
    tools = deferred_tools(app, always=["meta"], search="regex")
    _checked(anthropic_types.ToolSearchToolRegex20251119Param, tools[0])
    assert [t["name"] for t in tools[1:] if not t.get("defer_loading")] == ["meta"]
    none = app.deferred_tools(always=[])
    assert all(t.get("defer_loading") for t in none[1:])
    with pytest.raises(UnknownFunction, match="nope"):
        deferred_tools(app, always=["nope"])


def test_openai_namespaces_hold_fewer_than_ten_deferred_functions() -> None:
    """OpenAI: tool_search, the loaded functions, then namespaces by tag of at most 9."""
    app = httpllm.compile(_api(), "chatgpt")
    tools = deferred_tools(app)
    TypeAdapter(list[responses.ToolParam]).validate_python(tools)
    _checked(responses.ToolSearchToolParam, tools[0])
    namespaces = [t for t in tools if t["type"] == "namespace"]
    loaded = [t for t in tools if t["type"] == "function"]
    assert [t["name"] for t in loaded] == ["users_list0", "users_list1", "users_list2"]
    for tool in loaded:
        _checked(responses.FunctionToolParam, tool)
        assert "defer_loading" not in tool
    for namespace in namespaces:
        _checked(responses.NamespaceToolParam, namespace)
        assert 0 < len(namespace["tools"]) <= NAMESPACE_MAX
        assert all(t["defer_loading"] is True for t in namespace["tools"])
    assert [n["name"] for n in namespaces] == ["issues", "issues_2", "issues_3", "meta"]
    inside = [t["name"] for n in namespaces for t in n["tools"]]
    assert sorted(inside + [t["name"] for t in loaded]) == sorted(f.name for f in app.functions)


def test_openai_without_namespaces_defers_top_level_functions() -> None:
    """namespaces=False sends deferred functions at the top level (Responses shape)."""
    app = httpllm.compile(PETSTORE, "chatgpt", strict=True)
    tools = deferred_tools(app, namespaces=False, always=["listPets"])
    TypeAdapter(list[responses.ToolParam]).validate_python(tools)
    for tool in tools[1:]:
        _checked(responses.FunctionToolParam, tool)
    assert [(t["name"], t.get("defer_loading", False), t["strict"]) for t in tools[1:]] == [
        ("listPets", False, True), ("createPet", True, True), ("getPet", True, True),
        ("deletePet", True, True)]


def test_a_provider_without_native_deferred_loading_is_refused() -> None:
    """Gemini (and every dialect without tool search) raises DialectError."""
    with pytest.raises(DialectError, match="no native deferred loading"):
        deferred_tools(httpllm.compile(PETSTORE, "gemini"))
    with pytest.raises(DialectError):
        deferred_tools(httpllm.compile(PETSTORE, "bedrock"))


def test_upfront_keeps_what_the_model_sees_before_a_search() -> None:
    """Anthropic deferred tools vanish; OpenAI namespaces and deferred functions keep only
    their name and description."""
    app = httpllm.compile(_api(), "claude")
    seen = upfront(deferred_tools(app))
    assert [t["name"] for t in seen] == ["tool_search_tool_bm25", "users_list0",
                                         "users_list1", "users_list2"]
    openai_app = httpllm.compile(_api(), "chatgpt")
    namespaced = upfront(deferred_tools(openai_app))
    assert {tuple(sorted(t)) for t in namespaced if t["type"] == "namespace"} == {
        ("description", "name", "type")}
    flat = upfront(deferred_tools(openai_app, namespaces=False, always=[]))
    assert all(set(t) == {"type", "name", "description"} for t in flat[1:])
