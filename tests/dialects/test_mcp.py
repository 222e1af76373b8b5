"""The `mcp` dialect: `tools/list` Tools, output schemas, annotations, the corpus."""

from __future__ import annotations

import json
from typing import Any

import pytest
from checkers import mcp as mcp_checker
from sweep import assert_clean
from toolkit import CONSTRAINED, FOLDER, doc

import httpllm
from httpllm.dialects.mcp import RESULT, hints, output_schema


def with_output(schema: Any, method: str = "post") -> dict[str, Any]:
    """One operation whose 200 response is `schema` (JSON)."""
    source = doc(CONSTRAINED, components={"Folder": FOLDER})
    operation = source["paths"]["/r0"].pop("post")
    operation["responses"]["200"]["content"] = {"application/json": {"schema": schema}}
    source["paths"]["/r0"][method] = operation
    return source


def tool_of(source: dict[str, Any], **options: Any) -> Any:
    app = httpllm.compile(source, "mcp", **options)
    (tool,) = app.tools()
    return app, tool


def test_tool_passes_both_protocol_revisions() -> None:
    """A Tool passes the schema-exact models of 2025-11-25 and 2026-07-28 and SEP-986."""
    app, tool = tool_of(with_output({"type": "object", "properties": {"id": {"type": "string"}}}))
    assert set(mcp_checker.tool_models()) == {"2025-11-25", "2026-07-28"}
    assert list(tool) == ["name", "description", "inputSchema", "outputSchema", "annotations"]
    assert tool["inputSchema"]["type"] == "object"
    assert mcp_checker.check(tool) == []
    assert tool["outputSchema"] == app.functions[0].output


def test_constraints_and_defs_are_kept() -> None:
    """Every keyword stays; a recursive schema stays under `$defs` (no loss)."""
    app, tool = tool_of(doc({"$ref": "#/components/schemas/Folder"},
                            components={"Folder": FOLDER}))
    assert tool["inputSchema"]["properties"]["body"] == {"$ref": "#/$defs/Folder"}
    assert "Folder" in tool["inputSchema"]["$defs"]
    assert app.losses == ()
    _, tool = tool_of(doc(CONSTRAINED))
    assert tool["inputSchema"]["properties"]["body"]["properties"]["name"]["minLength"] == 1


@pytest.mark.parametrize("provider", ["mcp", "3.1"])
def test_keys_outside_json_schema_are_dropped_with_a_loss(provider: str, tmp_path: Any) -> None:
    """Only JSON Schema 2020-12's keywords reach the tools (mcp: inputs and outputs; 3.1:
    parameters): a typo
    (`max_items`) or the keys a schema file a `$ref` inlined holds beside its keywords
    (a vendor's object, `logging: {format: json}`; a settings file whose `format: json`
    passed the content rule put its API key into the tools the model reads, and a text
    under a key of neither vocabulary into the loss report: such a file is now refused,
    tests/test_refs.py). Each dropped key is a loss; the schema's own keywords stay."""
    (tmp_path / "config.yaml").write_text("type: object\nlogging: {format: json}\n")
    body = {"type": "object", "properties": {
        "x": {"$ref": "config.yaml"}, "tags": {"type": "array", "max_items": 3}}}
    source = doc(body)
    source["paths"]["/r0"]["post"]["responses"]["200"]["content"] = {
        "application/json": {"schema": body}}
    (tmp_path / "api.json").write_text(json.dumps(source))
    app = httpllm.compile(tmp_path / "api.json", provider)
    # 3.1's output is the emended schema as it is (not rendered: 7 MB of GitHub's)
    shown = json.dumps(app.tools() if provider == "mcp" else app.functions[0].parameters)
    assert "max_items" not in shown and '"format": "json"' not in shown
    dropped = {(loss.keyword, loss.action) for loss in app.losses}
    assert {("logging", "dropped"), ("max_items", "dropped")} <= dropped
    assert '"type": "array"' in shown


@pytest.mark.parametrize("schema", [
    {"type": "array", "items": {"type": "string"}},
    {"type": "string"},
    {"anyOf": [{"type": "object"}, {"type": "null"}]},
], ids=["array", "string", "union"])
def test_non_object_output_is_wrapped_under_result(schema: dict[str, Any]) -> None:
    """Outputs that are not `type: object` are wrapped as `{result: ...}`, with a loss."""
    app, tool = tool_of(with_output(schema))
    assert tool["outputSchema"] == {"type": "object", "properties": {RESULT: schema},
                                    "required": [RESULT]}
    (loss,) = app.functions[0].losses
    assert (loss.keyword, loss.action) == ("outputSchema", "rewritten")
    assert mcp_checker.check(tool) == []


