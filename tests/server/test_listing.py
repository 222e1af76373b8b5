"""``tools/list`` in pages: every tool once, in order, no page over ``max_page_bytes``, a
tool larger than a page alone in its own, and a cursor the server did not give refused
with ``-32602`` — through the Python SDK client in both protocol eras."""

from __future__ import annotations

import base64
import json
import subprocess
import sys
from typing import TYPE_CHECKING, Any

import anyio
import pytest
from upstream import document

import httpllm
from httpllm.errors import OptionError

if TYPE_CHECKING:
    import mcp_types as types

    from httpllm.server import ServedTool

LIMIT = 60.0
"""Seconds one conversation may take (a bound, not a measurement)."""

ERAS = ("legacy", "2026-07-28")
"""``Client`` modes: the 2025-11-25 ``initialize`` handshake, and 2026-07-28."""

pytestmark = pytest.mark.anyio


def tool(name: str, size: int) -> ServedTool:
    """A tool whose JSON is about ``size`` bytes (a long description)."""
    from httpllm.server import ServedTool
    return ServedTool(tool={"name": name, "description": "x" * size,
                            "inputSchema": {"type": "object"}}, handler=None)


def server(tools: list[ServedTool], **options: Any) -> Any:
    return httpllm.mcp_server(document("http://127.0.0.1:9"), tools=tools, **options)


async def pages(target: Any, era: str, cache: bool = True) -> list[types.ListToolsResult]:
    """Every page a host that follows ``nextCursor`` gets."""
    from mcp import Client
    out = []
    with anyio.fail_after(LIMIT):
        async with Client(target, mode=era, **({} if cache else {"cache": None})) as client:
            cursor = None
            while True:
                page = await client.list_tools(cursor=cursor)
                out.append(page)
                if (cursor := page.next_cursor) is None:
                    return out


def wire_bytes(page: types.ListToolsResult) -> int:
    """Bytes of a page as the server writes it, with the longest envelope it may carry."""
    return len(json.dumps({"jsonrpc": "2.0", "id": 2**53, "result": page.model_dump(
        by_alias=True, exclude_none=True, mode="json")}, separators=(",", ":")))


@pytest.mark.parametrize("era", ERAS)
async def test_a_host_following_cursors_gets_every_tool_once_in_order(era: str) -> None:
    """300 tools of about 10 KB in 256 KiB pages: several pages, each within its bound,
    together every tool once and in order."""
    tools = [tool(f"t{i:03d}", 10_000 + 37 * i) for i in range(300)]
    got = await pages(server(tools, max_page_bytes=256 * 1024), era)
    assert len(got) > 10
    assert [t.name for page in got for t in page.tools] == [t.name for t in tools]
    assert max(wire_bytes(page) for page in got) <= 256 * 1024
    assert all(page.next_cursor for page in got[:-1]) and got[-1].next_cursor is None


@pytest.mark.parametrize("era", ERAS)
async def test_a_tool_larger_than_a_page_is_a_page_of_its_own(era: str) -> None:
    """A 50 KB tool among small ones in 16 KiB pages comes alone, between full pages."""
    tools = [tool(f"s{i}", 3_000) for i in range(8)]
    tools.insert(4, tool("huge", 50_000))
    got = await pages(server(tools, max_page_bytes=16 * 1024), era)
    assert [[t.name for t in page.tools] for page in got] == [
        ["s0", "s1", "s2", "s3"], ["huge"], ["s4", "s5", "s6", "s7"]]


@pytest.mark.parametrize("era", ERAS)
async def test_default_pages_hold_github_in_1_mib(era: str) -> None:
    """1,223 tools of 2 to 23 KB (GitHub's sizes without output schemas) list in pages of at
    most 1 MiB; the 2026-07-28 era carries the cache hints on each."""
    from httpllm.server import DEFAULT_MAX_PAGE_BYTES
    tools = [tool(f"op{i:04d}", 1_500 + (i * 7919) % 21_000) for i in range(1223)]
    got = await pages(server(tools), era)
    assert len(got) >= 8
    assert max(wire_bytes(page) for page in got) <= DEFAULT_MAX_PAGE_BYTES
    assert sum(len(page.tools) for page in got) == 1223
    if era != "legacy":
        assert {(page.ttl_ms, page.cache_scope) for page in got} == {(3_600_000, "public")}


@pytest.mark.parametrize("era", ERAS)
async def test_one_page_when_paging_is_off(era: str) -> None:
    """``max_page_bytes=0`` lists everything at once, however large."""
    tools = [tool(f"t{i}", 20_000) for i in range(100)]
    got = await pages(server(tools, max_page_bytes=0), era)
    assert len(got) == 1 and len(got[0].tools) == 100


@pytest.mark.parametrize("era", ERAS)
@pytest.mark.parametrize("cursor", ["", "bogus", "MTA6MDAwMDAwMDAwMDAwMDAwMA",
                                    "é", "MDox", "-1"])
async def test_a_cursor_the_server_did_not_give_is_invalid_params(era: str,
                                                                   cursor: str) -> None:
    """A made-up, foreign or out-of-range cursor is JSON-RPC -32602, not a silent page."""
    import mcp_types as types
    from mcp import Client
    from mcp.shared.exceptions import MCPError
    tools = [tool(f"t{i}", 2_000) for i in range(10)]
    with anyio.fail_after(LIMIT):
        async with Client(server(tools, max_page_bytes=4096), mode=era,
                          cache=None) as client:
            first = await client.list_tools()
            assert first.next_cursor is not None
            with pytest.raises(MCPError) as caught:
                await client.list_tools(cursor=cursor)
    assert caught.value.code == types.INVALID_PARAMS
    assert "cursor" in caught.value.message.lower()


