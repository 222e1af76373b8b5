"""Many concurrent calls over streamable HTTP from several sessions, each with its own
credential (loopback only; bounded in count and time)."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import TYPE_CHECKING

import anyio
import pytest
from loopback import running

import httpllm

if TYPE_CHECKING:
    from httpllm.server import Call

SESSIONS = 4
CALLS = 60
"""Calls per session, all in flight at once (240 in all)."""
LIMIT = 120.0
"""Seconds the whole test may take (a bound, not a measurement)."""


def from_header(call: Call) -> dict[str, str]:
    """Each session's upstream token comes from its own `X-User-Token` header."""
    return {"token": call.headers["x-user-token"]} if "x-user-token" in call.headers else {}


async def one_session(url: str, token: str, answers: dict[tuple[str, int], object]) -> None:
    from mcp.client.session import ClientSession
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client
    async with create_mcp_http_client(headers={"X-User-Token": token}) as client, \
            streamable_http_client(url, http_client=client) as (read, write), \
            ClientSession(read, write) as session:
        await session.initialize()

        async def call(n: int) -> None:
            result = await session.call_tool("whoAmI", {"n": n})
            answers[(token, n)] = result.structured_content

        async with anyio.create_task_group() as group:
            for n in range(CALLS):
                group.start_soon(call, n)


@pytest.mark.anyio
@pytest.mark.slow
async def test_concurrent_sessions_never_share_credentials(spec_file: Path) -> None:
    """Every call of every session gets its own answer, made with its session's credential."""
    from httpllm.server import http_app
    server = httpllm.mcp_server(spec_file, auth_hook=from_header)
    tokens = [f"user-{i}-" + hashlib.sha256(str(i).encode()).hexdigest()[:16]
              for i in range(SESSIONS)]
    answers: dict[tuple[str, int], object] = {}
    with running(http_app(server)) as base:
        with anyio.fail_after(LIMIT):
            async with anyio.create_task_group() as group:
                for token in tokens:
                    group.start_soon(one_session, f"{base}/mcp", token, answers)
    assert len(answers) == SESSIONS * CALLS
    for (token, n), answer in answers.items():
        assert answer == {"auth_sha": hashlib.sha256(f"Bearer {token}".encode()).hexdigest(),
                          "n": str(n), "tenant": None}
