"""Shared fixtures: where the shared OpenAPI corpus and the bug cases live (tests/shared.py).

`HTTPLLM_SPECS` names the corpus folder (the one holding MANIFEST.tsv) and `HTTPLLM_CASES` the
bug-case folder (C*.yaml); without them `../shared/specs` and `../shared/cases` beside the
checkout. When a folder is missing the tests that need it fail under CI (`CI` or
`HTTPLLM_REQUIRE_CORPUS` is set) and are skipped elsewhere, with a reason saying how to get it.

Collection stays cheap (issue 24, tests/test_collection.py): it runs with the garbage
collector paused, installed packages' asserts are not rewritten, and what it imported is
recorded (:func:`imported_by_collection`).
"""

from __future__ import annotations

import gc
import importlib.util
import sys
from collections.abc import Generator
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
    """Register the markers the acceptance tests use; rewrite the asserts of our code only."""
    _rewrite_ours_only(config)
    config.addinivalue_line(
        "markers", "dialects: corpus checks for the dialects beyond 3.1 and chatgpt"
    )
    config.addinivalue_line(
        "markers", "xdist_group(name): run these tests on one pytest-xdist worker (loadgroup)"
    )


def _rewrite_ours_only(config: pytest.Config) -> None:
    """Unmark for assertion rewriting the installed packages pytest marked, keeping ours.

    pytest rewrites the asserts of every module of each installed distribution that has a
    `pytest11` plugin (hypothesis, anyio, pytest-xdist, langsmith; pytest-dev/pytest#3479),
    and with `PYTHONDONTWRITEBYTECODE` it cannot cache the result: collecting the quick tier
    parsed, rewrote and compiled 116 of their modules on each run (hypothesis alone: 75),
    about a tenth of collection's CPU time (issue 24). No test asserts through their code,
    so they are imported as compiled. Our own modules (under the rootdir) stay marked. The
    modules a plugin imports before this conftest loads (anyio's 30, pytest-xdist's 6) are
    rewritten already. A pytest without these internals keeps its default;
    tests/test_collection.py notices.
    """
    hook = config.pluginmanager.rewrite_hook
    marked = getattr(hook, "_must_rewrite", None)
    cache = getattr(hook, "_marked_for_rewrite_cache", None)
    if not isinstance(marked, set) or not isinstance(cache, dict):
        return
    installed = {name for name in marked if not _under(name, config.rootpath)}
    marked -= installed
    cache.clear()


def _under(name: str, root: Path) -> bool:
    """Whether the top-level module or package `name` is ours: found under `root` and not
    installed there (a virtualenv inside the checkout); unknown: yes."""
    try:
        spec = importlib.util.find_spec(name.partition(".")[0])
    except (ImportError, ValueError):
        return True
    if spec is None or spec.origin is None:
        return True
    path = Path(spec.origin).resolve()
    return path.is_relative_to(root) and not {"site-packages", "dist-packages"} & set(path.parts)


@pytest.hookimpl(wrapper=True)
def pytest_collection(session: pytest.Session) -> Generator[None, object, object]:
    """Collect with the cyclic garbage collector paused, then freeze what collection made.

    Collecting imports every test module and the libraries they use: each full collection
    walks all those long-lived objects again, and the heap grows by a quarter between
    them, so collecting the quick tier ran ~23 full collections, about a quarter of its CPU
    time (issue 24). Collection makes almost no cyclic garbage; `gc.freeze()` then keeps
    the modules, functions and items it made out of the collections of the test run.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        return (yield)
    finally:
        gc.freeze()
        if enabled:
            gc.enable()
        session.config.stash[_IMPORTED] = frozenset(name.partition(".")[0] for name in sys.modules)


_IMPORTED = pytest.StashKey[frozenset[str]]()


@pytest.fixture(scope="session")
def imported_by_collection(request: pytest.FixtureRequest) -> frozenset[str]:
    """The top-level modules imported when collection ended (tests/test_collection.py)."""
    return request.config.stash.get(_IMPORTED, frozenset())
