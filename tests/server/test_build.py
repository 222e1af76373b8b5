"""`mcp_server`: failures a model can read, never a stack trace or a secret; a pluggable
tool set. Through the SDK's client over its in-memory transport."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

import anyio
import pytest
from upstream import document, free_port

import httpllm

if TYPE_CHECKING:
    import mcp_types as types
    from mcp.client.session import ClientSession

    from httpllm.server import Call

LIMIT = 60.0
"""Seconds one conversation may take (a bound, not a measurement)."""

pytestmark = pytest.mark.anyio


@asynccontextmanager
async def session_with(server: Any) -> AsyncIterator[ClientSession]:
    from mcp.client._memory import InMemoryTransport
    from mcp.client.session import ClientSession
    with anyio.fail_after(LIMIT):
        async with InMemoryTransport(server) as (read, write), \
                ClientSession(read, write) as session:
            await session.initialize()
            yield session


def text(result: types.CallToolResult) -> str:
    import mcp_types as types
    return "\n".join(b.text for b in result.content if isinstance(b, types.TextContent))


async def test_unreachable_api_is_a_readable_error() -> None:
    """An API nobody answers for gives an error naming the server, with no traceback."""
    dead = f"http://127.0.0.1:{free_port()}"
    async with session_with(httpllm.mcp_server(document(dead))) as session:
        result = await session.call_tool("getItem", {"item_id": "a"})
    assert result.is_error
    assert f"GET {dead}/items/a: could not be sent (ConnectError" in text(result)
    assert "Traceback" not in text(result)


async def test_failing_auth_hook_leaks_nothing(caplog: pytest.LogCaptureFixture,
                                               upstream: str) -> None:
    """A hook that fails with a secret in its message: the call is refused, unsent, and
    neither the result nor the log shows the secret."""
    secret = "hunter2-very-secret"

    def hook(call: Call) -> dict[str, str]:
        raise RuntimeError(f"vault said no to {secret}")

    caplog.set_level(logging.DEBUG)
    async with session_with(httpllm.mcp_server(document(upstream), auth_hook=hook)) as session:
        result = await session.call_tool("whoAmI", {})
    assert result.is_error and "RuntimeError" in text(result)
    assert secret not in text(result) and secret not in caplog.text


async def test_tool_set_is_pluggable() -> None:
    """Extra tools are listed next to the functions and may run a function themselves."""
    from httpllm.server import ServedTool, function_tools
    app = httpllm.compile(document("http://127.0.0.1:9"), "mcp")

    async def invoke(arguments: dict[str, Any], call: Call) -> dict[str, Any]:
        assert call.run is not None
        return await call.run(arguments["name"], arguments["arguments"])

    trio = ServedTool(tool={"name": "invoke", "inputSchema": {"type": "object"}},
                      handler=invoke)
    server = httpllm.mcp_server(app, tools=[*function_tools(app), trio])
    async with session_with(server) as session:
        names = [t.name for t in (await session.list_tools()).tools]
        result = await session.call_tool("invoke", {"name": "createItem",
                                                    "arguments": {"body": {"name": ""}}})
    assert names[-1] == "invoke" and "getItem" in names
    assert result.is_error and "Invalid arguments for createItem" in text(result)


async def test_modern_protocol_client_lists_and_calls(upstream: str) -> None:
    """A 2026-07-28 client (the SDK's `Client`) lists the tools and gets answers."""
    from mcp import Client

    with anyio.fail_after(LIMIT):
        async with Client(httpllm.mcp_server(document(upstream))) as client:
            tools = (await client.list_tools()).tools
            found = await client.call_tool("getItem", {"item_id": "q"})
            missing = await client.call_tool("getMissing", {"id": 1})
            version = client.session.protocol_version
    assert version == "2026-07-28"
    assert {t.name for t in tools} >= {"getItem", "getMissing"}
    assert found.structured_content == {"id": "q"} and not found.is_error
    assert missing.is_error and "404 Not Found" in text(missing)


async def test_auto_leaves_output_schemas_out_past_the_budget(
        upstream: str, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    """`output_schemas="auto"` (the default) lists them within `OUTPUT_BUDGET` and none,
    with a log warning, past it; `"on"` lists them anyway."""
    import httpllm.server.tools as served

    async def listed(mode: Any) -> list[Any]:
        server = httpllm.mcp_server(document(upstream), output_schemas=mode)
        async with session_with(server) as session:
            return [t.output_schema for t in (await session.list_tools()).tools]

    assert any(await listed("auto"))
    monkeypatch.setattr(served, "OUTPUT_BUDGET", 10)
    monkeypatch.setattr("httpllm.server.build.OUTPUT_BUDGET", 10)
    with caplog.at_level(logging.WARNING, logger="httpllm.server"):
        assert not any(await listed("auto"))
    assert "output schemas left out" in caplog.text
    assert any(await listed("on"))
    assert not any(await listed("off"))
    with pytest.raises(ValueError, match="'auto', 'on' or 'off'"):
        httpllm.mcp_server(document(upstream), output_schemas="maybe")  # type: ignore[arg-type]


async def test_own_tools_say_nothing_of_output_schemas(
        upstream: str, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    """A server given tools of its own (code mode's two, the discover trio) does not warn
    that the operations' output schemas were left out: its tools list none of them."""
    import httpllm.server.tools as served
    from httpllm.server import function_tools

    monkeypatch.setattr(served, "OUTPUT_BUDGET", 10)
    monkeypatch.setattr("httpllm.server.build.OUTPUT_BUDGET", 10)
    app = httpllm.compile(document(upstream), "mcp")
    with caplog.at_level(logging.WARNING, logger="httpllm.server"):
        httpllm.mcp_server(app, tools=function_tools(app, output_schemas=False)[:1])
        assert "output schemas left out" not in caplog.text
        httpllm.mcp_server(app)
    assert "output schemas left out" in caplog.text


async def test_output_schemas_can_be_left_out(upstream: str) -> None:
    """`output_schemas=False` lists no outputSchema and answers with text only."""
    server = httpllm.mcp_server(document(upstream), output_schemas=False)
    async with session_with(server) as session:
        tools = (await session.list_tools()).tools
        result = await session.call_tool("getItem", {"item_id": "t"})
    assert all(tool.output_schema is None for tool in tools)
    assert result.structured_content is None and text(result) == '{"id":"t"}'
