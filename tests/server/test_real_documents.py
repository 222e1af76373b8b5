"""Real vendor documents served over MCP: every compiled operation is listed through the
SDK's client, and each listed tool passes the SDK's own `Tool` model."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

import httpllm

DOCUMENTS = ("1password/spec.yaml", "ably/control-v1.yaml", "resend/resend.yaml",
             "figma/openapi.yaml", "paypal/checkout_orders_v2.json")
LIMIT = 120.0
"""Seconds a listing may take (a bound, not a measurement)."""


@pytest.mark.anyio
@pytest.mark.parametrize("name", DOCUMENTS)
async def test_real_document_lists_valid_tools(specs_dir: Path, name: str) -> None:
    """Each compiled operation is listed once, as a valid MCP Tool with its annotations."""
    import mcp_types as types
    from mcp.client._memory import InMemoryTransport
    from mcp.client.session import ClientSession

    from httpllm.server.tools import lists_output
    app = httpllm.compile(specs_dir / "real" / name, "mcp")
    assert app.functions
    with anyio.fail_after(LIMIT):
        async with InMemoryTransport(httpllm.mcp_server(app)) as (read, write), \
                ClientSession(read, write) as session:
            await session.initialize()
            listed, cursor = [], None
            while True:  # as a host does: page by page (Figma's listing is over 1 MiB)
                page = await session.list_tools(
                    params=types.PaginatedRequestParams(cursor=cursor))
                listed.extend(page.tools)
                if (cursor := page.next_cursor) is None:
                    break
    assert [tool.name for tool in listed] == [f.name for f in app.functions]
    for tool, function in zip(listed, app.functions, strict=True):
        again = types.Tool.model_validate(tool.model_dump(by_alias=True, exclude_none=True))
        assert again.input_schema == function.parameters
        assert again.annotations is not None and again.annotations.open_world_hint is True
        assert again.annotations.read_only_hint is (function.method in {"get", "head"})
        assert (again.output_schema is not None) is lists_output(function)
