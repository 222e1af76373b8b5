"""The public surface: httpllm.__all__ is sorted and complete."""

from __future__ import annotations

import types

import httpllm


def test_all_is_sorted_and_complete() -> None:
    """Every public name is in __all__, sorted, and importable."""
    assert httpllm.__all__ == sorted(httpllm.__all__)
    public = {name for name in dir(httpllm) if not name.startswith("_")}
    modules = {name for name in public if isinstance(getattr(httpllm, name), types.ModuleType)}
    assert public - modules - {"annotations"} == set(httpllm.__all__)
    for name in httpllm.__all__:
        assert getattr(httpllm, name) is not None
