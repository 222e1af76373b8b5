"""The toolsets tests call operations on the echo app of tests/execute (uvicorn on
127.0.0.1): its `live_server` fixture, shared."""

from __future__ import annotations

from execute.conftest import live_server

__all__ = ["live_server"]
