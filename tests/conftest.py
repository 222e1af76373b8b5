"""Shared fixtures: where the shared OpenAPI corpus and the bug cases live.

`HTTPLLM_SPECS` names the corpus folder (the one holding MANIFEST.tsv) and `HTTPLLM_CASES` the
bug-case folder (C*.yaml); `.ci/run` sets both. When one is unset or names a missing folder,
the tests that need it fail under CI (the `CI` variable is set) and are skipped elsewhere.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

# `checkers` is imported by name from every test folder, whether or not `tests` is a package.
sys.path.insert(0, str(Path(__file__).resolve().parent))

SPECS_VAR = "HTTPLLM_SPECS"
CASES_VAR = "HTTPLLM_CASES"


def shared_dir(var: str) -> tuple[Path | None, str]:
    """The folder named by environment variable `var`, or `None` and the reason it is unusable."""
    value = os.environ.get(var)
    if not value:
        return None, f"{var} is not set"
    path = Path(value)
    if not path.is_dir():
        return None, f"{var}={value} is not a folder"
    return path, ""


def require_dir(var: str) -> Path:
    """The folder named by `var`; fails under CI and skips elsewhere when it is unusable."""
    path, reason = shared_dir(var)
    if path is None:
        message = f"{reason}: point it at the shared folder (.ci/run does)"
        if os.environ.get("CI"):
            pytest.fail(message, pytrace=False)
        pytest.skip(message)
    return path


@pytest.fixture(scope="session")
def specs_dir() -> Path:
    """The shared OpenAPI corpus folder (holding MANIFEST.tsv), from `HTTPLLM_SPECS`."""
    return require_dir(SPECS_VAR)


@pytest.fixture(scope="session")
def cases_dir() -> Path:
    """The shared bug-case folder (holding C*.yaml), from `HTTPLLM_CASES`."""
    return require_dir(CASES_VAR)


def pytest_configure(config: pytest.Config) -> None:
    """Register the markers the acceptance tests use."""
    config.addinivalue_line(
        "markers", "dialects: corpus checks for the dialects beyond 3.1 and chatgpt"
    )
    config.addinivalue_line(
        "markers", "xdist_group(name): run these tests on one pytest-xdist worker (loadgroup)"
    )
