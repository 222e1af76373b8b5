"""The corpus tests of the dialects share one sweep of the corpus (sweep.py): tell it which
modes this session selected, so that the first of them compiles each document once for all;
under pytest-xdist `--dist loadgroup` they run on one worker, which sweeps once."""

from __future__ import annotations

import pytest


def _mode(item: pytest.Item) -> str | None:
    """The corpus mode an item checks (its `mode` parameter), if it is a corpus test."""
    params = getattr(getattr(item, "callspec", None), "params", {})
    if item.get_closest_marker("corpus") is None or "mode" not in params:
        return None
    return str(params["mode"])


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Keep the corpus tests together on one pytest-xdist worker (`--dist loadgroup`)."""
    for item in items:
        if _mode(item) is not None:
            item.add_marker(pytest.mark.xdist_group("dialect-corpus-sweep"))


def pytest_collection_finish(session: pytest.Session) -> None:
    """Pass the mode of every selected corpus test to :func:`sweep.select`."""
    from sweep import select

    select(mode for mode in map(_mode, session.items) if mode is not None)
