"""A small pet API compiled for each provider, and the echo server it is sent to.

The echo server (tests/execute) answers every request with what it received, so a test
sees the exact request a tool call became; its ``x-echo-status`` header, here an optional
header parameter of ``listPets``, makes it answer with that status (an upstream 500).
"""

from __future__ import annotations

from typing import Any

import pytest
from execute.conftest import live_server

import httpllm

__all__ = ["API_KEY", "PETS", "compiled", "live_server"]

API_KEY = "sk-test-0123456789"
"""The credential the host passes; it must never appear in what the model reads."""

PETS: dict[str, Any] = {
    "openapi": "3.1.0",
    "info": {"title": "Pets", "version": "1"},
    "servers": [{"url": "https://pets.invalid/v1"}],
    "components": {
        "securitySchemes": {"key": {"type": "apiKey", "in": "header", "name": "X-Api-Key"}},
    },
    "security": [{"key": []}],
    "paths": {
        "/pets": {
            "get": {
                "operationId": "listPets",
                "parameters": [
                    {"name": "limit", "in": "query",
                     "schema": {"type": "integer", "minimum": 1, "maximum": 100}},
                    {"name": "x-echo-status", "in": "header", "schema": {"type": "string"}},
                ],
                "responses": {"200": {"description": "pets"}},
            },
            "post": {
                "operationId": "createPet",
                "requestBody": {"required": True, "content": {"application/json": {"schema": {
                    "type": "object", "required": ["name"],
                    "properties": {"name": {"type": "string"},
                                   "tags": {"type": "array", "items": {"type": "string"}},
                                   "owner": {"type": "object",
                                             "properties": {"id": {"type": "integer"}}}},
                }}}},
                "responses": {"201": {"description": "created"}},
            },
        },
        "/pets/{petId}": {
            "get": {
                "operationId": "getPet",
                "parameters": [{"name": "petId", "in": "path", "required": True,
                                "schema": {"type": "integer"}}],
                "responses": {"200": {"description": "a pet"}},
            },
        },
    },
}


def compiled(provider: str, **options: Any) -> httpllm.Application:
    """The pet API compiled for ``provider``."""
    return httpllm.compile(PETS, provider=provider, **options)


@pytest.fixture
def anyio_backend() -> str:
    """Async tests run on asyncio."""
    return "asyncio"
