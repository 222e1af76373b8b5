"""Compiled functions as MCP tools: title, schemas and annotations."""

from __future__ import annotations

from upstream import document

import httpllm

APP = httpllm.compile(document("http://127.0.0.1:9"), "mcp")


def test_title_is_the_short_first_line() -> None:
    """The first line (the summary) is the title; a long first line is none."""
    from httpllm.server.tools import title_of
    assert title_of("Get one item\n\nMore words.") == "Get one item"
    assert title_of("x" * 200) is None


def test_tool_carries_title_output_schema_and_method_hints() -> None:
    """A GET is read-only with its output schema; a DELETE is destructive and idempotent."""
    from httpllm.server.tools import function_tool
    get = function_tool(APP.function("getItem")).tool
    assert list(get) == ["name", "title", "description", "inputSchema", "outputSchema",
                         "annotations"]
    assert get["annotations"] == {"title": "Get one item", "readOnlyHint": True,
                                  "openWorldHint": True}
    delete = function_tool(APP.function("deleteItem")).tool
    assert delete["annotations"] == {"title": "DELETE /items/{item_id}/delete",
                                     "readOnlyHint": False, "idempotentHint": True,
                                     "openWorldHint": True, "destructiveHint": True}
    assert "outputSchema" not in delete
