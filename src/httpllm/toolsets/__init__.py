"""Tool lists for large APIs: token budgets (:mod:`.budget`, :mod:`.tokens`), groups
(:mod:`.groups`), native deferred loading (:mod:`.deferred`), lint (:mod:`.lint`), search over
the functions (:mod:`.search`) and the portable search -> describe -> invoke trio
(:func:`discover`).

Each module has one job and works on a compiled application (anything with the
:class:`~httpllm.toolsets._compiled.Compiled` attributes); ``Application`` methods and the
CLI call them. This package imports nothing above ``execute``.
"""

from __future__ import annotations

import importlib
from typing import Any

from httpllm.toolsets.discover import Discovery, discover

_SUBMODULES = ("embedders", "lint")
"""The public modules of the package: ``embedders`` (``from_callable`` ...) and ``lint``
(``RULES``); the others are reached through ``Application`` and the command line."""

__all__ = ["Discovery", "discover", "embedders", "lint"]


def __getattr__(name: str) -> Any:
    """A public module of the package, imported on first use (PEP 562)."""
    if name in _SUBMODULES:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

