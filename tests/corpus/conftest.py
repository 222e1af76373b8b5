"""The corpus checks compile each document once per provider (tests/corpus/test_corpus.py's
module-scoped `outcome` fixture) and run every check on it; a check that is not for a
document or provider is deselected here, at collection, rather than skipped when it runs."""

from __future__ import annotations

import pytest


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Deselect the `outcome` tests their module's `applies(test, param)` says no to."""
    kept, dropped = [], []
    for item in items:
        applies = getattr(getattr(item, "module", None), "applies", None)
        params = getattr(getattr(item, "callspec", None), "params", {})
        name = getattr(item, "originalname", item.name)
        if applies is not None and "outcome" in params and not applies(name, params["outcome"]):
            dropped.append(item)
        else:
            kept.append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept
