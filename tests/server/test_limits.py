"""What one client may hold: sessions (a flood of them ends its own idle ones, never fills
the table) and upstream calls in flight (one user's slow calls never hold up another's).
Attacks run on loopback against a real uvicorn server with the SDK's client and raw
httpx; `Limits` and `Slots` on their own too."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING

import anyio
import httpx
import pytest
from serving import Held, held_document, served
from upstream import document

import httpllm

if TYPE_CHECKING:
    from mcp.client.session import ClientSession

LIMIT = 60.0
"""Seconds one test may take (a bound, not a measurement)."""
HEADERS = {"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-11-25"}


def initialize(url: str) -> httpx.Response:
    return httpx.post(url, timeout=LIMIT, headers=HEADERS, json={
        "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "flood", "version": "1"}}})


def listing(url: str, session: str) -> int:
    """The status of a ``tools/list`` in ``session``."""
    return httpx.post(url, timeout=LIMIT, headers={**HEADERS, "Mcp-Session-Id": session},
                      json={"jsonrpc": "2.0", "id": 2, "method": "tools/list"}).status_code


@asynccontextmanager
async def session_at(url: str) -> AsyncIterator[ClientSession]:
    from mcp.client.session import ClientSession
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client
    async with create_mcp_http_client() as client, \
            streamable_http_client(url, http_client=client) as (read, write), \
            ClientSession(read, write) as session:
        await session.initialize()
        yield session


@pytest.mark.slow
def test_a_session_flood_never_fills_the_table(upstream: str) -> None:
    """One client opening sessions without ending them (16, past the table's 8) keeps only
    its share: its least recently used idle ones end (404), nobody gets 503, and a newcomer
    from the same address gets in."""
    from httpllm.server import Limits, http_app
    server = httpllm.mcp_server(document(upstream),
                                limits=Limits(sessions=8, sessions_per_client=3))
    with served(http_app(server)) as base:
        url = f"{base}/mcp"
        flood = [initialize(url) for _ in range(16)]
        newcomer = initialize(url)
        sessions = [r.headers["mcp-session-id"] for r in flood]
        alive = [listing(url, s) for s in sessions]
    assert [r.status_code for r in flood] == [200] * 16 and newcomer.status_code == 200
    assert alive == [404] * 14 + [200] * 2


@pytest.mark.anyio
async def test_sessions_holding_only_a_notification_stream_make_room(upstream: str) -> None:
    """A flood of sessions that each keep a GET stream open (as the SDK's client does) is
    no lock-out either: at the client's share, the least recently used one ends (its
    stream closes) and the newcomer gets in."""
    from httpllm.server import Limits, http_app
    server = httpllm.mcp_server(document(upstream), limits=Limits(sessions_per_client=3))
    with served(http_app(server)) as base, anyio.fail_after(LIMIT):
        url = f"{base}/mcp"
        async with httpx.AsyncClient(timeout=LIMIT) as client, \
                anyio.create_task_group() as group:
            ended: list[str] = []

            async def listen(session: str) -> None:
                async with client.stream("GET", url, headers={
                        **HEADERS, "Accept": "text/event-stream",
                        "Mcp-Session-Id": session}) as stream:
                    async for _ in stream.aiter_bytes():
                        pass
                ended.append(session)

            sessions = []
            for _ in range(3):
                opened = await anyio.to_thread.run_sync(initialize, url)
                sessions.append(opened.headers["mcp-session-id"])
                group.start_soon(listen, sessions[-1])
            await anyio.sleep(0.3)  # the streams are open
            newcomer = await anyio.to_thread.run_sync(initialize, url)
            while not ended:
                await anyio.sleep(0.01)
            group.cancel_scope.cancel()
    assert newcomer.status_code == 200 and ended == sessions[:1]


@pytest.mark.anyio
async def test_a_client_whose_sessions_are_all_busy_gets_429() -> None:
    """At its share with every session busy, a client's next session is 429 (nothing busy
    is ended); once its calls finish, it gets one."""
    from httpllm.server import Limits, http_app
    held = Held()
    with served(held.app) as up:
        server = httpllm.mcp_server(held_document(up), limits=Limits(sessions_per_client=2))
        with served(http_app(server)) as base, anyio.fail_after(LIMIT):
            url = f"{base}/mcp"
            async with session_at(url) as one, session_at(url) as two, \
                    anyio.create_task_group() as group:
                group.start_soon(one.call_tool, "slowCall", {})
                group.start_soon(two.call_tool, "slowCall", {})
                while held.waiting < 2:
                    await anyio.sleep(0.01)
                refused = await anyio.to_thread.run_sync(initialize, url)
                held.release.set()
            admitted = await anyio.to_thread.run_sync(initialize, url)
    assert refused.status_code == 429 and "Too many sessions" in refused.text
    assert admitted.status_code == 200


@pytest.mark.anyio
async def test_stateless_requests_are_not_counted_as_sessions() -> None:
    """Stateless, a client's concurrent requests are not sessions: five calls in flight
    from one client with a share of two sessions are all served."""
    from httpllm.server import Limits, http_app
    held = Held()
    with served(held.app) as up:
        server = httpllm.mcp_server(held_document(up), limits=Limits(sessions_per_client=2))
        with served(http_app(server, stateless=True)) as base, anyio.fail_after(LIMIT):
            statuses: list[int] = []

            async def call(client: httpx.AsyncClient) -> None:
                answer = await client.post(f"{base}/mcp", headers=HEADERS, json={
                    "jsonrpc": "2.0", "id": 1, "method": "tools/call",
                    "params": {"name": "slowCall", "arguments": {}}})
                statuses.append(answer.status_code)

            async with httpx.AsyncClient(timeout=LIMIT) as client, \
                    anyio.create_task_group() as group:
                for _ in range(5):
                    group.start_soon(call, client)
                while held.waiting < 5:
                    await anyio.sleep(0.01)
                held.release.set()
    assert statuses == [200] * 5


def test_idle_sessions_end(upstream: str) -> None:
    """A session with no request for `session_idle_timeout` seconds is ended (404), and a
    session used more often than that is not.

    Each look is a request, which restarts the session's idle time: the test looks at the
    idle session only after three timeouts of quiet (looking every 0.1 s, as it once did,
    kept it alive for good). The used session is asked every 25 ms; on a machine too
    loaded to keep that pace it may truly sit idle for a timeout, so a 404 there is
    allowed only where the client saw more than the timeout pass between sending one
    request and receiving the next one's answer (the server's idle time lies within that
    span), and the used session is not asked again after it."""
    from httpllm.server import Limits, http_app
    idle = 0.5
    server = httpllm.mcp_server(document(upstream), limits=Limits(session_idle_timeout=idle))
    with served(http_app(server)) as base:
        url = f"{base}/mcp"
        looks, sent = 0, time.monotonic()
        quiet, used = (initialize(url).headers["mcp-session-id"] for _ in range(2))
        unjust: list[float] = []  # spans (s) of 404s on the used session with no idle span
        deadline = time.monotonic() + LIMIT
        while time.monotonic() < deadline:
            end = time.monotonic() + 3 * idle
            while used and time.monotonic() < end:
                before = time.monotonic()
                status = listing(url, used)
                looks += 1
                if status != 200:
                    span = time.monotonic() - sent
                    if status != 404 or span <= idle:
                        unjust.append(span)
                    used = ""  # ended (justly or not): asked no more
                sent = before
                time.sleep(idle / 20)
            if not used:
                time.sleep(3 * idle)
            if listing(url, quiet) == 404:
                break
        assert listing(url, quiet) == 404
        assert looks > 3 and unjust == []


@pytest.mark.anyio
@pytest.mark.slow
async def test_slow_calls_of_one_user_never_hold_up_another() -> None:
    """Two sessions keep 120 slow calls waiting upstream (more than the shared pool's 100
    connections); another session's call still goes out and is answered at once, because
    each session has at most 8 calls in flight. The waiting calls all finish after."""
    from httpllm.server import http_app
    held = Held()
    with served(held.app) as up:
        server = httpllm.mcp_server(held_document(up))
        with served(http_app(server)) as base, anyio.fail_after(LIMIT):
            url = f"{base}/mcp"
            answers: list[bool] = []

            async def hog(session: ClientSession) -> None:
                result = await session.call_tool("slowCall", {})
                answers.append(not result.is_error)

            async with session_at(url) as first, session_at(url) as second, \
                    session_at(url) as victim, anyio.create_task_group() as group:
                for n in range(120):
                    group.start_soon(hog, first if n % 2 else second)
                while held.waiting < 16:
                    await anyio.sleep(0.01)
                await anyio.sleep(0.2)  # time for any more to go out
                at_most = held.waiting
                with anyio.fail_after(10):
                    fast = await victim.call_tool("fastCall", {})
                held.release.set()
    assert at_most == 16
    assert fast.structured_content == {"fast": True}
    assert answers == [True] * 120


@pytest.mark.anyio
async def test_slots_bound_each_key_and_forget_unused_ones() -> None:
    """`Slots(2)` lets two holders per key in at once, queues the third, and keeps no
    record of a key nobody holds."""
    from httpllm.server.limits import Slots
    slots = Slots(2)
    inside: list[int] = []
    release = anyio.Event()

    async def hold(key: str) -> None:
        async with slots.hold(key):
            inside.append(slots.held(key))
            await release.wait()

    with anyio.fail_after(LIMIT):
        async with anyio.create_task_group() as group:
            for key in ("a", "a", "a", "b"):
                group.start_soon(hold, key)
            while len(inside) < 3:
                await anyio.sleep(0.01)
            held_now = (slots.held("a"), slots.held("b"))
            release.set()
    assert held_now == (2, 1) and slots.held("a") == 0 and not slots._keys


def test_limits_refuse_nonsense() -> None:
    """A limit below 1, or a non-positive idle timeout, is a ValueError naming it."""
    from httpllm.server import Limits
    with pytest.raises(ValueError, match="calls_per_session"):
        Limits(calls_per_session=0)
    with pytest.raises(ValueError, match="session_idle_timeout"):
        Limits(session_idle_timeout=0)
