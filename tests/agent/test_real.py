"""A real document (1Password Connect, from the shared corpus) through handle for each
provider: the calls become the documented requests, with the host's bearer token."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import httpllm

from .providers import PROVIDERS, Call

TOKEN = "eyJhbGciOiJFUzI1NiJ9.connect-token"
VAULT = "abcdefghijklmnopqrstuvwxyz"
CALLS: list[Call] = [
    ("c1", "GetVaultItems", {"vaultUuid": VAULT, "filter": 'title eq "Router"'}),
    ("c2", "GetVaultById", {"vaultUuid": "not-a-vault"}),
]


@pytest.mark.parametrize("name", ["chatgpt-strict", "responses", "claude", "gemini",
                                  "bedrock", "mistral", "ollama"])
def test_one_password_connect(name: str, specs_dir: Path, live_server: str) -> None:
    """The valid call is sent as documented, the one against the uuid pattern is refused."""
    provider = PROVIDERS[name]
    app = httpllm.compile(specs_dir / "real" / "1password" / "spec.yaml",
                          provider=provider.provider, **provider.options)
    messages = app.handle(provider.build(CALLS), auth={"ConnectToken": TOKEN},
                          base_url=live_server)
    (_, _, listed, _), (_, _, refused, _) = provider.read(messages)
    seen = json.loads(listed)
    assert (seen["raw_path"], seen["query_string"]) == (
        f"/vaults/{VAULT}/items", "filter=title%20eq%20%22Router%22")
    assert ["authorization", "Bearer [redacted]"] in seen["headers"]
    assert TOKEN not in listed and "vaultUuid" in refused and "nothing was sent" in refused
