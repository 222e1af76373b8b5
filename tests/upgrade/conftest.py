"""The echo app of tests/execute behind uvicorn on 127.0.0.1, answering the OpenAPI 3.2
`QUERY` method and `COPY` and `PURGE` (`additionalOperations` methods) too."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from execute.conftest import METHODS, echo
from loopback import running
from starlette.applications import Starlette
from starlette.routing import Route

ECHO = Starlette(routes=[Route("/{rest:path}", echo, methods=[*METHODS, "QUERY", "COPY", "PURGE"])])


@pytest.fixture(scope="session")
def echo_server() -> Iterator[str]:
    """The echo app on a free 127.0.0.1 port; yields its base URL."""
    with running(ECHO, lifespan="off") as url:
        yield url