def test_wrapped_output_hoists_its_defs() -> None:
    """A recursive output keeps its `$defs` at the wrapper's root, so refs still resolve."""
    _, tool = tool_of(with_output({"type": "array",
                                   "items": {"$ref": "#/components/schemas/Folder"}}))
    out = tool["outputSchema"]
    assert out["properties"][RESULT] == {"type": "array", "items": {"$ref": "#/$defs/Folder"}}
    assert "Folder" in out["$defs"]
    assert mcp_checker.check(tool) == []


def test_output_schema_helper_is_identity_for_objects() -> None:
    """An object output schema is returned as it is (same object, not wrapped)."""
    schema = {"type": "object", "properties": {}}
    assert output_schema(schema) == (schema, False)
    assert output_schema(schema)[0] is schema


def test_no_response_schema_no_output_schema() -> None:
    """An operation without a JSON success body has no `outputSchema`."""
    _, tool = tool_of(doc(CONSTRAINED))
    assert "outputSchema" not in tool


@pytest.mark.parametrize(("method", "expected"), [
    ("get", {"readOnlyHint": True, "openWorldHint": True}),
    ("put", {"readOnlyHint": False, "idempotentHint": True, "openWorldHint": True}),
    ("delete", {"readOnlyHint": False, "idempotentHint": True, "openWorldHint": True}),
    ("post", {"readOnlyHint": False, "idempotentHint": False, "openWorldHint": True}),
    ("patch", {"readOnlyHint": False, "idempotentHint": False, "openWorldHint": True}),
])
def test_annotations_follow_http_method_semantics(method: str, expected: dict[str, bool]) -> None:
    """Safe methods are read-only, PUT and DELETE idempotent (RFC 9110 section 9.2)."""
    assert hints(method) == expected
    _, tool = tool_of(with_output({"type": "object"}, method=method))
    assert tool["annotations"] == expected


@pytest.mark.corpus
@pytest.mark.parametrize("mode", ["mcp"])
def test_corpus(mode: str) -> None:
    """Every tool of every real document passes the MCP models of both revisions."""
    assert_clean(mode)


def test_argument_names_claude_clients_refuse_are_renamed() -> None:
    """MCP allows any key, but Claude's clients forward the tools to the Messages API,
    which refuses the whole list for one key outside ^[a-zA-Z0-9_.-]{1,64}$: the mcp
    dialect renames such arguments as Claude's does, and the request keeps the original."""
    import httpllm
    from httpllm.execute import build_request

    doc = {"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
           "servers": [{"url": "https://api.example.com"}],
           "paths": {"/items": {"get": {"operationId": "list", "parameters": [
               {"name": "filter[status]", "in": "query", "schema": {"type": "string"}}],
               "responses": {"200": {"description": "ok"}}}}}}
    app = httpllm.compile(doc, "mcp")
    (tool,) = app.tools()
    assert list(tool["inputSchema"]["properties"]) == ["filter_status"]
    request = build_request(app.function("list"), {"filter_status": "sold"})
    assert "filter%5Bstatus%5D=sold" in str(request.url)


def test_a_large_output_schema_is_bounded_with_a_loss_and_a_note() -> None:
    """An output schema past `OUTPUT_MAX` bytes is cut (a `cut` loss, a sentence in its
    description); what the tool lists is `Function.output`, which answers are checked
    against."""
    import json

    from httpllm.dialects.mcp import OUTPUT_MAX

    text = "words " * 200
    item = {"type": "object", "description": "An item. More.", "properties": {
        f"f{i}": {"type": "object", "description": text, "properties": {
            "g": {"type": "string", "description": text}}} for i in range(40)}}
    doc = {"openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "paths": {"/x": {
        "get": {"operationId": "list", "responses": {"200": {"description": "ok",
            "content": {"application/json": {"schema": {"type": "array",
                                                        "items": item}}}}}}}}}
    app = httpllm.compile(doc, "mcp")
    (function,) = app.functions
    (tool,) = app.tools()
    size = len(json.dumps(tool["outputSchema"], separators=(",", ":")).encode())
    assert size <= OUTPUT_MAX + 200  # the result wrapper and the note
    assert [x.keyword for x in function.losses if x.action == "cut"] == ["outputSchema"]
    assert "Schema shortened" in tool["outputSchema"]["properties"]["result"]["description"]