@pytest.mark.parametrize("era", ERAS)
async def test_a_cursor_of_a_huge_index_is_invalid_params(era: str) -> None:
    """A cursor forged from a real one (its digest) with an index of 5,000 digits is
    -32602: ``int()`` refused the digits (Python's 4,300-digit limit) and the client got
    error 0 with Python's own message, the server a traceback."""
    import mcp_types as types
    from mcp import Client
    from mcp.shared.exceptions import MCPError
    tools = [tool(f"t{i}", 2_000) for i in range(10)]
    with anyio.fail_after(LIMIT):
        async with Client(server(tools, max_page_bytes=4096), mode=era,
                          cache=None) as client:
            given = (await client.list_tools()).next_cursor
            assert given is not None
            digest = base64.urlsafe_b64decode(given + "==").decode().split(":")[1]
            forged = base64.urlsafe_b64encode(f"1{'0' * 5_000}:{digest}".encode()).decode()
            with pytest.raises(MCPError) as caught:
                await client.list_tools(cursor=forged)
    assert caught.value.code == types.INVALID_PARAMS
    assert "cursor" in caught.value.message.lower()


async def test_a_cursor_from_another_listing_is_refused() -> None:
    """A cursor one server gave is refused by a server listing other tools."""
    import mcp_types as types
    from mcp import Client
    from mcp.shared.exceptions import MCPError
    one = [tool(f"a{i}", 2_000) for i in range(10)]
    other = [tool(f"b{i}", 2_000) for i in range(10)]
    async with Client(server(one, max_page_bytes=4096), mode="legacy") as client:
        cursor = (await client.list_tools()).next_cursor
    assert cursor is not None
    async with Client(server(other, max_page_bytes=4096), mode="legacy") as client:
        with pytest.raises(MCPError) as caught:
            await client.list_tools(cursor=cursor)
    assert caught.value.code == types.INVALID_PARAMS


async def test_two_servers_of_one_document_accept_each_others_cursors() -> None:
    """Pages come out the same from any process serving the same tools (stateless workers
    behind a load balancer)."""
    from mcp import Client
    tools = [tool(f"t{i}", 2_000) for i in range(10)]
    async with Client(server(tools, max_page_bytes=4096), mode="legacy") as client:
        first = await client.list_tools()
    async with Client(server(tools, max_page_bytes=4096), mode="legacy") as client:
        second = await client.list_tools(cursor=first.next_cursor)
    assert second.tools[0].name == f"t{len(first.tools)}"


def test_page_sizes_count_escaped_characters() -> None:
    """A tool's size is its JSON with non-ASCII escaped (the longest form written)."""
    from httpllm.server import DEFAULT_MAX_PAGE_BYTES
    from httpllm.server.listing import Listing
    listing = Listing.of([{"name": "é" * 10}], max_page_bytes=DEFAULT_MAX_PAGE_BYTES)
    assert listing.sizes == (len('{"name":""}') + 60,)


def test_tools_escaping_a_surrogate_are_named() -> None:
    """The listing names each tool whose JSON escapes a surrogate code point (a character
    past U+FFFF, a lone surrogate, or text that only looks like one's escape): the server
    looks closer at those alone."""
    from httpllm.server.listing import Listing
    tools = [{"name": "plain", "description": "é"}, {"name": "smile", "description": "\U0001f600"},
             {"name": "lone", "description": "x\ud800"}, {"name": "text", "description": "\\udc00"},
             {"name": "bmp", "description": "\ufffd\ud7ff"}]
    assert Listing.of(tools, max_page_bytes=0).surrogates == (1, 2, 3)


def test_page_room_leaves_the_envelope() -> None:
    """Tools fill a page up to the bound less the envelope, never past it."""
    from httpllm.server.listing import ENVELOPE_BYTES, Listing
    small = {"name": "t", "description": "x" * 1_000}
    size = len(json.dumps(small, separators=(",", ":")))
    listing = Listing.of([small] * 10, max_page_bytes=ENVELOPE_BYTES + 3 * size + 2)
    assert len(listing.page(None)["tools"]) == 3
    listing = Listing.of([small] * 10, max_page_bytes=ENVELOPE_BYTES + 3 * size + 1)
    assert len(listing.page(None)["tools"]) == 2


def test_too_small_a_page_is_an_option_error() -> None:
    """A page size that cannot hold the envelope and a tool is refused up front."""
    from httpllm.server import MIN_PAGE_BYTES
    for size in (-1, 1, MIN_PAGE_BYTES - 1):
        with pytest.raises(OptionError) as caught:
            httpllm.mcp_server(document("http://127.0.0.1:9"), max_page_bytes=size)
        assert caught.value.option == "max_page_bytes"


@pytest.mark.slow
def test_cli_refuses_too_small_a_page_in_one_line() -> None:
    """``serve --max-page-bytes 100`` is one line naming the flag, no traceback."""
    run = subprocess.run([sys.executable, "-m", "httpllm", "serve", "specs/petstore-3.0.yaml",
                          "--max-page-bytes", "100"], capture_output=True, text=True,
                         timeout=LIMIT, check=False, cwd=_repository())
    assert run.returncode != 0
    assert "--max-page-bytes 100" in run.stderr and "Traceback" not in run.stderr
    assert len(run.stderr.strip().splitlines()) == 1


def _repository() -> str:
    from pathlib import Path

    return str(Path(__file__).resolve().parents[2])
