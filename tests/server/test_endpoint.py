"""The streamable-HTTP endpoint's protocol rules and options, on loopback with the SDK's
client and raw httpx: no response to a cancelled request, `ping` in every era, JSON
responses instead of SSE, stateless serving."""

from __future__ import annotations

import json
from typing import Any

import anyio
import httpx
import pytest
from serving import Held, held_document, served
from upstream import document

import httpllm

pytestmark = pytest.mark.anyio

LIMIT = 60.0
"""Seconds one test may take (a bound, not a measurement)."""
LEGACY = {"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-11-25"}
MODERN_META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
               "io.modelcontextprotocol/clientCapabilities": {}}


def messages(response: httpx.Response) -> list[Any]:
    """The JSON-RPC messages of an answer, SSE or JSON."""
    if response.headers.get("content-type", "").startswith("text/event-stream"):
        return [json.loads(line[5:]) for line in response.text.splitlines()
                if line.startswith("data:") and line[5:].strip()]
    return [response.json()] if response.content else []


async def opened(client: httpx.AsyncClient, url: str) -> dict[str, str]:
    """Initialize a session; the headers its requests carry."""
    answer = await client.post(url, headers=LEGACY, json={
        "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "raw", "version": "1"}}})
    headers = {**LEGACY, "Mcp-Session-Id": answer.headers["mcp-session-id"]}
    await client.post(url, headers=headers,
                      json={"jsonrpc": "2.0", "method": "notifications/initialized"})
    return headers


@pytest.mark.parametrize("json_response", [False, True], ids=["sse", "json"])
async def test_a_cancelled_request_gets_no_response(json_response: bool) -> None:
    """`notifications/cancelled` for a call in flight: the call's stream ends with no
    JSON-RPC message for it (JSON mode: 202, no body), the next call is answered."""
    from httpllm.server import http_app
    held = Held()
    with served(held.app) as up:
        server = httpllm.mcp_server(held_document(up))
        with served(http_app(server, json_response=json_response)) as base, \
                anyio.fail_after(LIMIT):
            url = f"{base}/mcp"
            async with httpx.AsyncClient(timeout=LIMIT) as client:
                headers = await opened(client, url)
                answers: list[httpx.Response] = []

                async def call() -> None:
                    answers.append(await client.post(url, headers=headers, json={
                        "jsonrpc": "2.0", "id": 7, "method": "tools/call",
                        "params": {"name": "slowCall", "arguments": {}}}))

                async with anyio.create_task_group() as group:
                    group.start_soon(call)
                    while not held.waiting:
                        await anyio.sleep(0.01)
                    cancel = await client.post(url, headers=headers, json={
                        "jsonrpc": "2.0", "method": "notifications/cancelled",
                        "params": {"requestId": 7, "reason": "the user stopped it"}})
                next_call = await client.post(url, headers=headers, json={
                    "jsonrpc": "2.0", "id": 8, "method": "tools/call",
                    "params": {"name": "fastCall", "arguments": {}}})
        held.release.set()
    (answer,) = answers
    assert cancel.status_code == 202
    assert [m for m in messages(answer) if m.get("id") == 7] == []
    if json_response:
        assert answer.status_code == 202 and answer.content == b""
    assert [m["result"]["structuredContent"] for m in messages(next_call)] == [{"fast": True}]


async def test_ping_is_answered_in_every_era(upstream: str) -> None:
    """`ping` gets an empty result from a handshake-era session, from a raw 2026-07-28
    request and from the SDK's 2026-07-28 client (the era that removed it)."""
    from mcp import Client
    from mcp.client.session import ClientSession
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client
    from mcp.shared.exceptions import MCPDeprecationWarning

    from httpllm.server import http_app
    server = httpllm.mcp_server(document(upstream))
    with served(http_app(server)) as base, anyio.fail_after(LIMIT):
        url = f"{base}/mcp"
        async with create_mcp_http_client() as client, \
                streamable_http_client(url, http_client=client) as (read, write), \
                ClientSession(read, write) as session:
            await session.initialize()
            legacy = await session.send_ping()
        async with httpx.AsyncClient(timeout=LIMIT) as raw:
            modern = await raw.post(url, headers={
                "Accept": "application/json, text/event-stream",
                "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "ping"},
                json={"jsonrpc": "2.0", "id": 3, "method": "ping",
                      "params": {"_meta": MODERN_META}})
        async with create_mcp_http_client() as client, \
                Client(streamable_http_client(url, http_client=client)) as sdk:
            version = sdk.session.protocol_version
            with pytest.warns(MCPDeprecationWarning):
                await sdk.send_ping()
            listed = await sdk.list_tools()
    assert legacy.model_dump(exclude_none=True) == {}
    assert modern.status_code == 200
    assert modern.json()["result"] == {"resultType": "complete"}
    assert version == "2026-07-28" and listed.tools


async def test_json_response_answers_one_json_object(upstream: str) -> None:
    """With `json_response`, each request is answered with `application/json`, and the
    SDK's client lists and calls as over SSE."""
    from mcp.client.session import ClientSession
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    from httpllm.server import http_app
    server = httpllm.mcp_server(document(upstream))
    with served(http_app(server, json_response=True)) as base, anyio.fail_after(LIMIT):
        url = f"{base}/mcp"
        async with httpx.AsyncClient(timeout=LIMIT) as raw:
            headers = await opened(raw, url)
            listing = await raw.post(url, headers=headers, json={
                "jsonrpc": "2.0", "id": 2, "method": "tools/list"})
        async with create_mcp_http_client() as client, \
                streamable_http_client(url, http_client=client) as (read, write), \
                ClientSession(read, write) as session:
            await session.initialize()
            result = await session.call_tool("getItem", {"item_id": "j"})
    assert listing.headers["content-type"].startswith("application/json")
    assert listing.json()["result"]["tools"]
    assert result.structured_content == {"id": "j"}


async def test_stateless_serves_every_request_on_its_own(upstream: str) -> None:
    """With `stateless`, `initialize` opens no session and a call with no session id is
    answered; the SDK's client works unchanged."""
    from mcp.client.session import ClientSession
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    from httpllm.server import http_app
    server = httpllm.mcp_server(document(upstream))
    with served(http_app(server, stateless=True)) as base, anyio.fail_after(LIMIT):
        url = f"{base}/mcp"
        async with httpx.AsyncClient(timeout=LIMIT) as raw:
            init = await raw.post(url, headers=LEGACY, json={
                "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                    "protocolVersion": "2025-11-25", "capabilities": {},
                    "clientInfo": {"name": "raw", "version": "1"}}})
            call = await raw.post(url, headers=LEGACY, json={
                "jsonrpc": "2.0", "id": 2, "method": "tools/call",
                "params": {"name": "getItem", "arguments": {"item_id": "s"}}})
        async with create_mcp_http_client() as client, \
                streamable_http_client(url, http_client=client) as (read, write), \
                ClientSession(read, write) as session:
            await session.initialize()
            result = await session.call_tool("getItem", {"item_id": "t"})
    assert init.status_code == 200 and "mcp-session-id" not in init.headers
    assert [m["result"]["structuredContent"] for m in messages(call)] == [{"id": "s"}]
    assert result.structured_content == {"id": "t"}
