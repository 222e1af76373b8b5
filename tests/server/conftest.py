"""Fixtures of the server tests: the upstream API on 127.0.0.1 and its document on disk."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from loopback import running
from upstream import APP, document


@pytest.fixture
def anyio_backend() -> str:
    """Async tests run on asyncio."""
    return "asyncio"


@pytest.fixture(scope="session")
def upstream() -> Iterator[str]:
    """The upstream API's base URL (uvicorn on a free 127.0.0.1 port)."""
    with running(APP) as url:
        yield url


@pytest.fixture(scope="session")
def spec_file(upstream: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The upstream's OpenAPI document, written to a file (its server is the upstream)."""
    path = tmp_path_factory.mktemp("spec") / "shop.json"
    path.write_text(json.dumps(document(upstream)), encoding="utf-8")
    return path
