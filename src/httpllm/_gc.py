"""Pausing the cyclic garbage collector around a compile."""

from __future__ import annotations

import functools
import gc
from collections.abc import Callable
from typing import Any, TypeVar, cast

__all__ = ["pausing_gc"]

_F = TypeVar("_F", bound=Callable[..., Any])


def pausing_gc(function: _F) -> _F:
    """Pause the cyclic garbage collector while ``function`` runs.

    Compiling builds hundreds of thousands of small dicts and no reference cycles; the
    collector's generation scans over them cost a third of the CPU time on GitHub's
    description (0.77 s -> 0.51 s measured here). Reference counting still frees
    everything; the collector is re-enabled (if it was on) before returning.
    """

    @functools.wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        enabled = gc.isenabled()
        gc.disable()
        try:
            return function(*args, **kwargs)
        finally:
            if enabled:
                gc.enable()

    return cast(_F, wrapper)
