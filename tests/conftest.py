"""Shared fixtures: where the shared OpenAPI corpus and the bug cases live (tests/shared.py).

`HTTPLLM_SPECS` names the corpus folder (the one holding MANIFEST.tsv) and `HTTPLLM_CASES` the
bug-case folder (C*.yaml); without them `../shared/specs` and `../shared/cases` beside the
checkout. When a folder is missing the tests that need it fail under CI (`CI` or
`HTTPLLM_REQUIRE_CORPUS` is set) and are skipped elsewhere, with a reason saying how to get it.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

# `checkers` and `shared` are imported by name from every test folder, whether or not `tests`
# is a package.
sys.path.insert(0, str(Path(__file__).resolve().parent))

import shared


@pytest.fixture(scope="session")
def specs_dir() -> Path:
    """The shared OpenAPI corpus folder (holding MANIFEST.tsv)."""
    return shared.require("specs")


@pytest.fixture(scope="session")
def cases_dir() -> Path:
    """The shared bug-case folder (holding C*.yaml)."""
    return shared.require("cases")


NOT_QUICK = ("corpus", "dialects", "prism", "clients", "hosts", "slow")
"""Markers that keep a test out of the quick tier (`pytest -m quick`): the corpus sweeps,
Prism, MCP clients and hosts from npm, and the tests marked `slow` (over ~2 s each)."""


CORPUS_FIXTURES = ("specs_dir", "corpus")
"""Fixtures that hand a test the OpenAPI corpus: a test using one is marked `corpus`."""


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark `corpus` every test that reads the OpenAPI corpus (it compiles real documents,
    seconds each), then `quick` every test that carries none of :data:`NOT_QUICK` (before
    `-m` selects)."""
    for item in items:
        if set(getattr(item, "fixturenames", ())) & set(CORPUS_FIXTURES):
            item.add_marker(pytest.mark.corpus)
        if not any(item.get_closest_marker(name) for name in NOT_QUICK):
            item.add_marker(pytest.mark.quick)


def pytest_configure(config: pytest.Config) -> None:
    """Register the markers the acceptance tests use."""
    config.addinivalue_line(
        "markers", "dialects: corpus checks for the dialects beyond 3.1 and chatgpt"
    )
    config.addinivalue_line(
        "markers", "xdist_group(name): run these tests on one pytest-xdist worker (loadgroup)"
    )
