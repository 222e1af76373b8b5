"""Collecting the suite stays cheap (issue 24: `pytest -m quick` collects in under 5 s on a
2-core machine with ``PYTHONDONTWRITEBYTECODE=1``).

`-m quick` imports every test module: the quick marker is set after collection
(tests/conftest.py), so nothing a module imports at module level is free. tests/conftest.py
pauses the garbage collector while collecting and leaves installed packages' asserts alone;
these tests hold it to that.
"""

from __future__ import annotations

import gc
import sys

import pytest


def test_installed_packages_are_not_rewritten(request: pytest.FixtureRequest) -> None:
    """pytest's assertion rewriting reaches our test modules, not hypothesis (an installed
    package with a pytest plugin, which pytest marks for rewriting)."""
    hook = request.config.pluginmanager.rewrite_hook
    if hook is None or hook not in sys.meta_path:
        pytest.skip("assertion rewriting is off (--assert=plain)")
    import hypothesis.strategies  # noqa: F401  (imported now if no test module did)

    assert sys.modules[__name__].__loader__ is hook
    rewritten = sorted(name for name, module in list(sys.modules.items())
                       if name.split(".")[0] == "hypothesis"
                       and getattr(module, "__loader__", None) is hook)
    assert rewritten == []


def test_collection_leaves_its_objects_frozen() -> None:
    """Collection ends with the garbage collector on again and what it made frozen, out of
    the full collections of the run."""
    assert gc.isenabled()
    assert gc.get_freeze_count() > 0
