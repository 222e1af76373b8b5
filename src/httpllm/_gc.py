"""Pausing the cyclic garbage collector around a compile, safely across threads."""

from __future__ import annotations

import functools
import gc
import threading
from collections.abc import Callable
from typing import Any, TypeVar, cast

__all__ = ["pausing_gc"]

_F = TypeVar("_F", bound=Callable[..., Any])

_lock = threading.Lock()
_running = 0  # paused calls running now, in every thread
_restore = False  # whether the collector was on when the first of them started


def pausing_gc(function: _F) -> _F:
    """Pause the cyclic garbage collector while ``function`` runs.

    Compiling builds hundreds of thousands of small dicts and no reference cycles; the
    collector's generation scans over them cost measurable CPU time (measured here on
    GitHub's description, CPython 3.11: compile + ``tools()`` 0.140 s paused vs 0.152 s
    not; with every ``Function.output`` read, 0.34 s vs 0.42 s). Reference counting still
    frees everything.

    The switch is process-wide (``gc.disable``), so it is counted: the first paused call
    to start (in any thread) remembers whether the collector was on and turns it off; the
    last one to finish turns it back on if it was. Two threads compiling at once thus never
    turn it on under each other, and a host that turned the collector off keeps it off.
    A host that toggles ``gc`` itself while a compile runs in another thread may find its
    setting undone when the compile finishes.
    """

    @functools.wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        global _running, _restore
        with _lock:
            if _running == 0:
                _restore = gc.isenabled()
                gc.disable()
            _running += 1
        try:
            return function(*args, **kwargs)
        finally:
            with _lock:
                _running -= 1
                if _running == 0 and _restore:
                    gc.enable()

    return cast(_F, wrapper)
