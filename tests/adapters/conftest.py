"""The pet API and the echo server of tests/agent, for the framework adapters."""

from __future__ import annotations

from agent.conftest import API_KEY, PETS, anyio_backend, compiled, live_server

__all__ = ["API_KEY", "PETS", "anyio_backend", "compiled", "live_server"]
