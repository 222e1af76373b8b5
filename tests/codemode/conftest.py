"""Fixtures of the code-mode tests: the recording upstream API of tests/server (uvicorn on
127.0.0.1, every request it receives appended to `SEEN`) and Deno, which the `test` extra
installs (`deno` on PyPI); without it the tests that run programs are skipped, and fail
when the `CI` variable is set."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "server"))

from loopback import running
from upstream import APP


@pytest.fixture(scope="session")
def upstream() -> Iterator[str]:
    """The recording upstream API's base URL."""
    with running(APP) as url:
        yield url


@pytest.fixture(scope="session")
def deno() -> str:
    """The Deno executable code mode uses."""
    from httpllm.codemode.sandbox import find_deno
    from httpllm.errors import MissingExtra

    try:
        return find_deno()
    except MissingExtra as exc:
        if os.environ.get("CI"):
            pytest.fail(exc.message, pytrace=False)
        pytest.skip(exc.message)
