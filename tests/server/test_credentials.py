"""Credentials and headers per call: the host's, merged with the hook's, never replacing
what a request already has."""

from __future__ import annotations

import base64
from typing import TYPE_CHECKING

import httpx
import pytest

if TYPE_CHECKING:
    from httpllm.server.tools import Call


pytestmark = pytest.mark.anyio


async def test_hook_result_is_merged_over_static_auth() -> None:
    """An async hook's credentials win over the static ones for its call only."""
    from httpllm.server.credentials import Credentials
    from httpllm.server.tools import Call
    async def hook(call: Call) -> dict[str, str]:
        return {"token": call.headers["x-user"]}

    host = Credentials(auth={"token": "static-token", "key": "static-key"}, hook=hook)
    got = await host.resolve(Call(tool="t", headers={"x-user": "user-token-1"}))
    assert got.auth == {"token": "user-token-1", "key": "static-key"}
    assert set(got.secrets) == {"user-token-1", "static-key"}


async def test_forwarded_headers_and_secret_forms() -> None:
    """Named incoming headers are forwarded; every header value the host supplies is a
    secret, whatever the header's name, with the basic and bearer forms."""
    from httpllm.server.credentials import Credentials
    from httpllm.server.tools import Call
    host = Credentials(auth={"basic": ("ann", "pass-word")}, headers={"X-Static": "s"},
                       forward=("Authorization", "X-Tenant", "X-Absent"))
    got = await host.resolve(Call(tool="t", headers={"authorization": "Bearer abcdefgh",
                                                     "x-tenant": "acme"}))
    assert got.headers == {"X-Static": "s", "Authorization": "Bearer abcdefgh",
                           "X-Tenant": "acme"}
    basic = base64.b64encode(b"ann:pass-word").decode().rstrip("=")
    assert {"pass-word", basic, "Bearer abcdefgh", "abcdefgh", "acme", "s"} <= set(
        got.secrets)


async def test_added_headers_never_replace_the_requests_own() -> None:
    """The request hook fills in this call's headers and keeps the request's own."""
    from httpllm.server.credentials import add_headers, forwarding, reset
    request = httpx.Request("GET", "http://127.0.0.1/x",
                            headers={"Authorization": "Bearer placed"})
    token = forwarding({"Authorization": "Bearer forwarded", "X-Tenant": "acme"})
    try:
        await add_headers(request)
    finally:
        reset(token)
    assert request.headers["authorization"] == "Bearer placed"
    assert request.headers["x-tenant"] == "acme"
